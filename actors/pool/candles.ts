import { CANDLE_LATENESS_MS, CANDLE_LIVE_BUCKETS_MAX } from '../../engine/bounds.ts';
import { DIRTY, INTERVAL_COUNT, INTERVAL_LENGTHS, INTERVAL_NAMES, IV, START, STRIDE, SUB_SPAN, CandleRows, bytesOfDoubles, candleOfBucket, candleOfStored, doublesOfBytes, intervalIndex, mergeTrade, resetBucket, storedInto, storedLength, toStored, type Candle, type CandleCurrency, type CandleInterval, type CandleMode, type StoredCandle } from '../../engine/model/index.ts';
import { copyBucket, newBucket, releaseBucket } from './candles.bucket.ts';
import type { PoolTrade } from './trade.ts';

/**
 * The candles of one pool (SERVICE.md 2.9, 4.4; DECISIONS row 8), for every interval
 * of CANDLE_INTERVALS and every track: price and market cap, each in quote and in USD,
 * plus volume in quote and in USD. Pure: no I/O but the injected store, no clock.
 *
 * Memory holds, per interval, the buckets not yet closed ("live"), plus closed buckets
 * not yet drained ("pending"). A bucket closes once its end is
 * at or before the newest trade's time minus CANDLE_LATENESS_MS: at the latest when
 * drained, and at once when a newer bucket of its interval starts after that point
 * (a pool trading less often than the lateness allowance closes its buckets as it
 * trades, without a copy to the live list first). `drainClosedInto` hands closed
 * buckets to the caller to persist, and the ClosedCandleStore serves them back. A
 * trade for a bucket that already closed (the "late path") is merged into the pending
 * bucket, or into the stored candle reloaded with `store.get`, and that candle is
 * drained again. Any arrival order of the same trades thus gives the same candles.
 *
 * Rules the callers rely on:
 * - USD tracks use only the trades with a USD value: open/close are the USD-valued
 *   trades with the smallest/largest position; all null (volume too) in a bucket where
 *   no trade had one.
 * - Volumes are exact (double-double) sums, so they too do not depend on arrival
 *   order. The same trade added twice counts twice in the volumes (the ingest gate
 *   drops duplicates); open/high/low/close are unaffected.
 * - Buckets without trades do not exist: series have no gap filling.
 * - The owner calls drainClosedInto and takeChanged every second or so, with or without
 *   subscribers: pending candles and the change list grow until then.
 */



/**
 * Closed candles of one pool as persisted (LMDB `candles`, key pool + interval +
 * start_at). Read-your-writes: a candle handed out by `drainClosedInto` must be visible to
 * `read` and `get` from the caller's next call into PoolCandles on (lmdb-js async puts
 * are not, until their commit: write them in a sync transaction, or keep them in a
 * write-behind map consulted first until the commit resolves).
 */
export interface ClosedCandleStore {
  /** Candles with fromStartAt <= start_at <= toStartAt: the newest `limit` of them, oldest first. */
  read(interval: CandleInterval, fromStartAt: number, toStartAt: number, limit: number): StoredCandle[];
  get(interval: CandleInterval, startAt: number): StoredCandle | undefined;
  /**
   * Intervals (a bit per index) whose closed candles the store derives itself, from the
   * pool's trades (trade-candles.ts): PoolCandles drops their buckets as they close
   * (nothing pending, nothing drained) and reads them back from the store, which must
   * then hold every trade `add` took (the pool puts a trade in its log before `add`; a
   * candle is read at the next taking at the earliest). A late trade for such a closed
   * bucket marks it changed without keeping it. None when absent.
   */
  readonly folded?: number;
}

export interface SeriesOptions {
  /** Inclusive bounds on start_at, Unix ms. */
  startTime?: number;
  endTime?: number;
  limit: number;
}

