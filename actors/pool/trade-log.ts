import { CHUNK_MAX, CHUNK_MIN } from '../../engine/bounds.ts';
import { writeNumber } from '../../storage/index.ts';
import { Slabs } from './slabs.ts';
import { decodeTrade, readNumberAt, skipValue, tradeFields } from '../../storage/index.ts';
import { TRADE, TRADE_FIELDS, TRADE_FIELDS_MAX, type StoredTrade, type TradeKey } from '../../engine/model/index.ts';
import type { EncodedTrades } from '../../storage/index.ts';

/**
 * A pool's trades not yet in the trades store, kept as msgpack bytes encoded once when
 * the swap is applied, with their positions in typed arrays. A pool holds its trades
 * for up to a checkpoint (30 s): as one array per trade they outlived young-generation
 * GCs (each scavenge copied them, then promoted them) and msgpackr packed them all
 * again at the checkpoint. Here a trade is a few dozen bytes off the JS heap and the
 * checkpoint copies those bytes into the block it stores (storage/trades.repo.ts).
 *
 * Order: compareKey (at, slot, txIndex, eventIndex), kept on insert in the index only:
 * a trade's bytes stay where they were appended, in chunks that never move (no copy
 * as a log grows); a late trade moves the index entries after its position (rare,
 * and a pool holds at most a checkpoint's worth of trades), so reads and writes never
 * sort. Writing copies the bytes in index order, a run of adjacent ones at a time.
 * The index is paged (PAGE trades a page; the first page grows up to it) so that it
 * never moves either: one contiguous index, doubled and copied, stalled a pool of a
 * few hundred thousand trades 44 ms at 262,144 and 91 ms at 524,288 (first-touch
 * faults on the new array, and the GC its external memory woke).
 *
 * Encoding: each trade is a fixarray of 12 (13 with a curve's progress), decoding through the trades database's
 * msgpackr to the StoredTrade it came from (test/unit/trade-log.test.ts checks it
 * through LMDB, and that the bytes are msgpackr's own). Numbers are written as msgpackr
 * writes them: integers in [-2^31, 2^32) as msgpack ints, positive ones from 0x40 up as
 * 0xcc..0xce, never a fixint (in a database with shared structures bytes 0x40..0x7f
 * name a record), and every other number as float64: fractions, NaN, ±Infinity,
 * integers past 2^32 (exact as doubles; a msgpack int64 would decode as a BigInt) and
 * -0 (msgpackr writes 0 for it; a float64 keeps the sign). Strings are UTF-8
 * fixstr/str8/str16/str32 (a lone surrogate, which is not Unicode, becomes U+FFFD).
 */
export class TradeLog implements EncodedTrades {
  /** Trades held. */
  length = 0;
  /** Byte size of the encodings held. */
  byteLength = 0;
  /**
   * Bytes of slab the log has taken (its chunks, its index pages, and the first page's
   * earlier copies): what it holds in memory, which `byteLength` undercounts (a quiet
   * pool's one trade is ~200 bytes of a 1 KiB chunk).
   */
  reservedBytes = 0;
  /** Where the bytes are, in the order appended; the last one is being filled. */
  private chunks: Buffer[] = [];
  private tail: Buffer = EMPTY_BYTES;
  private tailUsed = 0;
  /**
   * Per trade in order, STRIDE numbers: at, slot, txIndex, eventIndex, chunk, offset,
   * byte length. Trade i is at `pages[i >> PAGE_BITS]`, from STRIDE * (i & PAGE_MASK).
   * Every page but a lone first one holds PAGE trades.
   */
  private pages: Float64Array[] = [];
  /** Trades the pages hold room for. */
  private capacity = 0;

