import { INTERVAL_NAMES, type CandleCurrency, type CandleInterval, type CandleMode } from './intervals.ts';

/**
 * The candle layout every layer shares: a candle as served (Candle), as persisted
 * (StoredCandle, CandleRow), and one candle bucket of one interval as plain numbers in
 * a Float64Array, with the conversions between them. The pool actor merges trades into
 * buckets (actors/pool/candles.bucket.ts); storage/candles.repo.ts writes rows and
 * reads stored candles; neither imports the other.
 */

/**
 * A trade position (slot, txIndex, eventIndex) is kept as two numbers: slot and
 * txIndex × SUB_SPAN + eventIndex. Exact while txIndex < 2^33 and eventIndex < 2^20
 * (a Solana transaction has a few dozen events at most); `add` rejects a larger
 * eventIndex rather than mis-order it.
 */
export const SUB_SPAN = 1 << 20;

/** SERVICE.md 2.9. */
export interface Candle {
  start_at: number;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  volume: number | null;
}

/**
 * A closed candle as persisted (msgpack in the `candles` database, key pool + interval
 * + start_at): a tuple, so that msgpack writes no field names. Three lengths:
 * - 16: no trade of the bucket had a USD value (the USD tracks are null);
 * - 26: USD tracks whose open/close trades are the quote tracks' open/close trades;
 * - 30: the same plus the positions of the USD open/close trades, when they differ
 *   (some trades of the bucket had no USD value).
 * Positions are (slot, sub) with sub = txIndex × 2^20 + eventIndex; they let a late
 * trade be merged into the candle after it was persisted. Volumes are double-double
 * sums (hi, lo): `volume` is the correctly rounded sum, `lo` the part it rounded off,
 * so that a later merge stays exact (see `addVolume`).
 */
export type StoredCandle = [
  interval: CandleInterval,
  start_at: number,
  open_slot: number,
  open_sub: number,
  close_slot: number,
  close_sub: number,
  price_open: number,
  price_high: number,
  price_low: number,
  price_close: number,
  market_cap_open: number,
  market_cap_high: number,
  market_cap_low: number,
  market_cap_close: number,
  volume: number,
  volume_lo: number,
  price_usd_open?: number,
  price_usd_high?: number,
  price_usd_low?: number,
  price_usd_close?: number,
  market_cap_usd_open?: number,
  market_cap_usd_high?: number,
  market_cap_usd_low?: number,
  market_cap_usd_close?: number,
  volume_usd?: number,
  volume_usd_lo?: number,
  usd_open_slot?: number,
  usd_open_sub?: number,
  usd_close_slot?: number,
  usd_close_sub?: number,
];

/** Offsets of the four tracks' open in a StoredCandle and a bucket (high, low, close follow). */
const TRACK = { price: { quote: 6, usd: 16 }, market_cap: { quote: 10, usd: 20 } } as const;
const VOLUME_AT = { quote: 14, usd: 24 } as const;

/**
 * A bucket is STRIDE numbers in a Float64Array at some offset: contiguous unboxed
 * doubles, updated in place. (A class with 30 number fields costs ~680 B per bucket in
 * V8, each double boxed in its own heap number, and made `add` memory-bound.) The
 * layout follows StoredCandle from index 1 on, so storing is a copy; index 0 holds the
 * interval's index, 26..29 always the USD positions, 30 the change flag. "None yet" is
 * ±Infinity or NaN: a bucket holds at least one trade once merged, and no USD-valued
 * one while its USD open slot is Infinity. An unused current slot has start Infinity.
 */
export const IV = 0;
export const START = 1;
const OPEN_SLOT = 2;
const OPEN_SUB = 3;
const CLOSE_SLOT = 4;
const CLOSE_SUB = 5;
const PRICE_OPEN = 6;
const PRICE_HIGH = 7;
const PRICE_LOW = 8;
const PRICE_CLOSE = 9;
const CAP_OPEN = 10;
const CAP_HIGH = 11;
const CAP_LOW = 12;
const CAP_CLOSE = 13;
const VOLUME = 14;
const VOLUME_LO = 15;
const USD_PRICE_OPEN = 16;
const USD_PRICE_HIGH = 17;
const USD_PRICE_LOW = 18;
const USD_PRICE_CLOSE = 19;
const USD_CAP_OPEN = 20;
const USD_CAP_HIGH = 21;
const USD_CAP_LOW = 22;
const USD_CAP_CLOSE = 23;
const USD_VOLUME = 24;
const USD_VOLUME_LO = 25;
const USD_OPEN_SLOT = 26;
const USD_OPEN_SUB = 27;
const USD_CLOSE_SLOT = 28;
const USD_CLOSE_SUB = 29;
/** 1 while the bucket is in PoolCandles' change list since the last takeChanged. */
export const DIRTY = 30;
export const STRIDE = 31;

