import {
  DAY_MS,
  LB_FIELDS,
  LEADERBOARD_KEY,
  LEADERBOARD_WINDOWS,
  avgCost,
  dailyRows,
  finishRefresh,
  decimalsOf,
  isOpen,
  leaderboardStale,
  rawOf,
  refreshLeaderboard,
  tokenUsdOf,
  windowTotals,
  winRatePct,
  type LeaderboardState,
  type LeaderboardWindow,
  type Position,
  type TokenTradersState,
  type WalletState,
} from '../../actors/index.ts';
import type { ActorReader, MarketState } from './state.ts';

/**
 * The reads of wallet accounting (DECISIONS.md, "Wallet accounting"; routes 5, 20, 23,
 * 24, 26): the wallet actors' positions and the rankings' rows (actors/wallet), valued
 * at the tokens' latest USD prices (their main pools', actors/pool/usd-price.ts).
 */
/**
 * What the wallet reads need of the wallet accounting hosts (engine/supervisor/host.ts):
 * their actors' state and version, and for the leaderboard `update`, its refresh at a
 * request that finds it stale (through the host, so the actor is marked dirty).
 */
export interface WalletHosts {
  wallets: ActorReader<WalletState>;
  tokenTraders: ActorReader<TokenTradersState>;
  leaderboard: ActorReader<LeaderboardState> & { update<R>(key: string, change: (state: LeaderboardState) => R): R | undefined };
}

export interface WalletsQueryOptions {
  hosts: WalletHosts;
  /** Tokens, labels and USD prices at the latest quotes. */
  state: MarketState;
  /** The wallet's last RECENT_TRADES trades, newest first, as GET /wallets/{wallet}/trades lists them. */
  recentTrades: (wallet: string) => unknown[];
}

export type PerformanceWindow = LeaderboardWindow | 'all';
export type LeaderboardSort = 'pnl_usd' | 'win_rate_pct' | 'volume_usd';
export type TradersSort = 'pnl_usd' | 'volume_usd';

/** A position in a ranked list: the sort value (null sorts last) and the tie-breaking address. */
export interface RankPosition {
  value: number | null;
  address: string;
}

