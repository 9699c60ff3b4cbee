import { type Candle, type CandleInterval, type StoredCandle } from '../../../engine/model/index.ts';
import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { SEQ_STALE_GAP, PoolCandles } from '../../../actors/pool/candles.ts';
import type { PoolTrade } from '../../../actors/pool/trade.ts';
import { rng } from '../../helpers/fixtures.ts';
import { MemoryStore, drainClosed } from '../../helpers/candle-store.ts';

/** 2026-01-01T00:00:00Z: a multiple of every interval, so every bucket of the list starts at T0 + offset. */
const T0 = 1_767_225_600_000;
const SUB = 1 << 20;

interface Usd {
  priceUsd: number;
  marketCapUsd: number;
  quoteUsd: number;
}

function trade(offsetMs: number, slot: number, txIndex: number, eventIndex: number, priceQuote: number, marketCapQuote: number, quoteAmount: number, usd: Usd | null): PoolTrade {
  return {
    at: T0 + offsetMs,
    slot,
    txIndex,
    eventIndex,
    side: 'buy',
    wallet: 'W1111111111111111111111111111111',
    baseAmount: quoteAmount / priceQuote,
    quoteAmount,
    priceQuote,
    priceUsd: usd?.priceUsd ?? null,
    marketCapQuote,
    marketCapUsd: usd?.marketCapUsd ?? null,
    quoteUsd: usd?.quoteUsd ?? null,
  };
}

// The list, in position order. USD values are priceQuote × quoteUsd and marketCapQuote × quoteUsd.
//                  at      slot tx ev price  mcap   quote amount  USD
const A = trade(0, /*   */ 100, 0, 0, 1, /* */ 1000, 2, null); // no quote price known yet
const B = trade(400, /* */ 101, 1, 0, 1.5, /**/ 1500, 4, { priceUsd: 150, marketCapUsd: 150_000, quoteUsd: 100 });
const C = trade(999, /* */ 101, 2, 0, 0.5, /**/ 900, 1, { priceUsd: 50, marketCapUsd: 90_000, quoteUsd: 100 });
const E = trade(1000, /**/ 103, 0, 0, 3, /*  */ 2500, 0.5, { priceUsd: 600, marketCapUsd: 500_000, quoteUsd: 200 });
const D = trade(1000, /**/ 103, 0, 1, 2, /*  */ 2000, 8, { priceUsd: 400, marketCapUsd: 400_000, quoteUsd: 200 });
const F = trade(14_999, 110, 2, 0, 2.5, /**/ 2200, 2, { priceUsd: 500, marketCapUsd: 440_000, quoteUsd: 200 });
const G = trade(15_000, 111, 0, 0, 4, /*  */ 4000, 1, null);
const H = trade(20_000, 112, 0, 0, 3.5, /**/ 3600, 2, { priceUsd: 350, marketCapUsd: 360_000, quoteUsd: 100 });
const I = trade(60_000, 120, 0, 0, 5, /*  */ 5000, 1, { priceUsd: 500, marketCapUsd: 500_000, quoteUsd: 100 });
const J = trade(61_500, 121, 0, 0, 4.5, /**/ 4400, 3, null);
const TRADES = [A, B, C, E, D, F, G, H, I, J];

/**
 * Expected candles, computed by hand. A row: start offset; price in quote O H L C;
 * market cap in quote O H L C; volume in quote; price in USD O H L C; market cap in
 * USD O H L C; volume in USD (null: no trade of the bucket had a USD value).
 */
