import { TRADE_FIELDS, TRADE_FIELDS_MAX, compareKey, type StoredTrade, type TradeSpan } from '../engine/model/index.ts';

/**
 * Reading the msgpack forms a stored trade takes (the StoredTrade tuple as a fixarray
 * of 12, or of 13 with a curve's progress): what actors/pool/trade-log.ts encodes and
 * msgpackr writes for the same tuple. Used on a pool's unsaved trades and on stored blocks (trades.repo.ts), so
 * that a read decodes only the trades it returns.
 */

/**
 * Trades in compareKey order, read by index without decoding them all: a stored block
 * (TradeBlock) or a pool's unsaved log (actors/pool/trade-log.ts).
 */
export interface TradeRows {
  readonly length: number;
  /** Trade i's `at`. */
  atOf(i: number): number;
  /** compareKey(trade i, key). */
  compareAt(i: number, key: ArrayLike<unknown>): number;
  /** `numbersOnly`: strings (wallet, tx hash) as null (TradeSpan.numbersOnly). */
  decode(i: number, numbersOnly?: boolean): StoredTrade;
}

/**
 * The trades of `rows` in the span, in its order, decoded one by one as they are taken
 * (a page takes ~100 of a block's 512, or of a hot pool's 30 s of unsaved trades).
 * The near side (minAt and `after` ascending, maxAt and `after` descending) is found by
 * binary search, which relies on the rows being in compareKey order (blocks and logs
 * are); from there each trade's `at` is read once, against the far edge. Returns true
 * when it stopped at a trade past the far edge, so that a walk over several blocks
 * ends there.
 */
export function* windowed(rows: TradeRows, w: TradeSpan): Generator<StoredTrade, boolean> {
  const { minAt, maxAt, after } = w;
  const n = rows.length;
  if (w.order === 'asc') {
    // First trade at or after minAt and past `after`.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = rows.atOf(mid);
      const before = at < minAt || (after !== undefined && (at < after[0]! || (at === after[0] && rows.compareAt(mid, after) <= 0)));
      if (before) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < n; i++) {
      if (rows.atOf(i) > maxAt) return true;
      yield rows.decode(i, w.numbersOnly);
    }
  } else {
    // One past the last trade at or before maxAt and before `after`.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = rows.atOf(mid);
      const past = at > maxAt || (after !== undefined && (at > after[0]! || (at === after[0] && rows.compareAt(mid, after) >= 0)));
      if (past) hi = mid;
      else lo = mid + 1;
    }
    for (let i = lo - 1; i >= 0; i--) {
      if (rows.atOf(i) < minAt) return true;
      yield rows.decode(i, w.numbersOnly);
    }
  }
  return false;
}

/**
 * Drops an item whose trade is equal by position (compareKey) to the one before it,
 * in a stream sorted by position: a batch that committed while it was still listed as
 * writing is in both the store and memory for a moment; a block indexed again after a
 * late trade rewrote it is twice in the wallet order.
 */
export function* dedup<T>(items: Iterable<T>, keyOf: (item: T) => ArrayLike<unknown>): Generator<T> {
  let previous: ArrayLike<unknown> | null = null;
  for (const item of items) {
    const t = keyOf(item);
    if (previous !== null && compareKey(t, previous) === 0) continue;
    previous = t;
    yield item;
  }
}

/**
 * Merges streams sorted by position (each in the given order, `keyOf` giving the
 * position) into one. `unique`: an item at the same position as another stream's head
 * is dropped (each stream lists a position once), as `dedup` would after the merge.
 */
export function* merge<T>(streams: Array<Iterator<T>>, asc: boolean, keyOf: (item: T) => ArrayLike<unknown>, unique = false): Generator<T> {
  try {
    yield* mergeOpen(streams, asc, keyOf, unique);
  } finally {
    // Closed early (a page full) or not: every stream is returned, so that its LMDB range iterator ends its read transaction.
    for (const s of streams) s.return?.();
  }
}

