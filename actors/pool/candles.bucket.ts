import { FREE_MAX } from '../../engine/bounds.ts';
import type { PoolTrade } from './trade.ts';
import { CAP_CLOSE, CAP_HIGH, CAP_LOW, CAP_OPEN, CLOSE_SLOT, CLOSE_SUB, OPEN_SLOT, OPEN_SUB, PRICE_CLOSE, PRICE_HIGH, PRICE_LOW, PRICE_OPEN, STRIDE, USD_CAP_CLOSE, USD_CAP_HIGH, USD_CAP_LOW, USD_CAP_OPEN, USD_CLOSE_SLOT, USD_CLOSE_SUB, USD_OPEN_SLOT, USD_OPEN_SUB, USD_PRICE_CLOSE, USD_PRICE_HIGH, USD_PRICE_LOW, USD_PRICE_OPEN, USD_VOLUME, VOLUME, resetBucket } from '../../engine/model/index.ts';

/**
 * One candle bucket of one interval as plain mutable numbers (the layout of
 * engine/model/candles.ts): buckets reused, and trades merged into them. Internal to
 * PoolCandles (candles.ts); the pool actor sees only StoredCandle.
 */

/**
 * Buckets drained (their content copied into a StoredCandle) wait here for reuse: a
 * new Float64Array has its memory off the JS heap, and allocating and freeing one per
 * bucket rollover showed as ~15 % of `add` at 10k pools. Shared by all PoolCandles of
 * the thread; a bucket goes here only once nothing refers to it.
 */
const FREE: Float64Array[] = [];

export function releaseBucket(d: Float64Array): void {
  if (FREE.length < FREE_MAX) FREE.push(d);
}

export function newBucket(iv: number, start: number): Float64Array {
  const d = FREE.pop() ?? new Float64Array(STRIDE);
  resetBucket(d, 0, iv, start);
  return d;
}

/** A bucket of its own holding a copy of the one at src[o..]. */
export function copyBucket(src: Float64Array, o: number): Float64Array {
  const d = FREE.pop() ?? new Float64Array(STRIDE);
  for (let k = 0; k < STRIDE; k++) d[k] = src[o + k]!;
  return d;
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
export function mergeTrade(d: Float64Array, o: number, t: PoolTrade, slot: number, sub: number, usd: boolean): void {
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

