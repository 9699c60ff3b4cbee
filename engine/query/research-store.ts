import type { Database } from 'lmdb';
import type { Logger } from 'pino';
import type { Storage } from '../../storage/index.ts';

/**
 * What the research indexes (token search, pool list) keep per token and per pool,
 * and where they persist it: one LMDB database, `research`, written in the same
 * transaction as the engine's checkpoint.
 *
 * Why persist rather than rebuild: at start-up the engine replays only the log after
 * its checkpoint, so tokens and pools that were quiet before it are never seen by
 * `onEvent`. Rebuilding them would mean decoding every actor snapshot (a pool's
 * carries its candles and windows: kilobytes) and activating every actor. These
 * records are ~150 bytes each and hold only numbers that follow from events (no
 * USD values at the current price, nothing that decays with time), so a record
 * written at a checkpoint is exactly what a refresh would compute until an event
 * after the checkpoint touches it again, and those are replayed.
 *
 * Keys: `p:<pool_address>`, `t:<token_address>`, and `version` (written with the
 * first checkpoint; its absence in a data directory that has snapshots means it was
 * made before these records existed, and everything is rebuilt from the actors once).
 */

/** A pool as GET /v1/pools orders and filters it. */
export interface PoolRecord {
  pool_address: string;
  base_address: string;
  quote_address: string;
  created_at: number;
  /** Liquidity in quote units (SERVICE.md 2.3), priced in USD at query time. */
  liquidity_quote: number;
  /** All-time volume in USD at each trade's price (0 when none had a USD price). */
  volume_usd: number;
}

/** A token as the search index orders it: its main pool's numbers. */
export interface TokenRecord {
  token_address: string;
  name: string | null;
  symbol: string | null;
  /** The main pool (the most liquid) and its quote asset. */
  pool_address: string;
  quote_address: string;
  /** The main pool's creation time. */
  created_at: number;
  market_cap_quote: number;
  liquidity_quote: number;
  /**
   * How the main pool's quote units convert to USD (actors/pool/usd-price.ts
   * quoteUsdVia): the known mint whose price applies ('' when none: unknown) and the
   * mint units one quote unit is worth (1 for a known-mint quote; the quote token's
   * main pool spot price for a token quote). USD values are this × the mint's price
   * at query time.
   */
  usd_mint: string;
  usd_factor: number;
  /**
   * The token's own USD price the same way, as a quote of other pools (quoteUsdVia of
   * the token: its main pool's spot price in a known mint): GET /v1/pools values a pool
   * quoted in this token with it. '' and 0 when it has none.
   */
  own_usd_mint: string;
  own_usd_factor: number;
  /**
   * All-time volume in USD of the pools where the token is the base; null when it
   * traded and none of its trades had a USD value.
   */
  volume_usd: number | null;
  /** Distinct traders over those pools. */
  trader_count: number;
  /**
   * Their USD volume over 5m, 1h, 6h, 24h (NaN when the window had trades and none had
   * a USD value), and the window bucket each was read in; -1 and NaN until a search by
   * that window reads them.
   */
  window_usd: [number, number, number, number];
  window_epoch: [number, number, number, number];
  /**
   * The token has base pools in two or more quote assets, or its main pool is quoted
   * in a token: which pool is the most liquid in USD, or which pool values its quote,
   * then depends on the quote prices, so a price change refreshes it.
   */
  multi_quote: boolean;
}

const VERSION_KEY = 'version';
/** 2: token records carry usd_mint, usd_factor, own_usd_mint, own_usd_factor, and a null volume_usd. */
const VERSION = 2;

/**
 * A record of each shape, with the key order `search.ts` builds them in. Their
 * shared structures are saved when the store opens: msgpackr saves a new structure in a
 * synchronous LMDB transaction, which waits for the write transaction in flight, and
 * the first checkpoint's first pool record waited up to 0.85 s that way behind the
 * commit of a million trades (lmdb-js `saveStructures`). A record of another key order
 * would still work, with that wait once; test/integration/research-replay.test.ts
 * checks a checkpoint adds no structure.
 */
