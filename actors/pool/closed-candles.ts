import { WRITE_AT } from '../../engine/bounds.ts';
import { INTERVAL_NAMES, IV, START, STRIDE, CandleRows, bytesOfDoubles, doublesOfBytes, intervalIndex, storedInto, type CandleInterval, type CandleRow, type StoredCandle } from '../../engine/model/index.ts';
import type { CandlesRepo, SegmentTails } from '../../storage/index.ts';
import type { ClosedCandleStore, PoolCandles } from './candles.ts';
import { FOLDED_MASK, foldCandle, foldCandles, type TradeSource } from './trade-candles.ts';

/**
 * A pool's closed candles on their way to LMDB, and the ClosedCandleStore its
 * PoolCandles reads them through.
 *
 * Candles closed by PoolCandles wait in `buffer` (part of the pool's snapshot, so they
 * are as durable as the pool) and are written as segments once WRITE_AT of them
 * gathered: one put per interval for many candles. A pool that trades once every 40 s
 * closes a 1s and a 15s candle at nearly every trade; writing each as it closes would
 * cost several LMDB puts per trade. While a write is not committed its candles stay
 * readable here (LMDB does not show an uncommitted put).
 *
 * Given the pool's trades, it stores no 1s and 15s candles: it folds them from the
 * trades when read (trade-candles.ts), and PoolCandles drops them at close (`folded`).
 */

/**
 * Rows a new or decoded buffer makes room for at first (CandleRows doubles it). Every
 * buffer starts this small, a written one's successor too: a buffer of 48 rows (WRITE_AT, then 32, and 16)
 * for every pool was 11,904 bytes off the JS heap each, 5,294 of them (63 MiB) in a
 * 300,000-swap replay over 30,000 pools, mostly holding a few rows; and a written
 * buffer kept as the next write's partner held another write's worth in every pool that
 * ever wrote: 19.8 KB of closed-candle buffers per pool, over half of a pool's estimate,
 * in the engine benchmark's 1M swaps over 10,000 pools (bench/README).
 */
const FIRST_ROWS = 4;

/** Doubles per row in a snapshot: a length, then up to 30 numbers of a StoredCandle. */
const ROW_WIDTH = 31;

/**
 * The buffer as one binary blob for the pool's snapshot: per candle ROW_WIDTH doubles,
 * its stored length, then its CandleRow (msgpack copies bytes, where an array of rows
 * of doubles costs it ~9 bytes and a type check per number).
 */
export function encodeRows(rows: CandleRows): Uint8Array {
  const out = new Float64Array(rows.length * ROW_WIDTH);
  const data = rows.data;
  for (let r = 0; r < rows.length; r++) {
    const o = r * ROW_WIDTH;
    const from = CandleRows.offset(r);
    const n = rows.storedLength(r);
    out[o] = n;
    out[o + 1] = data[from + IV]!;
    for (let k = START; k < n; k++) out[o + 1 + k] = data[from + k]!;
  }
  return bytesOfDoubles(out);
}

/** encodeRows' bytes (or the CandleRow array snapshots held before) as CandleRows, without the rows of `skipped` intervals (a bit per index). */
export function decodeRows(bytes: Uint8Array | CandleRow[] | undefined, skipped = 0): CandleRows {
  if (!bytes) return new CandleRows(FIRST_ROWS);
  if (Array.isArray(bytes)) return CandleRows.fromRows(bytes.filter((row) => (skipped & (1 << row[0]!)) === 0));
  const data = doublesOfBytes(bytes);
  const rows = new CandleRows(Math.max(FIRST_ROWS, data.length / ROW_WIDTH));
  const scratch = new Float64Array(STRIDE);
  for (let o = 0; o + ROW_WIDTH <= data.length; o += ROW_WIDTH) {
    if ((skipped & (1 << data[o + 1]!)) !== 0) continue;
    const row = Array.from(data.subarray(o + 1, o + 1 + data[o]!));
    storedInto(row, row[0]!, scratch, 0);
    rows.push(scratch, 0);
  }
  return rows;
}

export class PoolClosedCandles implements ClosedCandleStore {
  /** `buffer`, once made or decoded. */
  private rows: CandleRows | null;
  /**
   * The buffer as the pool's snapshot held it, until it is first used: a pool activated
   * to be read (the ranking feeds, the research refresh) never decodes it, and one
   * snapshotted before it is used writes these bytes back as they came.
   */
  private encoded: Uint8Array | CandleRow[] | undefined = undefined;
  /** The candles of the write in flight, until it commits; null when none is. */
  private inFlight: CandleRows | null = null;
  /** Newest stored start per interval, so that a write need not read it back (candles.repo.ts). */
  private readonly tails: SegmentTails = new Float64Array(INTERVAL_NAMES.length).fill(NaN);
  /** The intervals folded from `trades` (FOLDED_MASK), none without them. */
  readonly folded: number;

