import { KNOWN_MINTS, TRADE, bytesOfDoubles, doublesOfBytes } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../engine/supervisor/index.ts';
import { DAY_FIELDS, DAY_MS, type Position, type WalletState } from './wallet.logic.ts';

/**
 * The incremental rankings of wallet accounting (DECISIONS.md: "Leaderboards and top
 * traders are maintained incrementally"), two actor kinds fed the same `pool.trade`
 * events as the wallet actor, reading its positions (top traders after it, the
 * leaderboard before it):
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
 *   says `as_of`. A refresh a trade begins goes on over the trades after it, a few
 *   hundred positions each (LeaderboardRefresh), with the rows of its time as the
 *   result; a request finds it done (the rest done then).
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

/**
 * Wallet positions a leaderboard apply reads at most for a refresh under way (the
 * first wallet whatever its size): the refresh's cost spread over the trades after it,
 * ~0.1 ms an apply here with the wallets resident (a refresh of 10,000-20,000 marked
 * wallets took 100-800 ms in one apply during a backlog, bench/README.md). At this rate
 * a refresh of 20,000 wallets of 25 positions is done within ~1,000 trades; the next
 * refresh is due 60 s of event time or 20,000 trades on.
 */
export const LEADERBOARD_STEP_POSITIONS = 512;

/**
 * A refresh begun at `at` (UTC day `day`) and not done: `left`, the wallets whose rows
 * are still to recompute from their state at `at`. A wallet's rows read only its
 * positions' day rows, which only its trades change, so its state at `at` is its state
 * until its next trade: the leaderboard, delivered each trade before the wallet is
 * (engine/system.ts), recomputes a wallet of `left` that trades before it applies the
 * trade, and up to LEADERBOARD_STEP_POSITIONS positions of the others at each trade.
 * The result is the whole refresh's at `at`.
 */
export interface LeaderboardRefresh {
  at: number;
  day: number;
  left: Set<string>;
}