function* mergeOpen<T>(streams: Array<Iterator<T>>, asc: boolean, keyOf: (item: T) => ArrayLike<unknown>, unique: boolean): Generator<T> {
  const heads = streams.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (h.done) continue;
      if (best < 0) best = i;
      else {
        const c = compareKey(keyOf(h.value), keyOf((heads[best] as IteratorYieldResult<T>).value));
        if (c === 0 && unique) {
          heads[i] = streams[i]!.next();
          i--;
        } else if (asc ? c < 0 : c > 0) best = i;
      }
    }
    if (best < 0) return;
    let live = 0;
    for (const h of heads) if (!h.done) live++;
    if (live === 1) {
      // The last stream left goes on as it comes, nothing to compare (most of a long
      // read: a pool's trades in memory are its last seconds).
      const s = streams[best]!;
      for (let h = heads[best]!; !h.done; h = s.next()) yield h.value;
      return;
    }
    yield (heads[best] as IteratorYieldResult<T>).value;
    heads[best] = streams[best]!.next();
  }
}

/** How many values the trade at `pos` holds (its fixarray header: 12, or 13 with `curvePct`); throws for any other byte. */
export function tradeFields(b: Buffer, pos: number): number {
  const h = b[pos] ?? 0;
  const n = h ^ 0x90;
  if (n !== TRADE_FIELDS && n !== TRADE_FIELDS_MAX) throw new Error(`trade log: byte 0x${h.toString(16)} at ${pos} is not a trade`);
  return n;
}

/** `numbersOnly`: strings (the wallet, the tx hash) are left undecoded, as null. */
export function decodeTrade(b: Buffer, pos: number, end: number, numbersOnly = false): StoredTrade {
  const n = tradeFields(b, pos);
  pos++;
  const t = new Array(n) as unknown[];
  for (let k = 0; k < n; k++) {
    const next = skipValue(b, pos);
    const h = b[pos]!;
    t[k] = numbersOnly && ((h >= 0xa0 && h < 0xc0) || (h >= 0xd9 && h <= 0xdb)) ? null : readValueAt(b, pos, next);
    pos = next;
  }
  if (pos !== end) throw new Error(`trade log: a trade ends at ${pos}, not ${end}`);
  return t as StoredTrade;
}

/** Where the trade starting at `pos` ends. */
export function skipTrade(b: Buffer, pos: number): number {
  const n = tradeFields(b, pos);
  pos++;
  for (let k = 0; k < n; k++) pos = skipValue(b, pos);
  return pos;
}

/** Where the value at `pos` (one of the forms encodeTrade writes) ends. */
export function skipValue(b: Buffer, pos: number): number {
  const h = b[pos];
  let end: number;
  if (h === undefined) throw new Error(`trade log: truncated at ${pos}`);
  if (h < 0x80 || h >= 0xe0 || h === 0xc0) end = pos + 1;
  else if (h >= 0xa0 && h < 0xc0) end = pos + 1 + (h & 0x1f);
  else if (h === 0xcc || h === 0xd0) end = pos + 2;
  else if (h === 0xcd || h === 0xd1) end = pos + 3;
  else if (h === 0xce || h === 0xd2) end = pos + 5;
  else if (h === 0xcb) end = pos + 9;
  else if (h === 0xd9 && pos + 2 <= b.length) end = pos + 2 + b[pos + 1]!;
  else if (h === 0xda && pos + 3 <= b.length) end = pos + 3 + b.readUInt16BE(pos + 1);
  else if (h === 0xdb && pos + 5 <= b.length) end = pos + 5 + b.readUInt32BE(pos + 1);
  else throw new Error(`trade log: unexpected msgpack byte 0x${h.toString(16)} at ${pos}`);
  if (end > b.length) throw new Error(`trade log: truncated at ${pos}`);
  return end;
}

export function readNumberAt(b: Buffer, pos: number, end: number): number {
  const v = readValueAt(b, pos, end);
  if (typeof v !== 'number') throw new Error(`trade log: a trade position holds ${v === null ? 'null' : typeof v} at ${pos}`);
  return v;
}

/** The value at `pos`, ending at `end` (skipValue's answer, which admitted only these forms). */
export function readValueAt(b: Buffer, pos: number, end: number): number | string | null {
  const h = b[pos]!;
  if (h < 0x80) return h;
  if (h >= 0xe0) return h - 0x100;
  if (h === 0xc0) return null;
  if (h === 0xcb) return b.readDoubleBE(pos + 1);
  if (h >= 0xcc && h <= 0xce) return b.readUIntBE(pos + 1, end - pos - 1);
  if (h >= 0xd0 && h <= 0xd2) return b.readIntBE(pos + 1, end - pos - 1);
  // A string after its header: fixstr 1 byte, str8 2, str16 3, str32 5.
  return b.toString('utf8', pos + (h < 0xc0 ? 1 : h === 0xd9 ? 2 : h === 0xda ? 3 : 5), end);
}

