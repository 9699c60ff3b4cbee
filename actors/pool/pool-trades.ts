import { merge, windowed, type TradesRepo } from '../../storage/index.ts';
import type { StoredTrade, TradeSpan } from '../../engine/model/index.ts';
import type { PoolState } from './pool.logic.ts';

/**
 * A pool's trades in a window, in order: the stored blocks and the ones still in
 * memory (the unsaved log, and the one written but not yet committed, which LMDB does
 * not show yet: pool.actor.ts), as sorted streams merged lazily, so that a reader
 * decodes only about the trades it takes. The trade lists (engine/query/trades.ts) and
 * the 1s and 15s candles (trade-candles.ts) read them here. Without a repo (tests),
 * memory only.
 */
export function* poolTrades(repo: TradesRepo | null, pool: string, state: PoolState | undefined, w: TradeSpan): Generator<StoredTrade> {
  const streams: Array<Iterator<StoredTrade>> = [];
  if (repo) streams.push(repo.read(pool, w));
  if (state) streams.push(memoryTrades(state, w));
  // One source never lists a position twice (blocks do not overlap; a log holds a trade
  // once), so duplicates are only across sources: a batch that committed while still
  // listed as writing.
  if (streams.length === 1) yield* { [Symbol.iterator]: () => streams[0]! };
  else yield* merge(streams, w.order === 'asc', self, true);
}

/** A pool's trades in memory only (the unsaved log, and the batch being written), in the window's order. */
export function* memoryTrades(state: PoolState, w: TradeSpan): Generator<StoredTrade> {
  if (state.writing) yield* merge([windowed(state.unsaved, w), windowed(state.writing, w)], w.order === 'asc', self);
  else yield* windowed(state.unsaved, w);
}

const self = (t: StoredTrade) => t;
