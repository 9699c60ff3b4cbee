import { serveEngine } from '../helpers/engine-server.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import type { Server } from '../../transport/index.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * Candles, rolling windows, heat and distinct counts through the engine and HTTP,
 * against values computed by hand from four trades (one arriving out of order, one
 * sent twice), before and after a restart.
 */

const r = rng(4242);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const W1 = base58(r, 44);
const W2 = base58(r, 44);
const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z: a multiple of every interval
const tx = (i: number) => base58(rng(7_000 + i), 88);

/** A swap of `tokens` for `sol`, leaving reserves of 1,000,000 tokens and `reserveSol` SOL. */
const swap = (i: number, at: number, side: 'buy' | 'sell', wallet: string, tokens: number, sol: number, reserveSol: number) => ({
  type: 'swap', tx_hash: tx(i), slot: 1_000 + (at - T0) / 1_000, tx_index: 0, event_index: 0, at, pool_address: POOL, wallet_address: wallet, side,
  base_amount_raw: String(tokens * 1e6), quote_amount_raw: String(Math.round(sol * 1e9)),
  base_reserve_raw: String(1_000_000 * 1e6), quote_reserve_raw: String(Math.round(reserveSol * 1e9)),
});

const TRADES = [
  swap(1, T0 + 1_000, 'buy', W1, 1_000, 1, 1_000), // price 0.001, market cap 1e6 SOL
  swap(2, T0 + 30_000, 'buy', W1, 1_000, 2, 2_000), // 0.002, 2e6
  swap(3, T0 + 45_000, 'sell', W2, 1_000, 0.5, 500), // 0.0005, 5e5
  swap(4, T0 + 70_000, 'buy', W1, 1_000, 3, 3_000), // 0.003, 3e6; SOL at $200 by then
];

let dir: TempDir;
let engine: Engine;
let server: Server;
let base: string;
let key: string;

async function open(): Promise<void> {
  engine = await createEngine({ config: testConfig(dir.path) });
  const served = await serveEngine(engine, { plan: 'pro' });
  server = served.server;
  base = served.base;
  key ??= served.key;
}

async function close(): Promise<void> {
  server.close();
  await engine.stop();
}

const get = async (path: string) => {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as any };
};
const candles = async (query: string) => (await get(`/v1/pools/${POOL}/candles?${query}`)).body.data.candles as any[];
const ohlcv = (c: any) => [c.start_at - T0, c.open, c.high, c.low, c.close, c.volume];

beforeAll(async () => {
  dir = tempDir();
  await open();
  const setup = [
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'CNDL', name: 'Candle', slot: 999, at: T0 },
    { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'raydium_cpmm', pool_type: 'cpmm', created_at: T0, slot: 999 },
  ];
  for (const e of setup) expect((await engine.ingest(e)).status).toBe('applied');
  // Trade 3 arrives before trade 2, and trade 1 comes twice.
  for (const e of [TRADES[0], TRADES[2], TRADES[1]]) expect((await engine.ingest(e)).status).toBe('applied');
  expect((await engine.ingest(TRADES[0])).status).toBe('duplicate');
  expect((await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 200, at: T0 + 60_000 })).status).toBe('applied');
  expect((await engine.ingest(TRADES[3])).status).toBe('applied');
  engine.flush();
});

afterAll(async () => {
  await close();
  dir.cleanup();
});

