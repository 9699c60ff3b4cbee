import { memoryTrades, type PoolState } from '../../actors/index.ts';
import { TRADE, type StoredTrade, type TradeSpan } from '../model/index.ts';

/**
 * The streams trade lists are merged from (engine/query/trades.ts): a pool's stored
 * blocks and its trades still in memory, and which pools hold a wallet's trades in
 * memory only.
 */

/** Trade history served: the last 30 days (SERVICE.md 4.1). */
export const TRADE_HISTORY_MS = 30 * 86_400_000;
/** Without start_time, trade lists cover the last 24 hours (SERVICE.md 4.1). */
export const TRADE_DEFAULT_WINDOW_MS = 86_400_000;

/** Moved to actors/pool (the 1s and 15s candles read them too); named here for the trade lists. */
export { memoryTrades, poolTrades } from '../../actors/index.ts';

/**
 * At most `limit` items, and whether there are more. A source left with more is
 * returned (closed): its LMDB range iterators end their read transactions, which an
 * abandoned iterator holds for good (and with it every page freed since: the data file
 * grew ~5 GiB an hour under one client paging a pool's trades, bench/serve-memory.ts).
 */
export function take<T>(source: Iterator<T>, limit: number): { items: T[]; hasMore: boolean } {
  const items: T[] = [];
  for (;;) {
    const next = source.next();
    if (next.done) return { items, hasMore: false };
    if (items.length === limit) {
      source.return?.();
      return { items, hasMore: true };
    }
    items.push(next.value);
  }
}

/** Generations RecentWalletPools keeps (one a checkpoint). */
const GENERATIONS = 3;

/**
 * Which pools may hold a wallet's trades in memory only (a pool's unsaved log, or the
 * batch being written: pool.actor.ts), for GET /wallets/{wallet}/trades: the stored
 * ones are in the wallet index (storage/wallet-index.ts). Each trade notes its pool
 * under its wallet in the current generation; every checkpoint starts a new one and
 * drops the oldest of GENERATIONS. A trade leaves memory at the commit of its pool's
 * first write after it was applied: at the next checkpoint, or the one after when a
 * write was still in flight at that one. Per trade: a map lookup, and a set check for
 * a wallet in several pools (one pool, the common case, is kept as its address alone:
 * no set per wallet).
 */
export class RecentWalletPools {
  private generations: Array<Map<string, string | Set<string>>> = [new Map()];

  note(wallet: string, pool: string): void {
    const current = this.generations[0]!;
    const pools = current.get(wallet);
    if (pools === undefined) current.set(wallet, pool);
    else if (typeof pools !== 'string') pools.add(pool);
    else if (pools !== pool) current.set(wallet, new Set([pools, pool]));
  }

  /** A checkpoint starts. */
  rotate(): void {
    this.generations.unshift(new Map());
    if (this.generations.length > GENERATIONS) this.generations.pop();
  }

  pools(wallet: string): Set<string> {
    const out = new Set<string>();
    for (const g of this.generations) {
      const pools = g.get(wallet);
      if (typeof pools === 'string') out.add(pools);
      else if (pools) for (const p of pools) out.add(p);
    }
    return out;
  }
}

/** The wallet's trades among a pool's trades in memory (unsaved, and being written), in the window's order. */
export function* walletTradesInMemory(state: PoolState, wallet: string, w: TradeSpan): Generator<StoredTrade> {
  for (const t of memoryTrades(state, w)) if (t[TRADE.wallet] === wallet) yield t;
}
