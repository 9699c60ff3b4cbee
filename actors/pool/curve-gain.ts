/**
 * What `bonding_curve_gain_5m_pct` (SERVICE.md 2.4: "curve progress gained in the last
 * 5 minutes") needs: the curve's real base reserve at the start of the last 5 minutes.
 *
 * The 5 minutes are those of the 5m window (windows.ts): 60 buckets of 5 s up to the
 * bucket holding `now`, so the gain and `windowed.5m` cover the same trades. The
 * reference is the reserve after the last trade, by chain position, in a bucket before
 * the window; a curve with no trade before the window started at progress 0 (a curve is
 * created empty). The gain is progress now minus progress then, in percentage points.
 *
 * State: a ring of 64 buckets (more than the 60 of the window, so the bucket just
 * before it is still there), each the last trade by position in it (bucket, slot, sub,
 * reserve), and one register for the newest trade that left the ring. Plain numbers in
 * one Float64Array, allocated on a curve's first trade: 2 KB per bonding-curve pool,
 * nothing for AMM pools. A trade arriving after its bucket left the ring (more than
 * 320 s late) only moves the register if it is later by position than what it holds.
 *
 * The snapshot holds the register, the newest time and the entries in use only (a
 * curve's pool is snapshotted whenever it is passivated, and most curves trade in a few
 * buckets: 2,088 bytes dense, 40 + 32 a bucket in use); the ring with every entry in use
 * is written dense, as snapshots of earlier versions are. A snapshot's bytes are decoded
 * at the first use, not at load: a pool loaded to be read in the background (the
 * ranking feeds, the research refresh) or evicted again before its next curve trade
 * never decodes them (2 KB allocated and filled each), and writes them back as they came.
 */

const BUCKET_MS = 5_000;
const WINDOW_BUCKETS = 60;
const RING = 64;
const FIELDS = 4;
/** Offsets within an entry. */
const BUCKET = 0;
const SLOT = 1;
const SUB = 2;
const RESERVE = 3;
/** The register sits after the ring. */
const REGISTER = RING * FIELDS;
const SIZE = REGISTER + FIELDS;
/** Doubles of a dense snapshot: the ring, the register, the newest time. */
const DENSE = SIZE + 1;
/** Doubles of a sparse snapshot before its entries: the register, the newest time. */
const SPARSE_HEAD = FIELDS + 1;
/** Sub-slot position: tx index × SPAN + event index (as candles order trades). */
const SPAN = 65_536;

const later = (d: Float64Array, o: number, bucket: number, slot: number, sub: number) =>
  bucket > d[o + BUCKET]! || (bucket === d[o + BUCKET]! && (slot > d[o + SLOT]! || (slot === d[o + SLOT]! && sub > d[o + SUB]!)));

export class CurveGain {
  private d: Float64Array | null;
  private newestAt = -Infinity;
  /** The snapshot's bytes until first used (see above); null once decoded, or without one. */
  private restored: Uint8Array | null;

  /** Bytes it holds off the JS heap (the pool's resident estimate): its ring, or the snapshot's bytes not yet decoded. */
  get bytes(): number {
    return (this.d?.buffer.byteLength ?? 0) + (this.restored?.byteLength ?? 0);
  }

  constructor(snapshot?: Uint8Array | null) {
    this.d = null;
    this.restored = snapshot && snapshot.byteLength % 8 === 0 ? snapshot : null;
  }

  private decode(): void {
    const snapshot = this.restored!;
    this.restored = null;
    const length = snapshot.byteLength / 8;
    if (length === DENSE) {
      const all = new Float64Array(DENSE);
      new Uint8Array(all.buffer).set(snapshot);
      this.newestAt = all[SIZE]!;
      this.d = all.subarray(0, SIZE);
    } else if (length >= SPARSE_HEAD && (length - SPARSE_HEAD) % FIELDS === 0) {
      const sparse = new Float64Array(length);
      new Uint8Array(sparse.buffer).set(snapshot);
      const d = empty();
      d.set(sparse.subarray(0, FIELDS), REGISTER);
      this.newestAt = sparse[FIELDS]!;
      // Each entry back at its bucket's place in the ring.
      for (let i = SPARSE_HEAD; i < length; i += FIELDS) d.set(sparse.subarray(i, i + FIELDS), (sparse[i + BUCKET]! % RING) * FIELDS);
      this.d = d;
    }
  }

