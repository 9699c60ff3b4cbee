import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { base58, rng } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * SERVICE.md 3.2 (WebSocket connection), 3.3 (plan access) and every close code of
 * 7.2 and DECISIONS.md, against a real uWS server with real `ws` clients.
 */

const r = rng(501);
const POOL = base58(r, 44);
const GRACE_MS = 2 * 3_600_000;

let srv: WsTestServer;

beforeAll(async () => {
  srv = await startWsServer({ config: { ws: { authTimeoutMs: 300 } } });
});

afterAll(async () => {
  await srv.close();
});

const tradeFrame = (n: number) => `{"stream":"pool_trades","data":{"n":${n}}}`;

describe('authentication', () => {
  it('Bearer header at connect: authenticated at once, no auth frame needed', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.connect(srv.url, { key });
    c.subscribe('pool_trades', { pool_address: POOL });
    expect(await c.untilPong()).toEqual([]);
    srv.endpoint.sink.publish(`pool_trades:${POOL}`, tradeFrame(1));
    expect(await c.next()).toEqual({ stream: 'pool_trades', data: { n: 1 } });
    c.close();
    await c.closed;
  });

  it('auth frame within the deadline: answered {type:auth,status:ok}', async () => {
    const { key } = await srv.key('pro');
    const c = await TestClient.connect(srv.url);
    c.send({ type: 'auth', key });
    expect(await c.next()).toEqual({ type: 'auth', status: 'ok' });
    c.close();
    await c.closed;
  });

  it('frames sent right after the auth frame are held until authenticated, never rejected', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.connect(srv.url);
    // All three go out before any reply can arrive.
    c.send({ type: 'auth', key });
    c.subscribe('pool_trades', { pool_address: POOL });
    c.send({ type: 'ping' });
    expect(await c.next()).toEqual({ type: 'auth', status: 'ok' });
    expect(await c.next()).toEqual({ type: 'pong' });
    srv.endpoint.sink.publish(`pool_trades:${POOL}`, tradeFrame(2));
    expect(await c.next()).toEqual({ stream: 'pool_trades', data: { n: 2 } });
    c.close();
    await c.closed;
  });

  it('frames sent before the auth frame are held too and applied in order after it', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.connect(srv.url);
    c.subscribe('pool_trades', { pool_address: POOL });
    c.send({ type: 'ping' });
    c.send({ type: 'auth', key });
    expect(await c.next()).toEqual({ type: 'auth', status: 'ok' });
    expect(await c.next()).toEqual({ type: 'pong' });
    srv.endpoint.sink.publish(`pool_trades:${POOL}`, tradeFrame(3));
    expect(await c.next()).toEqual({ stream: 'pool_trades', data: { n: 3 } });
    c.close();
    await c.closed;
  });

  it('a repeated auth frame with the same key is answered ok again', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.connect(srv.url, { key });
    c.send({ type: 'auth', key });
    expect(await c.next()).toEqual({ type: 'auth', status: 'ok' });
    c.close();
    await c.closed;
  });

  it('ping → pong', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.authed(srv.url, key);
    c.send({ type: 'ping' });
    expect(await c.next()).toEqual({ type: 'pong' });
    c.close();
    await c.closed;
  });

  it('declines compression a client offers (permessage-deflate): frames go out as serialized, once for all', async () => {
    const { key } = await srv.key('starter');
    const ws = new WebSocket(srv.url, { headers: { authorization: `Bearer ${key}` }, perMessageDeflate: true });
    const offered = new Promise<string | undefined>((resolve) => ws.once('upgrade', (res) => resolve(res.headers['sec-websocket-extensions'] as string | undefined)));
    const c = new TestClient(ws);
    await c.opened;
    expect(await offered).toBeUndefined();
    expect(ws.extensions).toBe('');
    c.send({ type: 'ping' });
    expect(await c.next()).toEqual({ type: 'pong' });
    c.close();
    await c.closed;
  });
});

