import { KNOWN_MINTS, SEARCH_WINDOWS, USDC, USDT, WSOL } from '../model/index.ts';
import type { Logger } from 'pino';
import { liquidityQuote, metadataRecord, spotPrice, type TokenState } from '../../actors/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { IngestEvent } from '../ingest/index.ts';
import { AddressRows } from './columns.ts';
import { CreatorIndex } from './creator-index.ts';
import { ResearchStore, type PoolRecord, type TokenRecord } from './research-store.ts';
import type { SearchPosition, SearchQuery } from './search-index.ts';
import type { MarketState } from './state.ts';
import type { PoolItem, PoolsQuery } from './pools.ts';
import { PoolDirectory, type PoolListQuery, type PoolPosition } from './pool-directory.ts';
import type { Tick, Ticker } from '../topics/index.ts';
import { tokenTotals, tradedPools } from './views.ts';
import { TokenSearchFeed, priceIn, windowEpochs, type QuotePrices } from './search-feed.ts';
import { searchItem, volumeUsd, type SearchItem } from './search-item.ts';

/**
 * The read models of the research routes, GET /v1/tokens/search and GET /v1/pools,
 * fed from the engine's applied events.
 *
 * Flow: `onEvent` (every applied event, start-up replay included) marks the pools
 * and tokens an event touches as dirty: a few Set insertions per event, nothing else
 * on the ingest path. `refresh` recomputes dirty records from actor state: on the
 * engine's ticker (engine/topics/ticker.ts), a bounded slice of time per tick, and
 * fully before every query and every checkpoint. A record is a function of the actors' state only (see
 * research-store.ts), so when and in what order records are refreshed never shows in
 * an answer: the same events give the same responses byte for byte.
 *
 * What touches what: a swap its pool and the pool's tokens (base, and quote when the
 * quote is a token); a pool event the same; a token event the token; a migration the
 * token and both pools; a wSOL/USDC/USDT price the tokens whose main pool depends on
 * it (multi_quote); whatever touches a token also touches the tokens with a pool
 * quoted in it (their USD values go through its price). The main pool is
 * `MarketState.tokenPools(token)[0]` (state.ts), the most liquid in USD.
 */

export interface ResearchFeedOptions {
  /** The actors' state: records are read from it. */
  state: MarketState;
  /** A pool list item and a search item's snapshot are the pool routes' (PoolsQuery). */
  pools: PoolsQuery;
  /** Where the records persist (the `research` database, written at checkpoints). */
  storage: Storage;
  log: Logger;
}

export interface TokenSearchRequest extends SearchQuery {
  /** Prices USD sorts are keyed at: the cursor's; the current ones when absent. */
  prices?: QuotePrices;
}

export interface PoolListRequest extends PoolListQuery {
  /** Prices liquidity_usd is keyed at: the cursor's; the current ones when absent. */
  prices?: QuotePrices;
}

export interface ResearchPage<T, P> {
  items: T[];
  next: P | null;
  /** The prices this page was ordered with; the next page's cursor carries them. */
  prices: QuotePrices;
}

/**
 * How often the engine's ticker refreshes dirty records (on the engine clock), and the
 * time it may take per tick: one slice no longer than the live flush's and the
 * checkpoint's (one slice of 20 ms a second held every stream frame behind it); what
 * is left waits for the next tick, a query or the checkpoint. A tick refreshes only
 * when REFRESH_INTERVAL_MS of wall time have passed since the last did too: a replay
 * under the event clock ticks every 250 ms of event time, hundreds of times a wall
 * second, and refreshed the records it touches again at each (an hour of the
 * simulator replayed 2.3 times slower). When records are refreshed never shows in an
 * answer (see the file comment).
 */
const REFRESH_INTERVAL_MS = 250;
const REFRESH_SLICE_MS = 5;

