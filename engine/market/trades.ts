import type { PoolState } from '../../actors/pool/pool.logic.ts';
import type { TradeLog } from '../../actors/pool/trade-log.ts';
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

/** A pool's trades in the window, in order: the stored blocks and the ones still in memory. */
export function* poolTrades(repo: TradesRepo, pool: string, state: PoolState | undefined, w: TradeWindow): Generator<StoredTrade> {
  const asc = w.order === 'asc';
  const memory: StoredTrade[] = [];
  // Decoded from the pool's logs (bytes, actors/pool/trade-log.ts): only the trades in the window.
  const collect = (log: TradeLog) => {
    for (let i = 0; i < log.length; i++) {
      const at = log.atOf(i);
      if (at < w.minAt || at > w.maxAt) continue;
      if (w.after && (asc ? log.compareAt(i, w.after) <= 0 : log.compareAt(i, w.after) >= 0)) continue;
      memory.push(log.decode(i));
    }
  };
  if (state) collect(state.unsaved);
  // Written but not yet committed: LMDB does not show them yet (pool.actor.ts).
  if (state?.writing) {
    collect(state.writing);
    memory.sort(compareStored);
  }
  if (!asc) memory.reverse();
  const stored = repo.read(pool, { after: w.after, order: w.order, minAt: w.minAt, maxAt: w.maxAt });
  yield* dedup(merge([stored, memory[Symbol.iterator]()], asc, self));
}

/**
 * Drops a trade equal by position to the one before it: a batch that committed while
 * it was still listed as writing is in both the store and memory for a moment.
 */
function* dedup(trades: Iterable<StoredTrade>): Generator<StoredTrade> {
  let previous: StoredTrade | null = null;
  for (const t of trades) {
    if (previous !== null && compareKey(t, previous) === 0) continue;
    previous = t;
    yield t;
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
