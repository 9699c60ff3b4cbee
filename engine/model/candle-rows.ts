import { IV, START, STRIDE, storedInto, storedLength, toRow, toStored, type CandleRow, type StoredCandle } from './candles.ts';

/**
 * Closed candle buckets of one pool on their way to LMDB, in one growable Float64Array
 * (STRIDE doubles each, the bucket layout of candles.ts): closing a bucket
 * copies 31 numbers and allocates nothing. Closed candles wait seconds before their
 * batched write; kept as one small JS array each, they outlived young-generation GCs
 * and were copied and promoted, a large share of the engine's GC time.
 *
 * A candle is here once: `put` replaces the row of the same interval and start (a late
 * trade reopened it). Rows keep their insertion order.
 */
const NO_ROWS = new Float64Array(0);

export class CandleRows {
  /** Shared and empty until the first row: a Float64Array costs microseconds to create. */
  data: Float64Array = NO_ROWS;
  length = 0;

  /** `capacity`: rows to make room for at once when the first one comes. */
  constructor(private readonly capacity = 4) {}

  /** Room for n more rows. */
  private reserve(n: number): Float64Array {
    const need = (this.length + n) * STRIDE;
    let data = this.data;
    if (need > data.length) {
      const grown = new Float64Array(Math.max(2 * data.length, need, this.capacity * STRIDE));
      for (let k = 0; k < this.length * STRIDE; k++) grown[k] = data[k]!;
      this.data = data = grown;
    }
    return data;
  }

  /** Offset of row i in `data` (valid until the next push: growing moves `data`). */
  static offset(i: number): number {
    return i * STRIDE;
  }

  /** Appends a copy of the bucket at src[o..]. */
  push(src: Float64Array, o: number): void {
    const data = this.reserve(1);
    const at = this.length * STRIDE;
    for (let k = 0; k < STRIDE; k++) data[at + k] = src[o + k]!;
    this.length++;
  }

  /** The row with this interval and start, searched newest first; -1 if none. */
  find(iv: number, start: number): number {
    const data = this.data;
    for (let i = this.length - 1; i >= 0; i--) {
      const o = i * STRIDE;
      if (data[o + START] === start && data[o + IV] === iv) return i;
    }
    return -1;
  }

  /** Appends the bucket at src[o..], or overwrites the row of the same interval and start. */
  put(src: Float64Array, o: number): void {
    const i = this.find(src[o + IV]!, src[o + START]!);
    if (i < 0) return this.push(src, o);
    const data = this.data;
    const at = i * STRIDE;
    for (let k = 0; k < STRIDE; k++) data[at + k] = src[o + k]!;
  }

  /** `push` of every row of `from` (rows known not to be here), in its order. */
  pushAll(from: CandleRows): void {
    const data = this.reserve(from.length);
    const src = from.data;
    const at = this.length * STRIDE;
    // A loop: `set(subarray(...))` creates a view per call, which cost more than the copy.
    for (let k = 0, n = from.length * STRIDE; k < n; k++) data[at + k] = src[k]!;
    this.length += from.length;
  }

  /** `put` of every row of `from`, in its order. */
  putAll(from: CandleRows): void {
    for (let i = 0; i < from.length; i++) this.put(from.data, i * STRIDE);
  }

  clear(): void {
    this.length = 0;
  }

  stored(i: number): StoredCandle {
    return toStored(this.data, i * STRIDE);
  }

  row(i: number): CandleRow {
    return toRow(this.data, i * STRIDE);
  }

  /** Items in row i's stored form (16, 26 or 30). */
  storedLength(i: number): number {
    return storedLength(this.data, i * STRIDE);
  }

  /** Rows from CandleRows (the interval's index first, as stored in LMDB). */
  static fromRows(rows: readonly CandleRow[]): CandleRows {
    const out = new CandleRows(rows.length);
    const scratch = new Float64Array(STRIDE);
    for (const row of rows) {
      storedInto(row, row[0]!, scratch, 0);
      out.push(scratch, 0);
    }
    return out;
  }

  /** The rows as CandleRows (tests, snapshots of old data). */
  toRows(): CandleRow[] {
    const out: CandleRow[] = [];
    for (let i = 0; i < this.length; i++) out.push(this.row(i));
    return out;
  }
}
