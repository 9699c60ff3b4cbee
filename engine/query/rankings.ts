import { bookOf, feedKey, tokenObject, type FeedMarket, type FeedName, type FeedState, type PoolState, type RankRow, type RankingWindow } from '../../actors/index.ts';
import type { PoolsQuery } from './pools.ts';
import type { ActorReader, MarketState } from './state.ts';
import { poolObject } from './views.ts';

export interface RankingsQueryOptions {
  state: MarketState;
  pools: PoolsQuery;
  /** The feed actors (`feed:<feed>:<window>`). */
  feeds: ActorReader<FeedState>;
}

/** A ranking entry (SERVICE.md 2.11). */
export interface RankingEntry {
  pool_address: string;
  rank: number;
  score: number;
  entered_at: number;
  /** The token object of SERVICE.md 2.11 and `migrated`, as GET /pools/{pool} has it. */
  token: (ReturnType<typeof tokenObject> & { migrated: boolean }) | null;
  /** The pool object of SERVICE.md 2.11, with its address (as the other routes have it). */
  pool: ReturnType<typeof poolObject> | null;
  snapshot: unknown;
  totals: unknown;
  windowed: unknown;
}

/** One page of route 16: the entries, and the rank to go on after (null: the last page). */
export interface RankingsPage {
  items: RankingEntry[];
  /** The feed's rows as of the last recompute: the seq of the last window batch they include. */
  seq: number;
  next: { rank: number } | null;
}

/**
 * GET /tokens/rankings/{feed} (route 16) and the ranking entries of the `rankings`
 * stream: a feed's rows as of its last recompute (SERVICE.md 6.2: "Values are as of
 * the recompute"; the books live in the feed actors, actors/feed/feed.actor.ts), each
 * row's entry built from the pool's and its token's views as they are when it is read.
 */
export class RankingsQuery implements FeedMarket {
  private readonly state: MarketState;
  private readonly pools: PoolsQuery;
  private readonly feeds: ActorReader<FeedState>;

  constructor(options: RankingsQueryOptions) {
    this.state = options.state;
    this.pools = options.pools;
    this.feeds = options.feeds;
  }

  /** What a feed's recompute reads (actors/feed FeedMarket): a declared pool's state, a quote's latest USD price. */
  pool(address: string): PoolState | undefined {
    return this.state.peekPool(address);
  }

  resident(address: string): boolean {
    return this.state.poolResident(address);
  }

  quoteUsd(quote: string): number | null {
    return this.state.quoteUsd(quote);
  }

  quoteUsdWith(quote: string, mintUsd: (mint: string) => number | null): number | null {
    return this.state.quoteUsdWith(quote, mintUsd);
  }

  /** The rows of (feed, window) as last published, best first, and the seq of the last batch they include. */
  rows(feed: FeedName, window: RankingWindow): { rows: readonly RankRow[]; seq: number } {
    const book = bookOf(this.feeds.get(feedKey(feed, window)));
    return book ? { rows: book.snapshot(), seq: book.lastSeq } : { rows: [], seq: 0 };
  }

  /** The ranking entry of a row (SERVICE.md 2.11). */
  entry(row: RankRow): RankingEntry {
    const s = this.state.pool(row.pool_address);
    const metrics = this.pools.poolMetrics(row.pool_address);
    const base = s ? this.state.token(s.info!.base_address) : undefined;
    return {
      pool_address: row.pool_address,
      rank: row.rank,
      score: row.score,
      entered_at: row.entered_at,
      token: base ? { ...tokenObject(base), migrated: base.migrated } : null,
      pool: s ? poolObject(s) : null,
      snapshot: metrics?.snapshot ?? null,
      totals: metrics?.totals ?? null,
      windowed: metrics?.windowed ?? null,
    };
  }

  /** Route 16: a page of `limit` entries after rank `afterRank` (0: from the first). */
  rankings(feed: FeedName, window: RankingWindow, limit: number, afterRank = 0): RankingsPage {
    const { rows, seq } = this.rows(feed, window);
    const slice = rows.slice(afterRank, afterRank + limit);
    const end = afterRank + slice.length;
    return { items: slice.map((row) => this.entry(row)), seq, next: end < rows.length ? { rank: end } : null };
  }
}