  /** Encodes a trade and puts it in order (after trades at the same position). */
  insert(t: StoredTrade): void {
    if (t.length !== TRADE_FIELDS && t.length !== TRADE_FIELDS_MAX) throw new TypeError(`a stored trade has ${TRADE_FIELDS} values (${TRADE_FIELDS_MAX} with curvePct), not ${t.length}`);
    const at = t[TRADE.at];
    const slot = t[TRADE.slot];
    const txIndex = t[TRADE.txIndex];
    const eventIndex = t[TRADE.eventIndex];
    if (typeof at !== 'number' || typeof slot !== 'number' || typeof txIndex !== 'number' || typeof eventIndex !== 'number') {
      throw new TypeError('a stored trade starts with four numbers: at, slot, txIndex, eventIndex');
    }
    const n = this.length;
    if (n + 1 > this.capacity) this.reserve(n + 1);
    let need = 1;
    for (let k = 0; k < t.length; k++) {
      const v = t[k];
      need += typeof v === 'string' ? 5 + 3 * v.length : 9;
    }
    // The bound (3 bytes a char) overshoots base58 strings: a chunk's last ~300 bytes
    // stay unused, cheaper than encoding aside and copying.
    let start = this.tailUsed;
    if (start + need > this.tail.length) {
      this.addChunk(need);
      start = 0;
    }
    // A throw while encoding leaves the log as it was (an empty chunk at most).
    const end = encodeTrade(this.tail, start, t);
    this.tailUsed = end;
    const pages = this.pages;
    let i = n;
    while (i > 0) {
      const k = pages[(i - 1) >> PAGE_BITS]!;
      const j = STRIDE * ((i - 1) & PAGE_MASK);
      const c = k[j]! - at || k[j + 1]! - slot || k[j + 2]! - txIndex || k[j + 3]! - eventIndex;
      if (c > 0) i--;
      else break;
    }
    if (i < n) this.shiftUp(i, n);
    const index = pages[i >> PAGE_BITS]!;
    const j = STRIDE * (i & PAGE_MASK);
    index[j] = at;
    index[j + 1] = slot;
    index[j + 2] = txIndex;
    index[j + 3] = eventIndex;
    index[j + 4] = this.chunks.length - 1;
    index[j + 5] = start;
    index[j + 6] = end - start;
    this.length = n + 1;
    this.byteLength += end - start;
  }

  keyAt(i: number): TradeKey {
    this.check(i);
    const k = this.pages[i >> PAGE_BITS]!;
    const j = STRIDE * (i & PAGE_MASK);
    return [k[j]!, k[j + 1]!, k[j + 2]!, k[j + 3]!];
  }

  /** compareKey(trade i, key), without decoding the trade. */
  compareAt(i: number, key: ArrayLike<unknown>): number {
    this.check(i);
    const k = this.pages[i >> PAGE_BITS]!;
    const j = STRIDE * (i & PAGE_MASK);
    return k[j]! - (key[0] as number) || k[j + 1]! - (key[1] as number) || k[j + 2]! - (key[2] as number) || k[j + 3]! - (key[3] as number);
  }

  /** Trade i's `at` (block time), for window filters. */
  atOf(i: number): number {
    this.check(i);
    return this.pages[i >> PAGE_BITS]![STRIDE * (i & PAGE_MASK)]!;
  }

  /** `numbersOnly`: the wallet and tx hash as null (TradeSpan.numbersOnly). */
  decode(i: number, numbersOnly = false): StoredTrade {
    this.check(i);
    const k = this.pages[i >> PAGE_BITS]!;
    const j = STRIDE * (i & PAGE_MASK);
    const offset = k[j + 5]!;
    return decodeTrade(this.chunks[k[j + 4]!]!, offset, offset + k[j + 6]!, numbersOnly);
  }

  /** Byte length of the encodings of trades [from, to). */
  encodedLength(from: number, to: number): number {
    this.checkRange(from, to);
    if (from === 0 && to === this.length) return this.byteLength;
    let len = 0;
    for (let i = from; i < to; i++) len += this.pages[i >> PAGE_BITS]![STRIDE * (i & PAGE_MASK) + 6]!;
    return len;
  }

  /** Copies the encodings of trades [from, to), in order, into `target` at `offset`; returns the end. */
  copyEncoded(from: number, to: number, target: Uint8Array, offset: number): number {
    this.checkRange(from, to);
    const pages = this.pages;
    let i = from;
    while (i < to) {
      // A run: trades in order that are also adjacent in one chunk (all of them, unless some came late).
      let k = pages[i >> PAGE_BITS]!;
      let j = STRIDE * (i & PAGE_MASK);
      const chunk = k[j + 4]!;
      const start = k[j + 5]!;
      let end = start + k[j + 6]!;
      for (i++; i < to; i++) {
        k = pages[i >> PAGE_BITS]!;
        j = STRIDE * (i & PAGE_MASK);
        if (k[j + 4] !== chunk || k[j + 5] !== end) break;
        end += k[j + 6]!;
      }
      offset += this.chunks[chunk]!.copy(target, offset, start, end);
    }
    return offset;
  }