/** An empty bucket: what `resetBucket` copies in. */
export const EMPTY_BUCKET = new Float64Array(STRIDE);
EMPTY_BUCKET.set([0, Infinity, Infinity, Infinity, -Infinity, -Infinity, NaN, -Infinity, Infinity, NaN, NaN, -Infinity, Infinity, NaN, 0, 0]);
EMPTY_BUCKET.set([NaN, -Infinity, Infinity, NaN, NaN, -Infinity, Infinity, NaN, 0, 0, Infinity, Infinity, -Infinity, -Infinity, 0], USD_PRICE_OPEN);

export function resetBucket(d: Float64Array, o: number, iv: number, start: number): void {
  d.set(EMPTY_BUCKET, o);
  d[o + IV] = iv;
  d[o + START] = start;
}

/**
 * What a bucket takes of a trade (actors/pool/trade.ts's PoolTrade has these fields):
 * the quote tracks, and the USD ones when the trade has USD values.
 */
export interface CandleTrade {
  priceQuote: number;
  marketCapQuote: number;
  quoteAmount: number;
  priceUsd: number | null;
  marketCapUsd: number | null;
  quoteUsd: number | null;
}

/**
 * Merges one trade into the bucket at d[o..]. Order-independent: open/close are
 * chosen by position, high/low by value, volumes are exact sums (below), so any
 * arrival order of the same trades gives the same bucket. Merging the same trade
 * twice leaves open/high/low/close unchanged (the position comparisons are strict)
 * and adds its volume twice.
 *
 * USD tracks (the mixed-USD rule): a trade counts for them only when it has USD
 * values (`usd`); open/close are then the USD-valued trades with the smallest and
 * largest position, which may differ from the quote tracks' open/close trades.
 */
export function mergeTrade(d: Float64Array, o: number, t: CandleTrade, slot: number, sub: number, usd: boolean): void {
  const price = t.priceQuote;
  const cap = t.marketCapQuote;
  let a = d[o + OPEN_SLOT]!;
  if (slot < a || (slot === a && sub < d[o + OPEN_SUB]!)) {
    d[o + OPEN_SLOT] = slot;
    d[o + OPEN_SUB] = sub;
    d[o + PRICE_OPEN] = price;
    d[o + CAP_OPEN] = cap;
  }
  a = d[o + CLOSE_SLOT]!;
  if (slot > a || (slot === a && sub > d[o + CLOSE_SUB]!)) {
    d[o + CLOSE_SLOT] = slot;
    d[o + CLOSE_SUB] = sub;
    d[o + PRICE_CLOSE] = price;
    d[o + CAP_CLOSE] = cap;
  }
  if (price > d[o + PRICE_HIGH]!) d[o + PRICE_HIGH] = price;
  if (price < d[o + PRICE_LOW]!) d[o + PRICE_LOW] = price;
  if (cap > d[o + CAP_HIGH]!) d[o + CAP_HIGH] = cap;
  if (cap < d[o + CAP_LOW]!) d[o + CAP_LOW] = cap;
  addVolume(d, o + VOLUME, t.quoteAmount);
  if (!usd) return;
  const usdPrice = t.priceUsd as number;
  const usdCap = t.marketCapUsd as number;
  a = d[o + USD_OPEN_SLOT]!;
  if (slot < a || (slot === a && sub < d[o + USD_OPEN_SUB]!)) {
    d[o + USD_OPEN_SLOT] = slot;
    d[o + USD_OPEN_SUB] = sub;
    d[o + USD_PRICE_OPEN] = usdPrice;
    d[o + USD_CAP_OPEN] = usdCap;
  }
  a = d[o + USD_CLOSE_SLOT]!;
  if (slot > a || (slot === a && sub > d[o + USD_CLOSE_SUB]!)) {
    d[o + USD_CLOSE_SLOT] = slot;
    d[o + USD_CLOSE_SUB] = sub;
    d[o + USD_PRICE_CLOSE] = usdPrice;
    d[o + USD_CAP_CLOSE] = usdCap;
  }
  if (usdPrice > d[o + USD_PRICE_HIGH]!) d[o + USD_PRICE_HIGH] = usdPrice;
  if (usdPrice < d[o + USD_PRICE_LOW]!) d[o + USD_PRICE_LOW] = usdPrice;
  if (usdCap > d[o + USD_CAP_HIGH]!) d[o + USD_CAP_HIGH] = usdCap;
  if (usdCap < d[o + USD_CAP_LOW]!) d[o + USD_CAP_LOW] = usdCap;
  addVolume(d, o + USD_VOLUME, t.quoteAmount * (t.quoteUsd as number));
}

