import { FREE_MAX } from '../../engine/bounds.ts';
import { STRIDE, resetBucket } from '../../engine/model/index.ts';

/**
 * Candle buckets (the layout of engine/model/candles.ts) reused across a thread's
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
