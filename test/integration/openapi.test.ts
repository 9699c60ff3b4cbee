import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../transport/index.ts';
import { openApiPath } from '../../transport/http/openapi.ts';
import { startTestServer, type TestServer } from '../helpers/http.ts';

/** GET /openapi.json: an OpenAPI 3.1 document of every route of the table, served without a key. */

let t: TestServer;
let doc: any;
let raw: string;

beforeAll(async () => {
  t = await startTestServer();
  const res = await fetch(`${t.baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  raw = await res.text();
  doc = JSON.parse(raw);
});

afterAll(() => t.close());

const op = (pattern: string) => doc.paths[openApiPath(pattern)].get;
const param = (pattern: string, name: string) => op(pattern).parameters.find((p: any) => p.name === name);

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document, outside the envelope, the same bytes every time', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '1.0.0' });
    expect(doc.code).toBeUndefined();
    expect(await (await fetch(`${t.baseUrl}/openapi.json`)).text()).toBe(raw);
  });

  it('lists every route of the table with its path and query parameters', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(ROUTES.map((r) => openApiPath(r.pattern)).sort());
    for (const route of ROUTES) {
      const operation = op(route.pattern);
      expect(operation.operationId, route.pattern).toEqual(expect.any(String));
      expect(operation.summary, route.pattern).toEqual(expect.any(String));
      const names = operation.parameters.map((p: any) => `${p.in}:${p.name}`).sort();
      const expected = [...Object.keys(route.params.shape).map((n) => `path:${n}`), ...Object.keys(route.query.shape).map((n) => `query:${n}`)].sort();
      expect(names, route.pattern).toEqual(expected);
      expect(operation.security, route.pattern).toEqual(route.auth ? [{ bearer: [] }] : []);
      expect(Object.keys(operation.responses), route.pattern).toContain('200');
      expect(Object.keys(operation.responses), route.pattern).toContain('400');
      if (route.auth) expect(Object.keys(operation.responses), route.pattern).toEqual(expect.arrayContaining(['401', '429']));
    }
    const ids = ROUTES.map((r) => op(r.pattern).operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('states defaults, maxima and enums as the route schemas enforce them', () => {
    expect(param('/v1/tokens/search', 'limit')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
    expect(param('/v1/tokens/search', 'sort').schema).toMatchObject({ enum: ['relevance', 'market_cap_usd', 'volume_usd', 'liquidity_usd', 'trader_count', 'created_at'], default: 'relevance' });
    expect(param('/v1/tokens/search', 'match').schema).toMatchObject({ enum: ['smart', 'exact', 'prefix'], default: 'smart' });
    expect(param('/v1/tokens/search', 'window').schema.enum).toEqual(['5m', '1h', '6h', '24h']);
    expect(param('/v1/tokens/search', 'q').schema).toMatchObject({ type: 'string', maxLength: 100 });
    expect(param('/v1/pools', 'limit').schema).toMatchObject({ minimum: 1, maximum: 100, default: 50 });
    expect(param('/v1/pools', 'sort').schema).toMatchObject({ enum: ['created_at', 'liquidity_usd', 'volume_usd'], default: 'created_at' });
    expect(param('/v1/pools', 'order').schema).toMatchObject({ enum: ['asc', 'desc'], default: 'desc' });
    expect(param('/v1/pools/:pool_address/trades', 'limit').schema).toMatchObject({ maximum: 500, default: 50 });
    expect(param('/v1/pools/:pool_address/trades', 'pool_address')).toMatchObject({ in: 'path', required: true, schema: { pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' } });
    expect(param('/v1/pools/metrics', 'addresses')).toMatchObject({ required: true, schema: { description: expect.stringContaining('1 to 50') } });
    expect(param('/v1/tokens/search', 'cursor').description).toContain('400');
    expect(doc.paths['/v1/tokens/search'].get.description).toContain('desc');
    expect(doc.info.description).toContain('RateLimit-Remaining');
  });

  it('describes the data of the SERVICE.md routes, and every $ref resolves', () => {
    const data = (pattern: string) => op(pattern).responses['200'].content['application/json'].schema.properties.data;
    expect(data('/v1/tokens/search')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/TokenSearchItem' } });
    expect(op('/v1/tokens/search').responses['200'].content['application/json'].schema.required).toContain('pagination');
    expect(data('/v1/pools/:pool_address')).toEqual({ $ref: '#/components/schemas/PoolOverview' });
    expect(data('/v1/market/sol-price')).toEqual({ $ref: '#/components/schemas/SolPrice' });
    expect(Object.keys(doc.components.schemas.TokenSearchItem.properties)).toHaveLength(22);
    expect(op('/v1/tokens/search').responses['200'].headers).toHaveProperty('RateLimit-Remaining');
    const refs = [...raw.matchAll(/"\$ref":"#\/components\/(schemas|headers)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(50);
    for (const [, kind, name] of refs) expect(doc.components[kind!], `${kind}/${name}`).toHaveProperty([name!]);
  });
});

describe('GET /asyncapi.json', () => {
  it('is the AsyncAPI 3.1 description of /ws, with a channel per stream, served without a key', async () => {
    const res = await fetch(`${t.baseUrl}/asyncapi.json`);
    expect(res.status).toBe(200);
    const a = (await res.json()) as any;
    expect(a.asyncapi).toBe('3.1.0');
    expect(a.info.version).toBe('1.0.0');
    const text = JSON.stringify(a);
    for (const stream of ['token_metadata', 'candles', 'pool_metrics', 'token_trades', 'pool_trades']) expect(text).toContain(stream);
    for (const code of ['4401', '4402', '4408', '4429', '4008', '4400']) expect(text).toContain(code);
  });
});