  /** Every trade, decoded, in order. */
  *[Symbol.iterator](): Generator<StoredTrade> {
    for (let i = 0; i < this.length; i++) yield this.decode(i);
  }

  /** For the pool's snapshot: the encodings in order, concatenated (a copy). */
  toSnapshot(): Uint8Array {
    if (this.length === 0) return EMPTY_BYTES;
    const out = Buffer.allocUnsafe(this.byteLength);
    this.copyEncoded(0, this.length, out, 0);
    return out;
  }

  /**
   * A log from a snapshot: its bytes (`toSnapshot`), or the array of StoredTrade
   * snapshots held before trades were kept as bytes. Bytes are copied, then walked to
   * rebuild positions; bytes that are not a sequence of encoded trades throw.
   */
  static fromSnapshot(data: Uint8Array | StoredTrade[] | null | undefined): TradeLog {
    const log = new TradeLog();
    if (data == null) return log;
    if (Array.isArray(data)) {
      for (const t of data) log.insert(t);
      return log;
    }
    if (!(data instanceof Uint8Array)) throw new TypeError('a pool snapshot holds its unsaved trades as bytes or an array of trades');
    if (data.length === 0) return log;
    // The copy, viewed at the snapshot's length (a chunk may be longer): bounds are checked against it.
    const bytes = log.addChunk(data.length).subarray(0, data.length);
    bytes.set(data, 0);
    // One walk: each trade's key into the index, checked against the one before, the
    // other 8 (or 9) values skipped (bounds checked). The index is sized for trades of ~128
    // bytes (base58 wallet and signature, 9 numbers) and grows if they are smaller.
    log.reserve(Math.ceil(bytes.length / 128));
    let pos = 0;
    // The key before, for the order check (across pages).
    let at = -Infinity;
    let slot = 0;
    let txIndex = 0;
    let eventIndex = 0;
    for (let i = 0; pos < bytes.length; i++) {
      const fields = tradeFields(bytes, pos);
      if (i + 1 > log.capacity) log.reserve(i + 1);
      const index = log.pages[i >> PAGE_BITS]!;
      const j = STRIDE * (i & PAGE_MASK);
      let p = pos + 1;
      for (let k = 0; k < 4; k++) {
        const next = skipValue(bytes, p);
        index[j + k] = readNumberAt(bytes, p, next);
        p = next;
      }
      for (let k = TRADE.side; k < fields; k++) p = skipValue(bytes, p);
      if (i > 0) {
        const c = at - index[j]! || slot - index[j + 1]! || txIndex - index[j + 2]! || eventIndex - index[j + 3]!;
        if (c > 0) throw new Error(`pool snapshot: unsaved trade ${i} is out of order`);
      }
      at = index[j]!;
      slot = index[j + 1]!;
      txIndex = index[j + 2]!;
      eventIndex = index[j + 3]!;
      index[j + 4] = 0;
      index[j + 5] = pos;
      index[j + 6] = p - pos;
      log.length = i + 1;
      pos = p;
    }
    log.tailUsed = pos;
    log.byteLength = pos;
    return log;
  }

