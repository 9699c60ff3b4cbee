import { Packr, Unpackr } from 'msgpackr';
import type { Position } from './wallet.logic.ts';

/**
 * A wallet's positions by token, kept packed until read (the wallet actor's state,
 * WalletState.positions). A wallet's snapshot is its positions' bytes as one binary
 * (`PackedPositions`): activated from it, the wallet decodes only the positions it reads,
 * most often the one token a trade moves, and its next snapshot copies the bytes of those
 * it did not change instead of packing them again. During a replay the wallets in use
 * outgrow the resident byte bound, so a wallet is evicted and activated again between
 * its trades, and each eviction and activation packed and unpacked every position it
 * ever held (bench/README.md, the market: one swap in two wrote a wallet's snapshot).
 *
 * Reads as a Map (get, has, size, iteration in insertion order, the order the snapshot
 * keeps: sums over the positions add in the same order after a restart). Only the
 * wallet actor changes a position, through `mutable` or `add`: a position read through
 * `get` keeps its bytes, so that another actor's read (token-traders, chart lines, the
 * leaderboard's refresh) does not make the wallet write it again.
 */
export class Positions {
  /** By token: the position, or the index of its bytes in `packed` while not decoded. */
  private readonly map = new Map<string, Position | number>();
  /** Decoded positions not changed since, by token: the index of their bytes in `packed`. */
  private readonly kept = new Map<string, number>();
  /** The bytes the positions were read from or last written as; null before any. */
  private packed: PackedPositions | null = null;
  /** Positions added or changed since `packed` (so that a snapshot of none is the same bytes again). */
  private changed = 0;
  /** Positions held decoded (the rest only as bytes). */
  private decodedCount = 0;

  /** From a snapshot's packed positions (toData's). */
  static fromData(data: PackedPositions): Positions {
    const p = new Positions();
    p.packed = data;
    for (let i = 0; i < data.tokens.length; i++) p.map.set(data.tokens[i]!, i);
    return p;
  }

  /** From decoded positions in order (snapshots written before the packed form, tests). */
  static of(entries: Iterable<[string, Position]>): Positions {
    const p = new Positions();
    for (const [token, position] of entries) p.add(token, position);
    return p;
  }

  get size(): number {
    return this.map.size;
  }

  has(token: string): boolean {
    return this.map.has(token);
  }

  /** The position of `token` for reading (decoded on first read, its bytes kept). */
  get(token: string): Position | undefined {
    const v = this.map.get(token);
    if (typeof v !== 'number') return v;
    const p = decodeAt(this.packed!, v);
    this.map.set(token, p);
    this.kept.set(token, v);
    this.decodedCount++;
    return p;
  }

  /** The position of `token` for the wallet actor to change: its bytes are no longer its own. */
  mutable(token: string): Position | undefined {
    const p = this.get(token);
    if (p !== undefined && this.kept.delete(token)) this.changed++;
    return p;
  }

  /** A new position of `token` (the wallet actor's). */
  add(token: string, position: Position): void {
    const before = this.map.get(token);
    if (before === undefined || typeof before === 'number') this.decodedCount++;
    this.map.set(token, position);
    this.kept.delete(token);
    this.changed++;
  }

  /** Positions held decoded (a measure of the heap, with `packedBytes`). */
  get decoded(): number {
    return this.decodedCount;
  }

  /** Bytes of the packed form held. */
  get packedBytes(): number {
    return this.packed === null ? 0 : this.packed.blob.byteLength;
  }

  /**
   * Every position in order. Those held only as bytes are decoded for the pass and not
   * kept (the leaderboard's refresh and the wallet routes read every position of a
   * wallet: kept, they would make it as large as before it was packed).
   */
  *entries(): IterableIterator<[string, Readonly<Position>]> {
    for (const [token, v] of this.map) yield [token, typeof v === 'number' ? decodeAt(this.packed!, v) : v];
  }

  [Symbol.iterator](): IterableIterator<[string, Readonly<Position>]> {
    return this.entries();
  }

  *values(): IterableIterator<Readonly<Position>> {
    for (const v of this.map.values()) yield typeof v === 'number' ? decodeAt(this.packed!, v) : v;
  }