export class ResearchFeed {
  /** Token and quote addresses, one row each for both tables (columns.ts). */
  private readonly mints = new AddressRows();
  readonly pools = new PoolDirectory(this.mints);
  readonly tokens = new TokenSearchFeed(this.mints, (pool) => this.pools.canonical(pool));
  /** Tokens by creator (GET /v1/wallets/{wallet}/deployed_tokens), in LMDB. */
  readonly creators: CreatorIndex;
  private readonly store: ResearchStore;
  /** Pool → the tokens whose records depend on it (base; quote when a token). */
  private readonly poolTokens = new Map<string, string[]>();
  private readonly dirtyPools = new Set<string>();
  private readonly dirtyTokens = new Set<string>();
  /** Refreshed since the last checkpoint wrote them. */
  private readonly unsavedPools = new Set<string>();
  private readonly unsavedTokens = new Set<string>();
  private readonly multiQuote = new Set<string>();
  /**
   * Token → the tokens with a pool quoted in it: their main pool and USD values follow
   * its price (actors/pool/usd-price.ts), so whatever touches it touches them.
   */
  private readonly quotedIn = new Map<string, string[]>();
  private tick: Tick | null = null;
  /** When (performance.now()) a tick last refreshed. */
  private refreshedAt = -Infinity;

  constructor(private readonly deps: ResearchFeedOptions) {
    this.store = new ResearchStore(deps.storage, deps.log);
    // The index reads tokens in the background (peekToken): it keeps none resident.
    this.creators = new CreatorIndex(deps.storage, (token) => creatorOf(deps.state.peekToken(token)), deps.log);
    this.load();
  }

  /** Records of the last checkpoint; in a data directory older than them, every actor marked dirty once. */
  private load(): void {
    const started = performance.now();
    const pools = [...this.store.pools()];
    this.pools.load(pools);
    for (const p of pools) this.linkPool(p.pool_address, p.base_address, p.quote_address);
    const rebuild = this.store.needsRebuild();
    // Token records of an older shape are not loaded: every token is rebuilt below.
    if (!rebuild) {
      for (const t of this.store.tokens()) {
        this.tokens.put(t);
        if (t.multi_quote) this.multiQuote.add(t.token_address);
      }
    }
    if (rebuild) {
      for (const pool of this.store.snapshotKeys('pool')) this.dirtyPools.add(pool);
      for (const token of this.store.snapshotKeys('token')) this.dirtyTokens.add(token);
      this.deps.log.warn({ pools: this.dirtyPools.size, tokens: this.dirtyTokens.size }, 'no research records yet: rebuilding them from the actors');
    }
    const ms = Math.round(performance.now() - started);
    if (this.pools.size || this.tokens.size) this.deps.log.info({ pools: this.pools.size, tokens: this.tokens.size, ms }, 'research records loaded');
  }

  private linkPool(pool: string, base: string, quote: string): void {
    if (this.poolTokens.has(pool)) return;
    this.poolTokens.set(pool, quote in KNOWN_MINTS ? [base] : [base, quote]);
    if (quote in KNOWN_MINTS) return;
    const quoted = this.quotedIn.get(quote);
    if (!quoted) this.quotedIn.set(quote, [base]);
    else if (!quoted.includes(base)) quoted.push(base);
  }

  /** Marks what an applied event touched; see the file comment. Cheap: it runs on the ingest path. */
  onEvent(e: IngestEvent): void {
    switch (e.type) {
      case 'swap':
        // Its tokens too, even when the pool is dirty already: a token's record may have
        // been refreshed while one of its pools stayed dirty (poolPassivating, tokenPassivating).
        this.touchPool(e.pool_address);
        break;
      case 'pool':
        this.linkPool(e.pool_address, e.base_address, e.quote_address);
        this.touchPool(e.pool_address);
        break;
      case 'token':
        this.dirtyTokens.add(e.token_address);
        if (e.creator_address !== undefined) this.creators.touch(e.token_address);
        break;
      case 'migration':
        this.dirtyTokens.add(e.token_address);
        this.touchPool(e.from_pool_address);
        this.touchPool(e.to_pool_address);
        break;
      case 'quote_price':
        if (e.quote_address in KNOWN_MINTS) for (const token of this.multiQuote) this.dirtyTokens.add(token);
        break;
      default:
        break;
    }
  }

