import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDLES_FRAME_PREFIX } from '../../engine/topics/index.ts';
import { base58, rng } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * subscribe / unsubscribe (SERVICE.md 4.3, 4.4, 6; DECISIONS.md error frames) with
 * frames published through the transport's topic sink: the engine's side is tested in
 * ws-engine.test.ts.
 */

const r = rng(502);
const POOL = base58(r, 44);
const POOL2 = base58(r, 44);
const TOKEN = base58(r, 44);
const addresses = (n: number) => Array.from({ length: n }, () => base58(r, 44));

let srv: WsTestServer;
const publish = (topic: string, frame: string) => srv.endpoint.sink.publish(topic, frame);
const candleFrame = (pool: string, n: number) =>
  `${CANDLES_FRAME_PREFIX}"pool_address":"${pool}","interval":"1m","mode":"price","currency":"usd","seq":${n},"candles":[]}}`;

beforeAll(async () => {
  // starter: 100 watched items.
  srv = await startWsServer();
});

afterAll(async () => {
  await srv.close();
});

async function client(plan: 'starter' | 'pro' | 'scale' = 'starter') {
  const { id, key } = await srv.key(plan);
  return { id, key, c: await TestClient.connect(srv.url, { key }) };
}

describe('subscribe → events, for each stream', () => {
  it('token_metadata (empty payload)', async () => {
    const { c } = await client();
    c.subscribe('token_metadata', {});
    await c.untilPong();
    expect(srv.endpoint.sink.has('token_metadata')).toBe(true);
    publish('token_metadata', `{"stream":"token_metadata","data":{"token_address":"${TOKEN}","symbol":"X"}}`);
    expect(await c.next()).toEqual({ stream: 'token_metadata', data: { token_address: TOKEN, symbol: 'X' } });
    c.close();
    await c.closed;
  });

  it('token_trades and pool_trades', async () => {
    const { c } = await client();
    c.subscribe('token_trades', { token_address: TOKEN });
    c.subscribe('pool_trades', { pool_address: POOL });
    await c.untilPong();
    publish(`token_trades:${TOKEN}`, '{"stream":"token_trades","data":{"n":1}}');
    publish(`pool_trades:${POOL}`, '{"stream":"pool_trades","data":{"n":2}}');
    publish(`pool_trades:${POOL2}`, '{"stream":"pool_trades","data":{"n":3}}'); // not subscribed
    expect(await c.next()).toEqual({ stream: 'token_trades', data: { n: 1 } });
    expect(await c.next()).toEqual({ stream: 'pool_trades', data: { n: 2 } });
    expect(await c.untilPong()).toEqual([]);
    c.close();
    await c.closed;
  });

  it('pool_metrics: every address named (duplicates count once)', async () => {
    const { c } = await client();
    c.subscribe('pool_metrics', { pool_addresses: [POOL, POOL2, POOL] });
    await c.untilPong();
    publish(`pool_metrics:${POOL2}`, `{"stream":"pool_metrics","data":{"pool_address":"${POOL2}"}}`);
    publish(`pool_metrics:${POOL}`, `{"stream":"pool_metrics","data":{"pool_address":"${POOL}"}}`);
    expect((await c.next()).data.pool_address).toBe(POOL2);
    expect((await c.next()).data.pool_address).toBe(POOL);
    // Unsubscribing with the same addresses in another order is the same subscription.
    c.unsubscribe('pool_metrics', { pool_addresses: [POOL2, POOL] });
    await c.untilPong();
    expect(srv.endpoint.sink.has(`pool_metrics:${POOL}`)).toBe(false);
    c.close();
    await c.closed;
  });

  it('candles: defaults 1m/price/usd; subscription_id echoed; one frame per distinct id, not per subscriber', async () => {
    const a = await client();
    const b = await client();
    const plain = await client();
    a.c.subscribe('candles', { pool_address: POOL, subscription_id: 'chart-"1"' });
    b.c.subscribe('candles', { pool_address: POOL, interval: '1m', mode: 'price', currency: 'usd', subscription_id: 'chart-"1"' });
    plain.c.subscribe('candles', { pool_address: POOL });
    await Promise.all([a.c.untilPong(), b.c.untilPong(), plain.c.untilPong()]);
    const before = await srv.metric('mds_ws_frames_published_total', { stream: 'candles' });
    publish(`candles:${POOL}:1m:price:usd`, candleFrame(POOL, 7));
    const expected = { pool_address: POOL, interval: '1m', mode: 'price', currency: 'usd', seq: 7, candles: [] };
    expect(await a.c.next()).toEqual({ stream: 'candles', data: { subscription_id: 'chart-"1"', ...expected } });
    expect(await b.c.next()).toEqual({ stream: 'candles', data: { subscription_id: 'chart-"1"', ...expected } });
    expect(await plain.c.next()).toEqual({ stream: 'candles', data: expected });
    // Two frames built: one with the id (for both of its subscribers), one without.
    expect((await srv.metric('mds_ws_frames_published_total', { stream: 'candles' })) - before).toBe(2);
    for (const x of [a, b, plain]) x.c.close();
    await Promise.all([a.c.closed, b.c.closed, plain.c.closed]);
  });

  it('candles: a connection with two subscription ids on one series gets the event under each', async () => {
    const { c } = await client();
    c.subscribe('candles', { pool_address: POOL2, subscription_id: 'old' });
    c.subscribe('candles', { pool_address: POOL2, subscription_id: 'new' });
    await c.untilPong();
    publish(`candles:${POOL2}:1m:price:usd`, candleFrame(POOL2, 1));
    const ids = [(await c.next()).data.subscription_id, (await c.next()).data.subscription_id].sort();
    expect(ids).toEqual(['new', 'old']);
    c.unsubscribe('candles', { pool_address: POOL2, subscription_id: 'old' });
    await c.untilPong();
    publish(`candles:${POOL2}:1m:price:usd`, candleFrame(POOL2, 2));
    expect((await c.next()).data).toMatchObject({ subscription_id: 'new', seq: 2 });
    expect(await c.untilPong()).toEqual([]);
    c.close();
    await c.closed;
  });
});

