import type { CandlesRepo, SegmentTails } from '../../storage/candles.repo.ts';
import { INTERVAL_NAMES, intervalIndex, rowToStored, type CandleRow } from './candles.bucket.ts';
import type { ClosedCandleStore, StoredCandle } from './candles.ts';
import type { CandleInterval } from './trade.ts';

/**
 * A pool's closed candles on their way to LMDB, and the ClosedCandleStore its
 * PoolCandles reads them through.
 *
 * Candles closed by PoolCandles.drainClosed wait in `buffer` (part of the pool's
 * snapshot, so they are as durable as the pool) and are written as segments once
 * WRITE_AT of them gathered: one put per interval for many candles. A pool that
 * trades once every 40 s closes a 1s and a 15s candle at nearly every trade; writing
 * each as it closes would cost several LMDB puts per trade. While a write is not
 * committed its candles stay readable here (LMDB does not show an uncommitted put).
 */
export const WRITE_AT = 32;


/** Doubles per row in a snapshot: a length, then up to 30 numbers of a StoredCandle. */
const ROW_WIDTH = 31;

/**
 * The buffer as one binary blob for the pool's snapshot: msgpack copies bytes, where an
 * array of rows of doubles costs it ~9 bytes and a type check per number (the buffer
 * was most of a pool's snapshot encoding time).
 */
export function encodeRows(rows: readonly CandleRow[]): Uint8Array {
  const out = new Float64Array(rows.length * ROW_WIDTH);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const o = r * ROW_WIDTH;
    out[o] = row.length;
    for (let k = 0; k < row.length; k++) out[o + 1 + k] = row[k]!;
  }
  return new Uint8Array(out.buffer);
}

export function decodeRows(bytes: Uint8Array | CandleRow[] | undefined): CandleRow[] {
  if (!bytes) return [];
  if (Array.isArray(bytes)) return bytes;
  const data = new Float64Array(new Uint8Array(bytes).buffer);
  const rows: CandleRow[] = [];
  for (let o = 0; o + ROW_WIDTH <= data.length; o += ROW_WIDTH) rows.push(Array.from(data.subarray(o + 1, o + 1 + data[o]!)));
  return rows;
}

export class PoolClosedCandles implements ClosedCandleStore {
  /** Closed, not yet written, in drain order (a candle appears once: a later drain replaces it). */
  buffer: CandleRow[];
  /** Written, not yet committed. */
  private readonly writing = new Set<CandleRow[]>();
  /** Newest stored start per interval, so that a write need not read it back (candles.repo.ts). */
  private readonly tails: SegmentTails = new Float64Array(INTERVAL_NAMES.length).fill(NaN);

  constructor(
    private readonly pool: string,
    private readonly repo: CandlesRepo | null,
    buffer: CandleRow[] = [],
  ) {
    this.buffer = buffer;
  }

  /** Takes candles from PoolCandles.drainClosedRows; writes a batch once WRITE_AT gathered. */
  add(closed: CandleRow[]): void {
    if (closed.length === 0) return;
    const buffer = this.buffer;
    for (const row of closed) {
      const i = buffer.findIndex((b) => b[0] === row[0] && b[1] === row[1]);
      if (i >= 0) buffer[i] = row;
      else buffer.push(row);
    }
    if (buffer.length >= WRITE_AT) this.write();
  }

  /**
   * Writes everything buffered now, unless a write is still in flight: the repo places
   * candles by what LMDB shows, so writes of one pool go one after another (the buffer
   * keeps gathering meanwhile).
   */
  write(): void {
    if (!this.repo || this.buffer.length === 0 || this.writing.size > 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.writing.add(batch);
    const settle = () => {
      this.writing.delete(batch);
      if (this.buffer.length >= WRITE_AT) this.write();
    };
    this.repo.write(this.pool, batch, this.tails).then(settle, settle);
  }

  /** Memory first (newest first: the buffer, then writes in flight), then LMDB. */
  get(interval: CandleInterval, startAt: number): StoredCandle | undefined {
    const iv = intervalIndex(interval);
    for (let i = this.buffer.length - 1; i >= 0; i--) {
      const row = this.buffer[i]!;
      if (row[1] === startAt && row[0] === iv) return rowToStored(row);
    }
    for (const batch of [...this.writing].reverse()) for (const c of batch) if (c[1] === startAt && c[0] === iv) return rowToStored(c);
    return this.repo?.get(this.pool, interval, startAt);
  }

  read(interval: CandleInterval, fromStartAt: number, toStartAt: number, limit: number): StoredCandle[] {
    const stored = this.repo ? this.repo.read(this.pool, interval, fromStartAt, toStartAt, limit) : [];
    const memory: StoredCandle[] = [];
    const iv = intervalIndex(interval);
    const take = (row: CandleRow) => row[0] === iv && row[1]! >= fromStartAt && row[1]! <= toStartAt;
    for (const batch of this.writing) for (const row of batch) if (take(row)) memory.push(rowToStored(row));
    for (const row of this.buffer) if (take(row)) memory.push(rowToStored(row));
    if (memory.length === 0) return stored;
    // Memory wins over LMDB for the same start_at (a late trade updated it since).
    const byStart = new Map<number, StoredCandle>();
    for (const c of stored) byStart.set(c[1], c);
    for (const c of memory) byStart.set(c[1], c);
    const out = [...byStart.values()].sort((a, b) => a[1] - b[1]);
    return out.length > limit ? out.slice(out.length - limit) : out;
  }
}
