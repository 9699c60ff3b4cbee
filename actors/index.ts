/** The actor kinds the engine runs by default. */
export { quotePriceBehavior } from './quote-price/index.ts';
export { latestQuotePrice, quotePriceAt, type QuotePriceState } from './quote-price/index.ts';
export { createPoolBehavior, murmur3 } from './pool/index.ts';
export { createTokenBehavior, tokenBehavior } from './token/index.ts';
export type { PoolState } from './pool/index.ts';
export type { TokenState } from './token/index.ts';

/**
 * Read-only views of actor state for the read facade (engine/query) and the live
 * streams (engine/topics): pure functions of a state they are handed, never a change.
 */
export { DistinctCounter } from './pool/index.ts';
export { computeHeat } from './pool/index.ts';
export { curveGain5m, curveProgress, liquidityQuote, spotPrice, type PoolInfo, type PoolTotals } from './pool/index.ts';
export { knownMintUsd, poolValue, quoteUsdOf, quoteUsdVia, tokenUsdOf, type UsdReader } from './pool/index.ts';
export { candleAt, candleSeries, cutOf, graduationOf, type Graduation } from './pool/index.ts';
export { countCandleChanges, takeCandleChanges, type CandleTaking } from './pool/index.ts';
export { memoryTrades, poolTrades } from './pool/index.ts';
export { decimalsOf, heldByHolders, holderStats, metadataRecord, notHolders, rawSupplyOf, supplyOf, tokenName, tokenObject } from './token/index.ts';
export type { HolderPosition } from './token/index.ts';
export { DEFAULT_SNIPER_SLOTS, type Holding } from './token/index.ts';
export { activeLabels, type WalletLabelsState } from './labels/index.ts';
/** The ranking feeds (actors/feed): the feed actor kind, its ticker passes, the books' rows and the rankings events. */
export { bookOf, createFeedBehavior, feedKey, flushLive, forgetUntraded, InputMemo, InputsReading, recompute, STOCK_TAGS_KEY, TRADED_KEY, windowInputs, windowInputSteps, type FeedBehaviorOptions, type FeedBookState, type FeedMarket, type FeedState, type TradedPool } from './feed/index.ts';
export { splitFeedSnapshots } from './feed/index.ts';
export { FEED_DEFAULTS, FEED_NAMES, FEED_SORT, LIVE_FEEDS, RANKING_WINDOWS, RECOMPUTE_MS, type FeedName, type RankingWindow } from './feed/index.ts';
export type { FeedBatch, FeedFlush, RankInput, RankRow } from './feed/index.ts';
export { batchEvents, snapshotEvent, type RankingEvent, type SnapshotEvent } from './feed/index.ts';
/** Wallet accounting (actors/wallet): positions, their windows and days, and the rankings' rows (refreshed through ActorHost.update). */
export { DAY_MS, LV, avgCost, levelQuote, dailyRows, isOpen, rawOf, windowTotals, winRatePct, type Position, type WalletState } from './wallet/index.ts';
export {
  LB_FIELDS,
  LEADERBOARD_KEY,
  LEADERBOARD_WINDOWS,
  leaderboardStale,
  refreshLeaderboard,
  finishRefresh,
  type LeaderboardState,
  type LeaderboardWindow,
  type TokenTradersState,
} from './wallet/index.ts';