export interface LeaderboardState {
  /** Event or engine time of the last refresh done (0: never). */
  asOf: number;
  /**
   * Per wallet, LB_FIELDS numbers for each of the windows 1d, 7d, 30d in that order (a
   * refresh under way changes them: read after `finishRefresh`). A Map: an object keyed
   * by 10,000-30,000 addresses is a dictionary, slower to look up, list and delete from.
   */
  rows: Map<string, number[]>;
  /** Wallets traded since the last refresh began. */
  dirty: Set<string>;
  /** Bumped at each refresh done (the reads' sorted views). */
  version: number;
  /** The refresh under way, or null (absent in snapshots written before it). */
  refresh: LeaderboardRefresh | null;
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
 * Begins a refresh at `now`: the marked wallets' rows (every row on a new UTC day) are
 * to recompute from their state at `now` (LeaderboardRefresh). A refresh still under way
 * is done first.
 */
export function beginRefresh(state: LeaderboardState, now: number, read: (wallet: string) => Readonly<WalletState> | undefined): void {
  if (state.refresh !== null) finishRefresh(state, read);
  const day = Math.floor(now / DAY_MS);
  if (state.asOf > 0 && Math.floor(state.asOf / DAY_MS) !== day) for (const w of state.rows.keys()) state.dirty.add(w);
  state.refresh = { at: now, day, left: state.dirty };
  state.dirty = new Set();
}

/** Recomputes the row of `wallet` (in the refresh under way's `left`) from `s`, its state at the refresh's time; the number of its positions. */
function refreshRow(state: LeaderboardState, refresh: LeaderboardRefresh, wallet: string, s: Readonly<WalletState> | undefined): number {
  refresh.left.delete(wallet);
  const existing = state.rows.get(wallet);
  const row = existing ?? [];
  if (!s || !leaderboardRow(s, refresh.day, row)) {
    if (existing) state.rows.delete(wallet);
    return s ? s.positions.size : 0;
  }
  if (!existing) state.rows.set(wallet, row);
  return s.positions.size;
}

/**
 * Goes on with the refresh under way: rows of wallets left, until `positions`
 * positions were read (at least one wallet), then, once none is left, the cut to the
 * LEADERBOARD_MAX wallets with the most 30-day volume, `asOf` and `version`. True once
 * no refresh is under way.
 */
export function stepRefresh(state: LeaderboardState, read: (wallet: string) => Readonly<WalletState> | undefined, positions: number): boolean {
  const refresh = state.refresh;
  if (refresh === null) return true;
  let budget = positions;
  for (const w of refresh.left) {
    budget -= refreshRow(state, refresh, w, read(w));
    if (budget <= 0) break;
  }
  if (refresh.left.size > 0) return false;
  if (state.rows.size > LEADERBOARD_MAX) cut(state);
  if (refresh.at > state.asOf) state.asOf = refresh.at;
  state.refresh = null;
  state.version++;
  return true;
}

/** Does the refresh under way to its end now (a read, or the next refresh). */
export function finishRefresh(state: LeaderboardState, read: (wallet: string) => Readonly<WalletState> | undefined): void {
  stepRefresh(state, read, Infinity);
}

/**
 * Keeps the LEADERBOARD_MAX rows with the most 30-day volume (ties: the lower address):
 * those above the LEADERBOARD_MAX-th volume, and of those at it the lower addresses. The
 * volumes sorted as doubles, not the rows as entries by a comparator (20-80 ms for
 * 12,000-25,000 rows of an object on this machine under load, in the apply that ends a
 * refresh).
 */
function cut(state: LeaderboardState): void {
  const rows = state.rows;
  const volumes = new Float64Array(rows.size);
  let i = 0;
  for (const row of rows.values()) volumes[i++] = row[VOLUME_30D]!;
  const threshold = volumes.sort()[rows.size - LEADERBOARD_MAX]!;
  let above = 0;
  const at: string[] = [];
  for (const [wallet, row] of rows) {
    const v = row[VOLUME_30D]!;
    if (v > threshold) above++;
    else if (v === threshold) at.push(wallet);
    else rows.delete(wallet);
  }
  if (at.length > LEADERBOARD_MAX - above) {
    at.sort();
    for (let k = LEADERBOARD_MAX - above; k < at.length; k++) rows.delete(at[k]!);
  }
}

/**
 * Refreshes at `now`, whole (a read that finds the rows stale): the marked wallets' rows
 * (every row on a new UTC day) recomputed from their states (`read`), rows without
 * trades in 30 days dropped, and the LEADERBOARD_MAX wallets with the most 30-day
 * volume kept. A refresh under way is done first.
 */
export function refreshLeaderboard(state: LeaderboardState, now: number, read: (wallet: string) => Readonly<WalletState> | undefined): void {
  beginRefresh(state, now, read);
  finishRefresh(state, read);
}

/**
 * Whether a request at `now` should refresh first: rows older than LEADERBOARD_REFRESH_MS
 * (with nothing marked, the refresh only moves as_of on: the rows are current).
 */
export const leaderboardStale = (state: Readonly<LeaderboardState>, now: number): boolean => now - state.asOf >= LEADERBOARD_REFRESH_MS;

interface LeaderboardSnapshot extends Omit<LeaderboardState, 'rows' | 'dirty' | 'refresh'> {
  /** The wallets with a row, in the rows' order, and their rows: `width` doubles each in `figures` (rowsToData). */
  wallets?: string[];
  figures?: Uint8Array;
  width?: number;
  /** Snapshots written before `figures`: entries, or an object by wallet (with a `count`). */
  rows?: Array<[string, number[]]> | Record<string, number[]>;
  dirty: string[];
  refresh?: { at: number; day: number; left: string[] } | null;
}

/** The wallets a refresh reads in the background (ActorHost.peek): they keep their place in the resident LRU order. */
let peekCtx: ActorContext | null = null;
let peekFn: (w: string) => WalletState | undefined = () => undefined;
/** `ctx.peek` of a wallet as a function: made once per context (a host's is one object), not at each trade of a refresh under way. */
function peekWallet(ctx: ActorContext): (w: string) => WalletState | undefined {
  if (ctx !== peekCtx) {
    peekCtx = ctx;
    peekFn = (w) => ctx.peek<WalletState>('wallet', w) as WalletState | undefined;
  }
  return peekFn;
}

export const LEADERBOARD_KEY = 'all';

export const leaderboardBehavior: ActorBehavior<LeaderboardState> = {
  kind: 'wallet-leaderboard',
  takes: ['pool.trade'],
  route: (e) => (e.type === 'pool.trade' ? LEADERBOARD_KEY : undefined),
  initial: () => ({ asOf: 0, rows: new Map(), dirty: new Set(), version: 0, refresh: null }),
  // Delivered each trade before the wallet (engine/system.ts): the wallet is as it was at the refresh under way's time.
  apply(state, e, ctx) {
    if (e.type !== 'pool.trade') return;
    const wallet = e.trade[TRADE.wallet];
    const at = e.trade[TRADE.at];
    const refresh = state.refresh;
    if (refresh !== null) {
      // Its row as of the refresh, before this trade changes the wallet.
      if (refresh.left.has(wallet)) refreshRow(state, refresh, wallet, ctx.read<WalletState>('wallet', wallet));
      stepRefresh(state, peekWallet(ctx), LEADERBOARD_STEP_POSITIONS);
    }
    state.dirty.add(wallet);
    // The last refresh's time: the one under way's (a whole refresh moved as_of there at once).
    const last = state.refresh !== null && state.refresh.at > state.asOf ? state.refresh.at : state.asOf;
    // This trade's wallet is read at a later trade, after the wallet applied this one; a
    // refresh still under way (rare: 512 positions a trade) is done first, in the background.
    if (state.dirty.size >= LEADERBOARD_DIRTY_MAX || at - last >= LEADERBOARD_REFRESH_MS) beginRefresh(state, at, peekWallet(ctx));
  },
  toSnapshot: (state): LeaderboardSnapshot => ({
    asOf: state.asOf,
    ...rowsToData(state.rows),
    dirty: [...state.dirty],
    version: state.version,
    refresh: state.refresh && { at: state.refresh.at, day: state.refresh.day, left: [...state.refresh.left] },
  }),
  fromSnapshot: (data) => {
    const s = data as LeaderboardSnapshot;
    return {
      asOf: s.asOf,
      rows: s.figures !== undefined ? rowsFromData(s.wallets!, s.figures, s.width!) : new Map(Array.isArray(s.rows) ? s.rows : Object.entries(s.rows ?? {})),
      dirty: new Set(s.dirty),
      version: s.version,
      refresh: s.refresh ? { at: s.refresh.at, day: s.refresh.day, left: new Set(s.refresh.left) } : null,
    };
  },
};

/**
 * The rows for the leaderboard's snapshot: the wallets, and every row's numbers in one
 * binary of doubles. As an array of [wallet, 21 numbers] entries, msgpack walked every
 * number of tens of thousands of rows at each checkpoint: 70-80 ms of the main thread
 * a snapshot during a 1M-swap backlog (bench/README.md, market). Rows of another length
 * than the first's (none is) keep the entries.
 */
function rowsToData(rows: ReadonlyMap<string, number[]>): Pick<LeaderboardSnapshot, 'wallets' | 'figures' | 'width' | 'rows'> {
  const width = rows.size === 0 ? 0 : rows.values().next().value!.length;
  const figures = new Float64Array(rows.size * width);
  const wallets: string[] = [];
  let o = 0;
  for (const [wallet, row] of rows) {
    if (row.length !== width) return { rows: [...rows] };
    wallets.push(wallet);
    for (let k = 0; k < width; k++) figures[o + k] = row[k]!;
    o += width;
  }
  return { wallets, figures: bytesOfDoubles(figures), width };
}

function rowsFromData(wallets: readonly string[], bytes: Uint8Array, width: number): Map<string, number[]> {
  const figures = doublesOfBytes(bytes);
  const rows = new Map<string, number[]>();
  for (let i = 0; i < wallets.length; i++) rows.set(wallets[i]!, Array.from(figures.subarray(i * width, (i + 1) * width)));
  return rows;
}
