import { SPARSE_MAX } from '../../engine/bounds.ts';
/**
 * Approximate distinct counts (HyperLogLog) for a pool's all-time trader, buyer and
 * seller counts (SERVICE.md 2.4: "distinct wallets, approximate").
 *
 * Why not a library: the npm HyperLogLog packages we tried were either broken
 * (hyperloglog32 1.0.0 never computes a register's rank: `hash & 0` in its loop) or
 * heavy for a per-trade call (bloom-filters pulls lodash, Long and a JS xxhash and
 * keeps registers in a plain array). This is the textbook algorithm (Flajolet et al.
 * 2007) with the sparse start of HyperLogLog++ (Heule et al. 2013), over typed arrays.
 *
 * Each counter starts sparse: the sorted distinct 32-bit MurmurHash3 values of the
 * wallets, exact but for hash collisions (≈ n²/2³³: none in practice below tens of
 * thousands). Past SPARSE_MAX (512) hashes it turns dense: 2^11 one-byte registers
 * (2 KiB), 11 bits of the hash pick the register and the other 21 give the rank;
 * linear counting below 2.5 × 2048, the HLL estimate above.
 * Error: exact up to 512 wallets (most pools); then about 1.6 % at 512 growing to the
 * HLL standard error 1.04/√2048 ≈ 2.3 % for large counts.
 * Memory per pool (three counters): 4 bytes per distinct wallet and side up to 512,
 * then 2 KiB per counter.
 */

const P = 11;
const M = 1 << P;
const ALPHA_MM = (0.7213 / (1 + 1.079 / M)) * M * M;
const RANK_MAX = 32 - P + 1;

