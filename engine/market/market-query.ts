import { RESUME_CANDLES_MAX } from '../bounds.ts';
import { activeLabels, type WalletLabelsState } from '../../actors/labels/labels.actor.ts';
import { computeHeat } from '../../actors/pool/heat.ts';
import type { PoolInfo, PoolState } from '../../actors/pool/pool.logic.ts';
import { knownMintUsd, poolValue, quoteUsdOf, quoteUsdVia, type UsdReader } from '../../actors/pool/usd-price.ts';
import type { QuotePriceState } from '../../actors/quote-price/quote-price.logic.ts';
import { supplyOf, type TokenState } from '../../actors/token/token.logic.ts';
import { DEFAULT_SNIPER_SLOTS } from '../../actors/token/holders.ts';
import { CANDLE_INTERVALS, KNOWN_MINTS, TRADE, type Candle, type CandleCurrency, type CandleInterval, type CandleMode, type StoredTrade, type TradeKey, type TradeSpan } from '../model/index.ts';
import type { TradesRepo } from '../../storage/trades.repo.ts';
import type { Clock } from '../clock.ts';
import type { ActorHost } from '../supervisor/host.ts';
import type { CandleHistory } from './candle-history.ts';
import { candleAt, candleSeries, graduationOf, type Graduation } from './candle-series.ts';
import type { Storage } from '../../storage/lmdb.ts';
import { storedWalletTrades } from '../../storage/wallet-index.ts';
import { dedup, merge } from '../../storage/trade-codec.ts';
import { TRADE_DEFAULT_WINDOW_MS, TRADE_HISTORY_MS, poolTrades, take } from './trades.ts';
import { walletTradesInMemory, type RecentWalletPools } from './wallet-trades.ts';
import { poolObject, snapshotOf, tokenName, tokenObject, tokenTotals, totalsOf, tradedPools, tradeJson, tradeRecord } from './views.ts';

export interface TradeListOptions {
  startTime?: number;
  order: 'asc' | 'desc';
  limit: number;
  /** Position of the last trade of the previous page. */
  after?: TradeKey;
  /**
   * Pool trades: the side to describe trades from (default the base token). Wallet
   * trades: only pools holding this token, from its side.
   */
  token?: string;
}

/** What wallet trades are read from: the store (index, journal, blocks) and the pools' memory. */
export interface WalletTradeSources {
  storage: Storage;
  recent: RecentWalletPools;
}

/** What one trade record of a page is made from (views.ts tradeRecord / tradeJson). */
type TradeRow = [trade: StoredTrade, pool: PoolState, token: string, quoteSupply: number | null, labels: string[]];

/** A page of trade records: as objects (`items`, built on first use), or as JSON text for a response. */
export class TradePage {
  private records: Array<ReturnType<typeof tradeRecord>> | null = null;

  constructor(
    private readonly rows: TradeRow[],
    /** Position of the last item, when there are more. */
    readonly next: TradeKey | null,
  ) {}

  get items(): Array<ReturnType<typeof tradeRecord>> {
    return (this.records ??= this.rows.map((r) => tradeRecord(...r)));
  }

  /** JSON.stringify(items), written without the objects. */
  itemsJson(): string {
    let out = '[';
    const rows = this.rows;
    for (let i = 0; i < rows.length; i++) out += (i === 0 ? '' : ',') + tradeJson(...rows[i]!);
    return out + ']';
  }
}

export interface CandlesRequest {
  interval: CandleInterval;
  mode: CandleMode;
  currency: CandleCurrency;
  startTime?: number;
  endTime?: number;
  limit: number;
}

export interface CandleResumeRequest {
  pool_address: string;
  interval: CandleInterval;
  mode: CandleMode;
  currency: CandleCurrency;
  afterSeq?: number;
  afterTime?: number;
}


interface Hosts {
  /** Wallet labels for trade records; without it trades carry no labels. */
  labels?: ActorHost<WalletLabelsState>;
  pools: ActorHost<PoolState>;
  tokens: ActorHost<TokenState>;
  quotePrices: ActorHost<QuotePriceState>;
}

/** A pool of a token with its rank (tokenPools): where the token is the base first, then the most liquid in USD. */
interface RankedPool {
  p: PoolState;
  base: number;
  value: number;
}
const byRank = (a: RankedPool, b: RankedPool) => b.base - a.base || b.value - a.value || a.p.pool_address.localeCompare(b.p.pool_address);

