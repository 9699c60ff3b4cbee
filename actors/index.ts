/** The actor kinds the engine runs by default. */
export { quotePriceBehavior } from './quote-price/quote-price.actor.ts';
export { latestQuotePrice, quotePriceAt, type QuotePriceState } from './quote-price/quote-price.logic.ts';
export { createPoolBehavior } from './pool/pool.actor.ts';
export { createTokenBehavior, tokenBehavior } from './token/token.actor.ts';
export type { PoolState } from './pool/pool.logic.ts';
export type { TokenState } from './token/token.logic.ts';

/**
 * Read-only views of actor state for the read facade (engine/query) and the live
 * streams (engine/topics): pure functions of a state they are handed, never a change.
 */
export { DistinctCounter } from './pool/distinct.ts';
export { computeHeat } from './pool/heat.ts';
export { curveGain5m, curveProgress, liquidityQuote, spotPrice, type PoolInfo, type PoolTotals } from './pool/pool.logic.ts';
export { knownMintUsd, poolValue, quoteUsdOf, quoteUsdVia, tokenUsdOf, type UsdReader } from './pool/usd-price.ts';
export { candleAt, candleSeries, cutOf, graduationOf, type Graduation } from './pool/candle-series.ts';
export { countCandleChanges, takeCandleChanges, type CandleTaking } from './pool/pool.actor.ts';
export { decimalsOf, heldByHolders, holderStats, metadataRecord, notHolders, rawSupplyOf, supplyOf, tokenName, tokenObject } from './token/token.logic.ts';
export type { HolderPosition } from './token/holder-order.ts';
export { DEFAULT_SNIPER_SLOTS, type Holding } from './token/holders.ts';
export { activeLabels, type WalletLabelsState } from './labels/labels.actor.ts';
/** The ranking feeds (actors/feed): the feed actor kind, its ticker passes, the books' rows and the rankings events. */
export { createFeedBehavior, flushLive, forgetUntraded, recompute, windowInputs, type FeedBehaviorOptions, type FeedMarket, type FeedState } from './feed/feed.actor.ts';
export { FEED_DEFAULTS, FEED_NAMES, FEED_SORT, LIVE_FEEDS, RANKING_WINDOWS, RECOMPUTE_MS, type FeedName, type RankingWindow } from './feed/feed.rules.ts';
export type { FeedBatch, FeedFlush, RankRow } from './feed/feed.logic.ts';
export { batchEvents, snapshotEvent, type RankingEvent, type SnapshotEvent } from './feed/feed.events.ts';
/** Wallet accounting (actors/wallet): positions, their windows and days, and the rankings' rows (refreshed through ActorHost.update). */
export { DAY_MS, avgCost, dailyRows, isOpen, rawOf, windowTotals, winRatePct, type Position, type WalletState } from './wallet/wallet.logic.ts';
export {
  LB_FIELDS,
  LEADERBOARD_KEY,
  LEADERBOARD_WINDOWS,
  leaderboardStale,
  refreshLeaderboard,
  type LeaderboardState,
  type LeaderboardWindow,
  type TokenTradersState,
} from './wallet/rankings.ts';
