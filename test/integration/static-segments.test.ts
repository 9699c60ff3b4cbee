import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/http.ts';

/**
 * Static path segments are routes of their own (issue 23; SERVICE.md 4.2 has
 * /tokens/signals beside /tokens/{token_address}): `signals`, `posts`, `rankings`,
 * `leaderboard` and `activity` are never read as an address, on any plan. A Starter key
 * gets the Pro routes' 403/4033 (never a 400 about an address), a Pro key the route's own
 * answer (here, without an engine behind the server, 503 naming what is missing).
 * Every route of SERVICE.md 4.2 is built: none answers 501 any more.
 */
let srv: TestServer;
let starter: string;
let pro: string;
beforeAll(async () => {
  srv = await startTestServer();
  starter = (await srv.keys.create({ plan: 'starter' })).key;
  pro = (await srv.keys.create({ plan: 'pro' })).key;
});
afterAll(() => srv.close());

const get = async (path: string, key: string) => {
  const res = await fetch(srv.baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as { code: number; error: string | null; message: string; data: unknown } };
};

const PRO_ONLY = ['/v1/tokens/signals', '/v1/tokens/posts', '/v1/wallets', '/v1/wallets/activity', '/v1/wallets/signals'];
const ALL_PLANS = ['/v1/tokens/rankings/new_pair', '/v1/wallets/leaderboard'];

describe('static path segments', () => {
  it.each(PRO_ONLY)('GET %s is its own route: 403/4033 on Starter, 200 on Pro', async (path) => {
    const low = await get(path, starter);
    expect(low.status, path).toBe(403);
    expect(low.body.code).toBe(4033);
    // This server has no engine behind it: the route itself answers (503 naming what is
    // missing), never a 400 about an address, a 404 or a 501.
    const high = await get(path, pro);
    expect([200, 503], `${path}: ${high.body.message}`).toContain(high.status);
    expect(high.body.message).not.toMatch(/address/);
  });

  it.each(ALL_PLANS)('GET %s is its own route on every paid plan', async (path) => {
    const res = await get(path, starter);
    expect([200, 503], `${path}: ${res.body.message}`).toContain(res.status);
    expect(res.body.message).not.toMatch(/address/);
  });

  it('no route answers 501 NOT_IMPLEMENTED', async () => {
    for (const path of [...PRO_ONLY, ...ALL_PLANS]) expect((await get(path, pro)).status, path).not.toBe(501);
  });

  it('still needs a key, like every /v1 route', async () => {
    const res = await fetch(`${srv.baseUrl}/v1/tokens/posts`);
    expect(res.status).toBe(401);
  });

  it('leaves the parameter routes beside them alone', async () => {
    // A word in the address's place is still a bad address, as before.
    expect((await get('/v1/tokens/nothing/trades', starter)).body.code).toBe(4000);
    expect((await get('/v1/tokens/So11111111111111111111111111111111111111112/pools', starter)).status).not.toBe(501);
  });
});
