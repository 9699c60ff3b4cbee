import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/http.ts';

/**
 * Static path segments win over parameters (SERVICE.md 4.2 has /tokens/signals beside
 * /tokens/{token_address}), and the routes of SERVICE.md that mds does not build yet
 * answer 501/5010 NOT_IMPLEMENTED, naming the route, on every plan: never a 400 about
 * an address, never a 403 telling the caller to upgrade for something not there.
 */
let srv: TestServer;
let starter: string;
beforeAll(async () => {
  srv = await startTestServer();
  starter = (await srv.keys.create({ plan: 'starter' })).key;
});
afterAll(() => srv.close());

const get = async (path: string, key = starter) => {
  const res = await fetch(srv.baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as { code: number; error: string | null; message: string; data: unknown } };
};

// Routes 17 and 22 (/v1/tokens/signals, /v1/wallets/signals) are built: signals.test.ts.
const NOT_BUILT = ['/v1/tokens/posts', '/v1/wallets', '/v1/wallets/activity'];

describe('routes not built yet', () => {
  it.each(NOT_BUILT)('GET %s answers 501/5010 NOT_IMPLEMENTED with the envelope, on a starter key', async (path) => {
    const { status, body } = await get(path);
    expect(status).toBe(501);
    expect(body).toEqual({ code: 5010, error: 'NOT_IMPLEMENTED', message: expect.stringMatching(/^GET \/v1\/\S+ is not built in this version of mds/), data: null });
  });

  it('still needs a key, like every /v1 route', async () => {
    const res = await fetch(`${srv.baseUrl}/v1/tokens/posts`);
    expect(res.status).toBe(401);
  });

  it('leaves the parameter routes beside them alone', async () => {
    // A word in the address's place is still a bad address, as before.
    expect((await get('/v1/tokens/nothing/trades')).body.code).toBe(4000);
    expect((await get('/v1/tokens/So11111111111111111111111111111111111111112/pools')).status).not.toBe(501);
  });
});