type Row = [number, number, number, number, number, number, number, number, number, number, ...(number | null)[]];
const NO_USD = [null, null, null, null, null, null, null, null, null] as const;
const ALL_DAY: Row[] = [
  // A..J: open A, close J; highs I (price 5, cap 5000); lows C. Volume 2+4+1+0.5+8+2+1+2+1+3 = 24.5.
  // USD trades B C E D F H I: open B, close I; highs E (600, 500000); lows C. Volume 400+100+100+1600+400+200+100 = 2900.
  [0, 1, 5, 0.5, 4.5, 1000, 5000, 900, 4400, 24.5, 150, 600, 50, 500, 150_000, 500_000, 90_000, 500_000, 2900],
];
const EXPECTED: Record<CandleInterval, Row[]> = {
  '1s': [
    // A B C: open A, close C; USD B C only (A has none): open B. Volume 2+4+1; USD 4×100 + 1×100.
    [0, 1, 1.5, 0.5, 0.5, 1000, 1500, 900, 900, 7, 150, 150, 50, 50, 150_000, 150_000, 90_000, 90_000, 500],
    // E D (same slot and tx; E has event 0, so opens though D may arrive first). Volume 0.5+8; USD 100+1600.
    [1000, 3, 3, 2, 2, 2500, 2500, 2000, 2000, 8.5, 600, 600, 400, 400, 500_000, 500_000, 400_000, 400_000, 1700],
    [14_000, 2.5, 2.5, 2.5, 2.5, 2200, 2200, 2200, 2200, 2, 500, 500, 500, 500, 440_000, 440_000, 440_000, 440_000, 400],
    [15_000, 4, 4, 4, 4, 4000, 4000, 4000, 4000, 1, ...NO_USD],
    [20_000, 3.5, 3.5, 3.5, 3.5, 3600, 3600, 3600, 3600, 2, 350, 350, 350, 350, 360_000, 360_000, 360_000, 360_000, 200],
    [60_000, 5, 5, 5, 5, 5000, 5000, 5000, 5000, 1, 500, 500, 500, 500, 500_000, 500_000, 500_000, 500_000, 100],
    [61_000, 4.5, 4.5, 4.5, 4.5, 4400, 4400, 4400, 4400, 3, ...NO_USD],
  ],
  '15s': [
    // A B C E D F: open A, close F, high E, low C; volume 17.5. USD B..F: open B; 400+100+100+1600+400 = 2600.
    [0, 1, 3, 0.5, 2.5, 1000, 2500, 900, 2200, 17.5, 150, 600, 50, 500, 150_000, 500_000, 90_000, 440_000, 2600],
    // G H: USD from H alone.
    [15_000, 4, 4, 3.5, 3.5, 4000, 4000, 3600, 3600, 3, 350, 350, 350, 350, 360_000, 360_000, 360_000, 360_000, 200],
    // I J: USD from I alone (the USD close is I, the quote close J).
    [60_000, 5, 5, 4.5, 4.5, 5000, 5000, 4400, 4400, 4, 500, 500, 500, 500, 500_000, 500_000, 500_000, 500_000, 100],
  ],
  '1m': [
    // A..H: high G (4, 4000), close H; volume 17.5+1+2 = 20.5. USD close H; 2600+200 = 2800.
    [0, 1, 4, 0.5, 3.5, 1000, 4000, 900, 3600, 20.5, 150, 600, 50, 350, 150_000, 500_000, 90_000, 360_000, 2800],
    [60_000, 5, 5, 4.5, 4.5, 5000, 5000, 4400, 4400, 4, 500, 500, 500, 500, 500_000, 500_000, 500_000, 500_000, 100],
  ],
  '15m': ALL_DAY,
  '1h': ALL_DAY,
  '6h': ALL_DAY,
  '24h': ALL_DAY,
};
const INTERVALS = Object.keys(EXPECTED) as CandleInterval[];
const SERIES = [
  ['price', 'quote'],
  ['price', 'usd'],
  ['market_cap', 'quote'],
  ['market_cap', 'usd'],
] as const;

function candlesOf(rows: Row[], mode: 'price' | 'market_cap', currency: 'quote' | 'usd'): Candle[] {
  const at = mode === 'price' ? (currency === 'quote' ? 1 : 10) : currency === 'quote' ? 5 : 14;
  const volumeAt = currency === 'quote' ? 9 : 18;
  return rows.map((r) => ({ start_at: T0 + r[0], open: r[at]!, high: r[at + 1]!, low: r[at + 2]!, close: r[at + 3]!, volume: r[volumeAt]! }));
}

function expectCandles(c: PoolCandles, expected: Record<CandleInterval, Row[]>): void {
  for (const interval of INTERVALS) {
    for (const [mode, currency] of SERIES) {
      expect(c.series(interval, mode, currency, { limit: 1000 }), `${interval} ${mode} ${currency}`).toEqual(candlesOf(expected[interval], mode, currency));
    }
  }
}