export const POOL_SHAPE: PoolRecord = { pool_address: '', base_address: '', quote_address: '', created_at: 0, liquidity_quote: 0, volume_usd: 0 };
export const TOKEN_SHAPE: TokenRecord = {
  token_address: '', name: null, symbol: null, pool_address: '', quote_address: '', created_at: 0, market_cap_quote: 0,
  liquidity_quote: 0, usd_mint: '', usd_factor: 0, own_usd_mint: '', own_usd_factor: 0, volume_usd: 0, trader_count: 0, window_usd: [-1, -1, -1, -1], window_epoch: [NaN, NaN, NaN, NaN], multi_quote: false,
};

/** The `research` database: load at start, write changed records at a checkpoint. */
export class ResearchStore {
  private readonly db: Database<unknown, string>;
  /** Set once records were found out of step with a checkpoint: never written valid again by this process. */
  private invalid = false;

  constructor(private readonly storage: Storage, private readonly log: Logger) {
    // Record-shaped values: msgpackr shared structures keep them small (STYLE: codecs).
    this.db = storage.env.openDB<unknown, string>({ name: 'research', encoding: 'msgpack', sharedStructuresKey: Symbol.for('structures') });
    // Encoding saves a shape's structure (once per data directory); nothing is written otherwise.
    const encoder = (this.db as unknown as { encoder: { encode(value: unknown): Uint8Array } }).encoder;
    for (const shape of [POOL_SHAPE, TOKEN_SHAPE]) encoder.encode(shape);
  }

  pools(): Iterable<PoolRecord> {
    return this.values<PoolRecord>('p:');
  }

  tokens(): Iterable<TokenRecord> {
    return this.values<TokenRecord>('t:');
  }

  private *values<T>(prefix: string): Generator<T> {
    // ';' follows ':' in ASCII: the range is every key starting with the prefix.
    for (const { value } of this.db.getRange({ start: prefix, end: `${prefix.slice(0, -1)};` })) yield value as T;
  }

  /**
   * True when this data directory has actor snapshots but no research records of this
   * VERSION: made before they existed, or before their current shape. The caller then
   * rebuilds from the actors it lists.
   */
  needsRebuild(): boolean {
    if (this.db.get(VERSION_KEY) === VERSION) return false;
    for (const _ of this.storage.snapshots.getKeys({ start: 'token:', end: 'token;', limit: 1 })) return true;
    return false;
  }

  /** Keys (mints, pool addresses) of every token and pool actor with a snapshot. */
  *snapshotKeys(kind: 'token' | 'pool'): Generator<string> {
    for (const id of this.storage.snapshots.getKeys({ start: `${kind}:`, end: `${kind};` })) yield id.slice(kind.length + 1);
  }

  /** Forgets the version: the next start rebuilds every record from the actors. */
  invalidate(): void {
    this.invalid = true;
    this.db.remove(VERSION_KEY).catch(this.failed);
  }

  /** A failed commit rejects every put of it: logged, not thrown (the next checkpoint writes them again only if they change). */
  private readonly failed = (err: unknown): void => {
    this.log.error({ err }, 'a research record was not written');
  };

  /**
   * The commit promise last given a handler: lmdb-js hands every unconditional put of one
   * transaction the same promise, so one handler per transaction, not one per put (a
   * promise each, and one log line per record when a commit fails).
   */
  private caught: Promise<boolean> | null = null;

  private watch(write: Promise<boolean>): void {
    if (write === this.caught) return;
    this.caught = write;
    write.catch(this.failed);
  }

  /** Queues a put; it joins the transaction of the caller's event-loop turn. */
  writePool(record: PoolRecord): void {
    this.watch(this.db.put(`p:${record.pool_address}`, record));
  }

  writeToken(record: TokenRecord): void {
    this.watch(this.db.put(`t:${record.token_address}`, record));
  }

  /** Once a checkpoint's records are queued: marks the directory's records current (unless found out of step). */
  markCurrent(): void {
    if (!this.invalid && this.db.get(VERSION_KEY) !== VERSION) this.watch(this.db.put(VERSION_KEY, VERSION));
  }
}