  /**
   * The positions as bytes, in order, for a snapshot: the same object when nothing was
   * added or changed since the last (or since read), else new bytes, those of positions
   * not changed copied, which the positions keep from then on (the caller must not
   * change what it is given). Either way no position is held decoded after it (release).
   */
  toData(): PackedPositions {
    const old = this.packed;
    if (old !== null && this.changed === 0 && old.tokens.length === this.map.size) {
      this.release();
      return old;
    }
    const tokens: string[] = [];
    const ends: number[] = [];
    // Each position's bytes as a range, of the old blob (-1 - start: unchanged) or of
    // SCRATCH (start: packed now, copied there as msgpackr reuses its buffer at the next
    // pack), then one blob and one copy per run of neighbouring ranges: no buffer, nor a
    // view, per position (allocations were a third of a wallet's write in a replay).
    const froms = FROMS;
    froms.length = 0;
    let scratchUsed = 0;
    let length = 0;
    for (const [token, v] of this.map) {
      const at = typeof v === 'number' ? v : this.kept.get(token);
      let size: number;
      if (at === undefined) {
        const bytes = PACKR.pack(toTuple(v as Position));
        size = bytes.byteLength;
        if (scratchUsed + size > SCRATCH.byteLength) SCRATCH = growScratch(SCRATCH, scratchUsed, scratchUsed + size);
        SCRATCH.set(bytes, scratchUsed);
        froms.push(scratchUsed);
        scratchUsed += size;
      } else {
        const start = at === 0 ? 0 : old!.ends[at - 1]!;
        size = old!.ends[at]! - start;
        froms.push(-1 - start);
      }
      length += size;
      tokens.push(token);
      ends.push(length);
    }
    const blob = new Uint8Array(length);
    const oldBlob = old?.blob;
    for (let i = 0, begin = 0; i < froms.length; ) {
      // A run: positions whose bytes follow one another in the same source.
      const from = froms[i]!;
      let j = i + 1;
      let end = ends[i]!;
      while (j < froms.length && froms[j]! === from + (from < 0 ? -(end - begin) : end - begin)) end = ends[j++]!;
      const src = from < 0 ? oldBlob! : SCRATCH;
      const start = from < 0 ? -1 - from : from;
      blob.set(new Uint8Array(src.buffer, src.byteOffset + start, end - begin), begin);
      begin = end;
      i = j;
    }
    // A wallet of thousands of changed positions grew the shared scratch: not kept for the
    // life of the process after it (the next large one grows it again).
    if (SCRATCH.byteLength > SCRATCH_KEPT_BYTES) SCRATCH = new Uint8Array(SCRATCH_BYTES);
    if (froms.length > FROMS_KEPT) froms.length = 0;
    const data: PackedPositions = { tokens, ends, blob };
    this.packed = data;
    this.kept.clear();
    this.changed = 0;
    // Every position is in the new bytes: none is held decoded from now on (release).
    for (let i = 0; i < tokens.length; i++) this.map.set(tokens[i]!, i);
    this.decodedCount = 0;
    return data;
  }

  /**
   * Lets go of the positions decoded and not changed since `packed` (their bytes are
   * there): a snapshot's, so that a wallet resident across checkpoints holds only the
   * positions it changed since the last, not every one it read or traded since it was
   * activated (a busy wallet's trades over many tokens held half its positions decoded,
   * at ~0.7 KB each against ~0.1 KB and its bytes packed: bench/README.md, the market).
   * The next read of one decodes it again.
   */
  private release(): void {
    if (this.kept.size === 0) return;
    for (const [token, i] of this.kept) this.map.set(token, i);
    this.decodedCount -= this.kept.size;
    this.kept.clear();
  }
}

/** A wallet's positions in its snapshot: the tokens in order, each position's bytes (toTuple, msgpack) ending at `ends[i]` in `blob`. */
export interface PackedPositions {
  tokens: string[];
  ends: number[];
  blob: Uint8Array;
}

const PACKR = new Packr({ useRecords: false });
/** toData's positions packed in this call, one after another; grown as needed, shared by every wallet (toData runs to its end before any other). */
const SCRATCH_BYTES = 4_096;
let SCRATCH: Uint8Array = new Uint8Array(SCRATCH_BYTES);
/** Past this, toData lets the grown scratch go once done (a typical wallet's changed positions take a few hundred bytes). */
const SCRATCH_KEPT_BYTES = 64 * 1_024;
const FROMS_KEPT = 4_096;
/** toData's range per position (see there), reused. */
const FROMS: number[] = [];

function growScratch(scratch: Uint8Array, used: number, need: number): Uint8Array {
  const grown = new Uint8Array(Math.max(need, 2 * scratch.byteLength));
  grown.set(scratch.subarray(0, used));
  return grown;
}
const UNPACKR = new Unpackr({ useRecords: false });

type Tuple = [
  qty: number,
  cost: number,
  realized: number,
  buys: number,
  sells: number,
  buyUsd: number,
  sellUsd: number,
  unpriced: number,
  firstBuyAt: number | null,
  entryMcapUsd: number | null | undefined,
  lastTradeAt: number | null,
  balanceSlot: number,
  decimals: number,
  days: number[],
  lvQuote: string | null,
  lvBuy: number[] | null,
  lvSell: number[] | null,
];

function toTuple(p: Position): Tuple {
  return [p.qty, p.cost, p.realized, p.buys, p.sells, p.buyUsd, p.sellUsd, p.unpriced, p.firstBuyAt, p.entryMcapUsd, p.lastTradeAt, p.balanceSlot, p.decimals, p.days, p.lvQuote, p.lvBuy, p.lvSell];
}

function decodeAt(packed: PackedPositions, i: number): Position {
  const t = UNPACKR.unpack(packed.blob.subarray(i === 0 ? 0 : packed.ends[i - 1]!, packed.ends[i]!)) as Tuple;
  return {
    qty: t[0],
    cost: t[1],
    realized: t[2],
    buys: t[3],
    sells: t[4],
    buyUsd: t[5],
    sellUsd: t[6],
    unpriced: t[7],
    firstBuyAt: t[8],
    entryMcapUsd: t[9],
    lastTradeAt: t[10],
    balanceSlot: t[11],
    decimals: t[12],
    days: t[13],
    lvQuote: t[14],
    lvBuy: t[15],
    lvSell: t[16],
  };
}
