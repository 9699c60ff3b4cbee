import { CANDLE_CURRENCIES, CANDLE_INTERVALS, CANDLE_MODES, INTERVAL_NAMES, type Candle, type CandleCurrency, type CandleInterval, type CandleMode } from '../../engine/model/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolState } from '../../actors/pool/pool.logic.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { base58, rng, swapMaker, tempDir, testConfig, USDC, WSOL, type TempDir } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * DECISIONS.md ("Prices and market cap"): the candles of a pool a bonding curve
 * graduated into continue the curve's candles before `migrated_at`, on the candles
 * route and on a candles subscription's resume (and its live frames), so that a token's
 * chart is one series across graduation; the bucket holding migrated_at is one candle
 * of both pools' trades. The curve's own route keeps only its own. Real engine, real
 * uWS server, real HTTP and WebSocket clients.
 */

const r = rng(4242);
const MINT = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const WALLET = base58(r, 44);
const MINT2 = base58(r, 44);
const CURVE2 = base58(r, 44);
const AMM2 = base58(r, 44);
const MINT3 = base58(r, 44);
const CURVE3 = base58(r, 44);
const AMM3 = base58(r, 44);
const T0 = 1_767_225_600_000; // a day boundary
const SEC = 1_000;
/** Inside the 1m bucket [T0 + 60 s, T0 + 120 s), which the curve and the AMM pool both trade in. */
const MIGRATED_AT = T0 + 110 * SEC;

/** Buys of 1 token for `price` SOL (fixtures.ts swapMaker: price = quote raw / 1e9). */
const curveSwap = swapMaker(CURVE, WALLET, 61_000, 1_000);
const ammSwap = swapMaker(AMM, WALLET, 62_000, 5_000);
const buy = (make: typeof curveSwap, at: number, price: number) => make(at, { quote_amount_raw: String(price * 1e9) });
const candle = (start_at: number, open: number, high: number, low: number, close: number, volume: number) => ({ start_at, open, high, low, close, volume });

const INTERVALS = INTERVAL_NAMES;

let dir: TempDir;
let engine: Engine;
let srv: WsTestServer;
let key: string;

async function ingest(...events: unknown[]): Promise<void> {
  for (const e of events) expect(await engine.ingest(e), JSON.stringify(e)).toEqual({ status: "applied", seq: expect.any(Number) });
  engine.flush();
}