/** MurmurHash3 (x86, 32-bit) of a string's UTF-16 code units (addresses are ASCII). */
export function murmur3(s: string, seed = 0x9747b28c): number {
  let h = seed;
  const n = s.length;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    let k = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 8) | (s.charCodeAt(i + 2) << 16) | (s.charCodeAt(i + 3) << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (n & 3) {
    case 3:
      k ^= s.charCodeAt(i + 2) << 16;
    // falls through
    case 2:
      k ^= s.charCodeAt(i + 1) << 8;
    // falls through
    case 1:
      k ^= s.charCodeAt(i);
      k = Math.imul(k, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      h ^= Math.imul(k, 0x1b873593);
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Sets the register of `hash`; true if it grew (the estimate changed). */
function addHash(registers: Uint8Array, hash: number): boolean {
  const index = hash >>> (32 - P);
  const rest = (hash << P) | 0;
  const rank = rest === 0 ? RANK_MAX : Math.clz32(rest) + 1;
  if (rank <= registers[index]!) return false;
  registers[index] = rank;
  return true;
}

function estimate(registers: Uint8Array): number {
  let sum = 0;
  let zeros = 0;
  for (let i = 0; i < M; i++) {
    const r = registers[i]!;
    sum += 1 / 2 ** r;
    if (r === 0) zeros++;
  }
  const raw = ALPHA_MM / sum;
  if (raw <= 2.5 * M && zeros > 0) return Math.round(M * Math.log(M / zeros));
  return Math.round(raw);
}

/** A counter as persisted: its registers (dense) or its sorted hashes as little-endian bytes. */
export interface CounterState {
  dense: boolean;
  bytes: Uint8Array;
}

/** One distinct counter: sorted hashes while small, HLL registers after. */
export class DistinctCounter {
  /** Sparse: distinct hashes, sorted, in the first `n` slots; null once dense. */
  private hashes: Uint32Array | null;
  private n: number;
  private registers: Uint8Array | null;
  /** The dense estimate until a register grows (reading it scans 2,048 registers); -1: stale. */
  private estimated = -1;
  /**
   * The snapshot's state until the counter is first used: a pool activated to be read
   * (the ranking feeds, the research refresh) never decodes it, and one snapshotted
   * before it is used writes it back as it came.
   */
  private restored: CounterState | null;

  constructor(state?: CounterState) {
    this.restored = state ?? null;
    this.hashes = null;
    this.n = 0;
    this.registers = null;
    if (!state) this.hashes = new Uint32Array(4);
  }

  /** Bytes of its hashes or registers (or of the snapshot's, not yet decoded). */
  get bytes(): number {
    return this.restored !== null ? this.restored.bytes.byteLength : this.hashes !== null ? this.hashes.byteLength : this.registers!.byteLength;
  }

  private decode(): void {
    const state = this.restored!;
    this.restored = null;
    // Copies: a decoded snapshot's bytes may be a view into a larger, unaligned buffer.
    if (state.dense) {
      this.registers = new Uint8Array(state.bytes);
      this.hashes = null;
      this.n = 0;
    } else {
      this.registers = null;
      const restored = new Uint32Array(new Uint8Array(state.bytes).buffer);
      this.n = restored.length;
      // Never empty: `add` grows a full array by doubling it, and twice nothing is nothing
      // (a counter restored with no hash, as a pool's sellers before its first sale,
      // then counted every sale as new and could not be snapshotted again).
      this.hashes = restored.length > 0 ? restored : new Uint32Array(4);
    }
  }

  add(hash: number): void {
    if (this.restored !== null) this.decode();
    const registers = this.registers;
    if (registers !== null) {
      if (addHash(registers, hash)) this.estimated = -1;
      return;
    }
    let hashes = this.hashes!;
    const n = this.n;
    // Common cases first: a repeat of the last hash, or a hash past the end.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (hashes[mid]! < hash) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n && hashes[lo] === hash) return;
    if (n === SPARSE_MAX) {
      const dense = new Uint8Array(M);
      for (let i = 0; i < n; i++) addHash(dense, hashes[i]!);
      addHash(dense, hash);
      this.registers = dense;
      this.hashes = null;
      return;
    }
    if (n === hashes.length) {
      const grown = new Uint32Array(Math.min(SPARSE_MAX, n * 2));
      grown.set(hashes);
      hashes = this.hashes = grown;
    }
    hashes.copyWithin(lo + 1, lo, n);
    hashes[lo] = hash;
    this.n = n + 1;
  }

  get count(): number {
    if (this.restored !== null) this.decode();
    if (this.registers === null) return this.n;
    if (this.estimated < 0) this.estimated = estimate(this.registers);
    return this.estimated;
  }

  /**
   * Distinct hashes over several counters (a token's pools): exact while every one is
   * sparse, else the estimate of their registers merged (each register the largest).
   */
  static unionCount(counters: readonly DistinctCounter[]): number {
    if (counters.length === 1) return counters[0]!.count;
    for (const c of counters) if (c.restored !== null) c.decode();
    if (counters.every((c) => c.registers === null)) {
      const all = new Set<number>();
      for (const c of counters) for (let i = 0; i < c.n; i++) all.add(c.hashes![i]!);
      return all.size;
    }
    const merged = new Uint8Array(M);
    for (const c of counters) {
      if (c.registers !== null) for (let i = 0; i < M; i++) merged[i] = Math.max(merged[i]!, c.registers[i]!);
      else for (let i = 0; i < c.n; i++) addHash(merged, c.hashes![i]!);
    }
    return estimate(merged);
  }

  /** The state to persist, as bytes (msgpack keeps bytes, not typed array types). */
  state(): CounterState {
    if (this.restored !== null) return this.restored;
    if (this.registers !== null) return { dense: true, bytes: this.registers };
    // A view, not a copy: a snapshot is encoded as it is written.
    return { dense: false, bytes: new Uint8Array(this.hashes!.buffer, 0, this.n * 4) };
  }
}

/** Traders, buyers and sellers of one pool; one hash per trade serves the three. */
export class DistinctWallets {
  readonly traders: DistinctCounter;
  readonly buyers: DistinctCounter;
  readonly sellers: DistinctCounter;

  constructor(state?: { traders: CounterState; buyers: CounterState; sellers: CounterState }) {
    this.traders = new DistinctCounter(state?.traders);
    this.buyers = new DistinctCounter(state?.buyers);
    this.sellers = new DistinctCounter(state?.sellers);
  }

  /** Bytes of the three counters' hashes or registers (at most 6 KiB). */
  get bytes(): number {
    return this.traders.bytes + this.buyers.bytes + this.sellers.bytes;
  }

  add(wallet: string, buy: boolean): void {
    const h = murmur3(wallet);
    this.traders.add(h);
    (buy ? this.buyers : this.sellers).add(h);
  }

  toSnapshot() {
    return { traders: this.traders.state(), buyers: this.buyers.state(), sellers: this.sellers.state() };
  }
}

/** The standard error of the counters in their HLL range. */
export const DISTINCT_STANDARD_ERROR = 1.04 / Math.sqrt(M);