describe('close codes', () => {
  it('4401: invalid key in the header', async () => {
    const c = await TestClient.connect(srv.url, { key: 'mds_not-a-key' });
    expect((await c.closed).code).toBe(4401);
  });

  it('4401: a header that is not Bearer', async () => {
    const { key } = await srv.key('pro');
    const c = await TestClient.connect(srv.url, { authorization: `Basic ${key}` });
    expect((await c.closed).code).toBe(4401);
  });

  it('4401: invalid key, or no key, in the auth frame', async () => {
    const a = await TestClient.connect(srv.url);
    a.send({ type: 'auth', key: 'mds_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(await a.closed).toEqual({ code: 4401, reason: 'invalid key' });
    const b = await TestClient.connect(srv.url);
    b.send({ type: 'auth', key: 42 });
    expect((await b.closed).code).toBe(4401);
  });

  it('4401: a revoked key', async () => {
    const { id, key } = await srv.key('pro');
    await srv.keys.revoke(id);
    const c = await TestClient.connect(srv.url, { key });
    expect((await c.closed).code).toBe(4401);
  });

  it('4402: the free plan, by header and by auth frame', async () => {
    const { key } = await srv.key('free');
    const a = await TestClient.connect(srv.url, { key });
    expect(await a.closed).toEqual({ code: 4402, reason: 'streams need a paid plan' });
    const b = await TestClient.connect(srv.url);
    b.send({ type: 'auth', key });
    expect((await b.closed).code).toBe(4402);
  });

  it('4402: an expired key past its grace period', async () => {
    const { key } = await srv.key('pro', srv.clock.now() - GRACE_MS - 1);
    const c = await TestClient.connect(srv.url, { key });
    expect((await c.closed).code).toBe(4402);
  });

  it('4408: no auth frame within the deadline', async () => {
    const c = await TestClient.connect(srv.url);
    expect(await c.closed).toEqual({ code: 4408, reason: 'no auth frame within 300 ms' });
  });

  it('4408: frames other than auth do not stop the deadline', async () => {
    const c = await TestClient.connect(srv.url);
    c.send({ type: 'ping' });
    expect((await c.closed).code).toBe(4408);
  });

  it('4400: a frame that is not JSON', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.authed(srv.url, key);
    c.send('{"type":"ping"');
    expect(await c.closed).toEqual({ code: 4400, reason: 'frame is not JSON' });
  });

  it('4400: JSON that is not an object', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.authed(srv.url, key);
    c.send('["ping"]');
    expect((await c.closed).code).toBe(4400);
  });

  it('4400: not JSON before authentication too', async () => {
    const c = await TestClient.connect(srv.url);
    c.send('hello');
    expect((await c.closed).code).toBe(4400);
  });

  it('4400: a frame over 16 KiB, while a frame of exactly 16 KiB is fine', async () => {
    const { key } = await srv.key('starter');
    const c = await TestClient.authed(srv.url, key);
    const pad = (bytes: number) => {
      const head = '{"type":"ping","pad":"';
      return head + 'x'.repeat(bytes - head.length - 2) + '"}';
    };
    c.send(pad(16_384));
    expect(await c.next()).toEqual({ type: 'pong' });
    c.send(pad(16_385));
    expect(await c.closed).toEqual({ code: 4400, reason: 'frame over 16384 bytes' });
    // Far over it (still under uWS's own cut at 16 times the limit).
    const d = await TestClient.authed(srv.url, key);
    d.send(pad(200_000));
    expect((await d.closed).code).toBe(4400);
    // Past uWS's own limit (16 times ours) the socket is cut without a close frame.
    const e = await TestClient.authed(srv.url, key);
    e.send(pad(300_000));
    expect((await e.closed).code).toBe(1006);
    expect(await (await TestClient.authed(srv.url, key)).untilPong()).toEqual([]);
  });

  it('binary frames holding JSON are accepted; binary that is not UTF-8 is 4400', async () => {
    const { key } = await srv.key('pro');
    const c = await TestClient.authed(srv.url, key);
    c.ws.send(Buffer.from('{"type":"ping"}'), { binary: true });
    expect(await c.next()).toEqual({ type: 'pong' });
    c.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: true });
    expect(await c.closed).toEqual({ code: 4400, reason: 'frame is not JSON' });
  });

  it('4429: the connection limit of the plan (starter: 2), and a closed one frees its slot', async () => {
    const { key } = await srv.key('starter');
    const a = await TestClient.authed(srv.url, key);
    const b = await TestClient.connect(srv.url, { key });
    expect(await b.untilPong()).toEqual([]);
    const c = await TestClient.connect(srv.url, { key });
    expect(await c.closed).toEqual({ code: 4429, reason: 'connection limit of the plan reached' });
    a.close();
    await a.closed;
    // The server has released the slot once it answers another connection's ping.
    await b.untilPong();
    const d = await TestClient.connect(srv.url, { key });
    expect(await d.untilPong()).toEqual([]);
    b.close();
    d.close();
    await Promise.all([b.closed, d.closed]);
  });

  it('counts closes by code in metrics', async () => {
    expect(await srv.metric('mds_ws_closes_total', { code: '4401' })).toBeGreaterThanOrEqual(4);
    expect(await srv.metric('mds_ws_closes_total', { code: '4408' })).toBeGreaterThanOrEqual(2);
    expect(await srv.metric('mds_ws_closes_total', { code: '4400' })).toBeGreaterThanOrEqual(5);
  });
});

