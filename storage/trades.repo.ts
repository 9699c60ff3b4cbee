import type { Storage } from './lmdb.ts';

/**
 * A trade as stored: a tuple, so that msgpack writes no field names (millions of them).
 * [at, slot, txIndex, eventIndex, side (1 buy, 0 sell), wallet, baseAmount,
 *  quoteAmount, priceQuote, quoteUsd | null, marketCapQuote, txHash]
 */
export type StoredTrade = [number, number, number, number, 0 | 1, string, number, number, number, number | null, number, string];

/**
 * The order of trade lists (SERVICE.md 2.8): created_at, then slot, tx_index,
 * event_index. Takes trades or trade keys alike (their first four numbers).
 */
export function compareKey(a: ArrayLike<unknown>, b: ArrayLike<unknown>): number {
  return (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number) || (a[2] as number) - (b[2] as number) || (a[3] as number) - (b[3] as number);
}
export const compareStored: (a: StoredTrade, b: StoredTrade) => number = compareKey;

/** A position in a pool's trade order. */
export type TradeKey = [at: number, slot: number, txIndex: number, eventIndex: number];
export const keyOf = (t: StoredTrade): TradeKey => [t[0], t[1], t[2], t[3]];

/**
 * The trades of each pool in LMDB as blocks: key [pool, first trade's position],
 * value the block's trades in order. Blocks of one pool never overlap, so a range
 * read in key order is the pool's trade order. Writes happen with the pool's
 * snapshot (one transaction), never per trade.
 */
export class TradesRepo {
  constructor(private readonly storage: Storage) {}

  /**
   * Stores trades (sorted) that are all later than `persistedUpTo` as new blocks, and
   * merges earlier ones (late arrivals) into the blocks that cover them. Resolves when
   * the transaction holding them has committed (all puts of an event turn share one).
   */
  write(pool: string, trades: StoredTrade[], persistedUpTo: TradeKey | null, blockMax = 512): Promise<unknown> {
    const db = this.storage.trades;
    let last: Promise<unknown> = Promise.resolve();
    let i = 0;
    if (persistedUpTo) {
      const late: StoredTrade[] = [];
      while (i < trades.length && compareKey(trades[i]!, persistedUpTo) <= 0) late.push(trades[i++]!);
      for (const t of late) last = this.mergeLate(pool, t);
    }
    for (; i < trades.length; i += blockMax) {
      const block = trades.slice(i, i + blockMax);
      last = db.put([pool, ...keyOf(block[0]!)], block);
    }
    return last;
  }

  private mergeLate(pool: string, trade: StoredTrade): Promise<unknown> {
    const db = this.storage.trades;
    // The block starting at or before the trade holds its range (blocks are disjoint).
    for (const { key, value } of db.getRange({ start: [pool, ...keyOf(trade)], end: [pool], reverse: true, limit: 1 })) {
      const block = value as StoredTrade[];
      let at = block.length;
      while (at > 0 && compareStored(block[at - 1]!, trade) > 0) at--;
      block.splice(at, 0, trade);
      return db.put(key, block);
    }
    // Earlier than every stored trade: the first block's key must move, so write a new block.
    return db.put([pool, ...keyOf(trade)], [trade]);
  }

  /**
   * Trades of a pool after (or before, descending) `from`, exclusive, in order; at
   * most `limit` and none outside [minAt, maxAt].
   */
  *read(pool: string, opts: { after?: TradeKey; order: 'asc' | 'desc'; minAt: number; maxAt: number }): Generator<StoredTrade> {
    const db = this.storage.trades;
    const asc = opts.order === 'asc';
    const from = opts.after;
    // Start from the block that may hold `from` (or the window's edge).
    const edge: TradeKey = from ?? (asc ? [opts.minAt, 0, 0, 0] : [opts.maxAt, Number.MAX_SAFE_INTEGER, 0, 0]);
    let startKey: unknown[] = [pool, ...edge];
    if (asc) for (const key of db.getKeys({ start: [pool, ...edge], end: [pool], reverse: true, limit: 1 })) startKey = key as unknown[];
    const range = asc
      ? db.getRange({ start: startKey as never, end: [pool, Number.MAX_SAFE_INTEGER] })
      : db.getRange({ start: [pool, ...edge, Number.MAX_SAFE_INTEGER] as never, end: [pool], reverse: true });
    for (const { value } of range) {
      const block = value as StoredTrade[];
      if (asc) {
        for (const t of block) {
          if (from ? compareKey(t, from) <= 0 : t[0] < opts.minAt) continue;
          if (t[0] > opts.maxAt) return;
          yield t;
        }
      } else {
        for (let i = block.length - 1; i >= 0; i--) {
          const t = block[i]!;
          if (from ? compareKey(t, from) >= 0 : t[0] > opts.maxAt) continue;
          if (t[0] < opts.minAt) return;
          yield t;
        }
      }
    }
  }

  /** Deletes blocks whose last trade is older than `before` (30-day retention). */
  prune(pool: string, before: number): number {
    const db = this.storage.trades;
    let removed = 0;
    for (const { key, value } of db.getRange({ start: [pool], end: [pool, before] })) {
      const block = value as StoredTrade[];
      if (block[block.length - 1]![0] < before) {
        db.remove(key);
        removed++;
      } else break;
    }
    return removed;
  }
}