function allSeries(c: PoolCandles): unknown {
  return INTERVALS.map((interval) => SERIES.map(([mode, currency]) => c.series(interval, mode, currency, { limit: 1000 })));
}


function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  const next = rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function filled(trades: PoolTrade[], store = new MemoryStore()): { c: PoolCandles; store: MemoryStore } {
  const c = new PoolCandles(store);
  for (const t of trades) c.add(t);
  return { c, store };
}

const keysOf = (candles: StoredCandle[]) => candles.map((s) => [s[0], s[1] - T0]);

describe('PoolCandles', () => {
  it('computes every interval and every track from a known trade list', () => {
    expectCandles(filled(TRADES).c, EXPECTED);
  });

  it('gives identical candles for any arrival order, with or without drains in between', () => {
    for (const seed of [1, 2, 3, 7, 42, 1234]) {
      const order = shuffled(TRADES, seed);
      expectCandles(filled(order).c, EXPECTED);
      // Draining after every other trade sends trades more than 10 s behind the newest down the late path.
      const store = new MemoryStore();
      const c = new PoolCandles(store);
      order.forEach((t, k) => {
        c.add(t);
        if (k % 2 === 1) store.put(drainClosed(c));
      });
      expectCandles(c, EXPECTED);
      store.put(drainClosed(c));
      expectCandles(c, EXPECTED);
    }
  });

  it('puts a trade at an exact bucket boundary in the bucket it starts', () => {
    const { c } = filled([trade(14_999, 1, 0, 0, 1, 10, 1, null), trade(15_000, 2, 0, 0, 2, 20, 1, null), trade(59_999, 3, 0, 0, 3, 30, 1, null), trade(60_000, 4, 0, 0, 4, 40, 1, null)]);
    expect(c.series('15s', 'price', 'quote', { limit: 10 }).map((x) => [x.start_at - T0, x.open])).toEqual([
      [0, 1],
      [15_000, 2],
      [45_000, 3],
      [60_000, 4],
    ]);
    expect(c.series('1m', 'price', 'quote', { limit: 10 }).map((x) => [x.start_at - T0, x.open, x.close])).toEqual([
      [0, 1, 3],
      [60_000, 4, 4],
    ]);
  });

  it('keeps the USD tracks null until a trade with a USD value, then uses only those', () => {
    const c = new PoolCandles(new MemoryStore());
    c.add(trade(0, 1, 0, 0, 2, 200, 5, null));
    expect(c.series('1m', 'price', 'usd', { limit: 10 })).toEqual([{ start_at: T0, open: null, high: null, low: null, close: null, volume: null }]);
    expect(c.series('1m', 'market_cap', 'usd', { limit: 10 })).toEqual([{ start_at: T0, open: null, high: null, low: null, close: null, volume: null }]);
    expect(c.series('1m', 'price', 'quote', { limit: 10 })).toEqual([{ start_at: T0, open: 2, high: 2, low: 2, close: 2, volume: 5 }]);
    // Second trade, later position, USD at 10 per quote unit: 3 quote → 30 USD; volume 1 × 10.
    c.add(trade(1000, 2, 0, 0, 3, 300, 1, { priceUsd: 30, marketCapUsd: 3000, quoteUsd: 10 }));
    expect(c.series('1m', 'price', 'usd', { limit: 10 })).toEqual([{ start_at: T0, open: 30, high: 30, low: 30, close: 30, volume: 10 }]);
    expect(c.series('1m', 'market_cap', 'usd', { limit: 10 })).toEqual([{ start_at: T0, open: 3000, high: 3000, low: 3000, close: 3000, volume: 10 }]);
    expect(c.series('1m', 'price', 'quote', { limit: 10 })).toEqual([{ start_at: T0, open: 2, high: 3, low: 2, close: 3, volume: 6 }]);
  });

  it('honours limit, startTime and endTime (inclusive, on start_at), from memory and from the store', () => {
    const { c, store } = filled(TRADES);
    const starts = (opts: { startTime?: number; endTime?: number; limit: number }) => c.series('1s', 'price', 'quote', opts).map((x) => x.start_at - T0);
    const check = () => {
      expect(starts({ limit: 2 })).toEqual([60_000, 61_000]);
      expect(starts({ startTime: T0 + 1000, endTime: T0 + 20_000, limit: 300 })).toEqual([1000, 14_000, 15_000, 20_000]);
      expect(starts({ startTime: T0 + 1000, endTime: T0 + 20_000, limit: 2 })).toEqual([15_000, 20_000]);
      expect(starts({ startTime: T0 + 1001, limit: 300 })).toEqual([14_000, 15_000, 20_000, 60_000, 61_000]);
      expect(starts({ endTime: T0 + 999, limit: 300 })).toEqual([0]);
      expect(starts({ startTime: T0 + 62_000, limit: 300 })).toEqual([]);
      expect(starts({ limit: 0 })).toEqual([]);
      expect(c.series('15s', 'price', 'quote', { startTime: T0 + 15_000, endTime: T0 + 15_000, limit: 5 }).map((x) => x.start_at - T0)).toEqual([15_000]);
    };
    check();
    store.put(drainClosed(c));
    expect(store.rows.size).toBe(7);
    check();
    expect(store.reads).toBeGreaterThan(0);
  });

  it('drains closed buckets as compact tuples, and reads the same series through the store', () => {
    const { c, store } = filled(TRADES);
    const before = allSeries(c);
    const drained = drainClosed(c);
    // Newest trade J at 61.5 s, lateness 10 s: buckets ending at or before 51.5 s close.
    expect(keysOf(drained)).toEqual([
      ['1s', 0],
      ['1s', 1000],
      ['1s', 14_000],
      ['1s', 15_000],
      ['1s', 20_000],
      ['15s', 0],
      ['15s', 15_000],
    ]);
    const byKey = (interval: string, offset: number) => drained.find((s) => s[0] === interval && s[1] === T0 + offset);
    // Quote open A (100, 0), close C (101, tx 2); USD open B (101, tx 1) differs, so USD positions follow (30 items).
    expect(byKey('1s', 0)).toEqual(['1s', T0, 100, 0, 101, 2 * SUB, 1, 1.5, 0.5, 0.5, 1000, 1500, 900, 900, 7, 0, 150, 150, 50, 50, 150_000, 150_000, 90_000, 90_000, 500, 0, 101, SUB, 101, 2 * SUB]);
    // E (103, 0, 0) opens, D (103, 0, 1) closes, both with USD: 26 items.
    expect(byKey('1s', 1000)).toEqual(['1s', T0 + 1000, 103, 0, 103, 1, 3, 3, 2, 2, 2500, 2500, 2000, 2000, 8.5, 0, 600, 600, 400, 400, 500_000, 500_000, 400_000, 400_000, 1700, 0]);
    // G alone, no USD: 16 items.
    expect(byKey('1s', 15_000)).toEqual(['1s', T0 + 15_000, 111, 0, 111, 0, 4, 4, 4, 4, 4000, 4000, 4000, 4000, 1, 0]);
    expect(drainClosed(c)).toEqual([]);
    store.put(drained);
    expect(allSeries(c)).toEqual(before);
    expectCandles(c, EXPECTED);
  });

  it('merges a late trade into a candle already drained, and drains it again', () => {
    const { c, store } = filled(TRADES);
    store.put(drainClosed(c));
    // K at 0.5 s, position (101, 0, 5): after A, before B. Price 10, cap 9000, 1 quote at 100 USD.
    const K = trade(500, 101, 0, 5, 10, 9000, 1, { priceUsd: 1000, marketCapUsd: 900_000, quoteUsd: 100 });
    c.add(K);
    const one = (interval: CandleInterval, offset: number, mode: 'price' | 'market_cap', currency: 'quote' | 'usd') =>
      c.series(interval, mode, currency, { startTime: T0 + offset, endTime: T0 + offset, limit: 1 })[0];
    // 1s@0 = A K B C: open A, close C, high K; volume 7+1. USD K B C: open K (before B); 500+100.
    expect(one('1s', 0, 'price', 'quote')).toEqual({ start_at: T0, open: 1, high: 10, low: 0.5, close: 0.5, volume: 8 });
    expect(one('1s', 0, 'price', 'usd')).toEqual({ start_at: T0, open: 1000, high: 1000, low: 50, close: 50, volume: 600 });
    expect(one('1s', 0, 'market_cap', 'quote')).toEqual({ start_at: T0, open: 1000, high: 9000, low: 900, close: 900, volume: 8 });
    expect(one('1s', 0, 'market_cap', 'usd')).toEqual({ start_at: T0, open: 900_000, high: 900_000, low: 90_000, close: 90_000, volume: 600 });
    // 15s@0 (drained too): close F; volume 17.5+1; USD 2600+100.
    expect(one('15s', 0, 'price', 'quote')).toEqual({ start_at: T0, open: 1, high: 10, low: 0.5, close: 2.5, volume: 18.5 });
    expect(one('15s', 0, 'market_cap', 'usd')).toEqual({ start_at: T0, open: 900_000, high: 900_000, low: 90_000, close: 440_000, volume: 2700 });
    // 1m@0 (still live): volume 20.5+1, USD 2800+100.
    expect(one('1m', 0, 'price', 'usd')).toEqual({ start_at: T0, open: 1000, high: 1000, low: 50, close: 350, volume: 2900 });
    // 24h@0: volume 24.5+1, USD 2900+100.
    expect(one('24h', 0, 'price', 'quote')).toEqual({ start_at: T0, open: 1, high: 10, low: 0.5, close: 4.5, volume: 25.5 });
    expect(one('24h', 0, 'market_cap', 'usd')).toEqual({ start_at: T0, open: 900_000, high: 900_000, low: 90_000, close: 500_000, volume: 3000 });
    const again = drainClosed(c);
    expect(keysOf(again)).toEqual([
      ['1s', 0],
      ['15s', 0],
    ]);
    store.put(again);
    // L at 5 s: a 1s bucket that never had a trade and is closed already; 15s@0 reloads from the store.
    const L = trade(5000, 105, 0, 0, 7, 7000, 1, null);
    c.add(L);
    expect(one('1s', 5000, 'price', 'quote')).toEqual({ start_at: T0 + 5000, open: 7, high: 7, low: 7, close: 7, volume: 1 });
    expect(one('1s', 5000, 'price', 'usd')).toEqual({ start_at: T0 + 5000, open: null, high: null, low: null, close: null, volume: null });
    store.put(drainClosed(c));
    expect(store.get('1s', T0 + 5000)).toEqual(['1s', T0 + 5000, 105, 0, 105, 0, 7, 7, 7, 7, 7000, 7000, 7000, 7000, 1, 0]);
    expect(allSeries(c)).toEqual(allSeries(filled([...TRADES, K, L]).c));
  });

  it('restores from a msgpack snapshot with the same candles, pending updates and changes', () => {
    const { c, store } = filled(TRADES);
    store.put(drainClosed(c));
    c.takeChanged();
    c.add(trade(500, 101, 0, 5, 10, 9000, 1, null)); // late: pending for 1s@0 and 15s@0
    const restored = PoolCandles.fromSnapshot(unpack(pack(c.toSnapshot())), store);
    expect(allSeries(restored)).toEqual(allSeries(c));
    expect(INTERVALS.map((i) => restored.seqOf(i))).toEqual(INTERVALS.map((i) => c.seqOf(i)));
    expect(restored.takeChanged()).toEqual(c.takeChanged());
    const M = trade(62_000, 122, 0, 0, 6, 6000, 2, { priceUsd: 600, marketCapUsd: 600_000, quoteUsd: 100 });
    c.add(M);
    restored.add(M);
    expect(drainClosed(restored)).toEqual(drainClosed(c));
    expect(allSeries(restored)).toEqual(allSeries(c));
    expect(restored.takeChanged()).toEqual(c.takeChanged());
    // An empty one too.
    const empty = PoolCandles.fromSnapshot(unpack(pack(new PoolCandles(store).toSnapshot())), store);
    expect(drainClosed(empty)).toEqual([]);
    expect(empty.takeChanged()).toEqual([]);
  });

  it('lists changed buckets once per take and counts one seq event per interval per take', () => {
    const store = new MemoryStore();
    const c = new PoolCandles(store);
    const all0 = INTERVALS.map((interval) => ({ interval, start_at: T0 }));
    expect(c.takeChanged()).toEqual([]);
    expect(c.seqOf('1m')).toBe(0);
    c.add(A);
    expect(c.takeChanged()).toEqual(all0);
    expect(INTERVALS.map((i) => c.seqOf(i))).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(c.takeChanged()).toEqual([]);
    expect(c.seqOf('1s')).toBe(1);
    c.add(B);
    c.add(C);
    expect(c.takeChanged()).toEqual(all0);
    expect(c.seqOf('24h')).toBe(2);
    c.add(D);
    c.add(C); // an older bucket of 1s changes too (volume)
    expect(c.takeChanged()).toEqual([
      { interval: '1s', start_at: T0 },
      { interval: '1s', start_at: T0 + 1000 },
      ...all0.slice(1),
    ]);
    expect(INTERVALS.map((i) => c.seqOf(i))).toEqual([3, 3, 3, 3, 3, 3, 3]);
    expect(c.candle('1s', T0 + 1000, 'price', 'quote')).toEqual({ start_at: T0 + 1000, open: 2, high: 2, low: 2, close: 2, volume: 8 });
    expect(c.candle('1s', T0 + 2000, 'price', 'quote')).toBeNull();
    // A late trade for a drained bucket, twice across a drain: listed once.
    for (const t of [E, F, G, H, I, J]) c.add(t);
    c.takeChanged();
    store.put(drainClosed(c));
    c.add(trade(500, 101, 0, 5, 10, 9000, 1, null));
    store.put(drainClosed(c));
    c.add(trade(600, 101, 0, 6, 11, 9000, 1, null));
    const changed = c.takeChanged();
    expect(changed.filter((x) => x.interval === '1s')).toEqual([{ interval: '1s', start_at: T0 }]);
    expect(changed).toHaveLength(7);
    expect(c.seqOf('1s')).toBe(5);
    // A 2 + B 4 + C 1 twice (added twice above) + 1 + 1.
    expect(c.candle('1s', T0, 'price', 'quote')).toEqual({ start_at: T0, open: 1, high: 11, low: 0.5, close: 0.5, volume: 10 });
  });

  it('skipChanged counts the seqs as takeChanged does, without the list; a stale snapshot moves every seq SEQ_STALE_GAP on', () => {
    const taken = new PoolCandles(new MemoryStore());
    const skipped = new PoolCandles(new MemoryStore());
    const steps = [[A], [], [B, C], [D, C]];
    for (const trades of steps) {
      for (const t of trades) {
        taken.add(t);
        skipped.add(t);
      }
      taken.takeChanged();
      skipped.skipChanged();
      expect(INTERVALS.map((i) => skipped.seqOf(i))).toEqual(INTERVALS.map((i) => taken.seqOf(i)));
    }
    expect(skipped.seqOf('1s')).toBe(3);
    // Nothing left to take, and a later change is listed and counted once.
    expect(skipped.takeChanged()).toEqual([]);
    skipped.add(D);
    expect(skipped.takeChanged()).toHaveLength(7);
    expect(skipped.seqOf('1s')).toBe(4);
    const store = new MemoryStore();
    const data = unpack(pack(skipped.toSnapshot()));
    expect(INTERVALS.map((i) => PoolCandles.fromSnapshot(data, store).seqOf(i))).toEqual([4, 4, 4, 4, 4, 4, 4]);
    expect(INTERVALS.map((i) => PoolCandles.fromSnapshot(data, store, 1).seqOf(i))).toEqual(INTERVALS.map(() => 4 + SEQ_STALE_GAP));
    expect(INTERVALS.map((i) => PoolCandles.fromSnapshot(data, store, 3).seqOf(i))).toEqual(INTERVALS.map(() => 4 + 3 * SEQ_STALE_GAP));
  });

  it('keeps open/high/low/close when the same trade is added twice (volume counts it twice)', () => {
    const { c } = filled([...TRADES, B]);
    expect(c.series('1s', 'price', 'quote', { endTime: T0, limit: 1 })).toEqual([{ start_at: T0, open: 1, high: 1.5, low: 0.5, close: 0.5, volume: 11 }]);
    expect(c.series('1s', 'price', 'usd', { endTime: T0, limit: 1 })).toEqual([{ start_at: T0, open: 150, high: 150, low: 50, close: 50, volume: 900 }]);
    expect(c.series('24h', 'market_cap', 'quote', { limit: 1 })).toEqual([{ start_at: T0, open: 1000, high: 5000, low: 900, close: 4400, volume: 28.5 }]);
    expect(c.series('24h', 'market_cap', 'usd', { limit: 1 })).toEqual([{ start_at: T0, open: 150_000, high: 500_000, low: 90_000, close: 500_000, volume: 3300 }]);
  });

  it('sums volumes exactly, so the order of additions does not show in the last bit', () => {
    expect(0.1 + 0.2 + 0.3).toBe(0.6000000000000001); // what a plain running sum gives in this order
    const amounts = [0.1, 0.2, 0.3];
    const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    for (const order of orders) {
      const c = new PoolCandles(new MemoryStore());
      for (const k of order) c.add(trade(k * 100, 10 + k, 0, 0, 1, 1, amounts[k]!, { priceUsd: 1, marketCapUsd: 1, quoteUsd: 1 }));
      // double(0.1) + double(0.2) + double(0.3) = 0.60000000000000000555…; the nearest double is 0.6.
      expect(c.series('1s', 'price', 'quote', { limit: 1 })[0]!.volume).toBe(0.6);
      expect(c.series('1s', 'price', 'usd', { limit: 1 })[0]!.volume).toBe(0.6);
    }
  });

  it('closes the oldest live buckets past the bound when nobody drains, without losing them', () => {
    const store = new MemoryStore();
    const c = new PoolCandles(store);
    for (let k = 0; k < 40; k++) c.add(trade(k * 1000, 100 + k, 0, 0, k + 1, 1000, 1, null));
    const closes = c.series('1s', 'price', 'quote', { limit: 1000 }).map((x) => x.close);
    expect(closes).toEqual(Array.from({ length: 40 }, (_, k) => k + 1));
    // A late trade into a bucket closed by the bound lands in the pending copy.
    c.add(trade(0, 99, 0, 0, 0.5, 1000, 1, null));
    expect(c.candle('1s', T0, 'price', 'quote')).toEqual({ start_at: T0, open: 0.5, high: 1, low: 0.5, close: 1, volume: 2 });
    // Newest at 39 s: 1s buckets 0..28 s end by 29 s (8 closed by the bound of 32, 21 by lateness); 15s@0 too.
    const drained = drainClosed(c);
    expect(drained.filter((s) => s[0] === '1s')).toHaveLength(29);
    expect(keysOf(drained.filter((s) => s[0] !== '1s'))).toEqual([['15s', 0]]);
    store.put(drained);
    expect(c.series('1s', 'price', 'quote', { limit: 1000 }).map((x) => x.close)).toEqual(closes);
  });

  it('matches a brute-force recomputation for random trades, arrival orders (some minutes late) and drain cadences', () => {
    const lengths: Record<CandleInterval, number> = { '1s': 1000, '15s': 15_000, '1m': 60_000, '15m': 900_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 };
    for (let seed = 1; seed <= 15; seed++) {
      const next = rng(seed);
      // 300 trades over ~5 minutes, some sharing a slot; prices not dyadic; 1 in 5 without USD.
      const trades: PoolTrade[] = [];
      let at = 0;
      for (let k = 0; k < 300; k++) {
        at += Math.floor(next() * 2000);
        const price = 0.1 + next();
        const cap = price * 1e6 + Math.floor(next() * 1000);
        const quoteUsd = 100 + next() * 100;
        const usd = next() < 0.2 ? null : { priceUsd: price * quoteUsd, marketCapUsd: cap * quoteUsd, quoteUsd };
        trades.push(trade(at, 1000 + Math.floor(at / 400), Math.floor(next() * 3), k, price, cap, 0.01 + next() * 10, usd));
      }
      // Arrival: time order displaced by up to 2 minutes, far beyond the 10 s allowance.
      const arrival = trades.map((t) => ({ t, key: t.at + (next() < 0.1 ? next() * 120_000 : next() * 3000) })).sort((a, b) => a.key - b.key);
      const store = new MemoryStore();
      const c = new PoolCandles(store);
      const cadence = 1 + Math.floor(next() * 20);
      arrival.forEach(({ t }, k) => {
        c.add(t);
        if (k % cadence === 0) store.put(drainClosed(c));
      });
      if (seed % 2 === 0) store.put(drainClosed(c));
      // Ordered arrival without any drain gives exactly the same candles, volumes included.
      expect(allSeries(c), `seed ${seed}`).toEqual(allSeries(filled(trades).c));
      // And open/high/low/close are those of a direct recomputation (volumes to 1e-12).
      for (const interval of INTERVALS) {
        const buckets = new Map<number, PoolTrade[]>();
        for (const t of trades) {
          const start = Math.floor(t.at / lengths[interval]) * lengths[interval];
          buckets.set(start, [...(buckets.get(start) ?? []), t]);
        }
        const starts = [...buckets.keys()].sort((a, b) => a - b);
        for (const [mode, currency] of SERIES) {
          const got = c.series(interval, mode, currency, { limit: 1000 });
          expect(got.map((x) => x.start_at)).toEqual(starts);
          got.forEach((candle, k) => {
            const all = [...buckets.get(starts[k]!)!].sort((a, b) => a.slot - b.slot || a.txIndex - b.txIndex || a.eventIndex - b.eventIndex);
            const used = currency === 'usd' ? all.filter((t) => t.quoteUsd !== null) : all;
            const value = (t: PoolTrade) => (mode === 'price' ? (currency === 'usd' ? t.priceUsd! : t.priceQuote) : currency === 'usd' ? t.marketCapUsd! : t.marketCapQuote);
            if (used.length === 0) {
              expect(candle).toEqual({ start_at: starts[k], open: null, high: null, low: null, close: null, volume: null });
              return;
            }
            const volume = used.reduce((sum, t) => sum + t.quoteAmount * (currency === 'usd' ? t.quoteUsd! : 1), 0);
            expect({ ...candle, volume: 0 }).toEqual({ start_at: starts[k], open: value(used[0]!), high: Math.max(...used.map(value)), low: Math.min(...used.map(value)), close: value(used[used.length - 1]!), volume: 0 });
            expect(Math.abs(candle.volume! - volume) / volume).toBeLessThan(1e-12);
          });
        }
      }
    }
  });
});