/** toSnapshot's shape: plain numbers, arrays, nulls and binaries. */
export interface CandlesSnapshot {
  v: 1;
  newest_at: number | null;
  closed_before: (number | null)[];
  seq: number[];
  /** The live buckets, by interval then start (encodeBuckets); `live` in snapshots written before. */
  liveRows?: Uint8Array;
  /** Closed buckets not yet drained (pending, then reopened: encodeBuckets); `pending` in snapshots written before. */
  pendingRows?: Uint8Array;
  /** Snapshots written before liveRows: each live bucket as a StoredCandle. */
  live?: StoredCandle[];
  /** Snapshots written before pendingRows. */
  pending?: StoredCandle[];
  /** Changed and not yet taken: interval index, start_at, interval index, ... */
  changed: number[];
}

/**
 * Buckets (each `at[i]` in `from[i]`) as one binary for a pool's snapshot: per bucket its
 * stored length n (16, 26 or 30: storedLength), then its row (its interval's index and
 * items 1..n-1 of its StoredCandle), as doubles. A pool's 7-8 live buckets were as many
 * msgpack arrays of up to 30 numbers (~1.6 KB, the largest part of its snapshot), each
 * number boxed on the way out, type-checked by msgpack and boxed again on the way in.
 */
function encodeBuckets(from: Float64Array[], at: number[]): Uint8Array {
  let size = 0;
  for (let i = 0; i < from.length; i++) size += storedLength(from[i]!, at[i]!) + 1;
  const out = new Float64Array(size);
  let p = 0;
  for (let i = 0; i < from.length; i++) {
    const d = from[i]!;
    const o = at[i]!;
    const n = storedLength(d, o);
    out[p] = n;
    out[p + 1] = d[o + IV]!;
    for (let k = START; k < n; k++) out[p + 1 + k] = d[o + k]!;
    p += n + 1;
  }
  return bytesOfDoubles(out);
}

/** A snapshot's live and pending buckets as StoredCandles, whichever form it was written in (tests, diagnostics). */
export function snapshotCandles(s: CandlesSnapshot): { live: StoredCandle[]; pending: StoredCandle[] } {
  const d = newBucket(0, 0);
  const live: StoredCandle[] = [...(s.live ?? [])];
  const pending: StoredCandle[] = [...(s.pending ?? [])];
  if (s.liveRows) decodeBuckets(s.liveRows, d, () => live.push(toStored(d, 0)));
  if (s.pendingRows) decodeBuckets(s.pendingRows, d, () => pending.push(toStored(d, 0)));
  releaseBucket(d);
  return { live, pending };
}

/** encodeBuckets' buckets, each filled into `d` at 0 and handed to `each` with its interval's index. */
function decodeBuckets(bytes: Uint8Array, d: Float64Array, each: (iv: number) => void): void {
  const f = doublesOfBytes(bytes);
  for (let p = 0; p < f.length; ) {
    const n = f[p]!;
    const iv = f[p + 1]!;
    storedInto(f.subarray(p + 1, p + 1 + n) as unknown as number[], iv, d, 0);
    each(iv);
    p += n + 1;
  }
}

// Module-local copies of what `add` touches per trade. When a CommonJS entry loads
// these modules, tsx compiles them to CommonJS and every imported binding becomes a
// getter call (~10 % of `add` in a profile); local constants keep the hot loop
// indifferent to how it was loaded.
const COUNT = INTERVAL_COUNT;
const LENGTHS: number[] = [...INTERVAL_LENGTHS];
const merge = mergeTrade;
const DIRTY_AT = DIRTY;
const START_AT = START;
const WIDTH = STRIDE;
const EVENT_INDEX_SPAN = SUB_SPAN;

const CHANGE_KEY_SPAN = 2 ** 44;

/** Where `add` merges a late trade of a folded interval's closed bucket, only to mark it changed (locateClosed); any pool's. */
const LATE_FOLDED = new Float64Array(WIDTH);

