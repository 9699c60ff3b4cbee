import { SEARCH_WINDOWS, WINDOWS, type SearchWindow } from '../../engine/model/index.ts';

/**
 * The ranking feeds of DECISIONS.md ("Rankings feeds", "Rankings", "Tokenized stocks"):
 * for each feed, which pools are members and the score they are ordered by, as pure
 * functions of one pool's inputs. Order: score descending, then pool address ascending
 * (so equal scores rank the same way on every run). Choices where the spec is open are
 * marked "choice" and repeated in docs/discovery.md.
 */

/** The feeds of route 16 and the `rankings` stream (SERVICE.md 4.4). */
export const FEED_NAMES = ['new_pair', 'popular', 'top_gainers', 'almost_bonded', 'migrated', 'stocks'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

/** The windows of a feed (DECISIONS.md route 16: 5m, 1h, 6h, 24h; default 1h). */
export const RANKING_WINDOWS = SEARCH_WINDOWS;
export type RankingWindow = SearchWindow;

/** Feeds that send `enter`/`exit` and `window` batches (SERVICE.md 3.4 and 6.2); the others send snapshots at a cadence. */
export const LIVE_FEEDS: ReadonlySet<FeedName> = new Set<FeedName>(['new_pair', 'almost_bonded', 'migrated']);

/** How often a feed of each window is recomputed and, if it changed, sent again as a snapshot (SERVICE.md 6.2 and 8). */
export const RECOMPUTE_MS: Readonly<Record<RankingWindow, number>> = { '5m': 60_000, '1h': 120_000, '6h': 300_000, '24h': 600_000 };

/** The field a feed is ordered by: the `sort` of its `window` batches. */
export const FEED_SORT: Readonly<Record<FeedName, string>> = {
  new_pair: 'created_at',
  popular: 'volume_usd_x_sqrt_traders',
  top_gainers: 'price_change_pct',
  almost_bonded: 'bonding_curve_progress_pct',
  migrated: 'migrated_at',
  stocks: 'volume_usd',
};

/** The numbers of the rankings, one table (config `rankings.*` when wired). */
export interface FeedSettings {
  /** Rows per (feed, window) (DECISIONS.md: depth 100). */
  depth: number;
  /** top_gainers: least liquidity in USD (DECISIONS.md `rankings.minLiquidityUsd`). */
  minLiquidityUsd: number;
  /** top_gainers: least trades in the window (DECISIONS.md: 10). */
  minTradeCount: number;
  /** almost_bonded: least curve progress, percent (DECISIONS.md: 70). */
  almostBondedPct: number;
  /** migrated: how long a graduated pool stays, in ms (DECISIONS.md: within 24 h, whatever the window). */
  migratedMaxAgeMs: number;
  /** Every this many batches of a (feed, window), a `window` batch also carries the full order (`pool_addresses`), so a client can check what it holds. */
  reconcileEvery: number;
}

export const FEED_DEFAULTS: Readonly<FeedSettings> = {
  depth: 100,
  minLiquidityUsd: 5_000,
  minTradeCount: 10,
  almostBondedPct: 70,
  migratedMaxAgeMs: 24 * 3_600_000,
  reconcileEvery: 64,
};

/**
 * What the feeds read of one pool, for one window (the wiring fills it from the pool
 * actor's state and its windowed metrics of that window; docs/discovery.md).
 */
export interface RankInput {
  pool_address: string;
  /** When the service first saw the pool (its `pool` event). */
  created_at: number;
  /** Set on a pool a bonding curve graduated into. */
  migrated_from_pool_address: string | null;
  /** When that graduation happened (the `migration` event's `at`); null otherwise. */
  migrated_at: number | null;
  /** Curve progress 0..100; null for pools without a curve. */
  bonding_curve_progress_pct: number | null;
  /** The curve is complete (graduated or full). */
  complete: boolean;
  /** The pool is the main pool of a token tagged `stock` (or listed in `market.stockMints`). */
  stock: boolean;
  /** Window values (SERVICE.md 2.5 of this window): USD volume (null: unknown), distinct traders, trades. */
  volume_usd: number | null;
  trader_count: number;
  trade_count: number;
  /** Price change in the window, percent: the USD change, the quote change where the USD one is null. */
  price_change_pct: number | null;
  liquidity_usd: number | null;
}

/** A pool's score in a feed of a window at `now`, or null when it is not a member. */
export type ScoreRule = (p: RankInput, window: RankingWindow, s: FeedSettings, now: number) => number | null;

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/**
 * The rules. new_pair (choice): pools created within the window, newest first, except
 * pools a curve graduated into (those are migrated's); without the window bound the
 * four windows would be one list. migrated: `migrated_at` within 24 h in every window
 * (DECISIONS.md). popular: volume_usd × sqrt(traders) above 0. top_gainers (choice:
 * gainers only, change above 0): liquidity and trade count at least the settings.
 * almost_bonded: progress at least 70 % and not complete, in every window. stocks: every
 * stock pool, by USD volume in the window (0 when none or unknown).
 */
export const SCORE_RULES: Readonly<Record<FeedName, ScoreRule>> = {
  new_pair: (p, window, _s, now) => (p.migrated_from_pool_address === null && p.created_at > now - WINDOWS[window] ? p.created_at : null),
  migrated: (p, _w, s, now) => (p.migrated_at !== null && p.migrated_at > now - s.migratedMaxAgeMs ? p.migrated_at : null),
  popular: (p) => {
    const score = (p.volume_usd ?? 0) * Math.sqrt(p.trader_count);
    return score > 0 ? finite(score) : null;
  },
  top_gainers: (p, _w, s) =>
    p.price_change_pct !== null && p.price_change_pct > 0 && p.liquidity_usd !== null && p.liquidity_usd >= s.minLiquidityUsd && p.trade_count >= s.minTradeCount
      ? finite(p.price_change_pct)
      : null,
  almost_bonded: (p, _w, s) =>
    p.bonding_curve_progress_pct !== null && !p.complete && p.bonding_curve_progress_pct >= s.almostBondedPct ? p.bonding_curve_progress_pct : null,
  stocks: (p) => (p.stock ? (finite(p.volume_usd ?? 0) ?? 0) : null),
};

/**
 * Feeds whose score is a time and whose members leave at an age: the oldest member is
 * the last, so the clock's tick removes them from the end of the order. The age in ms.
 */
export const AGE_LIMIT_MS: Readonly<Partial<Record<FeedName, (window: RankingWindow, s: FeedSettings) => number>>> = {
  new_pair: (window) => WINDOWS[window],
  migrated: (_w, s) => s.migratedMaxAgeMs,
};