/**
 * Adds x to the double-double sum (hi at d[at], lo at d[at + 1]): TwoSum, then
 * renormalise. hi + lo is the exact sum as long as a bucket's volumes span under ~100
 * bits, so hi (the correctly rounded sum) does not depend on the order of additions;
 * a plain `+=` would (0.1 + 0.2 + 0.3 !== 0.3 + 0.2 + 0.1).
 */
function addVolume(d: Float64Array, at: number, x: number): void {
  const hi = d[at]!;
  const s = hi + x;
  let z = s - hi;
  const lo = d[at + 1]! + (hi - (s - z)) + (x - z);
  const sum = s + lo;
  z = sum - s;
  d[at + 1] = s - (sum - z) + (lo - z);
  d[at] = sum;
}

export function hasUsd(d: Float64Array, o: number): boolean {
  return d[o + USD_OPEN_SLOT] !== Infinity;
}

export function toStored(d: Float64Array, o: number): StoredCandle {
  const out = [INTERVAL_NAMES[d[o + IV]!]!] as unknown as StoredCandle & number[];
  const end = storedLength(d, o);
  for (let k = START; k < end; k++) out.push(d[o + k]!);
  return out;
}

/**
 * A StoredCandle with the interval's index (a number) in place of its name: an array
 * V8 keeps as unboxed doubles (~230 B against ~620 B for a StoredCandle, whose string
 * boxes every number). The form closed candles take on their way to LMDB.
 */
export type CandleRow = number[];

/**
 * How many items the stored form of the bucket at d[o..] has (16, 26 or 30, see
 * StoredCandle): the USD tracks only when some trade had a USD value, their positions
 * only when they differ from the quote tracks' ones.
 */
export function storedLength(d: Float64Array, o: number): number {
  if (!hasUsd(d, o)) return USD_PRICE_OPEN;
  const samePositions =
    d[o + USD_OPEN_SLOT] === d[o + OPEN_SLOT] && d[o + USD_OPEN_SUB] === d[o + OPEN_SUB] && d[o + USD_CLOSE_SLOT] === d[o + CLOSE_SLOT] && d[o + USD_CLOSE_SUB] === d[o + CLOSE_SUB];
  return samePositions ? USD_OPEN_SLOT : DIRTY;
}

export function toRow(d: Float64Array, o: number): CandleRow {
  const end = storedLength(d, o);
  const out = new Array<number>(end);
  out[0] = d[o + IV]!;
  for (let k = START; k < end; k++) out[k] = d[o + k]!;
  return out;
}

/** A stored row as a StoredCandle (a one-trade row expanded to its full form). */
export function rowToStored(row: CandleRow): StoredCandle {
  const c = (row.length === ONE_TRADE.length || row.length === ONE_TRADE_USD.length ? expandOneTrade(row) : row.slice()) as unknown as unknown[];
  c[0] = INTERVAL_NAMES[row[0]!]!;
  return c as unknown as StoredCandle;
}

/**
 * The stored form of a candle of one trade, where a bucket's open and close are the same
 * position, open = high = low = close on every track and the volumes have no low part:
 * these items of the bucket, 7 (no USD value) or 10, against 16 or 26 in full. In a
 * pool that trades less often than once a second nearly every 1s, 15s and 1m candle is
 * one (the engine bench: ~3 per swap, 800 of its 1,800 MiB per million trades). Equal
 * means Object.is (NaN equals NaN, -0 is not 0): expanding gives back the same numbers.
 */