/**
 * How far a series' seq moves on when its pool is restored from a stale snapshot. Seqs
 * count the publisher's takings of changes, at most a few a second (every 250 ms), and
 * a changed pool is snapshotted at the next checkpoint: 2^20 takings are ~73 hours
 * without one. A stale load moves seqs on by as many gaps as stale epochs have passed
 * (engine/supervisor/epochs.ts: 1,024 a restart, one a rebuild); a seq stays exact in a
 * double for 2^23 restarts.
 */
export const SEQ_STALE_GAP = 2 ** 20;

/**
 * The bucket with this interval and start among `buckets` (each at offset 0), or undefined.
 */
function findIn(buckets: Float64Array[], start: number): Float64Array | undefined {
  for (let k = buckets.length - 1; k >= 0; k--) if (buckets[k]![START_AT] === start) return buckets[k];
  return undefined;
}

export class PoolCandles {
  private newestAt = -Infinity;
  /**
   * The newest live bucket of each interval, interval i at offset i × STRIDE, in one
   * array so that the common case of `add` touches one contiguous block per pool.
   * Start Infinity: the interval has no live bucket.
   */
  private readonly current = new Float64Array(COUNT * WIDTH);
  /** Older live buckets of each interval, by start ascending: all after closedBefore, before current. */
  private readonly older: Float64Array[][] = Array.from({ length: COUNT }, () => []);
  /** Every bucket starting before this is closed: pending, in the store, or without trades. */
  private readonly closedBefore: number[] = Array.from({ length: COUNT }, () => -Infinity);
  /**
   * Closed buckets to hand to drainClosedInto, in two lists (each interval and start
   * once in both): `pending` closed from live, so never handed out before; `reopened`
   * taken back by a late trade, which replace what was handed out. Only the second
   * kind must be looked up where it goes (a scan of cold memory per candle, most of
   * a drain's cost when every candle took it).
   */
  private readonly pending = new CandleRows();
  private readonly reopened = new CandleRows();
  /** The offset in the array `locate` returned last. */
  private located = 0;
  private readonly seq: number[] = Array.from({ length: COUNT }, () => 0);
  /** Changed since the last takeChanged: interval index, start, interval index, start, ... */
  private changed: number[] = [];
  /** ClosedCandleStore.folded. */
  private readonly folded: number;

  /**
   * Bytes it holds off the JS heap (the pool's resident estimate): the current buckets
   * (7 intervals × 31 doubles, 1,736 bytes), older live buckets, and closed ones not yet drained.
   */
  get bytes(): number {
    let older = 0;
    for (let iv = 0; iv < COUNT; iv++) older += this.older[iv]!.length;
    return this.current.byteLength + older * WIDTH * 8 + this.pending.data.byteLength + this.reopened.data.byteLength;
  }

  /** `firstSeq`: where every series' seq starts (SEQ_STALE_GAP for a pool that may have existed before). */
  constructor(private readonly store: ClosedCandleStore, firstSeq = 0) {
    for (let iv = 0; iv < COUNT; iv++) resetBucket(this.current, iv * WIDTH, iv, Infinity);
    if (firstSeq !== 0) this.seq.fill(firstSeq);
    this.folded = store.folded ?? 0;
  }

  /** A bucket closes: to `rows` (pending, or a drain's output), or nowhere for a folded interval (the store derives it). */
  private close(rows: CandleRows, iv: number, d: Float64Array, o: number): void {
    if ((this.folded & (1 << iv)) === 0) rows.push(d, o);
  }

  /**
   * Adds one trade to every interval. The common case (the trade falls in the newest
   * bucket of an interval) compares two numbers and updates the bucket in place.
   */
  add(t: PoolTrade): void {
    const at = t.at;
    if (!(t.eventIndex < EVENT_INDEX_SPAN)) throw new Error(`eventIndex ${t.eventIndex} out of range`);
    const slot = t.slot;
    const sub = t.txIndex * EVENT_INDEX_SPAN + t.eventIndex;
    // USD values come from one quote price: a trade has all of them or none.
    const usd = t.quoteUsd !== null && t.priceUsd !== null && t.marketCapUsd !== null;
    if (at > this.newestAt) this.newestAt = at;
    const current = this.current;
    for (let i = 0; i < COUNT; i++) {
      const len = LENGTHS[i]!;
      let d: Float64Array = current;
      let o = i * WIDTH;
      const start = current[o + START_AT]!;
      // An unused slot has start Infinity, so `at < start` sends it to locate.
      if (at < start || at >= start + len) {
        d = this.locate(i, Math.floor(at / len) * len);
        o = this.located;
      }
      merge(d, o, t, slot, sub, usd);
      if (d[o + DIRTY_AT] === 0) {
        d[o + DIRTY_AT] = 1;
        this.changed.push(i, d[o + START_AT]!);
      }
    }
  }

