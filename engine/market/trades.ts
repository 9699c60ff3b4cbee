import type { PoolState } from '../../actors/pool/pool.logic.ts';
import { windowed } from '../../storage/trade-codec.ts';
import { compareKey, compareStored, type StoredTrade, type TradeKey, type TradesRepo } from '../../storage/trades.repo.ts';

/** Trade history served: the last 30 days (SERVICE.md 4.1). */
export const TRADE_HISTORY_MS = 30 * 86_400_000;
/** Without start_time, trade lists cover the last 24 hours (SERVICE.md 4.1). */
export const TRADE_DEFAULT_WINDOW_MS = 86_400_000;

export interface TradeWindow {
  order: 'asc' | 'desc';
  minAt: number;
  maxAt: number;
  /** Exclusive: continue after (asc) or before (desc) this position. */
  after?: TradeKey;
}

/**
 * A pool's trades in the window, in order: the stored blocks and the ones still in
 * memory (the unsaved log, and the one written but not yet committed, which LMDB does
 * not show yet: pool.actor.ts), as three sorted streams merged lazily, so that a page
 * decodes only about the trades it returns.
 */
export function* poolTrades(repo: TradesRepo, pool: string, state: PoolState | undefined, w: TradeWindow): Generator<StoredTrade> {
  const streams: Array<Iterator<StoredTrade>> = [repo.read(pool, w)];
  if (state) streams.push(memoryTrades(state, w));
  yield* dedup(merge(streams, w.order === 'asc', self), self);
}

/** A pool's trades in memory only (the unsaved log, and the batch being written), in the window's order. */
export function* memoryTrades(state: PoolState, w: TradeWindow): Generator<StoredTrade> {
  if (state.writing) yield* merge([windowed(state.unsaved, w), windowed(state.writing, w)], w.order === 'asc', self);
  else yield* windowed(state.unsaved, w);
}

/**
 * Drops an item whose trade is equal by position to the one before it: a batch that
 * committed while it was still listed as writing is in both the store and memory for
 * a moment.
 */
export function* dedup<T>(items: Iterable<T>, keyOf: (item: T) => StoredTrade): Generator<T> {
  let previous: StoredTrade | null = null;
  for (const item of items) {
    const t = keyOf(item);
    if (previous !== null && compareKey(t, previous) === 0) continue;
    previous = t;
    yield item;
  }
}

/** Merges sorted streams (each in the given order, by `keyOf`) into one. */
export function* merge<T>(streams: Array<Iterator<T>>, asc: boolean, keyOf: (item: T) => StoredTrade): Generator<T> {
  const heads = streams.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (h.done) continue;
      if (best < 0) best = i;
      else {
        const c = compareStored(keyOf(h.value), keyOf((heads[best] as IteratorYieldResult<T>).value));
        if (asc ? c < 0 : c > 0) best = i;
      }
    }
    if (best < 0) return;
    yield (heads[best] as IteratorYieldResult<T>).value;
    heads[best] = streams[best]!.next();
  }
}

const self = (t: StoredTrade) => t;

/** At most `limit` items, and whether there are more. */
export function take<T>(source: Iterator<T>, limit: number): { items: T[]; hasMore: boolean } {
  const items: T[] = [];
  for (;;) {
    const next = source.next();
    if (next.done) return { items, hasMore: false };
    if (items.length === limit) return { items, hasMore: true };
    items.push(next.value);
  }
}