async function candles(pool: string, query: string): Promise<Candle[]> {
  const res = await fetch(`http://127.0.0.1:${srv.port}/v1/pools/${pool}/candles?${query}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, query).toBe(200);
  return ((await res.json()) as { data: { candles: Candle[] } }).data.candles;
}

/** The pool's own candles, as its actor holds them. */
const own = (pool: string, interval: CandleInterval, mode: CandleMode, currency: CandleCurrency) =>
  (engine.pools.get(pool) as PoolState).candles.series(interval, mode, currency, { limit: 1_000 });

/** DECISIONS.md's rule, spelled out: the curve's candles before the cut, then the pool's; one candle where both have the bucket. */
function stitched(curve: Candle[], amm: Candle[]): Candle[] {
  const byStart = new Map<number, Candle>();
  for (const c of curve) if (c.start_at < MIGRATED_AT) byStart.set(c.start_at, c);
  for (const c of amm) {
    const before = byStart.get(c.start_at);
    byStart.set(
      c.start_at,
      before === undefined || before.open === null ? c : c.open === null ? before : {
        start_at: c.start_at, open: before.open, high: Math.max(before.high!, c.high!), low: Math.min(before.low!, c.low!), close: c.close, volume: before.volume! + c.volume!,
      },
    );
  }
  return [...byStart.values()].sort((a, b) => a.start_at - b.start_at);
}

const PAYLOAD = { pool_address: AMM, interval: '1m', mode: 'price', currency: 'quote' };

async function resume(extra: Record<string, unknown>): Promise<{ seq: number; candles: Candle[] }> {
  const client = await TestClient.connect(srv.url, { key });
  client.subscribe('candles', { ...PAYLOAD, ...extra });
  const frame = await client.next((f) => f.stream === 'candles');
  client.close();
  await client.closed;
  return frame.data;
}

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path) });
  srv = await startWsServer({ engine });
  key = (await srv.key('pro')).key;
  await ingest(
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'GRD', name: 'Graduate', slot: 1, at: T0 },
    { type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, slot: 2, curve_initial_real_base_raw: '793100000000000' },
    buy(curveSwap, T0 + 10 * SEC, 2),
    buy(curveSwap, T0 + 70 * SEC, 3),
    buy(curveSwap, T0 + 100 * SEC, 4),
    { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: MIGRATED_AT, slot: 3_000 },
    { type: 'migration', token_address: MINT, from_pool_address: CURVE, to_pool_address: AMM, slot: 3_000, at: MIGRATED_AT },
  );
});

afterAll(async () => {
  await srv.close();
  await engine.stop();
  dir.cleanup();
});

describe('candles across a graduation', () => {
  it('a live frame of the bucket holding migrated_at holds the curve\'s trades too; a resume after its seq gets that bucket as the route shows it', async () => {
    const a = await TestClient.connect(srv.url, { key });
    a.subscribe('candles', PAYLOAD);
    await a.untilPong();
    await ingest(buy(ammSwap, T0 + 115 * SEC, 5));
    const live = (await a.next((f) => f.stream === 'candles')).data;
    a.close();
    await a.closed;
    // The curve's open 3 (T0 + 70 s) and its 4, the pool's 5: one candle.
    expect(live.candles).toEqual([candle(T0 + 60 * SEC, 3, 5, 3, 5, 12)]);

    // Two more trades while the client is away: one in that bucket, one after it.
    await ingest(buy(ammSwap, T0 + 118 * SEC, 6), buy(ammSwap, T0 + 130 * SEC, 1.5));
    const resumed = await resume({ resume_after_seq: live.seq });
    expect(resumed.seq).toBeGreaterThan(live.seq);
    expect(resumed.candles).toEqual([candle(T0 + 60 * SEC, 3, 6, 3, 6, 18), candle(T0 + 120 * SEC, 1.5, 1.5, 1.5, 1.5, 1.5)]);
  });

  it('GET /pools/{pool}/candles of the graduated pool continues the curve\'s candles; the curve\'s keeps its own', async () => {
    const series = [candle(T0, 2, 2, 2, 2, 2), candle(T0 + 60 * SEC, 3, 6, 3, 6, 18), candle(T0 + 120 * SEC, 1.5, 1.5, 1.5, 1.5, 1.5)];
    expect(await candles(AMM, 'interval=1m&currency=quote')).toEqual(series);
    expect(await candles(CURVE, 'interval=1m&currency=quote')).toEqual([candle(T0, 2, 2, 2, 2, 2), candle(T0 + 60 * SEC, 3, 4, 3, 4, 7)]);
    // USD: the quote series times SOL's 100.
    expect(await candles(AMM, 'interval=1m')).toEqual(series.map((c) => candle(c.start_at, c.open * 100, c.high * 100, c.low * 100, c.close * 100, c.volume * 100)));
    // Every trade of the token in one day's candle.
    expect(await candles(AMM, 'interval=24h&currency=quote')).toEqual([candle(T0, 2, 6, 1.5, 1.5, 2 + 3 + 4 + 5 + 6 + 1.5)]);
    // Ranges and limit apply to the series as one.
    expect(await candles(AMM, `interval=1m&currency=quote&limit=2`)).toEqual(series.slice(1));
    expect(await candles(AMM, `interval=1m&currency=quote&end_time=${T0 + 60 * SEC}`)).toEqual(series.slice(0, 2));
    expect(await candles(AMM, `interval=1m&currency=quote&start_time=${T0 + 60 * SEC}&limit=1`)).toEqual(series.slice(2));
    expect(await candles(AMM, `interval=1m&currency=quote&start_time=${T0 + 120 * SEC}`)).toEqual(series.slice(2));
  });

  it.each(INTERVALS)('every mode and currency of the %s interval: the curve\'s candles before migrated_at, then the pool\'s, one candle for a bucket of both', async (interval) => {
    for (const mode of CANDLE_MODES) {
      for (const currency of CANDLE_CURRENCIES) {
        const query = `interval=${interval}&mode=${mode}&currency=${currency}`;
        const curve = await candles(CURVE, query);
        expect(curve, query).toEqual(own(CURVE, interval, mode, currency));
        const amm = own(AMM, interval, mode, currency);
        const expected = stitched(curve, amm);
        expect(await candles(AMM, query), query).toEqual(expected);
        // A resume by time: the same series, from the bucket holding that time on.
        expect((await resume({ interval, mode, currency, resume_after_time: T0 + 5 * SEC })).candles, query).toEqual(expected);
        // Where both pools trade in the bucket holding migrated_at, it is one candle.
        const length = CANDLE_INTERVALS[interval];
        const shared = Math.floor(MIGRATED_AT / length) * length;
        const both = curve.some((c) => c.start_at === shared) && amm.some((c) => c.start_at === shared);
        expect(expected.length, query).toBe(curve.length + amm.length - (both ? 1 : 0));
      }
    }
  });

  it('a resume with a seq the history cannot vouch for and no time loads the newest candles of the whole series', async () => {
    const resumed = await resume({ resume_after_seq: 1_000_000 });
    expect(resumed.candles).toEqual(await candles(AMM, 'interval=1m&currency=quote'));
    expect(resumed.candles[0]).toEqual(candle(T0, 2, 2, 2, 2, 2));
  });

  it("a late trade of the curve shows in the graduated pool's candles: the route's cache follows the curve too", async () => {
    const before = await candles(AMM, 'interval=1m&currency=quote');
    expect(await candles(AMM, 'interval=1m&currency=quote')).toEqual(before);
    // Slot 999: before the curve's other trades on chain, arriving now.
    await ingest(curveSwap(T0 + 20 * SEC, { quote_amount_raw: String(1e9), slot: 999 }));
    expect(await candles(AMM, 'interval=1m&currency=quote')).toEqual([candle(T0, 1, 2, 1, 2, 3), ...before.slice(1)]);
  });

  it('a pool whose pool event names the curve, with no migration event yet, continues the curve\'s candles before its created_at', async () => {
    const curveSwap2 = swapMaker(CURVE2, WALLET, 63_000, 7_000);
    const ammSwap2 = swapMaker(AMM2, WALLET, 64_000, 8_000);
    await ingest(
      { type: 'token', token_address: MINT2, decimals: 6, supply_raw: '1000000000000000', symbol: 'GR2', name: 'Graduate 2', slot: 6_000, at: T0 },
      { type: 'pool', pool_address: CURVE2, base_address: MINT2, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, slot: 6_001, curve_initial_real_base_raw: '793100000000000' },
      buy(curveSwap2, T0 + 10 * SEC, 2),
      { type: 'pool', pool_address: AMM2, base_address: MINT2, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + 40 * SEC, migrated_from_pool_address: CURVE2, slot: 7_500 },
      buy(ammSwap2, T0 + 45 * SEC, 4),
      buy(ammSwap2, T0 + 70 * SEC, 5),
    );
    expect(await candles(AMM2, 'interval=1m&currency=quote')).toEqual([candle(T0, 2, 4, 2, 4, 6), candle(T0 + 60 * SEC, 5, 5, 5, 5, 5)]);
    expect(await candles(AMM2, 'interval=15s&currency=quote')).toEqual([candle(T0, 2, 2, 2, 2, 2), candle(T0 + 45 * SEC, 4, 4, 4, 4, 4), candle(T0 + 60 * SEC, 5, 5, 5, 5, 5)]);
    expect(await candles(CURVE2, 'interval=1m&currency=quote')).toEqual([candle(T0, 2, 2, 2, 2, 2)]);
  });

  it('a pool quoted in another asset than its curve continues the curve\'s candles in USD only; its quote candles are its own', async () => {
    const curveSwap3 = swapMaker(CURVE3, WALLET, 65_000, 9_000);
    const ammSwap3 = swapMaker(AMM3, WALLET, 66_000, 10_000);
    await ingest(
      { type: 'quote_price', quote_address: USDC, price_usd: 1, at: T0 },
      { type: 'token', token_address: MINT3, decimals: 6, supply_raw: '1000000000000000', symbol: 'GR3', name: 'Graduate 3', slot: 8_500, at: T0 },
      { type: 'pool', pool_address: CURVE3, base_address: MINT3, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, slot: 8_501, curve_initial_real_base_raw: '793100000000000' },
      buy(curveSwap3, T0 + 10 * SEC, 2),
      { type: 'pool', pool_address: AMM3, base_address: MINT3, quote_address: USDC, dex: 'meteora_damm', pool_type: 'amm', created_at: T0 + 30 * SEC, slot: 9_500 },
      { type: 'migration', token_address: MINT3, from_pool_address: CURVE3, to_pool_address: AMM3, slot: 9_500, at: T0 + 30 * SEC },
      // 1 token for 150 USDC (6 decimals).
      ammSwap3(T0 + 40 * SEC, { quote_amount_raw: '150000000' }),
    );
    expect(await candles(AMM3, 'interval=1m&currency=usd')).toEqual([candle(T0, 200, 200, 150, 150, 350)]);
    expect(await candles(AMM3, 'interval=1m&currency=quote')).toEqual([candle(T0, 150, 150, 150, 150, 150)]);
  });
});
