import { createServer as createTcpServer, connect, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WallClock } from '../../engine/clock.ts';
import { createKeyStore, createLimits } from '../../engine/plans/index.ts';
import { silentLogger } from '../../engine/log.ts';
import type { Engine } from '../../engine/system.ts';
import { createHttpClient } from '../../transport/client/http.ts';
import { nodeSockets } from '../../transport/client/node.ts';
import { MdsSocket, type CandlesEvent, type Trade } from '../../transport/client/ws.ts';
import { loadCursorSecret } from '../../transport/http/cursor.ts';
import { createServer } from '../../transport/index.ts';
import { mountWebSocket } from '../../transport/ws/index.ts';
import { testTimers, when } from '../helpers/client.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';

/**
 * The SDK's no-gap promise, end to end on loopback: a client subscribed to pool_trades
 * and candles loses its connection while trades keep coming (dropped by a TCP proxy in
 * between, and closed by the server going away and coming back on the same port); after
 * it reconnects, the trades it delivered, live plus what it reloaded over HTTP, are
 * exactly the trades ingested, each once by trade_id, and its candles are the HTTP
 * candles. No sleeps: the client's timers are the test's, fired when the test says,
 * and every wait is for an event (a trade delivered, a socket event, a frame).
 */

const r = rng(2626);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const WALLET = base58(r, 44);
const T0 = 1_767_225_600_000;
const swap = swapMaker(POOL, WALLET, 26_000, 10);
const declarations = [
  { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
  { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'M', name: 'Mint', slot: 1, at: T0 },
  { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 },
];
const CANDLES = { pool_address: POOL, interval: '1m', mode: 'price', currency: 'quote' } as const;

const temp = useTempEngine();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** HTTP and /ws over the engine on 127.0.0.1, any port; closing it closes every connection (1001). */
async function serve(engine: Engine) {
  const clock = new WallClock();
  const keys = createKeyStore(engine.storage, clock);
  const limits = createLimits({ plans: engine.config.plans, clock, storage: engine.storage, flushMs: 0 });
  const log = silentLogger();
  const deps = { config: { ...engine.config, host: '127.0.0.1', port: 0 }, log, keys, metrics: engine.metrics };
  const server = createServer({ ...deps, query: engine.query, cursorSecret: await loadCursorSecret(engine.storage) });
  const endpoint = mountWebSocket(server.app, { ...deps, limits, candles: engine.query.market?.candles, candleWatch: engine.publisher });
  engine.attachTopics(endpoint.sink);
  const bound = await server.listen();
  return {
    port: bound,
    keys,
    async close() {
      endpoint.close();
      server.close();
      await limits.close();
    },
  };
}

/**
 * A TCP proxy to 127.0.0.1:`target.port` (the address the client knows, as a load
 * balancer's) that can drop every connection it carries; `target.port` may change.
 */
async function tcpProxy(target: { port: number }) {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((client) => {
    const upstream = connect(target.port, '127.0.0.1');
    const pair = [client, upstream];
    const kill = () => pair.forEach((s) => s.destroy());
    for (const s of pair) {
      sockets.add(s);
      s.on('error', kill).on('close', () => {
        sockets.delete(s);
        kill();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    /** Resets every connection through the proxy (the client sees 1006, no close frame). */
    drop: () => sockets.forEach((s) => s.resetAndDestroy()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}



/** Consumes a subscription in the background: every trade delivered, and a wait for one of them. */
function collect(trades: AsyncIterable<Trade>) {
  const ids: string[] = [];
  let waiting = null as { id: string; resolve: () => void } | null;
  void (async () => {
    for await (const t of trades) {
      ids.push(t.trade_id);
      if (waiting?.id === t.trade_id) waiting.resolve();
    }
  })();
  return {
    ids,
    /** Resolves once the trade `id` (ingested last, so it comes live) is delivered. */
    until: (id: string) => (ids.includes(id) ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { id, resolve }))),
  };
}

describe('client SDK WebSocket: no gap across reconnects', () => {
  it('trades seen plus the HTTP reload are exactly the trades ingested, and its candles the HTTP candles, across a proxy drop and a server restart', async () => {
    const engine = await temp.open();
    for (const e of declarations) expect((await engine.ingest(e)).status).toBe('applied');
    let srv = await serve(engine);
    const key = (await srv.keys.create({ plan: 'pro' })).key;
    const upstream = { port: srv.port };
    const proxy = await tcpProxy(upstream);
    cleanups.push(() => proxy.close(), () => srv.close());

    const ingested: string[] = [];
    let at = T0 + 1_000;
    const trades = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const e = swap((at += 997), { quote_amount_raw: String(1_000_000_000 + (at % 7_919) * 1_000) });
        expect((await engine.ingest(e)).status).toBe('applied');
        ingested.push(`${e.tx_hash}:${e.event_index}`);
      }
      engine.flush();
    };

    const clock = testTimers();
    // Once, the answer of a trade reload is held back while trades come in and reach the
    // client's socket (its sync(): a ping and its pong): trades that come live during a
    // reload, after the HTTP read, must be delivered too.
    let duringReload: (() => Promise<void>) | null = null;
    const http = createHttpClient({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      key,
      timers: { sleep: async () => {} },
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        const hook = String(url).includes('/trades') ? duringReload : null;
        duringReload = null;
        await hook?.();
        return res;
      },
    });
    const socket = new MdsSocket({ url: `ws://127.0.0.1:${proxy.port}/ws`, key, http, connect: nodeSockets, timers: clock.timers });
    cleanups.push(() => socket.close());
    const ready = when(socket, (e) => e.type === 'ready');
    const seen = collect(socket.poolTrades(POOL));
    const candles = socket.candles(CANDLES);
    await ready;

    await trades(40);
    await seen.until(ingested.at(-1)!);

    // 1. The proxy resets the connection; trades come while the client is away and while it comes back.
    let closed = when(socket, (e) => e.type === 'close');
    proxy.drop();
    expect(await closed).toMatchObject({ code: 1006, outcome: 'reconnect' });
    await trades(30);
    let resynced = when(socket, (e) => e.type === 'resynced');
    duringReload = async () => {
      await trades(10);
      await socket.sync();
    };
    await clock.fire();
    await trades(30);
    await resynced;
    await trades(20);
    await seen.until(ingested.at(-1)!);
    expect(seen.ids).toHaveLength(ingested.length);
    expect(new Set(seen.ids)).toEqual(new Set(ingested));

    // 2. The server goes away (1001) and comes back (on another port, behind the same proxy); trades meanwhile.
    closed = when(socket, (e) => e.type === 'close');
    await srv.close();
    expect(await closed).toMatchObject({ code: 1001, outcome: 'reconnect' });
    await trades(25);
    srv = await serve(engine);
    upstream.port = srv.port;
    resynced = when(socket, (e) => e.type === 'resynced');
    // Attempts made before the server listened again failed and scheduled another.
    let done = false;
    void resynced.then(() => (done = true));
    while (!done) await Promise.race([clock.fire(), resynced]);
    await trades(25);
    await seen.until(ingested.at(-1)!);

    expect(seen.ids.length).toBe(ingested.length);
    expect(new Set(seen.ids).size).toBe(seen.ids.length);
    expect(new Set(seen.ids)).toEqual(new Set(ingested));
    // Each reconnect waited a jittered backoff: half of 500·2^attempt with random() = 0.5.
    expect(clock.delays[0]).toBe(250);

    // The candles it holds are the HTTP candles once the last flush's frames are in
    // (engine.flush publishes them at once; sync's pong comes after them).
    await socket.sync();
    const expected = (await http.pools.candles(POOL, { interval: '1m', mode: 'price', currency: 'quote' })).candles;
    expect(expected.length).toBeGreaterThan(2);
    expect(candles.candles()).toEqual(expected);
    expect(candles.lastSeq()).toBeGreaterThan(0);
  });

  it('candles events go by subscription_id: two subscriptions of one series each get theirs once, an unsubscribed one none; as RxJS Observables', async () => {
    const engine = await temp.open();
    for (const e of declarations) expect((await engine.ingest(e)).status).toBe('applied');
    const srv = await serve(engine);
    cleanups.push(() => srv.close());
    const key = (await srv.keys.create({ plan: 'pro' })).key;
    const socket = new MdsSocket({ url: `ws://127.0.0.1:${srv.port}/ws`, key, connect: nodeSockets, timers: testTimers().timers });
    cleanups.push(() => socket.close());
    const ready = when(socket, (e) => e.type === 'ready');
    const [a, b] = [socket.candles(CANDLES), socket.candles(CANDLES)];
    const seenA: CandlesEvent[] = [];
    const seenB: CandlesEvent[] = [];
    a.observable().subscribe((e) => seenA.push(e));
    b.observable().subscribe((e) => seenB.push(e));
    await ready;
    const trade = async (at: number) => {
      expect((await engine.ingest(swap(at))).status).toBe('applied');
      engine.flush();
      await socket.sync();
    };
    await trade(T0 + 5_000);
    expect([seenA.length, seenB.length]).toEqual([1, 1]);
    expect(seenA[0]!.subscription_id).not.toBe(seenB[0]!.subscription_id);
    a.unsubscribe();
    await trade(T0 + 6_000);
    expect([seenA.length, seenB.length]).toEqual([1, 2]);
    expect(b.candles()).toEqual((await createHttpClient({ baseUrl: `http://127.0.0.1:${srv.port}`, key }).pools.candles(POOL, { interval: '1m', mode: 'price', currency: 'quote' })).candles);
  });
});
