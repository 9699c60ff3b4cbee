import { describe, expect, it } from 'vitest';
import { responseProblem } from '../../helpers/openapi-responses.ts';

/** The setup hook that checks every response of the suite against /openapi.json's schemas does find what differs. */
describe('response check against the OpenAPI description', () => {
  const url = 'http://127.0.0.1:1/v1/market/sol-price';
  const ok = { code: 0, error: null, message: 'OK', data: { price_usd: 150, updated_at: 1 } };

  it('passes a response of the documented shape and status', () => {
    expect(responseProblem(url, 200, 'application/json', JSON.stringify(ok))).toBeNull();
    expect(responseProblem(url, 429, 'application/json', JSON.stringify({ code: 4290, error: 'RATE_LIMITED', message: 'm', data: null }))).toBeNull();
  });

  it('names a field of the wrong type, a status not described, a failure without its fields', () => {
    expect(responseProblem(url, 200, 'application/json', JSON.stringify({ ...ok, data: { price_usd: '150', updated_at: 1 } }))).toMatch(/^GET \/v1\/market\/sol-price 200: .*price_usd/);
    expect(responseProblem('http://127.0.0.1:1/v1/pools', 404, 'application/json', '{}')).toBe('GET /v1/pools: status 404 is not in its OpenAPI responses');
    expect(responseProblem(url, 400, 'application/json', JSON.stringify({ code: 4000, data: null }))).toMatch(/error|message/);
  });

  it('leaves alone what is not a route of the table, or not JSON', () => {
    expect(responseProblem('http://127.0.0.1:1/nowhere', 200, 'application/json', '{}')).toBeNull();
    expect(responseProblem('http://127.0.0.1:1/metrics', 200, 'text/plain', 'x 1')).toBeNull();
  });
});
