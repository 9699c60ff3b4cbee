import type { PoolState } from '../../actors/index.ts';
import { TRADE, tradeJson, tradeRecord, type StoredTrade, type TradeKey, type TradeRecord, type TradeSpan } from '../model/index.ts';
import type { Storage } from '../../storage/index.ts';
import { dedup, merge } from '../../storage/index.ts';
import type { TradesRepo } from '../../storage/index.ts';
import { storedWalletTrades } from '../../storage/index.ts';
import type { MarketState } from './state.ts';
import { TRADE_DEFAULT_WINDOW_MS, TRADE_HISTORY_MS, poolTrades, take, walletTradesInMemory, type RecentWalletPools } from './trade-streams.ts';

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

export interface TradesQueryOptions {
  state: MarketState;
  /** The stored trade blocks. */
  trades: TradesRepo;
  /** The store wallet trades are read from (the wallet index and its journal). */
  storage: Storage;
  /** The pools each wallet traded in lately: where its trades still in memory are. */
  recentWallets: RecentWalletPools;
}

/** What one trade record of a page is made from (engine/model tradeRecord / tradeJson). */
type TradeRow = [trade: StoredTrade, pool: PoolState, token: string, quoteSupply: number | null, labels: string[]];

/** A page of trade records: as objects (`items`, built on first use), or as JSON text for a response. */
export class TradePage {
  private records: TradeRecord[] | null = null;

  constructor(
    private readonly rows: TradeRow[],
    /** Position of the last item, when there are more. */
    readonly next: TradeKey | null,
  ) {}

