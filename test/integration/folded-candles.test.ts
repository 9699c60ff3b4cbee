import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { CANDLE_CURRENCIES, CANDLE_INTERVALS, CANDLE_MODES, type Candle, type CandleCurrency, type CandleMode } from '../../engine/model/index.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, tempDir, testConfig, USDC, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * Issue 25: 1s and 15s candles are folded from the pool's stored trades when read
 * instead of being stored as series. This checks that GET /pools/{pool}/candles gives,
 * for 1s and 15s, every mode and currency, ranges and limits, exactly the candles a
 * series built from the trades gives: a reference fold written here from the events
 * alone (INGEST.md derivations, SERVICE.md 2.9, DECISIONS.md "Prices and market cap"),
 * compared field by field with toEqual, so a single differing bit fails it.
 *
 * The market (seeded): a CPMM pool quoted in wSOL, a pump.fun curve that graduates into
 * an AMM pool (whose series continues the curve's), a pool quoted in USDC; trades
 * several to a slot and to a millisecond, a tenth of them arriving late (up to 90 s,
 * past the 10 s after which a bucket is closed), wSOL priced only from the 30th second
 * (trades before have no USD values) and every 20 s after. Real engine and LMDB, trades
 * spread over stored blocks, the batch being written and the unsaved log, pools
 * passivated after every batch (residentMax 1) and a restart; real HTTP.
 */

const r = rng(2525);
const addr = () => base58(r, 44);
const T0 = 1_767_225_600_000; // a day boundary
const SEC = 1_000;
const SUPPLY_RAW = '1000000000000000'; // 1e9 tokens of 6 decimals
const SUPPLY = 1e9;
const MINT_A = addr();
const POOL_A = addr();
const MINT_C = addr();
const CURVE = addr();
const AMM = addr();
const MINT_U = addr();
const POOL_U = addr();
const WALLETS = Array.from({ length: 6 }, addr);
const MIGRATED_AT = T0 + 300 * SEC + 437;
const END = T0 + 720 * SEC;

interface Swap {
  type: 'swap';
  tx_hash: string;
  slot: number;
  tx_index: number;
  event_index: number;
  at: number;
  pool_address: string;
  wallet_address: string;
  side: 'buy' | 'sell';
  base_amount_raw: string;
  quote_amount_raw: string;
  base_reserve_raw: string;
  quote_reserve_raw: string;
}

const quoteOf: Record<string, { address: string; decimals: number }> = {
  [POOL_A]: { address: WSOL, decimals: 9 },
  [CURVE]: { address: WSOL, decimals: 9 },
  [AMM]: { address: WSOL, decimals: 9 },
  [POOL_U]: { address: USDC, decimals: 6 },
};

/** The events in arrival order, and the swaps by pool. */
function market(): { events: unknown[]; swaps: Swap[]; prices: Array<[at: number, usd: number]> } {
  const prices: Array<[number, number]> = [];
  for (let at = T0 + 30 * SEC; at <= END; at += 20 * SEC) prices.push([at, 80 + 100 * r()]);
  const swaps: Swap[] = [];
  let n = 0;
  const swapAt = (pool: string, at: number, slot: number, tx: number, ev: number): Swap => {
    const q = quoteOf[pool]!;
    const tokens = Math.floor(1 + r() * 1e6) * 1e6 + Math.floor(r() * 1e6);
    const quote = Math.floor(tokens * (1e-6 + r() * 4e-6) * 10 ** (q.decimals - 6)) + 1;
    return {
      type: 'swap', tx_hash: base58(rng(900_000 + ++n), 88), slot, tx_index: tx, event_index: ev, at, pool_address: pool, wallet_address: WALLETS[Math.floor(r() * WALLETS.length)]!,
      side: r() < 0.6 ? 'buy' : 'sell', base_amount_raw: String(tokens), quote_amount_raw: String(quote), base_reserve_raw: '500000000000000', quote_reserve_raw: String(40 * 10 ** q.decimals),
    };
  };
  // Slots of 400 ms; in a slot, a few transactions of a few events, some at the same ms.
  for (let slot = 0, at = T0 + 200; at < END; slot++, at += 400) {
    const pools = [POOL_A, POOL_A, at < MIGRATED_AT ? CURVE : AMM, POOL_U];
    let tx = 0;
    for (const pool of pools) {
      if (r() < 0.45) continue;
      const txs = 1 + Math.floor(r() * 3);
      for (let k = 0; k < txs; k++) {
        tx += 1 + Math.floor(r() * 5);
        const events = 1 + Math.floor(r() * 2);
        // Block time varies within a slot here, so that chain order and time order differ.
        for (let ev = 0; ev < events; ev++) swaps.push(swapAt(pool, at + (r() < 0.3 ? 0 : Math.floor(r() * 400)), 10_000 + slot, tx, ev));
      }
    }
  }
  // The curve's last trades straddle the migration's bucket: the AMM pool trades in it too.
  const timed: Array<{ at: number; e: unknown }> = [];
  for (const [at, usd] of prices) timed.push({ at, e: { type: 'quote_price', quote_address: WSOL, price_usd: usd, at } });
  // Arrival: in time order, but a tenth of the swaps up to 90 s late. Prices arrive at their time.
  for (const s of swaps) timed.push({ at: s.at + (r() < 0.1 ? Math.floor(r() * 90 * SEC) : 0) + 0.5, e: s });
  timed.sort((a, b) => a.at - b.at);
  const setup: unknown[] = [
    ...[MINT_A, MINT_C, MINT_U].map((token, i) => ({ type: 'token', token_address: token, decimals: 6, supply_raw: SUPPLY_RAW, symbol: `F${i}`, name: `Folded ${i}`, slot: 1, at: T0 })),
    { type: 'pool', pool_address: POOL_A, base_address: MINT_A, quote_address: WSOL, dex: 'raydium_cpmm', pool_type: 'cpmm', created_at: T0, slot: 2 },
    { type: 'pool', pool_address: CURVE, base_address: MINT_C, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, slot: 2, curve_initial_real_base_raw: '793100000000000' },
    { type: 'pool', pool_address: POOL_U, base_address: MINT_U, quote_address: USDC, dex: 'raydium_cpmm', pool_type: 'cpmm', created_at: T0, slot: 2 },
    { type: 'pool', pool_address: AMM, base_address: MINT_C, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: MIGRATED_AT, slot: 3 },
    { type: 'migration', token_address: MINT_C, from_pool_address: CURVE, to_pool_address: AMM, slot: 3, at: MIGRATED_AT },
  ];
  return { events: [...setup, ...timed.map((x) => x.e)], swaps, prices };
}

const MARKET = market();

/** A trade's values as INGEST.md derives them (in the order the engine multiplies: the market cap in USD is the quote market cap × the quote's price). */
function derive(s: Swap, usdAt: (pool: string, at: number) => number | null) {
  const q = quoteOf[s.pool_address]!;
  const base = Number(s.base_amount_raw) / 10 ** 6;
  const quote = Number(s.quote_amount_raw) / 10 ** q.decimals;
  const price = quote / base;
  const cap = price * SUPPLY;
  const usd = usdAt(s.pool_address, s.at);
  return { price, cap, quote, usd, priceUsd: usd === null ? null : price * usd, capUsd: usd === null ? null : cap * usd, volumeUsd: usd === null ? null : quote * usd };
}

/** The USD price of the pool's quote at a time: the latest wSOL price at or before it (none before the first), USDC 1. */
function usdAt(pool: string, at: number): number | null {
  if (quoteOf[pool]!.address === USDC) return 1;
  let usd: number | null = null;
  for (const [t, p] of MARKET.prices) if (t <= at) usd = p;
  return usd;
}

/** The correctly rounded sum of doubles (Shewchuk's exact partials, as Python's math.fsum). */
function fsum(xs: number[]): number {
  const partials: number[] = [];
  for (let x of xs) {
    let i = 0;
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[i++] = lo;
      x = hi;
    }
    partials.length = i;
    partials.push(x);
  }
  let n = partials.length;
  let hi = 0;
  if (n > 0) {
    hi = partials[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = partials[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
  }
  return hi;
}

const position = (a: Swap, b: Swap) => a.slot - b.slot || a.tx_index - b.tx_index || a.event_index - b.event_index;

/** One pool's candles of an interval, by start_at: open/close by chain position, high/low, exact volume; USD over the trades with a USD value, all null without one. */
function reference(pool: string, length: number, mode: CandleMode, currency: CandleCurrency, swaps: Swap[]): Map<number, Candle> {
  const buckets = new Map<number, Swap[]>();
  for (const s of swaps) {
    if (s.pool_address !== pool) continue;
    const start = Math.floor(s.at / length) * length;
    buckets.set(start, [...(buckets.get(start) ?? []), s]);
  }
  const out = new Map<number, Candle>();
  for (const [start_at, list] of buckets) {
    const values = list.map((s) => ({ s, ...derive(s, usdAt) })).filter((t) => currency === 'quote' || t.usd !== null);
    if (values.length === 0) {
      out.set(start_at, { start_at, open: null, high: null, low: null, close: null, volume: null });
      continue;
    }
    values.sort((a, b) => position(a.s, b.s));
    const track = values.map((t) => (mode === 'price' ? (currency === 'usd' ? t.priceUsd! : t.price) : currency === 'usd' ? t.capUsd! : t.cap));
    out.set(start_at, {
      start_at,
      open: track[0]!,
      high: Math.max(...track),
      low: Math.min(...track),
      close: track[track.length - 1]!,
      volume: fsum(values.map((t) => (currency === 'usd' ? t.volumeUsd! : t.quote))),
    });
  }
  return out;
}

/** The pool's series as the route shows it: the AMM pool's continues the curve's before the migration (one candle for the bucket holding it). */
function series(pool: string, length: number, mode: CandleMode, currency: CandleCurrency, swaps: Swap[]): Candle[] {
  const own = reference(pool, length, mode, currency, swaps);
  if (pool === AMM) {
    for (const [start, before] of reference(CURVE, length, mode, currency, swaps)) {
      if (start >= MIGRATED_AT) continue;
      const c = own.get(start);
      own.set(
        start,
        c === undefined || before.open === null ? (c ?? before) : c.open === null ? before : {
          start_at: start, open: before.open, high: Math.max(before.high!, c.high!), low: Math.min(before.low!, c.low!), close: c.close, volume: before.volume! + c.volume!,
        },
      );
    }
  }
  return [...own.values()].sort((a, b) => a.start_at - b.start_at);
}

/** The route's answer for these parameters, from the reference: start_at within the bounds, the newest `limit`. */
function expected(pool: string, interval: '1s' | '15s', mode: CandleMode, currency: CandleCurrency, q: { start?: number; end?: number; limit?: number }, swaps: Swap[]): Candle[] {
  const all = series(pool, CANDLE_INTERVALS[interval], mode, currency, swaps).filter((c) => c.start_at >= (q.start ?? -Infinity) && c.start_at <= (q.end ?? Infinity));
  return all.slice(Math.max(0, all.length - (q.limit ?? 300)));
}

let dir: TempDir;
let engine: Engine;
let served: EngineServer;

async function open(): Promise<void> {
  const config = testConfig(dir.path);
  // Every pool passivated after each batch: reads come from snapshots as often as from memory.
  config.actors.residentMax = 1;
  engine = await createEngine({ config });
  served = await serveEngine(engine);
}

async function close(): Promise<void> {
  served.server.close();
  await engine.stop();
}

async function route(pool: string, query: string): Promise<Candle[]> {
  const { status, body } = await served.get(`/v1/pools/${pool}/candles?${query}`);
  expect(status, query).toBe(200);
  return body.data.candles as Candle[];
}

/** Every pool, 1s and 15s, every mode and currency, with seeded ranges and limits: the route against the reference over the swaps applied so far. */
async function compare(applied: Swap[], seed: number): Promise<number> {
  const q = rng(seed);
  let candles = 0;
  for (const pool of [POOL_A, CURVE, AMM, POOL_U]) {
    for (const interval of ['1s', '15s'] as const) {
      for (const mode of CANDLE_MODES) {
        for (const currency of CANDLE_CURRENCIES) {
          const cases: Array<{ start?: number; end?: number; limit?: number }> = [{}, { limit: 1_000 }, { limit: 1 }];
          for (let k = 0; k < 3; k++) {
            const start = T0 + Math.floor(q() * 720) * SEC + (q() < 0.5 ? 0 : Math.floor(q() * 1_000));
            cases.push({ start, end: start + Math.floor(q() * 200) * SEC, limit: 1 + Math.floor(q() * 400) });
            cases.push({ end: T0 + Math.floor(q() * 720) * SEC, limit: 1 + Math.floor(q() * 1_000) });
          }
          for (const c of cases) {
            const query = [`interval=${interval}`, `mode=${mode}`, `currency=${currency}`, c.start !== undefined ? `start_time=${c.start}` : '', c.end !== undefined ? `end_time=${c.end}` : '', c.limit !== undefined ? `limit=${c.limit}` : ''].filter(Boolean).join('&');
            const got = await route(pool, query);
            expect(got, `${pool === AMM ? 'amm' : pool === CURVE ? 'curve' : pool === POOL_U ? 'usdc pool' : 'wsol pool'} ${query}`).toEqual(expected(pool, interval, mode, currency, c, applied));
            candles += got.length;
          }
        }
      }
    }
  }
  return candles;
}

beforeAll(async () => {
  dir = tempDir();
  await open();
});

afterAll(async () => {
  await close();
  dir.cleanup();
});

describe('1s and 15s candles folded from the stored trades (issue 25)', () => {
  it('give the series built from the trades: every pool, mode, currency, range and limit, mid-stream, after checkpoints and after a restart', async () => {
    const applied: Swap[] = [];
    const { events } = MARKET;
    const checks = [Math.floor(events.length / 3), Math.floor((2 * events.length) / 3), events.length];
    let compared = 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i] as { type: string };
      expect((await engine.ingest(e)).status, JSON.stringify(e)).toBe('applied');
      if (e.type === 'swap') applied.push(e as Swap);
      // Checkpoints now and then (trades to stored blocks, or to the batch being written), flushes (closed candles taken) more often.
      if (i % 97 === 0) engine.flush();
      if (i % 331 === 0) void engine.checkpoint();
      if (checks.includes(i + 1)) {
        engine.flush();
        compared += await compare(applied, i);
      }
    }
    expect(applied.length).toBeGreaterThan(1_500);
    // Nothing 1s or 15s is stored, in LMDB or in a pool's snapshot.
    await engine.checkpoint();
    for (const { key } of engine.storage.candles.getRange({})) expect((key as unknown[])[1]).toBeGreaterThanOrEqual(2);
    await close();
    await open();
    compared += await compare(applied, 7);
    expect(compared).toBeGreaterThan(20_000);
  }, 300_000);
});