describe('PoolCandles closing at once', () => {
  // A pool trading less often than the 10 s lateness allowance: each trade closes the buckets before it.
  const at = (offsetMs: number, slot: number, price: number) => trade(offsetMs, slot, 0, 0, price, price * 1000, 1, null);

  it('closes a bucket past the allowance when the next bucket of its interval starts, keeps it readable, and merges a late trade into it', () => {
    const store = new MemoryStore();
    const candles = new PoolCandles(store);
    candles.add(at(0, 100, 1));
    candles.add(at(40_000, 200, 2)); // 30 s past the end of 1s@0 and 15s@0: both close now
    // Closed, not drained: served from memory, not from the store.
    expect(candles.candle('1s', T0, 'price', 'quote')).toMatchObject({ open: 1, close: 1 });
    expect(store.rows.size).toBe(0);
    candles.add(at(500, 150, 5)); // late: into the closed 1s@0, after A by position
    const drained = drainClosed(candles);
    expect(drained.map((c) => `${c[0]}@${c[1] - T0}`).sort()).toEqual(['15s@0', '1s@0']);
    const oneSecond = drained.find((c) => c[0] === '1s')!;
    // open/close by position (slot 100, then 150), high 5, volume of both trades.
    expect([oneSecond[6], oneSecond[7], oneSecond[8], oneSecond[9], oneSecond[14]]).toEqual([1, 5, 1, 5, 2]);
    store.put(drained);
    // Drained and stored: a later late trade reloads it and the next drain replaces it.
    candles.add(at(700, 160, 0.5));
    const again = drainClosed(candles).find((c) => c[0] === '1s')!;
    expect([again[1] - T0, again[6], again[7], again[8], again[9], again[14]]).toEqual([0, 1, 5, 0.5, 0.5, 3]);
    expect(candles.series('1s', 'price', 'quote', { limit: 10 }).map((c) => c.start_at - T0)).toEqual([0, 40_000]);
  });
});