  /**
   * The bucket of interval `iv` starting at `start` when it is not the current one, and
   * its offset in `this.located`: `this.current` when it becomes the current one (at
   * offset iv × STRIDE), a live bucket of its own (offset 0, created if needed), or a
   * pending row (the late path).
   */
  private locate(iv: number, start: number): Float64Array {
    if (start < this.closedBefore[iv]!) return this.locateClosed(iv, start);
    const current = this.current;
    const o = iv * WIDTH;
    const currentStart = current[o + START_AT]!;
    const older = this.older[iv]!;
    if (currentStart === Infinity || start > currentStart) {
      if (currentStart !== Infinity) {
        const end = currentStart + LENGTHS[iv]!;
        if (end <= this.newestAt - CANDLE_LATENESS_MS) {
          // Already past the lateness allowance: closed now, with the live ones before it.
          for (const d of older) {
            this.close(this.pending, iv, d, 0);
            releaseBucket(d);
          }
          older.length = 0;
          this.close(this.pending, iv, current, o);
          this.closedBefore[iv] = end;
        } else {
          older.push(copyBucket(current, o));
          if (older.length + 1 > CANDLE_LIVE_BUCKETS_MAX) this.closeOldest(iv);
        }
      }
      resetBucket(current, o, iv, start);
      this.located = o;
      return current;
    }
    this.located = 0;
    let k = older.length - 1;
    while (k >= 0 && older[k]![START_AT]! > start) k--;
    if (k >= 0 && older[k]![START_AT] === start) return older[k]!;
    const d = newBucket(iv, start);
    older.splice(k + 1, 0, d);
    if (older.length + 1 > CANDLE_LIVE_BUCKETS_MAX) this.closeOldest(iv);
    return d;
  }

  /**
   * The late path: a closed bucket, from pending, else reloaded from the store, else
   * new. For a folded interval a bucket of its own, changed and then forgotten: the
   * store's candle has the trade (ClosedCandleStore.folded).
   */
  private locateClosed(iv: number, start: number): Float64Array {
    if ((this.folded & (1 << iv)) !== 0) {
      resetBucket(LATE_FOLDED, 0, iv, start);
      this.located = 0;
      return LATE_FOLDED;
    }
    const rows = this.pendingRow(iv, start);
    if (rows !== null) return rows.data;
    const reopened = this.reopened;
    const stored = this.store.get(INTERVAL_NAMES[iv]!, start);
    const d = newBucket(iv, start);
    if (stored) storedInto(stored, iv, d, 0);
    reopened.push(d, 0);
    releaseBucket(d);
    this.located = CandleRows.offset(reopened.length - 1);
    return reopened.data;
  }

  /** The pending list holding this closed bucket, its offset in `this.located`; null if none. */
  private pendingRow(iv: number, start: number): CandleRows | null {
    let rows = this.pending;
    let i = rows.find(iv, start);
    if (i < 0) {
      rows = this.reopened;
      i = rows.find(iv, start);
      if (i < 0) return null;
    }
    this.located = CandleRows.offset(i);
    return rows;
  }

  private closeOldest(iv: number): void {
    const d = this.older[iv]!.shift()!;
    this.close(this.pending, iv, d, 0);
    releaseBucket(d);
    this.closedBefore[iv] = d[START_AT]! + LENGTHS[iv]!;
  }