  private touchPool(pool: string): void {
    this.dirtyPools.add(pool);
    const tokens = this.poolTokens.get(pool);
    if (!tokens) return;
    for (const token of tokens) {
      this.dirtyTokens.add(token);
      // One level: a token's USD price follows at most one token quote (TOKEN_QUOTE_HOPS).
      const quoted = this.quotedIn.get(token);
      if (quoted) for (const other of quoted) this.dirtyTokens.add(other);
    }
  }

  /** Refreshes on the engine's ticker (after the start-up replay): a slice of REFRESH_SLICE_MS at most per tick. */
  start(ticker: Ticker): void {
    // A read that fails here fails again before the next query, which answers 5000; the ticker logs it.
    this.tick ??= ticker.every('research', REFRESH_INTERVAL_MS, () => {
      const now = performance.now();
      if (now - this.refreshedAt < REFRESH_INTERVAL_MS) return;
      this.refreshedAt = now;
      this.refresh(now + REFRESH_SLICE_MS);
    });
  }

  /** No more ticks: only queries and checkpoints refresh from now on. */
  stop(): void {
    this.tick?.stop();
    this.tick = null;
  }

  /** Dirty records still waiting for a refresh (tests, metrics). */
  get pending(): number {
    return this.dirtyPools.size + this.dirtyTokens.size;
  }

  /** Recomputes dirty records until done or past `deadline` (performance.now()); true when none is left. */
  refresh(deadline = Infinity): boolean {
    return this.refreshPools(deadline) && this.refreshTokens(deadline) && this.creators.refresh(deadline);
  }

  private refreshPools(deadline = Infinity): boolean {
    // Deleting the visited entry while iterating a Set is safe.
    for (const pool of this.dirtyPools) {
      if (deadline !== Infinity && performance.now() > deadline) return false;
      this.dirtyPools.delete(pool);
      this.refreshPool(pool);
    }
    return true;
  }

  private refreshPool(pool: string): void {
    const record = this.poolRecord(pool);
    if (!record) return;
    this.pools.upsert(record);
    this.linkPool(pool, record.base_address, record.quote_address);
    this.unsavedPools.add(pool);
  }

  private refreshTokens(deadline = Infinity): boolean {
    for (const token of this.dirtyTokens) {
      if (deadline !== Infinity && performance.now() > deadline) return false;
      this.dirtyTokens.delete(token);
      this.refreshToken(token);
    }
    return true;
  }

  private refreshToken(token: string): void {
    const record = this.tokenRecord(token);
    if (record) this.putToken(record);
  }

  /**
   * A pool is being passivated, its state still resident (the engine's pool host calls
   * it, ActorHost.beforePassivate): its record and its tokens' are refreshed now if they
   * are dirty, from the states in memory. Refreshed later (a tick, a checkpoint, the
   * stop), they would read the pool back from its snapshot, unpacked whole (ActorHost.peek):
   * a replay faster than the refresh's slices left most of its pools dirty and passivated
   * for the stop to read, ~0.1 ms each (bench/README.md, market). A throw leaves them
   * dirty, for the next refresh to report; the passivation goes on.
   */
  poolPassivating(pool: string): void {
    try {
      // Marked clean once refreshed: a throw leaves it dirty.
      if (this.dirtyPools.has(pool)) {
        this.refreshPool(pool);
        this.dirtyPools.delete(pool);
      }
      for (const token of this.poolTokens.get(pool) ?? []) this.refreshTokenIfDirty(token);
    } catch (err) {
      this.deps.log.warn({ err, pool }, 'research records not refreshed as the pool passivates; the next refresh reads it again');
    }
  }

  /** A token actor is being passivated, its state still resident: its record and its creator index entry, if dirty, are refreshed now (poolPassivating). */
  tokenPassivating(token: string): void {
    try {
      this.refreshTokenIfDirty(token);
      this.creators.passivating(token);
    } catch (err) {
      this.deps.log.warn({ err, token }, 'research records not refreshed as the token passivates; the next refresh reads it again');
    }
  }

  /** A dirty token's record refreshed now, marked clean once done (a throw leaves it dirty). */
  private refreshTokenIfDirty(token: string): void {
    if (!this.dirtyTokens.has(token)) return;
    this.refreshToken(token);
    this.dirtyTokens.delete(token);
  }