const ONE_TRADE = [IV, START, OPEN_SLOT, OPEN_SUB, PRICE_OPEN, CAP_OPEN, VOLUME] as const;
const ONE_TRADE_USD = [...ONE_TRADE, USD_PRICE_OPEN, USD_CAP_OPEN, USD_VOLUME] as const;

const flat = (d: Float64Array, k: number) => Object.is(d[k], d[k + 1]) && Object.is(d[k], d[k + 2]) && Object.is(d[k], d[k + 3]);

/** The bucket offsets to store for the bucket at d[o..] in one-trade form, or null when it has not got that form. */
export function oneTradeItems(d: Float64Array, o: number): readonly number[] | null {
  if (d[o + OPEN_SLOT] !== d[o + CLOSE_SLOT] || d[o + OPEN_SUB] !== d[o + CLOSE_SUB]) return null;
  if (!flat(d, o + PRICE_OPEN) || !flat(d, o + CAP_OPEN) || !Object.is(d[o + VOLUME_LO], 0)) return null;
  if (!hasUsd(d, o)) return ONE_TRADE;
  if (storedLength(d, o) !== USD_OPEN_SLOT) return null;
  if (!flat(d, o + USD_PRICE_OPEN) || !flat(d, o + USD_CAP_OPEN) || !Object.is(d[o + USD_VOLUME_LO], 0)) return null;
  return ONE_TRADE_USD;
}

/** A one-trade row (7 or 10 items) in full form (16 or 26). */
function expandOneTrade(row: CandleRow): number[] {
  const [iv, start, slot, sub, price, cap, volume] = row as [number, number, number, number, number, number, number];
  const out = [iv, start, slot, sub, slot, sub, price, price, price, price, cap, cap, cap, cap, volume, 0];
  if (row.length === ONE_TRADE_USD.length) {
    const [usdPrice, usdCap, usdVolume] = row.slice(ONE_TRADE.length) as [number, number, number];
    out.push(usdPrice, usdPrice, usdPrice, usdPrice, usdCap, usdCap, usdCap, usdCap, usdVolume, 0);
  }
  return out;
}

/**
 * Fills the bucket at d[o..] from a stored candle or a CandleRow (`iv` is the
 * interval's index: a StoredCandle names it, a row numbers it).
 */
export function storedInto(s: StoredCandle | CandleRow, iv: number, d: Float64Array, o: number): void {
  if (s.length !== 16 && s.length !== 26 && s.length !== 30) throw new Error(`stored candle of length ${s.length}`);
  resetBucket(d, o, iv, s[1] as number);
  const n = s as unknown as number[];
  for (let k = START + 1; k < s.length; k++) d[o + k] = n[k]!;
  if (s.length === 26) {
    d[o + USD_OPEN_SLOT] = d[o + OPEN_SLOT]!;
    d[o + USD_OPEN_SUB] = d[o + OPEN_SUB]!;
    d[o + USD_CLOSE_SLOT] = d[o + CLOSE_SLOT]!;
    d[o + USD_CLOSE_SUB] = d[o + CLOSE_SUB]!;
  }
}

const NULL_TRACK = { open: null, high: null, low: null, close: null, volume: null };

export function candleOfBucket(d: Float64Array, o: number, mode: CandleMode, currency: CandleCurrency): Candle {
  const start_at = d[o + START]!;
  if (currency === 'usd' && !hasUsd(d, o)) return { start_at, ...NULL_TRACK };
  const k = o + TRACK[mode][currency];
  return { start_at, open: d[k]!, high: d[k + 1]!, low: d[k + 2]!, close: d[k + 3]!, volume: d[o + VOLUME_AT[currency]]! };
}

export function candleOfStored(s: StoredCandle, mode: CandleMode, currency: CandleCurrency): Candle {
  const start_at = s[1];
  if (currency === 'usd' && s.length < 26) return { start_at, ...NULL_TRACK };
  const k = TRACK[mode][currency];
  // Past index 1 a stored candle is all numbers.
  const n = s as unknown as number[];
  return { start_at, open: n[k]!, high: n[k + 1]!, low: n[k + 2]!, close: n[k + 3]!, volume: n[VOLUME_AT[currency]]! };
}
