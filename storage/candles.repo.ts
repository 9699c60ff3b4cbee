import { INTERVAL_COUNT, IV, START, CandleRows, intervalIndex, oneTradeItems, rowToStored, type CandleInterval, type CandleRow, type StoredCandle } from '../engine/model/index.ts';
import { asBinary, type Key } from 'lmdb';
import type { Storage } from './lmdb.ts';
import { valueWriter as writer } from './msgpack-writer.ts';


/**
 * Per interval, the start_at of the newest candle a pool has in the store: NaN when not
 * known yet (read from LMDB once), −Infinity for none. Held by the pool so that a
 * write need not read its last segment back. Only a hint: a candle after it is appended
 * as a new segment, one at or before it is merged where it belongs, so a stale value
 * (retention removed the segment) still places every candle right.
 */
export type SegmentTails = Float64Array;

/**
 * Closed candles in LMDB as segments (`candles`: key [pool, interval index, start_at of
 * its first candle], value the segment's CandleRows ascending by start_at: StoredCandle
 * tuples with the interval's index for its name, so that neither the engine nor msgpack
 * handles a boxed number; a candle of one trade in 7 or 10 numbers instead of 16 or 26,
 * expanded when read: candles.bucket.ts oneTradeItems). Reads return StoredCandles. The
 * segments of one (pool, interval) never overlap, so a reverse range read in key order
 * walks the series newest first. A write stores the candles closed since the last one
 * as new segments (one put per interval, never one per candle) and merges the rare
 * candle that belongs inside an older segment (a late trade reopened it) into that
 * segment. Reads see committed data only: the pool keeps what it wrote until the
 * write has committed (actors/pool/closed-candles.ts).
 */
export class CandlesRepo {
  constructor(private readonly storage: Storage) {}

  /**
   * Writes closed candles of one pool (any intervals, any order, each candle once);
   * resolves when committed. A new segment is encoded here, straight from the rows
   * (storage/msgpack-writer.ts), into the bytes msgpackr would write for its CandleRows.
   */
  write(pool: string, rows: CandleRows, tails?: SegmentTails): Promise<unknown> {
    const data = rows.data;
    let last: Promise<unknown> = Promise.resolve();
    const order: number[] = [];
    for (let iv = 0; iv < INTERVAL_COUNT; iv++) {
      // Rows of this interval by start (drains append them nearly in order).
      order.length = 0;
      for (let r = 0; r < rows.length; r++) {
        const o = CandleRows.offset(r);
        if (data[o + IV] !== iv) continue;
        const start = data[o + START]!;
        let k = order.length;
        order.push(r);
        while (k > 0 && data[CandleRows.offset(order[k - 1]!) + START]! > start) {
          order[k] = order[k - 1]!;
          k--;
        }
        order[k] = r;
      }
      if (order.length === 0) continue;
      let lastStart = tails ? tails[iv]! : NaN;
      if (Number.isNaN(lastStart)) {
        const tail = this.segmentAt(pool, iv, Number.MAX_SAFE_INTEGER);
        lastStart = tail ? tail.value[tail.value.length - 1]![1]! : -Infinity;
      }
      const startOf = (k: number) => data[CandleRows.offset(order[k]!) + START]!;
      let i = 0;
      while (i < order.length && startOf(i) <= lastStart) i++;
      if (i > 0) last = this.mergeLate(pool, iv, rows, order, i);
      if (i < order.length) {
        last = this.storage.candles.put([pool, iv, startOf(i)], asBinary(encodeSegment(rows, order, i)));
        lastStart = startOf(order.length - 1);
      }
      if (tails) tails[iv] = lastStart;
    }
    return last;
  }

  /** The segment whose range holds `start` (the last one beginning at or before it). */
  private segmentAt(pool: string, iv: number, start: number): { key: unknown[]; value: CandleRow[] } | undefined {
    for (const { key, value } of this.storage.candles.getRange({ start: [pool, iv, start], end: [pool, iv, -1], reverse: true, limit: 1 })) {
      return { key: key as unknown[], value: value as CandleRow[] };
    }
    return undefined;
  }