/** Where a pool stands in a token's list (tokenPools' order): a page's cursor position. */
export interface PoolRank {
  /** 1: the token is the pool's base; 0: its quote. */
  base: number;
  /**
   * Liquidity in USD where the quote's USD price is known (a token quote at its own
   * USD price); else −1 / (1 + liquidity in quote units), below every known value
   * (actors/pool/usd-price.ts poolValue).
   */
  value: number;
  pool_address: string;
}

/**
 * Reads of pools, tokens and trades for the HTTP routes: actor state (activated from
 * snapshots when passivated) and the trades store.
 */
export class MarketQuery {
  constructor(
    private readonly hosts: Hosts,
    private readonly trades: TradesRepo,
    private readonly clock: Clock,
    private readonly history?: CandleHistory,
    /** The sniper window of the holder totals (config `market.sniperSlots`). */
    private readonly sniperSlots = DEFAULT_SNIPER_SLOTS,
    private readonly wallets?: WalletTradeSources,
  ) {}

  /** What valuing reads at the latest prices (actors/pool/usd-price.ts). */
  private readonly latest: UsdReader = {
    token: (address) => this.hosts.tokens.get(address) as TokenState | undefined,
    pool: (address) => this.poolState(address),
    mintUsd: (mint) => knownMintUsd(mint, this.hosts.quotePrices.get(mint) as QuotePriceState | undefined),
  };

  /**
   * Latest USD price of a pool's quote asset, or null: wSOL, USDC, USDT from
   * quote_price (USDC and USDT 1 until one), a token from its main pool
   * (actors/pool/usd-price.ts).
   */
  quoteUsd(quote: string): number | null {
    return quoteUsdOf(quote, this.latest);
  }

  /** The known mint a quote asset is valued through and its factor (usd-price.ts quoteUsdVia), as the pools stand now. */
  quoteUsdVia(quote: string): [mint: string, factor: number] | null {
    return quoteUsdVia(quote, this.latest);
  }

  /** A known mint's latest USD price (USDC and USDT 1 until a quote_price says otherwise), or null. */
  mintUsd(mint: string): number | null {
    return this.latest.mintUsd(mint);
  }

  private poolState(address: string): PoolState | undefined {
    const s = this.hosts.pools.get(address);
    return s?.info ? (s as PoolState) : undefined;
  }

  /** A declared pool's info (its tokens), without building any view; null if unknown. */
  poolInfo(address: string): PoolState['info'] {
    return this.poolState(address)?.info ?? null;
  }

  /** What the pool views share: the pool, its base token, its quote's latest USD price. */
  private poolParts(address: string) {
    const s = this.poolState(address);
    if (!s) return null;
    const info = s.info!;
    const base = this.hosts.tokens.get(info.base_address) as TokenState | undefined;
    const usd = this.quoteUsd(info.quote_address);
    const snapshot = snapshotOf(s, usd);
    // The token's other pools hold some of its supply (circulating_supply); their order does not matter.
    const pools = base && base.pools.length > 1 ? this.poolStates(base) : [s];
    return { s, info, base, usd, snapshot, totals: totalsOf(s, base, usd, { pools, now: this.clock.now(), sniperSlots: this.sniperSlots }), ...this.live(s, snapshot.liquidity_usd) };
  }

  /** Windowed metrics and heat as of the engine clock's now. */
  private live(s: PoolState, liquidityUsd: number | null) {
    const now = this.clock.now();
    const windowed = s.windows.read(now);
    const heat = computeHeat({ windowed, ageMs: now - s.info!.created_at, liquidityUsd });
    return { windowed, heat };
  }

  /** GET /pools/{pool}: pool, token, snapshot, totals, windowed, heat. */
  pool(address: string) {
    const p = this.poolParts(address);
    if (!p) return null;
    return {
      pool: poolObject(p.s),
      token: p.base ? { ...tokenObject(p.base), migrated: p.base.migrated } : null,
      lifecycle: String(this.hosts.pools.lifecycle(address) ?? 'unknown'),
      snapshot: p.snapshot,
      totals: p.totals,
      windowed: p.windowed,
      heat: p.heat,
      replaced_by_pool_address: p.info.replaced_by_pool_address,
    };
  }

