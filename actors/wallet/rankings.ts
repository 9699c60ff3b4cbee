import { KNOWN_MINTS, TRADE } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../engine/supervisor/index.ts';
import { DAY_FIELDS, DAY_MS, type Position, type WalletState } from './wallet.logic.ts';

/**
 * The incremental rankings of wallet accounting (DECISIONS.md: "Leaderboards and top
 * traders are maintained incrementally"), two actor kinds fed the same `pool.trade`
 * events as the wallet actor, after it (they read its positions):
 *
 * - `token-traders`, one per token: a row per wallet that traded it (counts, USD
 *   volumes, realized PnL, quantity and cost), copied from the wallet's position as
 *   each trade or balance of the token is applied. At most TOKEN_TRADERS_MAX rows, the
 *   wallets with the most USD volume in the token: past TOKEN_TRADERS_MAX × 1.25 the
 *   rows are cut back to the largest. Top traders read these rows (unrealized PnL at
 *   the token's price when asked): no scan of wallets or positions per request.
 * - `wallet-leaderboard`, one actor (key `all`): rows of the 1d, 7d and 30d windows
 *   for at most LEADERBOARD_MAX wallets, the most 30-day volume first. Trades mark
 *   their wallet; the marked wallets' rows are recomputed from their positions (a
 *   refresh) when LEADERBOARD_REFRESH_MS of event time have passed since the last
 *   refresh, when LEADERBOARD_DIRTY_MAX are marked, or when a request finds the rows
 *   older than LEADERBOARD_REFRESH_MS on the engine clock; a new UTC day recomputes
 *   every row. So a leaderboard lags the trades by at most LEADERBOARD_REFRESH_MS, and
 *   says `as_of`.
 */

export const TOKEN_TRADERS_MAX = 1_000;
export const LEADERBOARD_MAX = 10_000;
export const LEADERBOARD_REFRESH_MS = 60_000;
export const LEADERBOARD_DIRTY_MAX = 20_000;
/** The leaderboard's windows, in UTC days (1d: today; 7d: today and the 6 days before). */
export const LEADERBOARD_WINDOWS = { '1d': 1, '7d': 7, '30d': 30 } as const;
export type LeaderboardWindow = keyof typeof LEADERBOARD_WINDOWS;
const WINDOW_LIST = Object.values(LEADERBOARD_WINDOWS);

/** A top-traders row: buys, sells, buy USD, sell USD, realized USD, quantity, cost USD. */
export type TraderRow = [buys: number, sells: number, buyUsd: number, sellUsd: number, realized: number, qty: number, cost: number];

export interface TokenTradersState {
  token_address: string;
  /** By wallet (a Map: up to 1,250 wallets looked up per trade). */
  rows: Map<string, TraderRow>;
  /** The state of a kind run in the same actor (engine/supervisor/combine.ts): the token's signals, when on. */
  part?: unknown;
}

function copyRow(row: TraderRow, p: Position): void {
  row[0] = p.buys;
  row[1] = p.sells;
  row[2] = p.buyUsd;
  row[3] = p.sellUsd;
  row[4] = p.realized;
  row[5] = p.qty;
  row[6] = p.cost;
}

/** Cuts the rows back to the TOKEN_TRADERS_MAX with the most USD volume (ties: the lower address). */
function trim(state: TokenTradersState): void {
  const entries = [...state.rows].sort((a, b) => b[1][2] + b[1][3] - (a[1][2] + a[1][3]) || (a[0] < b[0] ? -1 : 1));
  state.rows = new Map(entries.slice(0, TOKEN_TRADERS_MAX));
}

function tokensOf(e: ActorEvent): string | readonly string[] | undefined {
  if (e.type === 'pool.trade') return e.quote_address in KNOWN_MINTS ? e.base_address : [e.base_address, e.quote_address];
  if (e.type === 'balance') return e.token_address in KNOWN_MINTS ? undefined : e.token_address;
  return undefined;
}

export const tokenTradersBehavior: ActorBehavior<TokenTradersState> = {
  kind: 'token-traders',
  takes: ['pool.trade', 'balance'],
  route: tokensOf,
  initial: (token_address) => ({ token_address, rows: new Map() }),
  // Measured as the pools' (pool.actor.ts POOL_BYTES): 1.8 KB a token's traders on the market replay; a row (7 doubles, its Map entry) ~125 bytes.
  sizeOf: (state) => 600 + 125 * state.rows.size,
  apply(state, e, ctx) {
    const wallet = e.type === 'pool.trade' ? e.trade[TRADE.wallet] : e.type === 'balance' ? e.wallet_address : null;
    if (wallet === null) return;
    let row = state.rows.get(wallet);
    // A balance moves a trader's quantity and cost; it does not make a trader.
    if (row === undefined && e.type !== 'pool.trade') return;
    const p = (ctx.read<WalletState>('wallet', wallet) as WalletState | undefined)?.positions.get(state.token_address);
    if (p === undefined) return;
    if (row === undefined) {
      state.rows.set(wallet, (row = [0, 0, 0, 0, 0, 0, 0]));
      if (state.rows.size > TOKEN_TRADERS_MAX * 1.25) trim(state);
    }
    copyRow(row, p);
  },
  toSnapshot: (state) => ({ token_address: state.token_address, rows: [...state.rows] }),
  fromSnapshot: (data) => {
    const s = data as { token_address: string; rows: Array<[string, TraderRow]> };
    return { token_address: s.token_address, rows: new Map(s.rows) };
  },
};