  private check(i: number): void {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`trade ${i} of a log of ${this.length}`);
  }

  private checkRange(from: number, to: number): void {
    if (!(from >= 0 && to <= this.length && from <= to)) throw new RangeError(`trades ${from}..${to} of a log of ${this.length}`);
  }

  /** Room for `min` trades: the first page grown (and copied), up to PAGE; then whole pages added. */
  private reserve(min: number): void {
    const pages = this.pages;
    if (this.capacity < PAGE) {
      // Fourfold while small: fewer copies for the common pool of a few hundred trades a
      // checkpoint; from 4 (224 bytes), for the more common pool of a few trades.
      const capacity = this.capacity;
      const grown = Math.min(PAGE, Math.max(FIRST_ENTRIES, min, capacity < 1_024 ? 4 * capacity : 2 * capacity));
      const first = slabs.float64(STRIDE * grown);
      this.reservedBytes += first.byteLength;
      if (pages.length) first.set(pages[0]!.subarray(0, STRIDE * this.length));
      pages[0] = first;
      this.capacity = grown;
    }
    while (this.capacity < min) {
      pages.push(slabs.float64(STRIDE * PAGE));
      this.reservedBytes += 8 * STRIDE * PAGE;
      this.capacity += PAGE;
    }
  }

  /** Moves the entries of trades [i, n) one place up (room for n + 1 reserved). */
  private shiftUp(i: number, n: number): void {
    const pages = this.pages;
    const first = i >> PAGE_BITS;
    const last = n >> PAGE_BITS;
    for (let p = last; p >= first; p--) {
      const page = pages[p]!;
      const from = p === first ? i & PAGE_MASK : 0;
      let to = p === last ? n & PAGE_MASK : PAGE;
      if (to === PAGE) {
        // The page's last entry goes first on the next page (whose own moved up already).
        to = PAGE - 1;
        pages[p + 1]!.set(page.subarray(STRIDE * to, STRIDE * PAGE), 0);
      }
      if (from < to) page.copyWithin(STRIDE * (from + 1), STRIDE * from, STRIDE * to);
    }
  }

  /** A new chunk to fill, at least `min` bytes: each twice the last, from 4 KiB to 64 KiB. */
  private addChunk(min: number): Buffer {
    const chunk = slabs.bytes(Math.max(min, Math.min(CHUNK_MAX, 2 * this.tail.length || CHUNK_MIN)));
    this.chunks.push(chunk);
    this.reservedBytes += chunk.length;
    this.tail = chunk;
    this.tailUsed = 0;
    return chunk;
  }
}

/** at, slot, txIndex, eventIndex, chunk, offset, byte length. */
const STRIDE = 7;
/** 2,048 trades a page: 112 KiB, past SLICE_MAX: a buffer of its own (slabs.ts). */
const PAGE_BITS = 11;
const PAGE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE - 1;
/** Entries the first page has room for at first. */
const FIRST_ENTRIES = 4;
const EMPTY_BYTES = Buffer.alloc(0);

/**
 * A log lives until its pool's next checkpoint, so its slabs turn over with
 * checkpoints; nothing longer-lived shares them.
 */
const slabs = new Slabs();

/** Writes `t` as a fixarray at `pos` (room checked by the caller); returns the end. */
function encodeTrade(b: Buffer, pos: number, t: StoredTrade): number {
  const n = t.length;
  b[pos++] = 0x90 | n;
  for (let k = 0; k < n; k++) {
    const v: unknown = t[k];
    if (typeof v === 'number') pos = writeNumber(b, pos, v);
    else if (typeof v === 'string') pos = writeString(b, pos, v);
    else if (v === null) b[pos++] = 0xc0;
    else throw new TypeError(`stored trade value ${k} is ${typeof v}, not a number, string or null`);
  }
  return pos;
}

/**
 * Written by Buffer's native UTF-8 writer (2-3 times a JS loop at these lengths) behind
 * the header the char count implies, which is right for ASCII (wallets and signatures
 * are base58): the byte count is at least the char count. A longer byte count that
 * needs a bigger header moves the bytes up (room for 3 bytes per char is reserved).
 */
function writeString(b: Buffer, pos: number, s: string): number {
  const n = s.length;
  const guess = headerBytes(n);
  const len = (b as unknown as Utf8Writable).utf8Write(s, pos + guess, 3 * n);
  const head = headerBytes(len);
  if (head !== guess) b.copyWithin(pos + head, pos + guess, pos + guess + len);
  if (head === 1) b[pos] = 0xa0 | len;
  else if (head === 2) {
    b[pos] = 0xd9;
    b[pos + 1] = len;
  } else if (head === 3) {
    b[pos] = 0xda;
    b.writeUInt16BE(len, pos + 1);
  } else {
    b[pos] = 0xdb;
    b.writeUInt32BE(len, pos + 1);
  }
  return pos + head + len;
}

/** Buffer's UTF-8 writer without `write`'s argument juggling (msgpackr calls it too). */
interface Utf8Writable {
  utf8Write(s: string, offset: number, length: number): number;
}

/** The header of a msgpack string of `len` bytes: fixstr, str8, str16, str32. */
const headerBytes = (len: number) => (len < 0x20 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : 5);

