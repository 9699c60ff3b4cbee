/**
 * The live streams (engine/topics): one file per stream (token-metadata.ts,
 * pool-trades.ts, token-trades.ts, pool-metrics.ts, candles.ts), the topic names
 * (names.ts), the sink the transport implements (sink.ts) and the publisher that
 * hands the actors' changes to the streams (publisher.ts). The transport imports this
 * file only.
 */

/** The port between the live streams and the transport, and the sink with no subscribers. */
export { NO_TOPICS, type TopicSink } from './sink.ts';
/** Every topic name, one builder per stream. */
export { topics } from './names.ts';
/** The prefix every candles frame starts with, and the frame itself. */
export { CANDLES_FRAME_PREFIX, candleFrame, type PoolStates } from './candles.ts';
/** How long candle changes are kept for a resume by seq. */
export { RESUME_HISTORY_MS, type CandleHistory } from './candle-history.ts';
/** The coordinator the engine hands applied changes to, and what it needs. */
export { MarketPublisher, type PublisherDeps } from './publisher.ts';
/** What pool_metrics frames are built with (engine/query PoolsQuery.poolMetrics). */
export type { PoolMetricsSource } from './pool-metrics.ts';
/** The live layer's one schedule on the engine clock (publisher flush, research refresh, ranking feeds). */
export { Ticker, type Tick, type TickPass, type TickSubscriber, type TickerOptions } from './ticker.ts';
/** The rankings stream and the feeds' ticks; the feed and window names a subscription may give. */
export { LIVE_FLUSH_MS, RankingStreams, type FeedActors, type RankingEntries, type RankingStreamsOptions, type RankingTicker } from './rankings.ts';
/** The chart_lines stream: its recompute tick, a subscription's first frame, its topic. */
export { CHART_LINES_MS, ChartLineStreams, chartLinesTopic, type ChartLinesParams, type ChartReads } from './chart-lines.ts';
export { FEED_NAMES, RANKING_WINDOWS, type FeedName, type RankingWindow } from '../../actors/index.ts';
/** Posts, labeled activity and markers on the live path (social_posts, wallet_activity, markers). */
export { DiscoveryStreams, type DiscoveryStreamsOptions } from './discovery.ts';
export { ATH_RULE, MarkerStreams, RECENT_MARKS, markersFrame, type MarkerStreamsOptions } from './markers.ts';
/** token_signals and wallet_signals: each signal serialized once, to every topic that may want it. */
export { MIN_WALLETS_MAX, publishSignal } from './signals.ts';