  /**
   * A GET /pools list item: the pool object's fields, the token's name fields, the
   * snapshot, all-time volumes and trade count, as `pool()` has them. Built from the
   * pool's state alone: a list of 100 used to build each whole `pool()` view (windows,
   * heat, totals, the full token object) and keep a few fields, ~30 µs a pool.
   */
  poolListItem(address: string) {
    const s = this.poolState(address);
    if (!s) return null;
    const info = s.info!;
    const base = this.hosts.tokens.get(info.base_address) as TokenState | undefined;
    const t = s.totals;
    return {
      ...poolObject(s),
      token: base ? tokenName(base) : null,
      snapshot: snapshotOf(s, this.quoteUsd(info.quote_address)),
      volume_quote: t.volume_quote,
      volume_usd: t.volume_usd,
      trade_count: t.trade_count,
      replaced_by_pool_address: info.replaced_by_pool_address,
    };
  }

  /** A pool's snapshot (SERVICE.md 2.3) alone, as a search item shows its token's main pool's; null for an unknown pool. */
  poolSnapshot(address: string) {
    const s = this.poolState(address);
    return s ? snapshotOf(s, this.quoteUsd(s.info!.quote_address)) : null;
  }

  /** The pool_metrics shape (SERVICE.md 6) of a pool, for GET /pools/metrics. */
  poolMetrics(address: string) {
    const p = this.poolParts(address);
    if (!p) return null;
    const last = p.s.last_key;
    return {
      pool_address: address,
      token_address: p.info.base_address,
      quote_address: p.info.quote_address,
      pool_type: p.info.pool_type,
      slot: last?.[0] ?? null,
      tx_index: last?.[1] ?? null,
      ix_index: last?.[2] ?? null,
      snapshot: p.snapshot,
      totals: p.totals,
      windowed: p.windowed,
      heat: p.heat,
    };
  }

  /**
   * A version of what GET /pools/{pool} shows (for the response cache): the seqs of
   * the pool, its base token and its quote's price or token, and the second of the
   * clock (windowed metrics and heat decay with time). null when one of them is not
   * in memory.
   */
  poolVersion(address: string): string | null {
    const h = this.hosts;
    const own = this.seqsOf(address, true);
    if (own === null) return null;
    // The token's other pools move its circulating_supply: their versions, summed.
    let others = 0;
    const token = h.tokens.get(own.info.base_address) as TokenState | undefined;
    if (token && token.pools.length > 1) {
      for (const p of token.pools) {
        if (p === address) continue;
        const v = h.pools.versionOf(p);
        if (v === undefined) return null;
        others += v;
      }
    }
    return `${own.seqs}:${others}:${Math.floor(this.clock.now() / 1_000)}`;
  }

  /**
   * A version of a trades page of GET /pools/{pool}/trades (for the response cache):
   * the pool's seq (its trades and info), its tokens' seqs (a quote token's supply
   * prices the token side), every wallet label's (labels.version), and the second of
   * the clock (the 24-hour window moves with it). null when one is not in memory.
   */
  poolTradesVersion(address: string): string | null {
    const v = this.tradesVersionOf(address);
    return v === null ? null : `${v}:${this.labelsVersion()}:${Math.floor(this.clock.now() / 1_000)}`;
  }

  /** The same for GET /tokens/{token}/trades: the token's seq (its pools) and each pool's part. */
  tokenTradesVersion(address: string): string | null {
    const h = this.hosts;
    const token = h.tokens.versionOf(address);
    if (token === undefined) return null;
    let out = `${token}`;
    for (const pool of (h.tokens.get(address) as TokenState).pools) {
      const v = this.tradesVersionOf(pool);
      if (v === null) return null;
      out += `:${v}`;
    }
    return `${out}:${this.labelsVersion()}:${Math.floor(this.clock.now() / 1_000)}`;
  }

  /**
   * The seqs of a pool and of its tokens, dot-joined, with the pool's info; for a
   * known quote mint (wSOL, USDC), its price's seq when `priced`, else 0. null when one
   * of them is not in memory.
   */
  private seqsOf(address: string, priced: boolean): { seqs: string; info: PoolInfo } | null {
    const h = this.hosts;
    const pool = h.pools.versionOf(address);
    if (pool === undefined) return null;
    const info = (h.pools.get(address) as PoolState).info;
    if (!info) return null;
    const base = h.tokens.versionOf(info.base_address);
    const known = info.quote_address in KNOWN_MINTS;
    const quote = known ? (priced ? h.quotePrices.versionOf(info.quote_address) ?? 0 : 0) : h.tokens.versionOf(info.quote_address);
    if (base === undefined || quote === undefined) return null;
    if (priced && !known) {
      // A token quote's USD price moves with its pools and the known mints' prices (usd-price.ts).
      const usd = this.tokenUsdVersion(info.quote_address);
      return usd === null ? null : { seqs: `${pool}.${base}.${quote}.${usd}`, info };
    }
    return { seqs: `${pool}.${base}.${quote}`, info };
  }

