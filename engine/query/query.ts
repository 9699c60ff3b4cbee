import type { CandlesQuery } from './candles.ts';
import type { PoolsQuery } from './pools.ts';
import type { ResearchFeed } from './search.ts';
import type { HoldersQuery } from './holders.ts';
import type { RankingsQuery } from './rankings.ts';
import type { TokensQuery } from './tokens.ts';
import type { TradesQuery } from './trades.ts';

/**
 * The read facade HTTP handlers use: current actor state and storage indexes,
 * never LMDB or actors directly. Later issues add their reads here.
 */
export interface EngineStatus {
  /** `starting` while the log is replayed, `ready` once serving current state. */
  status: 'starting' | 'ready' | 'stopping';
  /** Events applied (unique, valid) since the data directory was created. */
  ingested: number;
  /** Events on disk: every seq up to this one survives a crash (at most `ingested`). */
  durable: number;
  deadLetters: number;
  source: string;
  /** For a finite source: true once it is fully ingested; null for an endless one. */
  sourceDone: boolean | null;
  /** A live source's own state (connected, reconnects, last slot...), or null. */
  sourceState?: object | null;
}

export interface SolPrice {
  price_usd: number;
  /** Time of the quote_price event it comes from. */
  updated_at: number;
}

/** The reads of actor state and the trades store, one object per route group. */
export interface MarketReads {
  /** GET /pools/{pool}, GET /pools/metrics; a GET /pools item. */
  pools: PoolsQuery;
  /** GET /tokens/{token}, GET /tokens, GET /tokens/{token}/pools. */
  tokens: TokensQuery;
  /** The pool, token and wallet trade lists. */
  trades: TradesQuery;
  /** GET /pools/{pool}/candles and a candles subscription's resume. */
  candles: CandlesQuery;
}

/** The discovery and smart-money stores the engine writes as events apply. */
export interface DiscoveryReads {
  posts: import('./posts.ts').PostsStore;
  labeled: import('./labeled-wallets.ts').LabeledWallets;
  activity: import('./activity.ts').LabeledActivity;
}

export interface Query {
  /** Pools, tokens, trades and candles (absent in a server started without an engine: 503). */
  market?: MarketReads;
  /** Token search and the pool list (absent in a server started without an engine: 503). */
  research?: ResearchFeed;
  /** Wallet accounting: performance, positions, daily PnL, top traders, leaderboard (absent when off, or without an engine: 503). */
  wallets?: import('./wallets.ts').WalletsQuery;
  /** Holders, bonding curves and deployed tokens (absent in a server started without an engine: 503). */
  holders?: HoldersQuery;
  /** The ranking feeds, route 16 (absent in a server started without an engine: 503). */
  rankings?: RankingsQuery;
  /** Posts (route 18), labeled wallets (route 19) and labeled activity (route 21) (absent without an engine: 503). */
  discovery?: DiscoveryReads;
  /** Signals, routes 17 and 22 (absent when off, or without an engine: 503). */
  signals?: import('./signals.ts').SignalsQuery;
  status(): EngineStatus;
  /** Latest wSOL price, or null before any quote_price event. */
  solPrice(): SolPrice | null;
}