  private putToken(record: TokenRecord): void {
    this.tokens.put(record);
    this.unsavedTokens.add(record.token_address);
    if (record.multi_quote) this.multiQuote.add(record.token_address);
    else this.multiQuote.delete(record.token_address);
  }

  /**
   * Refreshes everything dirty and queues the changed records, until done or past
   * `deadline` (performance.now()); true when everything is written. The engine's
   * checkpoint calls it in the turn of its seq, or in slices before it: a record is a
   * function of actor state, so a record newer than the checkpoint's seq is refreshed
   * again by the replay after that seq (every change since is an event of the log).
   */
  persist(deadline = Infinity): boolean {
    try {
      if (!this.refresh(deadline)) return false;
    } catch (err) {
      // The stored records would no longer match the checkpoint: the next start
      // rebuilds them from the actors instead, and the checkpoint goes on.
      this.deps.log.error({ err }, 'research records not refreshed at the checkpoint; the next start rebuilds them');
      this.store.invalidate();
      this.unsavedPools.clear();
      this.unsavedTokens.clear();
      return true;
    }
    if (!this.writeUnsaved(this.unsavedPools, (p) => this.store.writePool(this.pools.get(p)!), deadline)) return false;
    if (!this.writeUnsaved(this.unsavedTokens, (t) => this.store.writeToken(this.tokens.get(t)!), deadline)) return false;
    this.store.markCurrent();
    return true;
  }

  private writeUnsaved(unsaved: Set<string>, write: (key: string) => void, deadline: number): boolean {
    let i = 0;
    for (const key of unsaved) {
      if (deadline !== Infinity && (++i & 63) === 0 && performance.now() > deadline) return false;
      unsaved.delete(key);
      write(key);
    }
    return true;
  }

  private poolRecord(pool: string): PoolRecord | null {
    // A read in the background: it does not keep the pool resident (MarketState.peekPool).
    const s = this.deps.state.peekPool(pool);
    const info = s?.info;
    if (!s || !info) return null;
    return {
      pool_address: pool,
      base_address: info.base_address,
      quote_address: info.quote_address,
      created_at: info.created_at,
      liquidity_quote: liquidityQuote(s),
      volume_usd: s.totals.volume_usd ?? 0,
    };
  }

  /**
   * A token's record read from its actors now; null for a token without a pool. Reads
   * the main pool's state directly (the arithmetic of views.ts snapshotOf) and leaves
   * the window volumes unread (-1): reading a pool's windows is most of the cost of a
   * refresh, and only a search by window volume needs them (`windowRecord`).
   */
  private tokenRecord(token: string): TokenRecord | null {
    const market = this.deps.state;
    // Reads in the background: they keep neither the token nor its pools resident (ActorHost.peek).
    const state = market.peekToken(token);
    if (!state || state.pools.length === 0) return null;
    // One pool (most tokens) is its own main pool: no need to rank.
    const only = state.pools.length === 1 ? market.peekPool(state.pools[0]!) : undefined;
    const pools = state.pools.length === 1 ? (only ? [only] : []) : market.peekTokenPools(token);
    const main = pools[0];
    if (!main) return null;
    const info = main.info!;
    const meta = metadataRecord(state);
    let multiQuote = !(info.quote_address in KNOWN_MINTS);
    for (const p of pools) {
      if (p.info!.base_address === token && p.info!.quote_address !== info.quote_address) multiQuote = true;
    }
    const totals = tokenTotals(tradedPools(token, pools), info.quote_address);
    const via = market.peekQuoteUsdVia(info.quote_address);
    const own = market.peekQuoteUsdVia(token);
    return {
      token_address: token,
      name: meta.name,
      symbol: meta.symbol,
      pool_address: main.pool_address,
      quote_address: info.quote_address,
      created_at: info.created_at,
      market_cap_quote: spotPrice(main) * (main.supply ?? 0),
      liquidity_quote: liquidityQuote(main),
      usd_mint: via === null ? '' : via[0],
      usd_factor: via === null ? 0 : via[1],
      own_usd_mint: own === null ? '' : own[0],
      own_usd_factor: own === null ? 0 : own[1],
      volume_usd: volumeUsd(totals.trade_count, totals.volume_usd),
      trader_count: totals.trader_count,
      window_usd: [-1, -1, -1, -1],
      window_epoch: [NaN, NaN, NaN, NaN],
      multi_quote: multiQuote,
    };
  }