describe('unsubscribe', () => {
  it('with the same payload stops events; the topic has no subscriber left', async () => {
    const { c } = await client();
    c.subscribe('pool_trades', { pool_address: POOL });
    c.subscribe('token_trades', { token_address: TOKEN });
    await c.untilPong();
    c.unsubscribe('pool_trades', { pool_address: POOL });
    await c.untilPong();
    expect(srv.endpoint.sink.has(`pool_trades:${POOL}`)).toBe(false);
    publish(`pool_trades:${POOL}`, '{"stream":"pool_trades","data":{"n":1}}');
    publish(`token_trades:${TOKEN}`, '{"stream":"token_trades","data":{"n":2}}');
    // Frames reach a socket in publish order: the token trade is the first it gets.
    expect(await c.next()).toEqual({ stream: 'token_trades', data: { n: 2 } });
    c.close();
    await c.closed;
  });

  it('of something never subscribed is ignored', async () => {
    const { c } = await client();
    c.unsubscribe('pool_trades', { pool_address: POOL2 });
    c.unsubscribe('nope', {});
    expect(await c.untilPong()).toEqual([]);
    c.close();
    await c.closed;
  });
});

describe('ignored without an error frame', () => {
  it('unknown streams, the old name trades and invalid payloads', async () => {
    const { c } = await client();
    const frames = [
      { type: 'subscribe', stream: 'nope', payload: {} },
      { type: 'subscribe', stream: 'trades', payload: { pool_address: POOL } },
      { type: 'subscribe', stream: 'pool_trades', payload: { pool_address: 'not-base58!' } },
      { type: 'subscribe', stream: 'pool_trades', payload: {} },
      { type: 'subscribe', stream: 'pool_trades' },
      { type: 'subscribe', payload: { pool_address: POOL } },
      { type: 'subscribe', stream: 'pool_trades', payload: [POOL] },
      { type: 'subscribe', stream: 'candles', payload: { pool_address: POOL, interval: '2m' } },
      { type: 'subscribe', stream: 'candles', payload: { pool_address: POOL, subscription_id: '' } },
      { type: 'subscribe', stream: 'candles', payload: { pool_address: POOL, subscription_id: 'x'.repeat(65) } },
      { type: 'subscribe', stream: 'candles', payload: { pool_address: POOL, resume_after_seq: 0 } },
      { type: 'subscribe', stream: 'candles', payload: { pool_address: POOL, resume_after_time: 1.5 } },
      { type: 'subscribe', stream: 'pool_metrics', payload: { pool_addresses: [] } },
      { type: 'subscribe', stream: 'pool_metrics', payload: { pool_addresses: addresses(101) } },
      { type: 'frobnicate' },
      {},
    ];
    for (const f of frames) c.send(f);
    expect(await c.untilPong()).toEqual([]);
    expect(srv.endpoint.sink.has(`pool_trades:${POOL}`)).toBe(false);
    expect(srv.endpoint.sink.has(`trades:${POOL}`)).toBe(false);
    // The connection is still open and works.
    c.subscribe('pool_trades', { pool_address: POOL });
    await c.untilPong();
    expect(srv.endpoint.sink.has(`pool_trades:${POOL}`)).toBe(true);
    c.close();
    await c.closed;
  });

  it('pool_metrics with 100 addresses is fine', async () => {
    const { c } = await client('pro');
    const many = addresses(100);
    c.subscribe('pool_metrics', { pool_addresses: many });
    await c.untilPong();
    expect(many.every((a) => srv.endpoint.sink.has(`pool_metrics:${a}`))).toBe(true);
    c.close();
    await c.closed;
    expect(srv.endpoint.sink.has(`pool_metrics:${many[0]}`)).toBe(false);
  });
});