/** Per window, LB_FIELDS numbers: realized, volume, trades, tokens traded, tokens sold, wins, unpriced. */
export const LB_FIELDS = 7;

export interface LeaderboardState {
  /** Event or engine time of the last refresh (0: never). */
  asOf: number;
  /** Per wallet, LB_FIELDS numbers for each of the windows 1d, 7d, 30d in that order. */
  rows: Record<string, number[]>;
  count: number;
  /** Wallets traded since the last refresh. */
  dirty: Set<string>;
  /** Bumped at each refresh (the reads' sorted views). */
  version: number;
}

/**
 * A wallet's leaderboard row at UTC day `day`, in one pass over its positions' day rows
 * (the 1d, 7d and 30d windows together; what windowTotals sums per window), into
 * `out`; false when it has no trade in 30 days.
 */
export function leaderboardRow(s: Readonly<WalletState>, day: number, out: number[]): boolean {
  out.length = WINDOW_LIST.length * LB_FIELDS;
  out.fill(0);
  for (const p of s.positions.values()) {
    const d = p.days;
    for (let w = 0; w < WINDOW_LIST.length; w++) {
      const from = day - WINDOW_LIST[w]! + 1;
      let realized = 0;
      let trades = 0;
      let sells = 0;
      let volume = 0;
      let unpriced = 0;
      for (let i = d.length - DAY_FIELDS; i >= 0 && d[i]! >= from; i -= DAY_FIELDS) {
        trades += d[i + 1]! + d[i + 2]!;
        sells += d[i + 2]!;
        volume += d[i + 3]!;
        realized += d[i + 4]!;
        unpriced += d[i + 5]!;
      }
      const o = w * LB_FIELDS;
      out[o + 1] += volume;
      out[o + 2] += trades;
      out[o + 6] += unpriced;
      if (trades > 0) out[o + 3]++;
      if (sells > 0) {
        out[o] += realized;
        out[o + 4]++;
        if (realized > 0) out[o + 5]++;
      }
    }
  }
  return out[(WINDOW_LIST.length - 1) * LB_FIELDS + 2]! > 0;
}

/** The index of the 30-day volume in a row. */
const VOLUME_30D = 2 * LB_FIELDS + 1;

/**
 * Recomputes the rows of the marked wallets (every row on a new UTC day) at `now`
 * from their states (`read`), drops rows without trades in 30 days, and cuts back to
 * the LEADERBOARD_MAX wallets with the most 30-day volume.
 */
export function refreshLeaderboard(state: LeaderboardState, now: number, read: (wallet: string) => Readonly<WalletState> | undefined): void {
  const day = Math.floor(now / DAY_MS);
  if (state.asOf > 0 && Math.floor(state.asOf / DAY_MS) !== day) for (const w in state.rows) state.dirty.add(w);
  for (const w of state.dirty) {
    const s = read(w);
    const existing = state.rows[w];
    const row = existing ?? [];
    if (!s || !leaderboardRow(s, day, row)) {
      if (existing) {
        delete state.rows[w];
        state.count--;
      }
      continue;
    }
    if (!existing) {
      state.rows[w] = row;
      state.count++;
    }
  }
  state.dirty.clear();
  if (state.count > LEADERBOARD_MAX) {
    const entries = Object.entries(state.rows).sort((a, b) => b[1][VOLUME_30D]! - a[1][VOLUME_30D]! || (a[0] < b[0] ? -1 : 1));
    const rows: Record<string, number[]> = {};
    for (let i = 0; i < LEADERBOARD_MAX; i++) rows[entries[i]![0]] = entries[i]![1];
    state.rows = rows;
    state.count = LEADERBOARD_MAX;
  }
  if (now > state.asOf) state.asOf = now;
  state.version++;
}

/**
 * Whether a request at `now` should refresh first: rows older than LEADERBOARD_REFRESH_MS
 * (with nothing marked, the refresh only moves as_of on: the rows are current).
 */
export const leaderboardStale = (state: Readonly<LeaderboardState>, now: number): boolean => now - state.asOf >= LEADERBOARD_REFRESH_MS;

interface LeaderboardSnapshot extends Omit<LeaderboardState, 'dirty'> {
  dirty: string[];
}

const readWallet = (ctx: ActorContext) => (w: string) => ctx.read<WalletState>('wallet', w) as WalletState | undefined;

export const LEADERBOARD_KEY = 'all';

export const leaderboardBehavior: ActorBehavior<LeaderboardState> = {
  kind: 'wallet-leaderboard',
  takes: ['pool.trade'],
  route: (e) => (e.type === 'pool.trade' ? LEADERBOARD_KEY : undefined),
  initial: () => ({ asOf: 0, rows: {}, count: 0, dirty: new Set(), version: 0 }),
  apply(state, e, ctx) {
    if (e.type !== 'pool.trade') return;
    state.dirty.add(e.trade[TRADE.wallet]);
    const at = e.trade[TRADE.at];
    if (state.dirty.size >= LEADERBOARD_DIRTY_MAX || at - state.asOf >= LEADERBOARD_REFRESH_MS) refreshLeaderboard(state, at, readWallet(ctx));
  },
  toSnapshot: (state): LeaderboardSnapshot => ({ ...state, dirty: [...state.dirty] }),
  fromSnapshot: (data) => {
    const s = data as LeaderboardSnapshot;
    return { ...s, dirty: new Set(s.dirty) };
  },
};