describe('GET /v1/pools/{pool}/candles', () => {
  it('builds 1m candles on every track from the trades, whatever their arrival order', async () => {
    const res = await get(`/v1/pools/${POOL}/candles?interval=1m&mode=price&currency=quote`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ pool_address: POOL, interval: '1m', mode: 'price', currency: 'quote' });
    const close = (got: any[], want: number[][]) => {
      expect(got.length).toBe(want.length);
      got.forEach((c, i) => ohlcv(c).forEach((x, k) => expect(x).toBeCloseTo(want[i]![k]!, 9)));
    };
    close(res.body.data.candles, [[0, 0.001, 0.002, 0.0005, 0.0005, 3.5], [60_000, 0.003, 0.003, 0.003, 0.003, 3]]);
    // USD at the trade's time: $100 for the first three, $200 for the last.
    close(await candles('interval=1m&mode=price&currency=usd'), [[0, 0.1, 0.2, 0.05, 0.05, 350], [60_000, 0.6, 0.6, 0.6, 0.6, 600]]);
    close(await candles('interval=1m&mode=market_cap&currency=quote'), [[0, 1e6, 2e6, 5e5, 5e5, 3.5], [60_000, 3e6, 3e6, 3e6, 3e6, 3]]);
    close(await candles('interval=1m&mode=market_cap&currency=usd'), [[0, 1e8, 2e8, 5e7, 5e7, 350], [60_000, 6e8, 6e8, 6e8, 6e8, 600]]);
  });

  it('cuts every interval at its own boundaries; defaults are 1m, price, usd', async () => {
    const starts = async (interval: string) => (await candles(`interval=${interval}&currency=quote`)).map((c) => c.start_at - T0);
    expect(await starts('1s')).toEqual([1_000, 30_000, 45_000, 70_000]);
    expect(await starts('15s')).toEqual([0, 30_000, 45_000, 60_000]);
    for (const interval of ['15m', '1h', '6h', '24h']) {
      const [c, ...rest] = await candles(`interval=${interval}&currency=usd`);
      expect(rest).toEqual([]);
      ohlcv(c).forEach((x, k) => expect(x).toBeCloseTo([0, 0.1, 0.6, 0.05, 0.6, 950][k]!, 9));
    }
    const defaults = (await get(`/v1/pools/${POOL}/candles`)).body.data;
    expect(defaults).toMatchObject({ interval: '1m', mode: 'price', currency: 'usd' });
    expect(defaults.candles[1].close).toBeCloseTo(0.6, 12);
  });

  it('keeps closed candles (batched for LMDB, in the snapshot meanwhile; 1s and 15s folded from the trades), and serves them after a restart', async () => {
    const state = engine.pools.get(POOL)!;
    // Closed by the last trade (70 s) less the 10 s lateness: 1s ×3, 15s ×3, 1m ×1; only
    // the 1m one is kept (fewer than a write batch), the others are the trades'.
    expect(state.closed.buffer.toRows().map((c) => `${['1s', '15s', '1m'][c[0]!]}@${c[1]! - T0}`).sort()).toEqual(['1m@0']);
    const before = await Promise.all(['1s', '15s', '1m', '1h'].map((i) => candles(`interval=${i}&mode=market_cap`)));
    await close();
    await open();
    const after = await Promise.all(['1s', '15s', '1m', '1h'].map((i) => candles(`interval=${i}&mode=market_cap`)));
    expect(after).toEqual(before);
    // Written to LMDB, they read the same.
    const reopened = engine.pools.get(POOL)!;
    reopened.closed.write();
    await engine.storage.meta.put('sync', 1);
    expect(reopened.closed.buffer.length).toBe(0);
    const stored: string[] = [];
    for (const { key, value } of engine.storage.candles.getRange({ start: [POOL], end: [POOL + '\u0000'] })) for (const c of value as number[][]) stored.push(`${(key as number[])[1]}@${c[1]! - T0}`);
    expect(stored).toEqual(['2@0']);
    expect(await Promise.all(['1s', '15s', '1m', '1h'].map((i) => candles(`interval=${i}&mode=market_cap`)))).toEqual(before);
  });

  it('filters on start_at with start_time and end_time (inclusive) and keeps the newest `limit`', async () => {
    const s = async (q: string) => (await candles(`interval=1s&currency=quote&${q}`)).map((c) => c.start_at - T0);
    expect(await s(`start_time=${T0 + 30_000}&end_time=${T0 + 45_000}`)).toEqual([30_000, 45_000]);
    expect(await s(`start_time=${T0 + 30_001}`)).toEqual([45_000, 70_000]);
    expect(await s('limit=2')).toEqual([45_000, 70_000]);
    expect(await s(`end_time=${T0 + 999}`)).toEqual([]);
  });

  it('answers bad parameters with 400 naming them, and an unknown pool with 404', async () => {
    const cases: Array<[string, string]> = [
      ['interval=2m', 'interval'], ['mode=volume', 'mode'], ['currency=eur', 'currency'], ['limit=1001', 'limit'], ['limit=0', 'limit'],
      [`start_time=${T0 + 2}&end_time=${T0 + 1}`, 'end_time'], ['start_time=soon', 'start_time'], ['resolution=1m', 'resolution'],
    ];
    for (const [query, name] of cases) {
      const { status, body } = await get(`/v1/pools/${POOL}/candles?${query}`);
      expect([query, status, body.code]).toEqual([query, 400, 4000]);
      expect(body.message).toContain(name);
    }
    expect((await get('/v1/pools/not-an-address/candles')).body.code).toBe(4000);
    const missing = await get(`/v1/pools/${base58(rng(1), 44)}/candles`);
    expect([missing.status, missing.body.code]).toEqual([404, 4040]);
  });
});

describe('windowed, heat and distinct totals', () => {
  it('reports windows as of the last event, then slides them as time passes', async () => {
    let d = (await get(`/v1/pools/${POOL}`)).body.data;
    const col = (w: any, name: string) => {
      const i = w.t.indexOf(name);
      return { pp: w.pp[i], v: w.v[i], tc: w.tc[i], bc: w.bc[i], sc: w.sc[i], m: w.m[i], bm: w.bm[i], sm: w.sm[i] };
    };
    expect(d.windowed.t).toEqual(['1m', '5m', '1h', '6h', '24h']);
    // now = 70 s: the 1m window (10 s, 70 s] holds trades 2, 3, 4; its start price is trade 1's.
    const m1 = col(d.windowed, '1m');
    expect(m1).toMatchObject({ tc: 3, bc: 2, sc: 1, m: 2, bm: 1, sm: 1 });
    expect(m1.v[0]).toBeCloseTo(5.5, 12);
    expect(m1.v[1]).toBeCloseTo(200 + 50 + 600, 9);
    expect(m1.pp[0]).toBeCloseTo(200, 9); // 0.001 → 0.003
    expect(col(d.windowed, '5m')).toMatchObject({ tc: 4, bc: 3, sc: 1, m: 2 });
    expect(d.heat).not.toBeNull();
    expect(d.heat.direction).toBe('up');
    expect(d.totals).toMatchObject({ trade_count: 4, trader_count: 2, buyer_count: 1, seller_count: 1, holder_count: null });

    // Two minutes without trades: the 1m window empties, the 5m one keeps all four.
    expect((await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 200, at: T0 + 190_000 })).status).toBe('applied');
    d = (await get(`/v1/pools/${POOL}`)).body.data;
    expect(col(d.windowed, '1m')).toMatchObject({ tc: 0, m: 0, v: [0, 0], pp: [0, 0] });
    expect(col(d.windowed, '5m')).toMatchObject({ tc: 4, m: 2 });
    const metrics = (await get(`/v1/pools/metrics?addresses=${POOL}`)).body.data[0];
    expect(metrics.windowed).toEqual(d.windowed);
    expect(metrics).toMatchObject({ slot: 1_070, tx_index: 0, ix_index: 0 });
  });
});
