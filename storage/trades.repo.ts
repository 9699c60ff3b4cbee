import { TRADE_BLOCK_TRADES_MAX } from '../engine/bounds.ts';
import { asBinary, type Key } from 'lmdb';
import type { Storage } from './lmdb.ts';
import { valueWriter } from './msgpack-writer.ts';
import { TRADE, compareStored, type StoredTrade, type TradeKey, type TradeSpan } from '../engine/model/index.ts';
import { TradeBlock, windowed } from './trade-codec.ts';

/**
 * Trades encoded one by one as msgpack (each the StoredTrade tuple, decoding to it
 * through the trades database), in compareKey order: a pool's unsaved trades
 * (actors/pool/trade-log.ts), written as they are.
 */
export interface EncodedTrades {
  readonly length: number;
  keyAt(i: number): TradeKey;
  /** compareKey(trade i, key), without decoding the trade. */
  compareAt(i: number, key: ArrayLike<unknown>): number;
  decode(i: number): StoredTrade;
  /** Byte length of the encodings of trades [from, to). */
  encodedLength(from: number, to: number): number;
  /** Copies the encodings of trades [from, to), in order, into `target` at `offset`; returns the end. */
  copyEncoded(from: number, to: number, target: Uint8Array, offset: number): number;
}

/** The trade at `key` among sorted trades (a stored block, a pool's log in memory), by binary search; undefined if none. */
export function findAt(trades: Pick<EncodedTrades, 'length' | 'compareAt' | 'decode'>, key: TradeKey): StoredTrade | undefined {
  let lo = 0;
  let hi = trades.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = trades.compareAt(mid, key);
    if (c === 0) return trades.decode(mid);
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** A wallet journal key: its seq, then the key of the block it names ([pool, at, slot, tx_index, event_index]). */
export type JournalKey = [seq: number, pool: string, at: number, slot: number, txIndex: number, eventIndex: number];

const EMPTY = Buffer.alloc(0);

/** Whether two keys (arrays of numbers and strings, or none) are the same. */
export function sameKey(a: Key[] | null, b: Key[] | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A block's value: a msgpack array header, then the encodings of trades [from, to), in
 * the value writer's memory (never reused while lmdb-js may still read it).
 */
function blockBytes(trades: EncodedTrades, from: number, to: number): Buffer {
  valueWriter.arrayHeader(to - from);
  const { buffer, offset } = valueWriter.take(trades.encodedLength(from, to));
  trades.copyEncoded(from, to, buffer, offset);
  return valueWriter.end();
}

/**
 * The trades of each pool in LMDB as blocks: key [pool, first trade's position],
 * value the block's trades in order. Blocks of one pool never overlap, so a range
 * read in key order is the pool's trade order. Writes happen with the pool's
 * snapshot (one transaction), never per trade.
 */
export class TradesRepo {
  /** The next wallet journal key's seq (read from LMDB on the first write). */
  private journalSeq = -1;

  /** `onJournal`: told of every wallet journal entry put (the engine starts its wallet indexer then). */
  constructor(
    private readonly storage: Storage,
    private readonly onJournal?: () => void,
  ) {}

  /**
   * Names a block just put in the wallet journal, in the caller's turn and so in the
   * transaction of the block: the wallet indexer (wallet-index.ts) reads the block's
   * trades from there into `trades_by_wallet`.
   */
  private journal(block: Key[]): void {
    if (this.journalSeq < 0) {
      this.journalSeq = 0;
      for (const key of this.storage.walletJournal.getKeys({ reverse: true, limit: 1 })) this.journalSeq = (key as JournalKey)[0] + 1;
    }
    void this.storage.walletJournal.put([this.journalSeq++, ...block] as JournalKey, EMPTY as never);
    this.onJournal?.();
  }

  /**
   * Stores trades (sorted) that are all later than `persistedUpTo` as new blocks of
   * their bytes as encoded, and merges earlier ones (late arrivals) into the blocks that
   * cover them. Resolves when the transaction holding them has committed (all puts of
   * an event turn share one). One write per pool at a time (pool.actor.ts keeps to it):
   * late trades merge into the blocks LMDB shows, and a write not yet committed is not
   * shown, so a second one in flight would make overlapping blocks.
   */
  write(pool: string, trades: EncodedTrades, persistedUpTo: TradeKey | null, blockMax = TRADE_BLOCK_TRADES_MAX): Promise<unknown> {
    if (!(Number.isInteger(blockMax) && blockMax >= 1)) throw new RangeError(`blockMax must be a positive integer, not ${blockMax}`);
    const db = this.storage.trades;
    const n = trades.length;
    let last: Promise<unknown> = Promise.resolve();
    let i = 0;
    if (persistedUpTo) {
      // Few: decoded and merged the way any stored block is rewritten.
      const late: StoredTrade[] = [];
      while (i < n && trades.compareAt(i, persistedUpTo) <= 0) late.push(trades.decode(i++));
      if (late.length > 0) last = this.mergeLate(pool, late);
    }
    for (; i < n; i += blockMax) {
      const to = Math.min(n, i + blockMax);
      const key = [pool, ...trades.keyAt(i)];
      last = db.put(key, asBinary(blockBytes(trades, i, to)));
      this.journal(key);
    }
    return last;
  }

  /**
   * Merges sorted late trades into the blocks that cover them: one put per block. The
   * puts of this turn are not readable before they commit, so every trade bound for a
   * block is added to the one copy of it read here (a put per trade would keep only
   * the last one).
   */
  private mergeLate(pool: string, late: StoredTrade[]): Promise<unknown> {
    const db = this.storage.trades;
    let last: Promise<unknown> = Promise.resolve();
    // The block being filled: the key of the stored block covering it (null: none, a new
    // block in front of them all, under `target`), its key as put, and its trades.
    let cover: Key[] | null | undefined;
    let target: Key[] = [];
    let block: StoredTrade[] = [];
    for (const trade of late) {
      // The block starting at or before the trade holds its range (blocks are disjoint):
      // found by key alone, and read only when it is not the one being filled already.
      let key: Key[] | null = null;
      for (const k of db.getKeys({ start: [pool, trade[TRADE.at], trade[TRADE.slot], trade[TRADE.txIndex], trade[TRADE.eventIndex]], end: [pool], reverse: true, limit: 1 })) key = k;
      if (cover === undefined || !sameKey(key, cover)) {
        if (cover !== undefined) {
          last = db.put(target, block);
          this.journal(target);
        }
        cover = key;
        // None: earlier than every stored trade. The first block's key would have to move,
        // so these go to a new block of their own, in front of it.
        target = key ?? [pool, trade[TRADE.at], trade[TRADE.slot], trade[TRADE.txIndex], trade[TRADE.eventIndex]];
        block = key ? ((db.get(key) as StoredTrade[] | undefined) ?? []) : [];
      }
      let at = block.length;
      while (at > 0 && compareStored(block[at - 1]!, trade) > 0) at--;
      block.splice(at, 0, trade);
    }
    if (cover !== undefined) {
      last = db.put(target, block);
      this.journal(target);
    }
    return last;
  }

  /**
   * Trades of a pool after (or before, descending) `after`, exclusive, in order, none
   * outside [minAt, maxAt]; lazily, block by block.
   */
  *read(pool: string, opts: TradeSpan): Generator<StoredTrade> {
    const db = this.storage.tradeBlocks;
    const { after, minAt, maxAt } = opts;
    let range: Iterable<{ value: Buffer }>;
    if (opts.order === 'asc') {
      // From the block holding the near edge: the cursor, or minAt when the cursor is
      // older than the window (paging without start_time: minAt moves on between pages).
      // [pool, minAt] sorts before every key at minAt, so the block found covers them all.
      const near: unknown[] = after && after[0] >= minAt ? [pool, ...after] : [pool, minAt];
      let start = near;
      for (const key of db.getKeys({ start: near as never, end: [pool], reverse: true, limit: 1 })) start = key as unknown[];
      range = db.getRange({ start: start as never, end: [pool, Number.MAX_SAFE_INTEGER] });
    } else {
      // Blocks starting before the near edge (the cursor, or maxAt when the cursor is later), newest first.
      const near: TradeKey = after && after[0] <= maxAt ? after : [maxAt, Number.MAX_SAFE_INTEGER, 0, 0];
      range = db.getRange({ start: [pool, ...near, Number.MAX_SAFE_INTEGER] as never, end: [pool], reverse: true });
    }
    for (const { value } of range) {
      // Decoded trade by trade, only those returned (a page takes ~100 of a block's up to 512).
      if (yield* windowed(new TradeBlock(value), opts)) return;
    }
  }

  /**
   * The stored trade of a pool at this position, if any: a binary search in the block
   * that covers it. `blocks` keeps the blocks read, by key, for a caller that looks up
   * many trades in one synchronous walk (a wallet's trades often share a pool's block;
   * reading and parsing one is most of a lookup's cost).
   */
  find(pool: string, key: TradeKey, blocks?: Map<string, TradeBlock>): StoredTrade | undefined {
    const db = this.storage.tradeBlocks;
    for (const covering of db.getKeys({ start: [pool, ...key] as never, end: [pool], reverse: true, limit: 1 })) {
      const id = blocks ? (covering as Key[]).join('\u0000') : '';
      let block = blocks?.get(id);
      if (!block) {
        const value = db.get(covering as never);
        if (!value) return undefined;
        block = new TradeBlock(value);
        blocks?.set(id, block);
      }
      return findAt(block, key);
    }
    return undefined;
  }

  /**
   * Deletes blocks whose last trade is older than `before` (30-day retention), reading
   * keys only: a block followed by another that starts before `before` ends before it
   * (blocks never overlap), so only the last block starting before `before` is read,
   * for its last trade's `at`.
   */
  prune(pool: string, before: number): number {
    const db = this.storage.trades;
    let removed = 0;
    let previous: Key[] | null = null;
    for (const key of db.getKeys({ start: [pool], end: [pool, before] })) {
      if (previous) {
        db.remove(previous);
        removed++;
      }
      previous = key;
    }
    if (previous) {
      const value = this.storage.tradeBlocks.get(previous);
      const block = value ? new TradeBlock(value) : null;
      if (block && (block.length === 0 || block.atOf(block.length - 1) < before)) {
        db.remove(previous);
        removed++;
      }
    }
    return removed;
  }
}