describe('error frames (DECISIONS.md)', () => {
  it('4033 PLAN_REQUIRED for each Pro-only stream on Starter (nothing subscribed); Pro and Scale subscribe without an error frame', async () => {
    const pro: Array<[string, object]> = [
      ['markers', { token_address: TOKEN }],
      ['chart_lines', { pool_address: TOKEN, token_address: TOKEN }],
      ['token_signals', {}],
      ['social_posts', {}],
      ['wallet_activity', {}],
      ['wallet_signals', {}],
    ];
    for (const plan of ['starter', 'pro', 'scale'] as const) {
      const { c } = await client(plan);
      for (const [stream, payload] of pro) c.subscribe(stream, payload);
      const frames = await c.untilPong();
      if (plan === 'starter') {
        expect(frames, plan).toEqual(pro.map(([stream]) => ({ type: 'error', code: 4033, error: 'PLAN_REQUIRED', message: `stream ${stream} needs the pro or scale plan`, stream })));
      } else {
        expect(frames.filter((f) => (f as { type?: string }).type === 'error'), plan).toEqual([]);
      }
      c.close();
      await c.closed;
    }
  });

  it('4290 RATE_LIMITED past the watched items, shared across the account’s connections and released by unsubscribe and close', async () => {
    const { id, key, c: a } = await client('starter'); // 100 watched items
    const b = await TestClient.connect(srv.url, { key });
    const first = addresses(60);
    const second = addresses(40);
    a.subscribe('pool_metrics', { pool_addresses: first });
    await a.untilPong();
    b.subscribe('pool_metrics', { pool_addresses: second });
    // The same pool again, from another stream and connection: still one item.
    b.subscribe('pool_trades', { pool_address: first[0] });
    b.subscribe('candles', { pool_address: second[0], interval: '1h' });
    expect(await b.untilPong()).toEqual([]);
    expect(srv.limits.usageOf(id)!.watchedItems).toBe(100);
    b.subscribe('token_trades', { token_address: TOKEN });
    expect(await b.untilPong()).toEqual([
      { type: 'error', code: 4290, error: 'RATE_LIMITED', message: 'watched items limit of the plan reached', stream: 'token_trades' },
    ]);
    expect(srv.endpoint.sink.has(`token_trades:${TOKEN}`)).toBe(false);
    a.unsubscribe('pool_metrics', { pool_addresses: first });
    await a.untilPong();
    // first[0] is still named by b's pool_trades.
    expect(srv.limits.usageOf(id)!.watchedItems).toBe(41);
    b.subscribe('token_trades', { token_address: TOKEN });
    expect(await b.untilPong()).toEqual([]);
    expect(srv.limits.usageOf(id)!.watchedItems).toBe(42);
    b.close();
    await b.closed;
    await a.untilPong();
    expect(srv.limits.usageOf(id)!.watchedItems).toBe(0);
    a.close();
    await a.closed;
  });

  it('token_metadata watches nothing', async () => {
    const { id, c } = await client('starter');
    c.subscribe('token_metadata', {});
    await c.untilPong();
    expect(srv.limits.usageOf(id)!.watchedItems).toBe(0);
    c.close();
    await c.closed;
  });
});

describe('the topic sink', () => {
  it('has() only while someone listens; publish to a topic nobody listens on is a no-op', async () => {
    const { c } = await client();
    const topic = `pool_trades:${POOL2}`;
    expect(srv.endpoint.sink.has(topic)).toBe(false);
    publish(topic, '{"stream":"pool_trades","data":{}}');
    c.subscribe('pool_trades', { pool_address: POOL2 });
    c.subscribe('pool_trades', { pool_address: POOL2 }); // twice: one subscription
    await c.untilPong();
    expect(srv.endpoint.sink.has(topic)).toBe(true);
    c.unsubscribe('pool_trades', { pool_address: POOL2 });
    await c.untilPong();
    expect(srv.endpoint.sink.has(topic)).toBe(false);
    c.subscribe('pool_trades', { pool_address: POOL2 });
    await c.untilPong();
    c.close();
    await c.closed;
    await (await client()).c.untilPong();
    expect(srv.endpoint.sink.has(topic)).toBe(false);
  });

  it('counts open connections', async () => {
    const base = await srv.metric('mds_ws_connections');
    const { c } = await client();
    await c.untilPong();
    expect(await srv.metric('mds_ws_connections')).toBe(base + 1);
    c.close();
    await c.closed;
  });
});
