/** The entry point of actors/feed/: what other folders may import from it (STYLE.md 3). */
export { bookOf, createFeedBehavior, feedKey, flushLive, forgetUntraded, InputMemo, InputsReading, recompute, STOCK_TAGS_KEY, TRADED_KEY, windowInputs, windowInputSteps, type FeedBehaviorOptions, type FeedBookState, type FeedMarket, type FeedState, type TradedPool } from './feed.actor.ts';
export { batchEvents, snapshotEvent, type RankingEvent, type SnapshotEvent } from './feed.events.ts';
export { type FeedBatch, type FeedFlush, type RankRow } from './feed.logic.ts';
export type { RankInput } from './feed.rules.ts';
export { FEED_DEFAULTS, FEED_NAMES, FEED_SORT, LIVE_FEEDS, RANKING_WINDOWS, RECOMPUTE_MS, type FeedName, type RankingWindow } from './feed.rules.ts';
export { splitFeedSnapshots } from './feed.upgrade.ts';