  get items(): TradeRecord[] {
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

/**
 * The trade lists: GET /pools/{pool}/trades, GET /tokens/{token}/trades and
 * GET /wallets/{wallet}/trades, merged from the trades store and the pools' memory
 * (trade-streams.ts), and their versions for the response cache.
 */
export class TradesQuery {
  private readonly state: MarketState;
  private readonly trades: TradesRepo;
  private readonly storage: Storage;
  private readonly recentWallets: RecentWalletPools;

  constructor(options: TradesQueryOptions) {
    this.state = options.state;
    this.trades = options.trades;
    this.storage = options.storage;
    this.recentWallets = options.recentWallets;
  }

  /**
   * GET /pools/{pool}/trades: the pool's trades and those of the bonding curve it
   * migrated from, described from `token`'s side (default the base). Null for an
   * unknown pool.
   */
  poolTrades(address: string, opts: TradeListOptions): TradePage | null {
    const s = this.state.pool(address);
    if (!s) return null;
    const pools = [s];
    const from = s.info!.migrated_from_pool_address;
    const curve = from ? this.state.pool(from) : undefined;
    if (curve) pools.push(curve);
    // A curve and the pool it graduated into share the launched token as base.
    const baseSide = (opts.token ?? s.info!.base_address) === s.info!.base_address;
    return this.page(this.mergePools(pools, opts), opts.limit, (p) => (baseSide ? p.info!.base_address : p.info!.quote_address));
  }

  /** GET /tokens/{token}/trades: across every pool of the token, from its side. */
  tokenTrades(address: string, opts: TradeListOptions): TradePage | null {
    const t = this.state.token(address);
    if (!t) return null;
    // The merge orders the trades: the pools' order (tokenPools ranks them) does not matter.
    return this.page(this.mergePools(this.state.poolStates(t), opts), opts.limit, () => address);
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
    const streams: Array<Iterator<[StoredTrade, string]>> = [storedWalletTrades(this.storage, this.trades, wallet, w)];
    for (const address of this.recentWallets.pools(wallet)) {
      const s = this.state.pool(address);
      if (s) streams.push(withPool(walletTradesInMemory(s, wallet, w), address));
    }
    const token = opts.token;
    const rows = this.inPools(dedup(merge(streams, opts.order === 'asc', tradeOfAddressed), tradeOfAddressed), token);
    return this.page(rows, opts.limit, (p) => token ?? p.info!.base_address);
  }

  /**
   * The trades of several wallets merged in one order (route 21's own wallet list,
   * GET /v1/wallets/activity?wallets=), each with its pool, over the trade lists' window;
   * `keep` filters before the page is cut. `next`: the last item's position when more follow.
   */
  walletsTrades(wallets: readonly string[], opts: TradeListOptions, keep: (t: StoredTrade, p: PoolState) => boolean): { items: Array<[StoredTrade, PoolState]>; next: TradeKey | null } {
    const w = this.window(opts);
    const streams: Array<Iterator<[StoredTrade, string]>> = [];
    for (const wallet of wallets) {
      streams.push(storedWalletTrades(this.storage, this.trades, wallet, w));
      for (const address of this.recentWallets.pools(wallet)) {
        const s = this.state.pool(address);
        if (s) streams.push(withPool(walletTradesInMemory(s, wallet, w), address));
      }
    }
    const rows = this.inPools(dedup(merge(streams, opts.order === 'asc', tradeOfAddressed), tradeOfAddressed), undefined);
    const { items, hasMore } = take(filtered(rows, keep), opts.limit);
    const last = items[items.length - 1]?.[0];
    return { items, next: hasMore && last ? [last[0], last[1], last[2], last[3]] : null };
  }

  /**
   * A version of a trades page of GET /pools/{pool}/trades (for the response cache):
   * the pool's seq (its trades and info), its tokens' seqs (a quote token's supply
   * prices the token side), every wallet label's (labels.version), and the second of
   * the clock (the 24-hour window moves with it). null when one is not in memory.
   */
  poolTradesVersion(address: string): string | null {
    const v = this.tradesVersionOf(address);
    return v === null ? null : `${v}:${this.state.labelsVersion()}:${this.state.second()}`;
  }

  /** The same for GET /tokens/{token}/trades: the token's seq (its pools) and each pool's part. */
  tokenTradesVersion(address: string): string | null {
    const st = this.state;
    const token = st.tokenVersion(address);
    if (token === undefined) return null;
    let out = `${token}`;
    for (const pool of st.token(address)!.pools) {
      const v = this.tradesVersionOf(pool);
      if (v === null) return null;
      out += `:${v}`;
    }
    return `${out}:${st.labelsVersion()}:${st.second()}`;
  }

  /** A pool's and its tokens' seqs for its trade records (a known quote's price is not read by them). */
  private tradesVersionOf(address: string): string | null {
    return this.state.seqsOf(address, false)?.seqs ?? null;
  }

  private window(opts: TradeListOptions): TradeSpan {
    const now = this.state.clock.now();
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
      if (s === undefined) supplies.set(token, (s = this.state.supply(token)));
      return s;
    };
    const rows = items.map(([t, p]): TradeRow => {
      const token = side(p);
      return [t, p, token, token === p.info!.base_address ? null : supply(token), this.state.labels(t[TRADE.wallet])];
    });
    const last = items[items.length - 1]?.[0];
    return new TradePage(rows, hasMore && last ? [last[0], last[1], last[2], last[3]] : null);
  }

  /** Each trade with its pool's state; with `token`, only those of pools holding it. */
  private *inPools(trades: Iterable<[StoredTrade, string]>, token: string | undefined): Generator<[StoredTrade, PoolState]> {
    for (const [t, address] of trades) {
      const p = this.state.pool(address);
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

function* filtered(rows: Iterator<[StoredTrade, PoolState]>, keep: (t: StoredTrade, p: PoolState) => boolean): Generator<[StoredTrade, PoolState]> {
  try {
    for (let r = rows.next(); !r.done; r = rows.next()) if (keep(r.value[0], r.value[1])) yield r.value;
  } finally {
    rows.return?.(); // closed early: the rows' LMDB iterators end their read transactions
  }
}

/** Each trade paired with its pool (its state, or its address). */
function* withPool<P>(trades: Iterable<StoredTrade>, pool: P): Generator<[StoredTrade, P]> {
  for (const t of trades) yield [t, pool];
}