  /**
   * Merges late candles (rows[order[0..count)], ascending by start) into the segments
   * that cover them: one put per segment. The puts of this turn are not readable before
   * they commit, so every candle bound for a segment goes into the one copy of it read
   * here (a put per candle would keep only the last one). Same rule as TradesRepo's
   * mergeLate.
   */
  private mergeLate(pool: string, iv: number, rows: CandleRows, order: readonly number[], count: number): Promise<unknown> {
    const db = this.storage.candles;
    let last: Promise<unknown> = Promise.resolve();
    // The segment being filled: its first start as stored (−Infinity: none covers, a new one) and its rows.
    let cover = NaN;
    let key: unknown[] = [];
    let list: CandleRow[] = [];
    for (let k = 0; k < count; k++) {
      const candle = rows.row(order[k]!);
      const start = candle[1]!;
      // The covering segment found by key alone, and read only when it is not the one being filled already.
      let found: Key[] | null = null;
      for (const segmentKey of db.getKeys({ start: [pool, iv, start], end: [pool, iv, -1], reverse: true, limit: 1 })) found = segmentKey;
      // None: before every segment, so a segment of its own (it ends before the next one starts).
      const id = found ? (found[2] as number) : -Infinity;
      if (id !== cover) {
        if (!Number.isNaN(cover)) last = db.put(key as never, list);
        cover = id;
        key = found ?? [pool, iv, start];
        list = found ? ((db.get(found) as CandleRow[] | undefined) ?? []) : [];
      }
      let at = list.length;
      while (at > 0 && list[at - 1]![1]! > start) at--;
      if (at > 0 && list[at - 1]![1] === start) list[at - 1] = candle;
      else list.splice(at, 0, candle);
    }
    if (!Number.isNaN(cover)) last = db.put(key as never, list);
    return last;
  }

  get(pool: string, interval: CandleInterval, startAt: number): StoredCandle | undefined {
    const segment = this.segmentAt(pool, intervalIndex(interval), startAt);
    if (!segment) return undefined;
    const list = segment.value;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = list[mid]![1]!;
      if (s === startAt) return rowToStored(list[mid]!);
      if (s < startAt) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Candles with from <= start_at <= to: the newest `limit`, oldest first. */
  read(pool: string, interval: CandleInterval, from: number, to: number, limit: number): StoredCandle[] {
    const iv = intervalIndex(interval);
    const out: StoredCandle[] = [];
    if (limit <= 0) return out;
    for (const { value } of this.storage.candles.getRange({ start: [pool, iv, to], end: [pool, iv, -1], reverse: true })) {
      const list = value as CandleRow[];
      for (let k = list.length - 1; k >= 0; k--) {
        const start = list[k]![1]!;
        if (start > to) continue;
        if (start < from) return out.reverse();
        out.push(rowToStored(list[k]!));
        if (out.length === limit) return out.reverse();
      }
    }
    return out.reverse();
  }

  /**
   * Deletes the candles of one interval that start before `before` (retention): whole
   * segments, and the old part of a segment that straddles the cutoff (rewritten under
   * its new first start). Returns the candles deleted.
   */
  prune(pool: string, interval: CandleInterval, before: number): number {
    const iv = intervalIndex(interval);
    const db = this.storage.candles;
    let removed = 0;
    for (const { key, value } of db.getRange({ start: [pool, iv, -1], end: [pool, iv, before] })) {
      const list = value as CandleRow[];
      db.remove(key as never);
      const keep = list.filter((c) => c[1]! >= before);
      removed += list.length - keep.length;
      if (keep.length > 0) db.put([pool, iv, keep[0]![1]!], keep);
    }
    return removed;
  }
}

/**
 * The msgpack of the CandleRows of rows[order[from..]]: an array of arrays of numbers,
 * a candle of one trade in its short form (candles.bucket.ts oneTradeItems).
 */
export function encodeSegment(rows: CandleRows, order: readonly number[], from: number): Buffer {
  const data = rows.data;
  writer.arrayHeader(order.length - from);
  for (let k = from; k < order.length; k++) {
    const r = order[k]!;
    const o = CandleRows.offset(r);
    const items = oneTradeItems(data, o);
    if (items) {
      writer.ensure(5 + 9 * items.length);
      writer.arrayHeader(items.length);
      for (let j = 0; j < items.length; j++) writer.number(data[o + items[j]!]!);
      continue;
    }
    const n = rows.storedLength(r);
    writer.ensure(5 + 9 * n);
    writer.arrayHeader(n);
    writer.number(data[o + IV]!);
    for (let j = START; j < n; j++) writer.number(data[o + j]!);
  }
  return writer.end();
}