describe('plan access (SERVICE.md 3.3)', () => {
  it('a key in its grace period keeps streaming; when grace ends, open streams close with 4402', async () => {
    const { key } = await srv.key('pro', srv.clock.now() + 1_000);
    const c = await TestClient.connect(srv.url, { key });
    c.subscribe('pool_trades', { pool_address: POOL });
    await c.untilPong();
    srv.clock.increment(1_001); // expired: grace
    srv.limits.sweep();
    srv.endpoint.sink.publish(`pool_trades:${POOL}`, tradeFrame(4));
    expect(await c.next()).toEqual({ stream: 'pool_trades', data: { n: 4 } });
    srv.clock.increment(GRACE_MS); // grace over: free
    srv.limits.sweep();
    expect(await c.closed).toEqual({ code: 4402, reason: 'the plan in force is free: streams need a paid plan' });
  });

  it('a key revoked while connected: its streams close with 4401', async () => {
    const { id, key } = await srv.key('pro');
    const c = await TestClient.connect(srv.url, { key });
    await c.untilPong();
    await srv.keys.revoke(id);
    srv.limits.sweep();
    expect(await c.closed).toEqual({ code: 4401, reason: 'key revoked' });
  });
});

describe('plan access on the limits\' own timer (as `mds serve` runs it)', () => {
  it('closes streams with 4402 when grace ends and with 4401 when a key is revoked, without a sweep by hand', async () => {
    const timed = await startWsServer({ limitsFlushMs: 20 });
    try {
      const { key } = await timed.key('pro', timed.clock.now() + 1_000);
      const { id, key: other } = await timed.key('pro');
      const ending = await TestClient.connect(timed.url, { key });
      const revoked = await TestClient.connect(timed.url, { key: other });
      await Promise.all([ending.untilPong(), revoked.untilPong()]);
      timed.clock.increment(1_001 + GRACE_MS);
      await timed.keys.revoke(id);
      expect(await ending.closed).toEqual({ code: 4402, reason: 'the plan in force is free: streams need a paid plan' });
      expect(await revoked.closed).toEqual({ code: 4401, reason: 'key revoked' });
    } finally {
      await timed.close();
    }
  });
});

describe('monthly message allowance (20 × requests, closed past 110 %)', () => {
  let small: WsTestServer;
  beforeAll(async () => {
    // 1 request a month: allowance 20 messages, streams close past 22.
    small = await startWsServer({ config: { plans: { starter: { monthly_requests: 1 } } } });
  });
  afterAll(async () => {
    await small.close();
  });

  it('counts data frames per account across its connections, not control frames, and closes them all with 4429', async () => {
    const { id, key } = await small.key('starter');
    const a = await TestClient.connect(small.url, { key });
    const b = await TestClient.connect(small.url, { key });
    for (const c of [a, b]) {
      c.subscribe('pool_trades', { pool_address: POOL });
      await c.untilPong(); // pongs are control frames: not counted
    }
    const topic = `pool_trades:${POOL}`;
    for (let n = 0; n < 11; n++) small.endpoint.sink.publish(topic, tradeFrame(n));
    for (const c of [a, b]) expect((await c.next((m) => m.data?.n === 10)).data.n).toBe(10);
    await a.untilPong();
    expect(small.limits.usageOf(id)!.messages).toBe(22); // 11 frames × 2 connections: at 110 %, still open
    small.endpoint.sink.publish(topic, tradeFrame(11));
    const closes = await Promise.all([a.closed, b.closed]);
    expect(closes.map((c) => c.code)).toEqual([4429, 4429]);
    expect(small.limits.usageOf(id)!.messages).toBe(24);
    // A new connection of the account is refused at once.
    const c = await TestClient.connect(small.url, { key });
    expect(await c.closed).toEqual({ code: 4429, reason: 'monthly message allowance used' });
  });
});

describe('upgrade', () => {
  it('only /ws upgrades', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${srv.port}/other`);
    const result = await new Promise<string>((resolve) => {
      ws.on('open', () => resolve('open'));
      ws.on('error', () => resolve('error'));
    });
    expect(result).toBe('error');
  });
});