  /**
   * Closes every bucket whose end is at or before the newest trade's time minus
   * CANDLE_LATENESS_MS and adds it to `out` with the late updates since the last drain,
   * for the caller to persist in one batch (the engine's buffer: closed-candles.ts). A
   * candle may come again after a late trade: it is `put`, replacing the row already in
   * `out`. Call it every second or so.
   */
  drainClosedInto(out: CandleRows): void {
    if (this.pending.length > 0) {
      out.pushAll(this.pending);
      this.pending.clear();
    }
    if (this.reopened.length > 0) {
      out.putAll(this.reopened);
      this.reopened.clear();
    }
    const cutoff = this.newestAt - CANDLE_LATENESS_MS;
    if (cutoff === -Infinity) return;
    for (let iv = 0; iv < COUNT; iv++) {
      const len = LENGTHS[iv]!;
      // The start of the bucket holding cutoff: buckets before it end at or before cutoff.
      const boundary = Math.floor(cutoff / len) * len;
      if (boundary > this.closedBefore[iv]!) this.closedBefore[iv] = boundary;
      const closedBefore = this.closedBefore[iv]!;
      const older = this.older[iv]!;
      let n = 0;
      while (n < older.length && older[n]![START_AT]! < closedBefore) {
        this.close(out, iv, older[n]!, 0);
        releaseBucket(older[n++]!);
      }
      if (n > 0) older.splice(0, n);
      const o = iv * WIDTH;
      const start = this.current[o + START_AT]!;
      if (start !== Infinity && start < closedBefore) {
        this.close(out, iv, this.current, o);
        resetBucket(this.current, o, iv, Infinity);
      }
    }
  }

  /** The live buckets of an interval with start in [from, to], ascending, each at offset 0. */
  private liveIn(iv: number, from: number, to: number): Float64Array[] {
    const out: Float64Array[] = [];
    for (const d of this.older[iv]!) if (d[START_AT]! >= from && d[START_AT]! <= to) out.push(d);
    const o = iv * WIDTH;
    const start = this.current[o + START_AT]!;
    if (start !== Infinity && start >= from && start <= to) out.push(this.current.subarray(o, o + WIDTH));
    return out;
  }

  /**
   * The `limit` most recent candles with startTime <= start_at <= endTime, oldest
   * first: memory (live and pending) over the store (memory wins for a start_at in
   * both). The caller validates limit (DECISIONS row 8: default 300, max 1000).
   */
  series(interval: CandleInterval, mode: CandleMode, currency: CandleCurrency, opts: SeriesOptions): Candle[] {
    const limit = opts.limit;
    if (!(limit > 0)) return [];
    const iv = intervalIndex(interval);
    const from = opts.startTime ?? -Infinity;
    const to = opts.endTime ?? Infinity;
    const memory = this.liveIn(iv, from, to);
    const liveCount = memory.length;
    // Pending buckets start before closedBefore, so before every live one; the store
    // holds closed buckets only.
    if (liveCount >= limit) return memory.slice(liveCount - limit).map((d) => candleOfBucket(d, 0, mode, currency));
    if (this.pending.length + this.reopened.length > 0) {
      const older: Float64Array[] = [];
      for (const rows of [this.pending, this.reopened]) {
        for (let i = 0; i < rows.length; i++) {
          const o = CandleRows.offset(i);
          const d = rows.data;
          if (d[o + IV] === iv && d[o + START_AT]! >= from && d[o + START_AT]! <= to) older.push(d.subarray(o, o + WIDTH));
        }
      }
      older.sort((a, b) => a[START_AT]! - b[START_AT]!);
      memory.unshift(...older);
    }
    // The newest `limit` of the union are among the newest limit + memory.length stored.
    const stored = this.store.read(interval, Math.max(from, 0), Math.min(to, Number.MAX_SAFE_INTEGER), limit + memory.length);
    const out: Candle[] = [];
    let s = 0;
    let m = 0;
    while (s < stored.length || m < memory.length) {
      const storedStart = s < stored.length ? stored[s]![1] : Infinity;
      const memoryStart = m < memory.length ? memory[m]![START_AT]! : Infinity;
      if (storedStart < memoryStart) out.push(candleOfStored(stored[s++]!, mode, currency));
      else {
        if (storedStart === memoryStart) s++;
        out.push(candleOfBucket(memory[m++]!, 0, mode, currency));
      }
    }
    return out.length > limit ? out.slice(out.length - limit) : out;
  }

