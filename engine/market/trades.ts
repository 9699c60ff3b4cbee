import type { PoolState } from '../../actors/pool/pool.logic.ts';
import { dedup, merge, windowed } from '../../storage/trade-codec.ts';
import type { StoredTrade, TradeSpan } from '../model/index.ts';
import type { TradesRepo } from '../../storage/trades.repo.ts';

/** Trade history served: the last 30 days (SERVICE.md 4.1). */
export const TRADE_HISTORY_MS = 30 * 86_400_000;
/** Without start_time, trade lists cover the last 24 hours (SERVICE.md 4.1). */
export const TRADE_DEFAULT_WINDOW_MS = 86_400_000;

/**
 * A pool's trades in the window, in order: the stored blocks and the ones still in
 * memory (the unsaved log, and the one written but not yet committed, which LMDB does
 * not show yet: pool.actor.ts), as three sorted streams merged lazily, so that a page
 * decodes only about the trades it returns.
 */
export function* poolTrades(repo: TradesRepo, pool: string, state: PoolState | undefined, w: TradeSpan): Generator<StoredTrade> {
  const streams: Array<Iterator<StoredTrade>> = [repo.read(pool, w)];
  if (state) streams.push(memoryTrades(state, w));
  yield* dedup(merge(streams, w.order === 'asc', self), self);
}

/** A pool's trades in memory only (the unsaved log, and the batch being written), in the window's order. */
export function* memoryTrades(state: PoolState, w: TradeSpan): Generator<StoredTrade> {
  if (state.writing) yield* merge([windowed(state.unsaved, w), windowed(state.writing, w)], w.order === 'asc', self);
  else yield* windowed(state.unsaved, w);
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
