import { POOLS_PER_TURN } from './bounds.ts';
import type { CandlesRepo } from '../storage/index.ts';
import type { Storage } from '../storage/index.ts';
import type { TradesRepo } from '../storage/index.ts';
import { pruneWalletIndex } from '../storage/index.ts';
import { FOLDED_INTERVALS } from './model/index.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';

const DAY = 86_400_000;

export interface RetentionResult {
  pools: number;
  tradeBlocks: number;
  candles: number;
  /** Chunks of the wallet order (storage/wallet-index.ts). */
  walletChunks: number;
  /** Labeled trades (route 21: engine/query/activity.ts). */
  labeledTrades: number;
}

/**
 * Retention (ARCHITECTURE.md, "Storage"): trades older than `tradesDays` (30 by
 * default: SERVICE.md's history), labeled trades (route 21) as old; 1s and 15s candles
 * are folded from the trades (actors/pool/trade-candles.ts), so they go with them;
 * longer candle intervals are kept. Stored 1s and 15s segments, which data directories
 * written before the folding hold and nothing reads, are deleted. Ages are measured on the engine clock, so a
 * replay in event time prunes as of the events' time. A pass walks every pool with a
 * snapshot in slices of POOLS_PER_TURN, yielding between slices, then the wallet order
 * of trades (by wallet first: read whole, in slices too); deletes are async puts that
 * join the turn's transaction.
 */
export async function pruneOnce(
  deps: { storage: Storage; trades: TradesRepo; candles: CandlesRepo; clock: Clock; labeledTrades?: { prune(cutoff: number): number } },
  retention: Config['retention'],
): Promise<RetentionResult> {
  const now = deps.clock.now();
  const result: RetentionResult = { pools: 0, tradeBlocks: 0, candles: 0, walletChunks: 0, labeledTrades: 0 };
  let slice: string[] = [];
  const run = async (pools: string[]) => {
    for (const pool of pools) {
      result.tradeBlocks += deps.trades.prune(pool, now - retention.tradesDays * DAY);
      for (const interval of FOLDED_INTERVALS) result.candles += deps.candles.prune(pool, interval, Number.MAX_SAFE_INTEGER);
    }
    result.pools += pools.length;
    await new Promise((resolve) => setImmediate(resolve));
  };
  for (const key of deps.storage.snapshots.getKeys({ start: 'pool:', end: 'pool;' })) {
    slice.push((key as string).slice('pool:'.length));
    if (slice.length === POOLS_PER_TURN) {
      await run(slice);
      slice = [];
    }
  }
  if (slice.length > 0) await run(slice);
  result.walletChunks = await pruneWalletIndex(deps.storage, now - retention.tradesDays * DAY);
  result.labeledTrades = deps.labeledTrades?.prune(now - retention.tradesDays * DAY) ?? 0;
  // Writes commit in order: once this one has, every delete above has too.
  await deps.storage.meta.put('retention:last', now);
  return result;
}
