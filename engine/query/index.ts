/**
 * The read facade (engine/query): what the HTTP routes and a candles subscription's
 * resume read, one file per route group (pools, tokens, trades, candles, search) over
 * the actors' state (state.ts) and the stores. The transport imports this file only.
 */

/** The Query port the transport reads through, with the engine's status and the SOL price. */
export type { DiscoveryReads, EngineStatus, MarketReads, Query, SolPrice } from './query.ts';
/** The actor state every route group reads, and what it needs of the actor hosts. */
export { MarketState, type ActorReader, type MarketStateOptions, type PoolRank } from './state.ts';
/** GET /pools/{pool}, GET /pools/metrics and a GET /pools item. */
export { PoolsQuery, type PoolItem, type PoolsQueryOptions } from './pools.ts';
/** GET /tokens/{token}, GET /tokens and GET /tokens/{token}/pools. */
export { TokensQuery, type TokensQueryOptions } from './tokens.ts';
/** The pool, token and wallet trade lists, a page at a time. */
export { TradePage, TradesQuery, type TradeListOptions, type TradesQueryOptions } from './trades.ts';
/** Trade lists' default window and history, and the pools a wallet traded in lately (its trades still in memory). */
export { RecentWalletPools, TRADE_DEFAULT_WINDOW_MS, TRADE_HISTORY_MS } from './trade-streams.ts';
/** Wallet accounting: performance, positions, daily PnL, top traders, leaderboard. */
export { RECENT_TRADES, WalletsQuery, type WalletHosts, type WalletsQueryOptions, type LeaderboardFilters, type LeaderboardSort, type PerformanceWindow, type RankPosition, type TradersSort } from './wallets.ts';
/** GET /pools/{pool}/candles and a candles subscription's resume. */
export { CandlesQuery, type CandleResumeRequest, type CandlesQueryOptions, type CandlesRequest, type ChangedCandles } from './candles.ts';
/** The token search and pool list read models (GET /tokens/search, GET /pools). */
export { ResearchFeed, type PoolListRequest, type ResearchFeedOptions, type ResearchPage, type TokenSearchRequest } from './search.ts';
/** A token search item (SERVICE.md 2.2). */
export type { SearchItem } from './search-item.ts';
/** The quote prices a research page was ordered at ([wSOL, USDC, USDT]). */
export type { QuotePrices } from './search-feed.ts';
/** The search parameters and a search page's position. */
export type { SearchMatch, SearchOrder, SearchPosition, SearchSort } from './search-index.ts';
/** A pool list's sort and page position. */
export type { PoolPosition, PoolSort } from './pool-directory.ts';
/** GET /tokens/{token}/holders/stats, /holders, /bonding_curve and GET /wallets/{wallet}/deployed_tokens. */
export { HoldersQuery, type HolderListOptions, type HoldersQueryOptions } from './holders.ts';
export type { CreatorPosition } from './creator-index.ts';
/** GET /tokens/rankings/{feed} and the ranking entries of the rankings stream. */
export { RankingsQuery, type RankingEntry, type RankingsPage, type RankingsQueryOptions } from './rankings.ts';
/** The read facade built in one place (the composition root hands over the parts). */
export { createQuery, type QueryOptions } from './create.ts';
/** Route 18 and the social_posts stream: tracked posts, stored by post_id and indexed by time. */
export { PostsStore, postJson, type PostFilters, type PostItem, type PostPosition } from './posts.ts';
/** Route 19: the labeled wallets' index (and "is this trader labeled" for every trade). */
export { LabeledWallets, type LabelChange, type LabeledWalletItem } from './labeled-wallets.ts';
/** Route 21 and the wallet_activity stream: labeled trades by time, and the caller's own wallets. */
export { LabeledActivity, labeledItem, type ActivityFilters, type ActivityPosition, type LabeledTrade, type LabeledTradeItem } from './activity.ts';
/** GET /tokens/signals and GET /wallets/signals over the signals store. */
export { BOT_LABELS, SIGNAL_WINDOWS_MS, SignalsQuery, walletSignalFilter, type SignalWindow, type WalletSignalFilters } from './signals.ts';