  /** The record with its pools' USD volume per window (tradedPools) read now. */
  private windowRecord(record: TokenRecord): TokenRecord | null {
    const main = this.deps.state.pool(record.pool_address);
    if (!main) return null;
    const now = this.deps.state.clock.now();
    const windowUsd: TokenRecord['window_usd'] = [0, 0, 0, 0];
    // Per window: trades, and whether one had a USD value (windowFigures' rule for null).
    const trades = [0, 0, 0, 0];
    const priced = [false, false, false, false];
    for (const p of tradedPools(record.token_address, this.deps.state.tokenPools(record.token_address))) {
      const windowed = p.windows.read(now);
      SEARCH_WINDOWS.forEach((w, k) => {
        const i = windowed.t.indexOf(w);
        if (i < 0) return;
        const usd = windowed.v[i]![1];
        if (usd !== null) {
          windowUsd[k] += usd;
          priced[k] = true;
        }
        trades[k] += windowed.tc[i]!;
      });
    }
    for (let k = 0; k < 4; k++) if (trades[k]! > 0 && !priced[k]) windowUsd[k] = NaN;
    return { ...record, window_usd: windowUsd, window_epoch: windowEpochs(now) };
  }

  /** Latest USD prices of wSOL, USDC and USDT (the stablecoins 1 until a quote_price says otherwise). */
  currentPrices(): QuotePrices {
    const { state } = this.deps;
    return [state.mintUsd(WSOL), state.mintUsd(USDC), state.mintUsd(USDT)];
  }

  /**
   * A token's USD price as a quote, at `prices`, from its record (own_usd_mint and
   * own_usd_factor: what MarketState.quoteUsd gives for it, the snapshots' price); null
   * when unknown.
   */
  private tokenUsd(token: string, prices: QuotePrices): number | null {
    return this.tokens.ownUsd(token, prices);
  }

  /** GET /v1/tokens/search: one page of SERVICE.md 2.2 items. */
  searchTokens(req: TokenSearchRequest): ResearchPage<SearchItem, SearchPosition> {
    this.refresh();
    const prices = req.prices ?? this.currentPrices();
    if (req.sort === 'market_cap_usd' || req.sort === 'liquidity_usd') this.tokens.syncUsd(prices);
    if (req.sort === 'volume_usd' && req.window !== undefined) {
      const epoch = windowEpochs(this.deps.state.clock.now())[SEARCH_WINDOWS.indexOf(req.window)]!;
      // Not marked unsaved: a stored record keeps the bucket its values were read in,
      // so after a restart a stale or missing one is simply read again.
      this.tokens.syncWindow(req.window, epoch, (current) => this.windowRecord(current));
    }
    const page = this.tokens.search({ q: req.q, match: req.match, sort: req.sort, order: req.order, window: req.window, limit: req.limit, after: req.after });
    const items = page.ids.map((id) => searchItem(this.deps.state, this.deps.pools, id, req.window)).filter((x): x is SearchItem => x !== null);
    return { items, next: page.next, prices };
  }

  /** GET /v1/pools: one page of pools with their snapshot. */
  listPools(req: PoolListRequest): ResearchPage<PoolItem, PoolPosition> {
    // Tokens too: a pool quoted in a token is keyed at that token's record's price.
    this.refresh();
    const prices = req.prices ?? this.currentPrices();
    const page = this.pools.list(req, (quote) => priceIn(prices, quote) ?? this.tokenUsd(quote, prices));
    const { pools } = this.deps;
    const items = page.pools.map((p) => pools.poolListItem(p.pool_address)).filter((x): x is PoolItem => x !== null);
    return { items, next: page.next, prices };
  }
}

/** The token's creator and the time of the event that named it (creator-index.ts), or null. */
function creatorOf(state: Readonly<TokenState> | undefined): { creator: string; at: number } | null {
  const creator = state?.fields.creator_address;
  const version = state?.versions.creator_address;
  return typeof creator === 'string' && version ? { creator, at: version[1] } : null;
}