  /** `trades`: the pool's trades, which its 1s and 15s candles are folded from; without them every interval is stored. */
  constructor(
    private readonly pool: string,
    private readonly repo: CandlesRepo | null,
    buffer: CandleRows | null = new CandleRows(FIRST_ROWS),
    private readonly trades: TradeSource | null = null,
  ) {
    this.rows = buffer;
    this.folded = trades ? FOLDED_MASK : 0;
  }

  /** Bytes it holds off the JS heap: its buffers' rows, or the snapshot's bytes not yet decoded (the pool's resident estimate). */
  get bytes(): number {
    const encoded = this.encoded instanceof Uint8Array ? this.encoded.byteLength : 0;
    return (this.rows?.data.byteLength ?? 0) + (this.inFlight?.data.byteLength ?? 0) + encoded;
  }

  /** The closed candles of a pool's snapshot (encodeRows' bytes, or the rows older snapshots held), decoded when first used. */
  static fromSnapshot(pool: string, repo: CandlesRepo | null, encoded: Uint8Array | CandleRow[] | undefined, trades: TradeSource | null = null): PoolClosedCandles {
    const closed = new PoolClosedCandles(pool, repo, null, trades);
    closed.encoded = encoded;
    return closed;
  }

  /**
   * Closed, not yet written, in drain order (a candle appears once: a later drain
   * replaces it). Folded intervals' rows that a snapshot written before they were
   * folded holds are left out: the trades give them.
   */
  get buffer(): CandleRows {
    if (this.rows === null) {
      this.rows = decodeRows(this.encoded, this.folded);
      this.encoded = undefined;
    }
    return this.rows;
  }

  set buffer(rows: CandleRows) {
    this.rows = rows;
    this.encoded = undefined;
  }

  /** The buffer for the pool's snapshot (encodeRows): the bytes it came from while it was not used. */
  toSnapshot(): Uint8Array {
    if (this.rows === null && this.encoded instanceof Uint8Array) return this.encoded;
    return encodeRows(this.buffer);
  }

  /** Takes the closed candles of `candles`; writes a batch once WRITE_AT gathered. */
  drain(candles: PoolCandles): void {
    candles.drainClosedInto(this.buffer);
    if (this.buffer.length >= WRITE_AT) this.write();
  }

  /**
   * Writes everything buffered now, unless a write is still in flight: the repo places
   * candles by what LMDB shows, so writes of one pool go one after another (the buffer
   * keeps gathering meanwhile).
   */
  write(): void {
    if (!this.repo || this.buffer.length === 0 || this.inFlight !== null) return;
    const batch = this.buffer;
    this.buffer = new CandleRows(FIRST_ROWS);
    this.inFlight = batch;
    const settle = () => {
      this.inFlight = null;
      if (this.buffer.length >= WRITE_AT) this.write();
    };
    this.repo.write(this.pool, batch, this.tails).then(settle, settle);
  }

  /** Memory first (newest first: the buffer, then the write in flight), then LMDB; a folded interval's from the trades. */
  get(interval: CandleInterval, startAt: number): StoredCandle | undefined {
    const iv = intervalIndex(interval);
    if ((this.folded & (1 << iv)) !== 0) return foldCandle(this.trades!, interval, startAt);
    const i = this.buffer.find(iv, startAt);
    if (i >= 0) return this.buffer.stored(i);
    if (this.inFlight !== null) {
      const k = this.inFlight.find(iv, startAt);
      if (k >= 0) return this.inFlight.stored(k);
    }
    return this.repo?.get(this.pool, interval, startAt);
  }

  read(interval: CandleInterval, fromStartAt: number, toStartAt: number, limit: number): StoredCandle[] {
    if ((this.folded & (1 << intervalIndex(interval))) !== 0) return foldCandles(this.trades!, interval, fromStartAt, toStartAt, limit);
    const stored = this.repo ? this.repo.read(this.pool, interval, fromStartAt, toStartAt, limit) : [];
    const memory: StoredCandle[] = [];
    const iv = intervalIndex(interval);
    const take = (rows: CandleRows) => {
      for (let i = 0; i < rows.length; i++) {
        const o = CandleRows.offset(i);
        const start = rows.data[o + START]!;
        if (rows.data[o + IV] === iv && start >= fromStartAt && start <= toStartAt) memory.push(rows.stored(i));
      }
    };
    // The write in flight first: the buffer is newer and wins below.
    if (this.inFlight !== null) take(this.inFlight);
    take(this.buffer);
    if (memory.length === 0) return stored;
    // Memory wins over LMDB for the same start_at (a late trade updated it since).
    const byStart = new Map<number, StoredCandle>();
    for (const c of stored) byStart.set(c[1], c);
    for (const c of memory) byStart.set(c[1], c);
    const out = [...byStart.values()].sort((a, b) => a[1] - b[1]);
    return out.length > limit ? out.slice(out.length - limit) : out;
  }
}
