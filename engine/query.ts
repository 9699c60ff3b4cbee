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

export interface Query {
  /** Pools, tokens and trades (absent in transport-only tests). */
  market?: import('./market/market-query.ts').MarketQuery;
  /** Token search and the pool list (absent in transport-only tests). */
  research?: import('./market/research-feed.ts').ResearchFeed;
  /** Wallet accounting: performance, positions, daily PnL, top traders, leaderboard (absent when off). */
  wallets?: import('./query/wallets.ts').WalletsQuery;
  status(): EngineStatus;
  /** Latest wSOL price, or null before any quote_price event. */
  solPrice(): SolPrice | null;
}