  /** The bucket in memory (live or pending) with this interval and start, at offset 0. */
  private inMemory(iv: number, start: number): Float64Array | undefined {
    const o = iv * WIDTH;
    if (this.current[o + START_AT] === start) return this.current.subarray(o, o + WIDTH);
    const live = findIn(this.older[iv]!, start);
    if (live !== undefined) return live;
    const rows = this.pendingRow(iv, start);
    return rows === null ? undefined : rows.data.subarray(this.located, this.located + WIDTH);
  }

  /** Sets the change flag of the bucket, if it is in memory (without allocating a view). */
  private markDirty(iv: number, start: number, flag: 0 | 1): void {
    const o = iv * WIDTH;
    if (this.current[o + START_AT] === start) this.current[o + DIRTY_AT] = flag;
    else {
      const d = findIn(this.older[iv]!, start);
      if (d !== undefined) d[DIRTY_AT] = flag;
      else {
        const rows = this.pendingRow(iv, start);
        if (rows !== null) rows.data[this.located + DIRTY_AT] = flag;
      }
    }
  }

  /** One candle (for a stream update after takeChanged), or null if the bucket has no trades. */
  candle(interval: CandleInterval, startAt: number, mode: CandleMode, currency: CandleCurrency): Candle | null {
    const d = this.inMemory(intervalIndex(interval), startAt);
    if (d !== undefined) return candleOfBucket(d, 0, mode, currency);
    const stored = this.store.get(interval, startAt);
    return stored ? candleOfStored(stored, mode, currency) : null;
  }

  /**
   * The buckets changed since the last call, by interval then start_at, and clears
   * them. Each interval with a change counts one more event in its seq: the stream
   * publishes one event per (interval, mode, currency) per call, holding these
   * candles. All four (mode, currency) series of an interval change together (every
   * trade feeds every track), so one counter per interval serves all four.
   */
  takeChanged(): Array<{ interval: CandleInterval; start_at: number }> {
    const changed = this.changed;
    const n = changed.length >> 1;
    if (n === 0) return [];
    this.changed = [];
    // Sort by (interval, start) as one number: starts are < 2^44 ms (year 2527).
    const keys = new Float64Array(n);
    for (let k = 0; k < n; k++) keys[k] = changed[2 * k]! * CHANGE_KEY_SPAN + changed[2 * k + 1]!;
    keys.sort();
    const out: Array<{ interval: CandleInterval; start_at: number }> = [];
    let lastIv = -1;
    for (let k = 0; k < n; k++) {
      // The same bucket is listed twice when it was drained and reloaded by a late trade.
      if (k > 0 && keys[k] === keys[k - 1]) continue;
      const iv = Math.floor(keys[k]! / CHANGE_KEY_SPAN);
      const start = keys[k]! - iv * CHANGE_KEY_SPAN;
      if (iv !== lastIv) this.seq[iv]!++;
      lastIv = iv;
      this.markDirty(iv, start, 0);
      out.push({ interval: INTERVAL_NAMES[iv]!, start_at: start });
    }
    return out;
  }

  /**
   * takeChanged without the list: counts the changes in the seqs the same way and
   * forgets them, allocating nothing. For a pool whose candles nobody watches or could
   * resume now: no frame is built, but a client that saw an earlier seq and resumes
   * later must find the seq moved on (CandlesQuery.candleResume takes an unchanged seq
   * for "nothing changed since").
   */
  skipChanged(): void {
    const changed = this.changed;
    if (changed.length === 0) return;
    // One more event per interval with a change, as takeChanged counts: a bit per interval seen.
    let counted = 0;
    for (let k = 0; k < changed.length; k += 2) {
      const iv = changed[k]!;
      if ((counted & (1 << iv)) === 0) {
        counted |= 1 << iv;
        this.seq[iv]!++;
      }
      this.markDirty(iv, changed[k + 1]!, 0);
    }
    changed.length = 0;
  }