  /** What a token's USD price is read from, as a version: its pools' seqs and the known mints' price seqs; null when one is not in memory. */
  private tokenUsdVersion(token: string): string | null {
    const h = this.hosts;
    let pools = 0;
    for (const p of (h.tokens.get(token) as TokenState).pools) {
      const v = h.pools.versionOf(p);
      if (v === undefined) return null;
      pools += v;
    }
    let mints = '';
    for (const mint in KNOWN_MINTS) mints += `.${h.quotePrices.versionOf(mint) ?? 0}`;
    return `${pools}${mints}`;
  }

  /** A pool's and its tokens' seqs for its trade records (a known quote's price is not read by them). */
  private tradesVersionOf(address: string): string | null {
    return this.seqsOf(address, false)?.seqs ?? null;
  }

  private labelsVersion(): number {
    return this.hosts.labels?.version ?? 0;
  }

  /**
   * A version of a pool's candles: they change only with the pool's own events, and
   * those of the curve it graduated from (candle-series.ts); null while either is not
   * in memory.
   */
  candlesVersion(address: string): string | null {
    const pool = this.hosts.pools.versionOf(address);
    if (pool === undefined) return null;
    const s = this.poolState(address);
    const g = s ? this.graduation(s) : null;
    if (g === null) return String(pool);
    const curve = this.hosts.pools.versionOf(g.curve.pool_address);
    return curve === undefined ? null : `${pool}.${curve}`;
  }

  /** The curve whose candles a pool's series continues (candle-series.ts), or null. */
  private graduation(s: PoolState): Graduation | null {
    return graduationOf(s, (address) => this.poolState(address));
  }

  /**
   * GET /pools/{pool}/candles: the newest `limit` candles in the range, oldest first,
   * a graduated pool's continuing its curve's (candle-series.ts); null for an unknown pool.
   */
  candles(address: string, req: CandlesRequest): Candle[] | null {
    const s = this.poolState(address);
    if (!s) return null;
    return candleSeries(s, this.graduation(s), req.interval, req.mode, req.currency, { startTime: req.startTime, endTime: req.endTime, limit: req.limit });
  }

  /**
   * What a candles subscription with resume_after_seq / resume_after_time gets first
   * (DECISIONS.md, "Candle resume"): the series' current seq and every candle changed
   * after afterSeq: none when afterSeq is the current seq (seqs count every change,
   * watched or not: PoolCandles.skipChanged), those the history lists when it reaches
   * back that far; otherwise (a seq older than the history, or one this series has not
   * reached, seen before a restart: seqs then moved on by SEQ_STALE_GAP) every candle
   * from the one holding afterTime on, or else the newest 300 (a fresh load); with
   * neither given, nothing. At most RESUME_CANDLES_MAX candles, the newest; a graduated
   * pool's continue its curve's before the migration (candle-series.ts). Null for an
   * unknown pool.
   */
  candleResume(req: CandleResumeRequest): { seq: number; candles: Candle[] } | null {
    const s = this.poolState(req.pool_address);
    if (!s) return null;
    const g = this.graduation(s);
    const series = (startTime: number | undefined, limit: number) => candleSeries(s, g, req.interval, req.mode, req.currency, { startTime, limit });
    const seq = s.candles.seqOf(req.interval);
    if (req.afterSeq !== undefined) {
      const starts = req.afterSeq === seq ? [] : req.afterSeq > seq ? null : this.history?.changedSince(req.pool_address, req.interval, req.afterSeq);
      if (starts) {
        const candles = starts.slice(-RESUME_CANDLES_MAX).map((start) => candleAt(s, g, req.interval, start, req.mode, req.currency)).filter((c): c is Candle => c !== null);
        return { seq, candles };
      }
    }
    if (req.afterTime !== undefined) {
      const length = CANDLE_INTERVALS[req.interval];
      return { seq, candles: series(Math.floor(req.afterTime / length) * length, RESUME_CANDLES_MAX) };
    }
    // A seq too old for the history and no time to fall back on: the newest candles, as a fresh load.
    if (req.afterSeq !== undefined) return { seq, candles: series(undefined, 300) };
    return { seq, candles: [] };
  }