/** Ranked lists order by value, largest first, nulls last, then by address. */
function compareRank(a: RankPosition, b: RankPosition): number {
  if (a.value !== b.value) {
    if (a.value === null) return 1;
    if (b.value === null) return -1;
    return b.value - a.value;
  }
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

/** The items of a ranked list after `after` (exclusive), `limit` of them, and the last one's position when more follow. */
function pageOf<T extends RankPosition>(sorted: readonly T[], limit: number, after: RankPosition | undefined): { items: T[]; next: RankPosition | null } {
  let from = 0;
  if (after) {
    // Binary search: the first item ranked after `after`.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareRank(sorted[mid]!, after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    from = lo;
  }
  const items = sorted.slice(from, from + limit);
  const last = items[items.length - 1];
  return { items, next: last && from + limit < sorted.length ? { value: last.value, address: last.address } : null };
}

const today = (now: number) => Math.floor(now / DAY_MS);

/** Trades each leaderboard row shows (DECISIONS.md row 20: the last 5). */
export const RECENT_TRADES = 5;

interface LeaderboardEntry extends RankPosition {
  row: number[];
  offset: number;
}

export interface LeaderboardFilters {
  min_trade_count?: number;
  min_volume_usd?: number;
  min_win_rate_pct?: number;
}

export class WalletsQuery {
  /** Sorted leaderboard views of the current rows, by window and sort. */
  private sorted = new Map<string, LeaderboardEntry[]>();
  private sortedVersion = -1;

  private readonly hosts: WalletHosts;
  private readonly state: MarketState;
  private readonly recentTrades: (wallet: string) => unknown[];

  constructor(options: WalletsQueryOptions) {
    this.hosts = options.hosts;
    this.state = options.state;
    this.recentTrades = options.recentTrades;
  }

  /** A token's latest USD price (its main pool's), or null. */
  tokenUsd(token: string): number | null {
    return tokenUsdOf(token, this.state.latest);
  }

  private wallet(address: string): Readonly<WalletState> | undefined {
    return this.hosts.wallets.get(address);
  }

  private labels(wallet: string): string[] {
    return this.state.labels(wallet);
  }

  /** Unrealized PnL of the open positions at the latest prices (positions whose token has no USD price left out). */
  private unrealized(s: Readonly<WalletState> | undefined): number {
    let sum = 0;
    if (!s) return sum;
    for (const [token, p] of s.positions) {
      if (!isOpen(p)) continue;
      const price = this.tokenUsd(token);
      if (price !== null) sum += p.qty * price - p.cost;
    }
    return sum;
  }

  /** GET /wallets/{wallet}/performance (route 23). A wallet that never traded has zeros. */
  performance(address: string, window: PerformanceWindow) {
    const now = this.state.clock.now();
    const s = this.wallet(address);
    const from = window === 'all' ? null : today(now) - LEADERBOARD_WINDOWS[window] + 1;
    const t = s ? windowTotals(s, from) : null;
    return {
      wallet_address: address,
      window,
      realized_pnl_usd: t?.realized ?? 0,
      unrealized_pnl_usd: this.unrealized(s),
      win_rate_pct: t ? winRatePct(t) : null,
      trade_count: t ? t.buys + t.sells : 0,
      buy_count: t?.buys ?? 0,
      sell_count: t?.sells ?? 0,
      volume_usd: t?.volume ?? 0,
      tokens_traded: t?.tokens ?? 0,
      best_token: t?.best ? { token_address: t.best.token, realized_pnl_usd: t.best.realized } : null,
      worst_token: t?.worst ? { token_address: t.worst.token, realized_pnl_usd: t.worst.realized } : null,
      unpriced_trade_count: t?.unpriced ?? 0,
      as_of: now,
    };
  }

  /** GET /wallets/{wallet}/positions (route 24): open positions, largest value_usd first (unknown values last). */
  positions(address: string, minValueUsd: number | undefined, limit: number, after: RankPosition | undefined) {
    const s = this.wallet(address);
    const rows: Array<RankPosition & { item: ReturnType<WalletsQuery['positionItem']> }> = [];
    if (s) {
      for (const [token, p] of s.positions) {
        if (!isOpen(p)) continue;
        const item = this.positionItem(token, p);
        if (minValueUsd !== undefined && (item.value_usd === null || item.value_usd < minValueUsd)) continue;
        rows.push({ value: item.value_usd, address: token, item });
      }
    }
    rows.sort(compareRank);
    const { items, next } = pageOf(rows, limit, after);
    return { items: items.map((r) => r.item), next };
  }

  private positionItem(token: string, p: Position) {
    const price = this.tokenUsd(token);
    const value = price === null ? null : p.qty * price;
    return {
      token_address: token,
      balance: p.qty,
      balance_raw: rawOf(p, decimalsOf(this.state.token(token), token)),
      cost_basis_usd: p.cost,
      avg_cost_usd: avgCost(p),
      value_usd: value,
      unrealized_pnl_usd: value === null ? null : value - p.cost,
      realized_pnl_usd: p.realized,
      first_buy_at: p.firstBuyAt,
      last_trade_at: p.lastTradeAt,
    };
  }

  /** GET /wallets/{wallet}/daily_pnl (route 26): the last `days` UTC days, oldest first. */
  dailyPnl(address: string, days: number) {
    const to = today(this.state.clock.now());
    return dailyRows(this.wallet(address), to - days + 1, to);
  }

  /**
   * GET /tokens/{token}/traders (route 5): the token's rows (rankings.ts), by pnl_usd
   * (realized + unrealized at the token's price now) or volume_usd; with `label`, only
   * wallets holding it. null for a token without an actor.
   */
  traders(token: string, sort: TradersSort, label: string | undefined, limit: number, after: RankPosition | undefined) {
    if (this.state.token(token) === undefined) return null;
    const now = this.state.clock.now();
    const state = this.hosts.tokenTraders.get(token);
    const price = this.tokenUsd(token);
    const rows: Array<RankPosition & { wallet: string; row: number[]; unrealized: number | null; labels: string[] | null }> = [];
    if (state) {
      for (const [wallet, row] of state.rows) {
        let labels: string[] | null = null;
        if (label !== undefined) {
          labels = this.labels(wallet);
          if (!labels.includes(label)) continue;
        }
        const [, , buyUsd, sellUsd, realized, qty, cost] = row;
        const unrealized = qty > 0 ? (price === null ? null : qty * price - cost) : 0;
        const value = sort === 'volume_usd' ? buyUsd + sellUsd : realized + (unrealized ?? 0);
        rows.push({ value, address: wallet, wallet, row, unrealized, labels });
      }
    }
    rows.sort(compareRank);
    const { items, next } = pageOf(rows, limit, after);
    return {
      items: items.map(({ wallet, row, unrealized, labels }) => ({
        wallet_address: wallet,
        buy_count: row[0]!,
        sell_count: row[1]!,
        buy_volume_usd: row[2]!,
        sell_volume_usd: row[3]!,
        realized_pnl_usd: row[4]!,
        unrealized_pnl_usd: unrealized,
        pnl_usd: row[4]! + (unrealized ?? 0),
        labels: labels ?? this.labels(wallet),
        as_of: now,
      })),
      next,
    };
  }

  /**
   * A version of GET /tokens/{token}/traders (the response cache): the token's rows'
   * seq, every wallet label's, and the second of the clock (unrealized PnL moves with
   * the token's price: a cached list is at most a second behind it). null while the
   * rows are not in memory.
   */
  tradersVersion(token: string): string | null {
    const rows = this.hosts.tokenTraders.versionOf(token);
    return rows === undefined ? null : `${rows}:${this.state.labelsVersion()}:${this.state.second()}`;
  }

  /**
   * A version of GET /wallets/leaderboard: the rows' seq, every wallet label's, and the
   * second (recent_trades and the 60-s refresh move with time). null while the rows are
   * not in memory.
   */
  leaderboardVersion(): string | null {
    const rows = this.hosts.leaderboard.versionOf(LEADERBOARD_KEY);
    return rows === undefined ? null : `${rows}:${this.state.labelsVersion()}:${this.state.second()}`;
  }

  /** The leaderboard's rows, refreshed first when older than the refresh period (rankings.ts). */
  private leaderboardState(): Readonly<LeaderboardState> {
    const h = this.hosts.leaderboard;
    const now = this.state.clock.now();
    const state = h.get(LEADERBOARD_KEY);
    // A refresh under way (begun by a trade, going on with the trades after it) is done first: the rows as of its time.
    if (state && (state.refresh !== null || leaderboardStale(state, now))) {
      const read = (w: string) => this.wallet(w);
      h.update(LEADERBOARD_KEY, (s) => {
        finishRefresh(s, read);
        if (leaderboardStale(s, now)) refreshLeaderboard(s, now, read);
      });
    }
    return h.get(LEADERBOARD_KEY) ?? { asOf: 0, rows: new Map(), dirty: new Set(), version: -1, refresh: null };
  }

  /**
   * GET /wallets/leaderboard (route 20): the tracked wallets with a trade in the window
   * that pass the filters, by `sort` (realized PnL in the window, win rate, volume),
   * each with its last RECENT_TRADES trades (as its trades route lists them, now). Rows
   * are as of `as_of`.
   */
  leaderboard(window: LeaderboardWindow, sort: LeaderboardSort, filters: LeaderboardFilters, limit: number, after: RankPosition | undefined) {
    const state = this.leaderboardState();
    if (state.version !== this.sortedVersion) {
      this.sorted.clear();
      this.sortedVersion = state.version;
    }
    const key = `${window}:${sort}`;
    let sorted = this.sorted.get(key);
    if (!sorted) {
      const offset = Object.keys(LEADERBOARD_WINDOWS).indexOf(window) * LB_FIELDS;
      sorted = [];
      for (const [wallet, row] of state.rows) {
        if (row[offset + 2] === 0) continue;
        const value = sort === 'pnl_usd' ? row[offset]! : sort === 'volume_usd' ? row[offset + 1]! : winRatePct({ sold: row[offset + 4]!, wins: row[offset + 5]! });
        sorted.push({ value, address: wallet, row, offset });
      }
      sorted.sort(compareRank);
      this.sorted.set(key, sorted);
    }
    const { min_trade_count: minTrades, min_volume_usd: minVolume, min_win_rate_pct: minWinRate } = filters;
    const kept =
      minTrades === undefined && minVolume === undefined && minWinRate === undefined
        ? sorted
        : sorted.filter(({ row, offset }) => {
            if (minTrades !== undefined && row[offset + 2]! < minTrades) return false;
            if (minVolume !== undefined && row[offset + 1]! < minVolume) return false;
            if (minWinRate !== undefined) {
              const rate = winRatePct({ sold: row[offset + 4]!, wins: row[offset + 5]! });
              if (rate === null || rate < minWinRate) return false;
            }
            return true;
          });
    const { items, next } = pageOf(kept, limit, after);
    return {
      items: items.map(({ address, row, offset }) => ({
        wallet_address: address,
        labels: this.labels(address),
        realized_pnl_usd: row[offset]!,
        win_rate_pct: winRatePct({ sold: row[offset + 4]!, wins: row[offset + 5]! }),
        trade_count: row[offset + 2]!,
        volume_usd: row[offset + 1]!,
        tokens_traded: row[offset + 3]!,
        unpriced_trade_count: row[offset + 6]!,
        recent_trades: this.recentTrades(address),
        as_of: state.asOf,
      })),
      next,
    };
  }
}