  /** Events so far of each (interval, mode, currency) series of this interval (see takeChanged). */
  seqOf(interval: CandleInterval): number {
    return this.seq[intervalIndex(interval)]!;
  }

  toSnapshot(): CandlesSnapshot {
    const from: Float64Array[] = [];
    const at: number[] = [];
    for (let iv = 0; iv < COUNT; iv++) {
      for (const d of this.older[iv]!) {
        from.push(d);
        at.push(0);
      }
      if (this.current[iv * WIDTH + START_AT] !== Infinity) {
        from.push(this.current);
        at.push(iv * WIDTH);
      }
    }
    const snapshot: CandlesSnapshot = {
      v: 1,
      newest_at: Number.isFinite(this.newestAt) ? this.newestAt : null,
      closed_before: this.closedBefore.map((x) => (Number.isFinite(x) ? x : null)),
      seq: [...this.seq],
      liveRows: encodeBuckets(from, at),
      changed: [...this.changed],
    };
    if (this.pending.length + this.reopened.length > 0) {
      from.length = 0;
      at.length = 0;
      for (const rows of [this.pending, this.reopened]) {
        for (let i = 0; i < rows.length; i++) {
          from.push(rows.data);
          at.push(CandleRows.offset(i));
        }
      }
      snapshot.pendingRows = encodeBuckets(from, at);
    }
    return snapshot;
  }

  /**
   * `staleGaps`: the snapshot may be older than the seqs handed out since (ActorBehavior's
   * fromSnapshot): each seq moves that many SEQ_STALE_GAPs on, so that no seq a client
   * may hold names other candles than it saw.
   */
  static fromSnapshot(data: unknown, store: ClosedCandleStore, staleGaps = 0): PoolCandles {
    const s = data as CandlesSnapshot;
    if (s?.v !== 1 || s.closed_before.length !== COUNT || s.seq.length !== COUNT) throw new Error('not a v1 candles snapshot');
    const c = new PoolCandles(store);
    c.newestAt = s.newest_at ?? -Infinity;
    for (let iv = 0; iv < COUNT; iv++) {
      c.closedBefore[iv] = s.closed_before[iv] ?? -Infinity;
      c.seq[iv] = s.seq[iv]! + staleGaps * SEQ_STALE_GAP;
    }
    // Live buckets come by interval, ascending: the last of each interval is its current one.
    const d = newBucket(0, 0);
    const live = (iv: number) => {
      const o = iv * WIDTH;
      if (c.current[o + START_AT] !== Infinity) c.older[iv]!.push(copyBucket(c.current, o));
      c.current.set(d, o);
    };
    // Whether a pending candle was handed out before is not kept: replace, to be safe.
    // A folded interval's (in a snapshot written before it was folded) is the store's.
    const pending = (iv: number) => {
      if ((c.folded & (1 << iv)) === 0) c.reopened.push(d, 0);
    };
    if (s.liveRows) decodeBuckets(s.liveRows, d, live);
    for (const stored of s.live ?? []) {
      const iv = intervalIndex(stored[0]);
      storedInto(stored, iv, d, 0);
      live(iv);
    }
    if (s.pendingRows) decodeBuckets(s.pendingRows, d, pending);
    for (const stored of s.pending ?? []) {
      const iv = intervalIndex(stored[0]);
      storedInto(stored, iv, d, 0);
      pending(iv);
    }
    releaseBucket(d);
    c.changed = [...s.changed];
    for (let k = 0; k < c.changed.length; k += 2) c.markDirty(c.changed[k]!, c.changed[k + 1]!, 1);
    return c;
  }
}