  /**
   * The pools of a token: those where it is the base first, most liquid in USD first
   * (a pool quoted in a token valued at that token's USD price; a pool whose USD value
   * is unknown after every pool whose value is known: actors/pool/usd-price.ts), then
   * those where it is the quote (token-to-token pools: their liquidity is counted in
   * another token). The first is the token's main pool.
   */
  tokenPools(token: string): PoolState[] {
    const t = this.hosts.tokens.get(token) as TokenState | undefined;
    if (!t) return [];
    const states = this.poolStates(t);
    // Most tokens have one pool: nothing to rank. (Called for every search item, and
    // with no closure made per call: tsx gives each a defineProperty for its name.)
    if (states.length < 2) return states;
    const ranked = this.rank(token, states);
    for (let i = 0; i < ranked.length; i++) states[i] = ranked[i]!.p;
    return states;
  }

  /** The pools `states` of `token` in tokenPools' order, with their ranks. */
  private rank(token: string, states: PoolState[]): RankedPool[] {
    // Each pool's rank computed once, not in every comparison (a USD price lookup each).
    const ranked: RankedPool[] = [];
    for (const p of states) {
      ranked.push({ p, base: p.info!.base_address === token ? 1 : 0, value: poolValue(p, this.latest) });
    }
    return ranked.sort(byRank);
  }

  /** The token's pools that have been declared, in no particular order, in a new array. */
  private poolStates(t: TokenState): PoolState[] {
    const states: PoolState[] = [];
    for (const address of t.pools) {
      const s = this.poolState(address);
      if (s !== undefined) states.push(s);
    }
    return states;
  }

  /** Whether GET /tokens/{token} knows the token (without building its overview). */
  tokenExists(address: string): boolean {
    const t = this.hosts.tokens.get(address) as TokenState | undefined;
    return t !== undefined && !(t.fields.decimals === undefined && t.pools.length === 0);
  }

  /**
   * GET /tokens/{token}: the token object, its main pool (the most liquid in USD),
   * its snapshot, and the token's totals: counts, volumes, ATH and launch across its
   * pools, bonding curve included (views.ts tokenTotals, as search counts them); the
   * per-pool fields (curve gain) are the main pool's.
   */
  token(address: string) {
    if (!this.tokenExists(address)) return null;
    const t = this.hosts.tokens.get(address) as TokenState;
    const pools = this.tokenPools(address);
    const main = pools[0];
    const usd = main ? this.quoteUsd(main.info!.quote_address) : null;
    const token = main ? tokenTotals(tradedPools(address, pools), main.info!.quote_address) : undefined;
    return {
      token: { ...tokenObject(t), migrated: t.migrated },
      pool: main ? poolObject(main) : null,
      snapshot: main ? snapshotOf(main, usd) : null,
      totals: main ? totalsOf(main, t, usd, { pools, now: this.clock.now(), sniperSlots: this.sniperSlots, token }) : null,
    };
  }

  /**
   * GET /tokens/{token}/pools: each pool with its snapshot, in tokenPools' order, at
   * most `limit` of them after `after`; `next` is the last one's rank when more follow.
   */
  tokenPoolList(address: string, limit: number, after?: PoolRank) {
    const t = this.hosts.tokens.get(address) as TokenState | undefined;
    const ranked = t ? this.rank(address, this.poolStates(t)) : [];
    // The pools ranked after `after` (an earlier page's last), as they rank now (byRank's order).
    let from = 0;
    if (after) {
      const notAfter = (r: RankedPool) => (r.base - after.base || r.value - after.value || after.pool_address.localeCompare(r.p.pool_address)) >= 0;
      while (from < ranked.length && notAfter(ranked[from]!)) from++;
    }
    const taken = ranked.slice(from, from + limit);
    const last = taken[taken.length - 1];
    return {
      items: taken.map(({ p }) => ({ ...poolObject(p), snapshot: snapshotOf(p, this.quoteUsd(p.info!.quote_address)) })),
      next: last && from + limit < ranked.length ? ({ base: last.base, value: last.value, pool_address: last.p.pool_address } satisfies PoolRank) : null,
    };
  }

  private window(opts: TradeListOptions): TradeSpan {
    const now = this.clock.now();
    const floor = now - TRADE_HISTORY_MS;
    const start = Math.max(opts.startTime ?? now - TRADE_DEFAULT_WINDOW_MS, floor);
    return { order: opts.order, minAt: start, maxAt: Math.max(now, start), after: opts.after };
  }