/**
 * A stored block's value (a msgpack array of encoded trades, trades.repo.ts) read in
 * place: the trades' offsets are found by skipping values, and a trade is decoded only
 * when asked for. A page of 100 trades from the newest end of a 512-trade block
 * decoded the whole block through msgpackr before: most of a trade list's cost.
 */
export class TradeBlock implements TradeRows {
  readonly length: number;
  /** Start of trade i; offsets[length] is the end of the last. */
  private readonly offsets: Uint32Array;

  constructor(private readonly bytes: Buffer) {
    const h = bytes[0];
    let n: number;
    let pos: number;
    if (h !== undefined && h >= 0x90 && h <= 0x9f) [n, pos] = [h & 0x0f, 1];
    else if (h === 0xdc && bytes.length >= 3) [n, pos] = [bytes.readUInt16BE(1), 3];
    else if (h === 0xdd && bytes.length >= 5) [n, pos] = [bytes.readUInt32BE(1), 5];
    else throw new Error(`trade block: byte 0x${(h ?? 0).toString(16)} is not an array header`);
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) {
      offsets[i] = pos;
      pos = skipTrade(bytes, pos);
    }
    offsets[n] = pos;
    if (pos !== bytes.length) throw new Error(`trade block: ${bytes.length - pos} bytes after its ${n} trades`);
    this.length = n;
    this.offsets = offsets;
  }

  /** Trade i's `at`. */
  atOf(i: number): number {
    const p = this.offsets[i]! + 1;
    return readNumberAt(this.bytes, p, skipValue(this.bytes, p));
  }

  /** compareKey(trade i, key), reading only the trade's position. */
  compareAt(i: number, key: ArrayLike<unknown>): number {
    const b = this.bytes;
    let p = this.offsets[i]! + 1;
    for (let k = 0; k < 4; k++) {
      const next = skipValue(b, p);
      const c = readNumberAt(b, p, next) - (key[k] as number);
      if (c !== 0) return c;
      p = next;
    }
    return 0;
  }

  decode(i: number, numbersOnly = false): StoredTrade {
    return decodeTrade(this.bytes, this.offsets[i]!, this.offsets[i + 1]!, numbersOnly);
  }

  /**
   * Trade i's position into key[from..from+4) and where its wallet's msgpack value
   * lies (`walletStart`, `walletEnd`), decoding nothing else: what the wallet index
   * takes of a trade.
   */
  position(i: number, key: unknown[], from: number): void {
    const b = this.bytes;
    let p = this.offsets[i]! + 1;
    for (let k = 0; k < 4; k++) {
      const next = skipValue(b, p);
      key[from + k] = readNumberAt(b, p, next);
      p = next;
    }
    // The side, then the wallet.
    p = skipValue(b, p);
    this.walletStart = p;
    this.walletEnd = skipValue(b, p);
  }

  /** Set by `position`. */
  walletStart = 0;
  walletEnd = 0;

  /** The wallet `position` found, as a string. */
  wallet(): string {
    const v = readValueAt(this.bytes, this.walletStart, this.walletEnd);
    if (typeof v !== 'string') throw new Error(`trade block: a wallet is ${v === null ? 'null' : typeof v}`);
    return v;
  }

  /** Whether the wallet `position` found is the string whose UTF-8 bytes are `utf8` (compared in place). */
  walletIs(utf8: Buffer): boolean {
    const b = this.bytes;
    const h = b[this.walletStart]!;
    const from = this.walletStart + (h >= 0xa0 && h < 0xc0 ? 1 : h === 0xd9 ? 2 : h === 0xda ? 3 : h === 0xdb ? 5 : -Infinity);
    if (!(from <= this.walletEnd)) return false; // not a string
    return this.walletEnd - from === utf8.length && b.compare(utf8, 0, utf8.length, from, this.walletEnd) === 0;
  }
}