  /** A curve trade: `reserve` is its real base reserve after the trade, whole tokens. */
  add(at: number, slot: number, txIndex: number, eventIndex: number, reserve: number): void {
    if (this.restored !== null) this.decode();
    const d = (this.d ??= empty());
    if (at > this.newestAt) this.newestAt = at;
    const bucket = Math.floor(at / BUCKET_MS);
    const sub = txIndex * SPAN + eventIndex;
    const o = (bucket % RING) * FIELDS;
    const held = d[o + BUCKET]!;
    if (held === bucket) {
      if (later(d, o, bucket, slot, sub)) set(d, o, bucket, slot, sub, reserve);
    } else if (held < bucket) {
      // The entry's trade leaves the ring: it becomes the register if it is the newest gone.
      if (held !== -Infinity && later(d, REGISTER, held, d[o + SLOT]!, d[o + SUB]!)) set(d, REGISTER, held, d[o + SLOT]!, d[o + SUB]!, d[o + RESERVE]!);
      set(d, o, bucket, slot, sub, reserve);
    } else if (later(d, REGISTER, bucket, slot, sub)) set(d, REGISTER, bucket, slot, sub, reserve);
  }

  /**
   * The real base reserve at the start of the 5 minutes up to `now` (read as of the
   * newest trade when `now` is before it); null when the curve had no trade before.
   */
  reserveAtWindowStart(now: number): number | null {
    if (this.restored !== null) this.decode();
    const d = this.d;
    if (d === null) return null;
    const start = Math.floor(Math.max(now, this.newestAt) / BUCKET_MS) - (WINDOW_BUCKETS - 1);
    let best = -1;
    for (let o = 0; o < REGISTER; o += FIELDS) {
      const bucket = d[o + BUCKET]!;
      if (bucket !== -Infinity && bucket < start && (best < 0 || later(d, best, bucket, d[o + SLOT]!, d[o + SUB]!))) best = o;
    }
    const register = d[REGISTER + BUCKET]!;
    if (register !== -Infinity && register < start && (best < 0 || later(d, best, d[REGISTER + BUCKET]!, d[REGISTER + SLOT]!, d[REGISTER + SUB]!))) best = REGISTER;
    return best < 0 ? null : d[best + RESERVE]!;
  }

  /** Bytes for the pool's snapshot (sparse, or dense when every entry is in use: see above); null before the first curve trade. */
  toSnapshot(): Uint8Array | null {
    if (this.restored !== null) return this.restored;
    const d = this.d;
    if (d === null) return null;
    let used = 0;
    for (let o = 0; o < REGISTER; o += FIELDS) if (d[o + BUCKET] !== -Infinity) used++;
    if (used === RING) {
      const all = new Float64Array(DENSE);
      all.set(d);
      all[SIZE] = this.newestAt;
      return new Uint8Array(all.buffer);
    }
    const sparse = new Float64Array(SPARSE_HEAD + used * FIELDS);
    sparse.set(d.subarray(REGISTER, SIZE));
    sparse[FIELDS] = this.newestAt;
    let i = SPARSE_HEAD;
    for (let o = 0; o < REGISTER; o += FIELDS) {
      if (d[o + BUCKET] === -Infinity) continue;
      sparse.set(d.subarray(o, o + FIELDS), i);
      i += FIELDS;
    }
    return new Uint8Array(sparse.buffer);
  }
}

function empty(): Float64Array {
  const d = new Float64Array(SIZE);
  for (let o = 0; o < SIZE; o += FIELDS) d[o + BUCKET] = -Infinity;
  return d;
}

function set(d: Float64Array, o: number, bucket: number, slot: number, sub: number, reserve: number): void {
  d[o + BUCKET] = bucket;
  d[o + SLOT] = slot;
  d[o + SUB] = sub;
  d[o + RESERVE] = reserve;
}
