import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EngineError } from '../../engine/errors.ts';
import { defineRoute, page, ROUTES, type Admission } from '../../transport/index.ts';
import { rawGet, rawRequest, startTestServer, type TestServer } from '../helpers/http.ts';

/** A promise with its resolve exposed: lets a test decide when an async handler finishes. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

// Routes only this file adds to the table: a throwing handler, an async handler the
// test releases, and one with path and query parameters.
let releaseSlow = deferred();
const slowStarted: Array<() => void> = [];
const extraRoutes = [
  defineRoute({
    pattern: '/v1/test/throws',
    auth: true,
    handler: () => {
      throw new TypeError('boom: a handler bug');
    },
  }),
  defineRoute({
    pattern: '/v1/test/engine-error',
    auth: false,
    handler: () => {
      throw new EngineError(5030, 'actor restarting');
    },
  }),
  defineRoute({
    pattern: '/v1/test/slow',
    auth: false,
    handler: async () => {
      slowStarted.shift()?.();
      await releaseSlow.promise;
      return { slow: true };
    },
  }),
  defineRoute({
    pattern: '/v1/test/items/:item_id',
    auth: false,
    params: z.object({ item_id: z.string().regex(/^[a-z0-9 é]{1,8}$/) }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(50),
      order: z.enum(['asc', 'desc']).optional(),
      q: z.string().optional(),
    }),
    handler: ({ params, query }) => page([{ ...params, ...query }], { next_cursor: null, has_more: false }),
  }),
  defineRoute({ pattern: '/v1/test/bigint', auth: false, handler: () => ({ n: 1n }) }),
];

// The abort test watches the hook's done(): it runs once the server saw the abort.
const doneCalls: string[] = [];
let slowDone = deferred();
const hook = ({ route }: { route: { pattern: string } }): Admission | void => {
  if (route.pattern !== '/v1/test/slow') return;
  return {
    headers: { 'x-test-hook': 'yes' },
    done: () => {
      doneCalls.push(route.pattern);
      slowDone.resolve();
    },
  };
};

// Log lines the server writes, parsed: unknown throws must be logged once, with the cause.
const logs: Array<{ level: number; msg: string; err?: { message: string }; route?: string }> = [];
const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
const errorLogs = () => logs.filter((l) => l.level >= 50);

let t: TestServer;
let key: string;
let auth: Record<string, string>;

beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, ...extraRoutes], beforeHandle: [hook], log });
  key = (await t.keys.create({ plan: 'free' })).key;
  auth = { authorization: `Bearer ${key}` };
});

afterAll(async () => {
  await t?.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.baseUrl + path, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: safeJson(text) };
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON (Prometheus text): the test reads `text` instead.
    return undefined;
  }
}

function expectFailure(r: { status: number; headers: Headers; body: any }, code: number, message?: string | RegExp) {
  expect(r.status).toBe(Math.floor(code / 10));
  expect(r.headers.get('content-type')).toBe('application/json');
  expect(Object.keys(r.body).sort()).toEqual(['code', 'data', 'error', 'message']);
  expect(r.body.code).toBe(code);
  expect(r.body.data).toBeNull();
  expect(typeof r.body.error).toBe('string');
  if (message instanceof RegExp) expect(r.body.message).toMatch(message);
  else if (message !== undefined) expect(r.body.message).toBe(message);
}

async function expectStillServing() {
  const r = await get('/health');
  expect(r.status).toBe(200);
}

describe('envelope and routing', () => {
  it('GET /health answers without a key, 200 with the status in data', async () => {
    t.query.engineStatus = { status: 'starting', ingested: 7, durable: 5, deadLetters: 2, source: 'sim', sourceDone: null };
    const r = await get('/health');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body).toEqual({
      code: 0,
      error: null,
      message: 'OK',
      data: { status: 'starting', ingested: 7, durable: 5, dead_letters: 2, source: 'sim', source_done: null, source_state: null },
    });
    t.query.engineStatus = { status: 'ready', ingested: 7, durable: 7, deadLetters: 2, source: 'sim', sourceDone: null };
    expect((await get('/health')).body.data.status).toBe('ready');
  });

  it('an unknown route is 404 / 4040 naming method and path', async () => {
    const r = await get('/nope/x');
    expectFailure(r, 4040, 'route not found: GET /nope/x');
    expect(r.body.error).toBe('NOT_FOUND');
  });

  it('another method on a known path is 404 / 4040 (the API is read-only)', async () => {
    const res = await fetch(`${t.baseUrl}/v1/market/sol-price`, { method: 'POST', headers: auth, body: '{}' });
    const body = await res.json();
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ code: 4040, message: 'route not found: POST /v1/market/sol-price' });
  });

  it('a page carries pagination next to data; path and query parameters are decoded', async () => {
    const r = await get('/v1/test/items/a%20%C3%A9?limit=5&order=asc&q=x+y%26z');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      code: 0,
      error: null,
      message: 'OK',
      data: [{ item_id: 'a é', limit: 5, order: 'asc', q: 'x y&z' }],
      pagination: { next_cursor: null, has_more: false },
    });
  });

  it('a pattern whose :params do not match the params schema fails at definition', () => {
    expect(() => defineRoute({ pattern: '/v1/x/:pool_address', auth: true, handler: () => null })).toThrow(/pool_address/);
    expect(() =>
      defineRoute({ pattern: '/v1/x', auth: true, params: z.object({ a: z.string() }), handler: () => null }),
    ).toThrow(/do not match/);
  });

  it('a default applies when the parameter is absent', async () => {
    expect((await get('/v1/test/items/a')).body.data[0].limit).toBe(50);
  });
});

describe('authentication', () => {
  it('no Authorization header is 401 / 4010', async () => {
    expectFailure(await get('/v1/market/sol-price'), 4010);
  });

  it('a scheme other than Bearer is 401 / 4010', async () => {
    expectFailure(await get('/v1/market/sol-price', { authorization: `Basic ${key}` }), 4010);
  });

  it('a wrong key is 401 / 4013', async () => {
    const r = await get('/v1/market/sol-price', { authorization: 'Bearer mds_not-a-key' });
    expectFailure(r, 4013);
    expect(r.body.error).toBe('INVALID_API_KEY');
    const sameShape = 'mds_' + 'A'.repeat(43);
    expectFailure(await get('/v1/market/sol-price', { authorization: `Bearer ${sameShape}` }), 4013);
  });

  it('a revoked key is 401 / 4013 from the next request on', async () => {
    const created = await t.keys.create({ plan: 'pro' });
    t.query.price = { price_usd: 150, updated_at: 1 };
    expect((await get('/v1/market/sol-price', { authorization: `Bearer ${created.key}` })).status).toBe(200);
    expect(await t.keys.revoke(created.id)).toBe(true);
    expectFailure(await get('/v1/market/sol-price', { authorization: `Bearer ${created.key}` }), 4013);
  });

  it('an expired key still authenticates (plans handle the grace period)', async () => {
    const created = await t.keys.create({ plan: 'starter', expiresAt: t.clock.now() - 1 });
    t.query.price = { price_usd: 150, updated_at: 1 };
    expect((await get('/v1/market/sol-price', { authorization: `bearer ${created.key}` })).status).toBe(200);
  });
});

describe('GET /v1/market/sol-price', () => {
  it('is 404 / 4040 before any price', async () => {
    t.query.price = null;
    expectFailure(await get('/v1/market/sol-price', auth), 4040, 'no SOL price yet');
  });

  it('returns the price with a created key', async () => {
    t.query.price = { price_usd: 142.5, updated_at: 1_700_000_000_123 };
    const r = await get('/v1/market/sol-price', auth);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body).toEqual({ code: 0, error: null, message: 'OK', data: { price_usd: 142.5, updated_at: 1_700_000_000_123 } });
  });
});

describe('query validation', () => {
  it('an unknown parameter is 400 / 4000 naming it', async () => {
    t.query.price = { price_usd: 1, updated_at: 1 };
    const r = await get('/v1/market/sol-price?foo=1', auth);
    expectFailure(r, 4000, 'unknown parameter: foo');
    expect(r.body.error).toBe('BAD_REQUEST');
  });

  it('__proto__ is just an unknown parameter', async () => {
    expectFailure(await get('/v1/market/sol-price?__proto__=1', auth), 4000, 'unknown parameter: __proto__');
  });

  it('a bad value names its parameter', async () => {
    expectFailure(await get('/v1/test/items/a?limit=500'), 4000, /^limit: /);
    expectFailure(await get('/v1/test/items/a?limit=abc'), 4000, /^limit: /);
    expectFailure(await get('/v1/test/items/a?order=sideways'), 4000, /^order: /);
  });

  it('a bad path parameter names it', async () => {
    expectFailure(await get('/v1/test/items/UPPER'), 4000, /^item_id: /);
    expectFailure(await get('/v1/test/items/%zz'), 4000, /^item_id: /);
  });

  it('a repeated parameter is 400 naming it', async () => {
    expectFailure(await get('/v1/test/items/a?limit=1&limit=2'), 4000, 'limit: given more than once');
  });

  it('a query longer than http.queryBytesMax is 400 naming query, and the server keeps serving', async () => {
    const r = await get(`/v1/market/sol-price?q=${'a'.repeat(100_000)}`, auth);
    expectFailure(r, 4000, /^query: longer than 8192 bytes/);
    await expectStillServing();
  });

  it('malformed percent-encoding is 400, and the server keeps serving', async () => {
    const r = await rawRequest(t.port, rawGet(Buffer.from('/v1/test/items/a?q=%zz'), {}));
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toMatchObject({ code: 4000, data: null, message: expect.stringMatching(/^q: /) });
    const truncated = await rawRequest(t.port, rawGet(Buffer.from('/v1/test/items/a?q=%E'), {}));
    expect(JSON.parse(truncated.body)).toMatchObject({ code: 4000, message: expect.stringMatching(/^q: /) });
    await expectStillServing();
  });

  it('invalid UTF-8, percent-encoded or raw, is 400, and the server keeps serving', async () => {
    for (const target of [
      Buffer.from('/v1/test/items/a?q=%ff%fe'),
      Buffer.from('/v1/test/items/a?q=%C3%28'),
      Buffer.concat([Buffer.from('/v1/test/items/a?q='), Buffer.from([0xff, 0xfe, 0xc3, 0x28])]),
      Buffer.concat([Buffer.from('/v1/test/items/'), Buffer.from([0xff]), Buffer.from('?q=1')]),
    ]) {
      const r = await rawRequest(t.port, rawGet(target, auth));
      expect(r.status, target.toString('latin1')).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({ code: 4000, error: 'BAD_REQUEST', data: null });
    }
    await expectStillServing();
  });
});

describe('failures inside handlers', () => {
  it('a handler that throws gives 500 / 5000 with a generic message, logged once with the cause', async () => {
    const before = errorLogs().length;
    const r = await get('/v1/test/throws', auth);
    expectFailure(r, 5000);
    expect(r.body.error).toBe('INTERNAL');
    expect(r.body.message).not.toMatch(/boom/);
    const logged = errorLogs().slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ route: '/v1/test/throws', err: { message: 'boom: a handler bug' } });
    await expectStillServing();
  });

  it('an EngineError keeps its code and message', async () => {
    expectFailure(await get('/v1/test/engine-error'), 5030, 'actor restarting');
  });

  it('data that cannot be serialized is 500 / 5000', async () => {
    expectFailure(await get('/v1/test/bigint'), 5000);
  });

  it('a client aborting during an async handler does not crash the process', async () => {
    const started = deferred();
    slowStarted.push(started.resolve);
    slowDone = deferred();
    const before = doneCalls.length;
    const socket = connect(t.port, '127.0.0.1');
    socket.on('error', () => {
      // The server may reset the socket we are destroying; nothing to assert on.
    });
    socket.write('GET /v1/test/slow HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await started.promise;
    socket.destroy();
    // done() runs once uWS reports the abort: only then release the handler, whose
    // result must then not be written to the aborted response.
    await slowDone.promise;
    expect(doneCalls.length).toBe(before + 1);
    const errorsBefore = errorLogs().length;
    releaseSlow.resolve();
    await expectStillServing();
    expect(doneCalls.length).toBe(before + 1);
    // The late result was dropped, not written to the aborted response.
    expect(errorLogs().slice(errorsBefore)).toEqual([]);
    releaseSlow = deferred();
  });

  it('a completed async handler answers, with the beforeHandle headers', async () => {
    const started = deferred();
    slowStarted.push(started.resolve);
    const response = get('/v1/test/slow');
    await started.promise;
    releaseSlow.resolve();
    const r = await response;
    expect(r.status).toBe(200);
    expect(r.headers.get('x-test-hook')).toBe('yes');
    expect(r.body.data).toEqual({ slow: true });
    releaseSlow = deferred();
  });
});

describe('GET /metrics', () => {
  it('serves Prometheus text without a key, counting responses by route pattern and code', async () => {
    await get('/v1/test/items/abc');
    await get('/v1/market/sol-price');
    const r = await get('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toContain('# TYPE mds_http_requests_total counter');
    expect(r.text).toMatch(/mds_http_requests_total\{route="\/v1\/test\/items\/:item_id",code="0"\} \d+/);
    expect(r.text).toMatch(/mds_http_requests_total\{route="\/v1\/market\/sol-price",code="4010"\} \d+/);
    expect(r.text).toMatch(/mds_http_requests_total\{route="unmatched",code="4040"\} \d+/);
    expect(r.text).not.toContain('route="/v1/test/items/abc"');
  });
});