  private page(source: Iterator<[StoredTrade, PoolState]>, limit: number, side: (p: PoolState) => string): TradePage {
    const { items, hasMore } = take(source, limit);
    // A page describes its trades from one or two tokens: each quote-side token's supply read once.
    const supplies = new Map<string, number | null>();
    const supply = (token: string) => {
      let s = supplies.get(token);
      if (s === undefined) supplies.set(token, (s = supplyOf(this.hosts.tokens.get(token) as TokenState | undefined)));
      return s;
    };
    const rows = items.map(([t, p]): TradeRow => {
      const token = side(p);
      return [t, p, token, token === p.info!.base_address ? null : supply(token), activeLabels(this.hosts.labels?.get(t[TRADE.wallet]))];
    });
    const last = items[items.length - 1]?.[0];
    return new TradePage(rows, hasMore && last ? [last[0], last[1], last[2], last[3]] : null);
  }

  /**
   * GET /pools/{pool}/trades: the pool's trades and those of the bonding curve it
   * migrated from, described from `token`'s side (default the base). Null for an
   * unknown pool.
   */
  poolTrades(address: string, opts: TradeListOptions): TradePage | null {
    const s = this.poolState(address);
    if (!s) return null;
    const pools = [s];
    const from = s.info!.migrated_from_pool_address;
    const curve = from ? this.poolState(from) : undefined;
    if (curve) pools.push(curve);
    // A curve and the pool it graduated into share the launched token as base.
    const baseSide = (opts.token ?? s.info!.base_address) === s.info!.base_address;
    return this.page(this.mergePools(pools, opts), opts.limit, (p) => (baseSide ? p.info!.base_address : p.info!.quote_address));
  }

  /** GET /tokens/{token}/trades: across every pool of the token, from its side. */
  tokenTrades(address: string, opts: TradeListOptions): TradePage | null {
    const t = this.hosts.tokens.get(address) as TokenState | undefined;
    if (!t) return null;
    // The merge orders the trades: the pools' order (tokenPools ranks them) does not matter.
    return this.page(this.mergePools(this.poolStates(t), opts), opts.limit, () => address);
  }

  /**
   * GET /wallets/{wallet}/trades: the wallet's trades in every pool, merged in order:
   * stored ones from the wallet index (and its journal), the rest from the memory of
   * the pools it traded in lately. With `token`, only pools holding that token, each
   * trade from its side; otherwise each from its pool's base token. A wallet without
   * trades has an empty list.
   */
  walletTrades(wallet: string, opts: TradeListOptions): TradePage {
    const w = this.window(opts);
    const streams: Array<Iterator<[StoredTrade, string]>> = [];
    if (this.wallets) {
      streams.push(storedWalletTrades(this.wallets.storage, this.trades, wallet, w));
      for (const address of this.wallets.recent.pools(wallet)) {
        const s = this.poolState(address);
        if (s) streams.push(withPool(walletTradesInMemory(s, wallet, w), address));
      }
    }
    const token = opts.token;
    const rows = this.inPools(dedup(merge(streams, opts.order === 'asc', tradeOfAddressed), tradeOfAddressed), token);
    return this.page(rows, opts.limit, (p) => token ?? p.info!.base_address);
  }

  /** Each trade with its pool's state; with `token`, only those of pools holding it. */
  private *inPools(trades: Iterable<[StoredTrade, string]>, token: string | undefined): Generator<[StoredTrade, PoolState]> {
    for (const [t, address] of trades) {
      const p = this.poolState(address);
      if (!p) continue;
      if (token !== undefined && p.info!.base_address !== token && p.info!.quote_address !== token) continue;
      yield [t, p];
    }
  }

  /** The pools' trades in the window, merged in order, each with its pool. */
  private mergePools(pools: PoolState[], opts: TradeListOptions): Iterator<[StoredTrade, PoolState]> {
    const w = this.window(opts);
    const streams = pools.map((p) => withPool(poolTrades(this.trades, p.pool_address, p, w), p));
    return merge(streams, opts.order === 'asc', tradeOf);
  }
}

const tradeOf = (item: [StoredTrade, PoolState]) => item[0];
const tradeOfAddressed = (item: [StoredTrade, string]) => item[0];

/** Each trade paired with its pool (its state, or its address). */
function* withPool<P>(trades: Iterable<StoredTrade>, pool: P): Generator<[StoredTrade, P]> {
  for (const t of trades) yield [t, pool];
}
