import { KNOWN_MINTS, TRADE, WSOL, type StoredTrade } from '../../engine/model/index.ts';
import type { WalletSignals } from '../signals/index.ts';
import { Positions } from './positions.ts';

/**
 * Wallet accounting (DECISIONS.md, "Wallet accounting"): per wallet, a position per
 * token across every pool of the token, each trade seen from that token's side, at
 * average cost in USD; transfers from `balance` events. Pure functions over plain
 * mutable state (the wallet actor, wallet.actor.ts, applies them; the reads,
 * engine/query/wallets.ts, sum them).
 *
 * - A buy adds its USD amount to cost and its tokens to the quantity. A sell realizes
 *   `amount_usd − average cost × tokens sold`; the part of a sell above the known
 *   quantity realizes against a cost of 0 (the quantity stops at 0).
 * - A trade without a USD value (no quote price known) counts in the trade counts and
 *   `unpriced`, not in USD volumes or PnL: an unpriced buy adds its tokens at the
 *   average cost so far (0 for the first), an unpriced sell takes its tokens out at
 *   average cost (no realized PnL).
 * - A `balance` event (last write by slot) above the quantity the position knows: the
 *   difference came by transfer, at the token's USD price at that event (its main
 *   pool's, as the actors stand then; at the average cost when no USD price is known),
 *   adding to cost, not a buy. Below: the difference left by transfer at average cost,
 *   no realized PnL. Balances are compared with the swaps applied before them (sources
 *   send a swap before the balances it leaves).
 * - Per UTC day and token: buys, sells, USD volume, realized PnL and unpriced trades,
 *   the last DAYS_KEPT days, for daily_pnl and the 1d/7d/30d windows.
 * - A wallet's trades themselves are in the trades store (route 25, the leaderboard's
 *   recent_trades), not here.
 */

export const DAY_MS = 86_400_000;
/** Days of per-day rows a position keeps (daily_pnl goes back 90 days, windows 30). */
export const DAYS_KEPT = 92;
/** Numbers per day row in Position.days: day, buys, sells, volume_usd, realized_usd, unpriced. */
export const DAY_FIELDS = 6;
/** Relative difference under which a balance and a quantity are the same (float rounding of raw / 10^decimals). */
const SAME = 1e-9;

export interface Position {
  /** Tokens held, as swaps and transfers tell (whole tokens). */
  qty: number;
  /** USD cost of `qty`. */
  cost: number;
  /** Realized PnL in USD, all time. */
  realized: number;
  buys: number;
  sells: number;
  buyUsd: number;
  sellUsd: number;
  unpriced: number;
  firstBuyAt: number | null;
  /** The market cap (USD) at the first buy, for signals (route 22's entry market cap); null when unpriced, absent in older snapshots. */
  entryMcapUsd?: number | null;
  lastTradeAt: number | null;
  /** Slot of the last balance event applied, −1 before any. */
  balanceSlot: number;
  /** The token's decimals when known (balance_raw), else −1. */
  decimals: number;
  /** Per UTC day, ascending, DAY_FIELDS numbers each. */
  days: number[];
  /**
   * The levels chart_lines draws (engine/topics/chart-lines.ts), over the trades where
   * the token is the pool's base (a token-quoted pool's quote side is not one of them):
   * the quote asset of the first such trade (levelQuote) is the one quote sums and the
   * largest trades take, USD sums take every priced one. `lvQuote` is that asset, null
   * for wrapped SOL (most positions: no 44-character string per position in memory and
   * in every snapshot). Each side from its first trade on (null before).
   */
  lvQuote: string | null;
  lvBuy: number[] | null;
  lvSell: number[] | null;
}

/**
 * The indices of a position's buys or sells as chart_lines reads them (Position.lvBuy,
 * lvSell): ten doubles in a plain array (unboxed double elements, ~100 bytes; an
 * object of seven number fields and a tuple for the largest trade took ~175).
 */
export const LV = {
  /** Tokens of every trade. */
  tokens: 0,
  /** Tokens and quote amount of those in the levels' quote asset (levelQuote). */
  quoteTokens: 1,
  quote: 2,
  /** Tokens and USD amount of those with a USD value. */
  pricedTokens: 3,
  usd: 4,
  /** Time of the latest. */
  at: 5,
  /** The largest in the levels' quote asset by tokens (the first of equals): its tokens (0: none yet), price in quote, price in USD (NaN: unknown), time. */
  topTokens: 6,
  topPriceQuote: 7,
  topPriceUsd: 8,
  topAt: 9,
} as const;

/** The level fields of a new position (and of one from a snapshot written before them). */
const NO_LEVELS = { lvQuote: null, lvBuy: null, lvSell: null } as const satisfies Partial<Position>;

/** The quote asset of a position's levels (see Position.lvQuote), or null before its first. */
export const levelQuote = (p: Position): string | null => (p.lvBuy === null && p.lvSell === null ? null : (p.lvQuote ?? WSOL));

/** A position from a snapshot: those written before the level fields get them empty (their earlier trades are not in them). */
export function positionFromSnapshot(p: Position): Position {
  return p.lvBuy === undefined ? Object.assign(p, NO_LEVELS) : p;
}

export interface WalletState {
  wallet_address: string;
  /**
   * By token address, read as a Map (a Map inside: an object given each wallet's own
   * token keys would make a hidden class per wallet and key, and every lookup
   * megamorphic), kept packed until read (positions.ts). Changed only through
   * `mutable` and `add`.
   */
  positions: Positions;
  /** big_win and first_buy's cooldowns (wallet-signals.ts), from the wallet's first signal on; absent with signals off. */
  signals?: WalletSignals;
}

export function initialWallet(wallet_address: string): WalletState {
  return { wallet_address, positions: new Positions() };
}

function newPosition(): Position {
  return { qty: 0, cost: 0, realized: 0, buys: 0, sells: 0, buyUsd: 0, sellUsd: 0, unpriced: 0, firstBuyAt: null, entryMcapUsd: null, lastTradeAt: null, balanceSlot: -1, decimals: -1, days: [], ...NO_LEVELS };
}

function positionOf(state: WalletState, token: string): Position {
  let p = state.positions.mutable(token);
  if (p === undefined) state.positions.add(token, (p = newPosition()));
  return p;
}

/** Average cost of one token of the position (0 when none is held). */
export const avgCost = (p: Position): number => (p.qty > 0 ? p.cost / p.qty : 0);

/**
 * The average cost of the tokens a sell of `tokens` takes out of the position: the part
 * above the known quantity costs 0. Its realized PnL is its USD value minus this.
 */
export function sellCost(p: Readonly<Position>, tokens: number): number {
  const held = p.qty > 0 ? p.qty : 0;
  const matched = tokens < held ? tokens : held;
  return held > 0 ? (p.cost * matched) / held : 0;
}

/** A day row for trades of a day older than the rows kept: written to, never read. */
const SCRATCH: number[] = [0, 0, 0, 0, 0, 0];

/**
 * The array and index of `day`'s row: in `p.days`, added in order (and rows older than
 * DAYS_KEPT before the newest dropped), or SCRATCH for a day older than those kept.
 */
function dayRow(p: Position, day: number): number {
  const d = p.days;
  if (d.length > 0 && day <= d[d.length - DAY_FIELDS]! - DAYS_KEPT) return -1;
  let i = d.length - DAY_FIELDS;
  while (i >= 0 && d[i]! > day) i -= DAY_FIELDS;
  if (i >= 0 && d[i] === day) return i;
  const at = i + DAY_FIELDS;
  d.splice(at, 0, day, 0, 0, 0, 0, 0);
  const newest = d[d.length - DAY_FIELDS]!;
  let drop = 0;
  while (drop < d.length && d[drop]! <= newest - DAYS_KEPT) drop += DAY_FIELDS;
  if (drop > 0) {
    d.splice(0, drop);
    return at - drop;
  }
  return at;
}

/**
 * One trade of the wallet from `token`'s side: `buy` (the wallet received the token),
 * `tokens` moved, `usd` the trade's USD value or null.
 */
export function applyTokenTrade(p: Position, buy: boolean, tokens: number, usd: number | null, at: number, mcapUsd: number | null = null): void {
  let row = dayRow(p, Math.floor(at / DAY_MS));
  const d = row < 0 ? SCRATCH : p.days;
  if (row < 0) row = 0;
  if (buy) {
    if (usd === null) p.cost += tokens * avgCost(p);
    else {
      p.cost += usd;
      p.buyUsd += usd;
      d[row + 3] += usd;
    }
    p.qty += tokens;
    p.buys++;
    d[row + 1]++;
    if (p.firstBuyAt === null || at < p.firstBuyAt) {
      p.firstBuyAt = at;
      p.entryMcapUsd = mcapUsd;
    }
  } else {
    const held = p.qty > 0 ? p.qty : 0;
    const matched = tokens < held ? tokens : held;
    const costOut = sellCost(p, tokens);
    if (usd !== null) {
      const pnl = usd - costOut;
      p.realized += pnl;
      p.sellUsd += usd;
      d[row + 3] += usd;
      d[row + 4] += pnl;
    }
    p.cost = matched === held ? 0 : p.cost - costOut;
    p.qty = held - matched;
    p.sells++;
    d[row + 2]++;
  }
  if (usd === null) {
    p.unpriced++;
    d[row + 5]++;
  }
  if (p.lastTradeAt === null || at > p.lastTradeAt) p.lastTradeAt = at;
}

/** The wallet's trade `t` in a pool of `base` quoted in `quote`: its base side, and its quote side for a quote that is not a known mint. */
export function applyPoolTrade(state: WalletState, base: string, quote: string, t: StoredTrade): void {
  const quoteUsd = t[TRADE.quoteUsd];
  const usd = quoteUsd === null ? null : t[TRADE.quoteAmount] * quoteUsd;
  const buy = t[TRADE.side] === 1;
  const at = t[TRADE.at];
  const p = positionOf(state, base);
  applyTokenTrade(p, buy, t[TRADE.baseAmount], usd, at, quoteUsd === null ? null : t[TRADE.marketCapQuote] * quoteUsd);
  applyLevels(p, quote, t);
  if (!(quote in KNOWN_MINTS)) applyTokenTrade(positionOf(state, quote), !buy, t[TRADE.quoteAmount], usd, at);
}

/**
 * The chart levels of a trade where the position's token is the pool's base (see
 * Position.lvQuote): counts and sums, and the largest buy or sell by tokens.
 */
function applyLevels(p: Position, quote: string, t: StoredTrade): void {
  const tokens = t[TRADE.baseAmount];
  const quoteUsd = t[TRADE.quoteUsd];
  const priceQuote = t[TRADE.priceQuote];
  const at = t[TRADE.at];
  if (p.lvBuy === null && p.lvSell === null) p.lvQuote = quote === WSOL ? null : quote;
  let side = t[TRADE.side] === 1 ? p.lvBuy : p.lvSell;
  if (side === null) {
    // NaN first: the array holds unboxed doubles from the start.
    side = [0, 0, 0, 0, 0, at, 0, Number.NaN, Number.NaN, 0];
    if (t[TRADE.side] === 1) p.lvBuy = side;
    else p.lvSell = side;
  }
  side[LV.tokens] += tokens;
  if ((p.lvQuote ?? WSOL) === quote) {
    side[LV.quoteTokens] += tokens;
    side[LV.quote] += t[TRADE.quoteAmount];
    if (tokens > side[LV.topTokens]!) {
      side[LV.topTokens] = tokens;
      side[LV.topPriceQuote] = priceQuote;
      side[LV.topPriceUsd] = quoteUsd === null ? Number.NaN : priceQuote * quoteUsd;
      side[LV.topAt] = at;
    }
  }
  if (quoteUsd !== null) {
    side[LV.pricedTokens] += tokens;
    side[LV.usd] += t[TRADE.quoteAmount] * quoteUsd;
  }
  if (at > side[LV.at]!) side[LV.at] = at;
}

/**
 * A `balance` event: the wallet holds `balance` tokens (whole) at `slot`. Ignored when
 * not newer than the last applied (last write by slot wins). `priceUsd` is the
 * token's USD price at the event, or null. True when the position changed.
 */
export function applyBalance(state: WalletState, token: string, balance: number, slot: number, decimals: number, priceUsd: number | null): boolean {
  const existing = state.positions.get(token);
  if (existing !== undefined && slot <= existing.balanceSlot) return false;
  const p = positionOf(state, token);
  p.balanceSlot = slot;
  p.decimals = decimals;
  const diff = balance - p.qty;
  if (Math.abs(diff) <= SAME * Math.max(Math.abs(balance), Math.abs(p.qty))) {
    p.qty = balance;
    return false;
  }
  if (diff > 0) p.cost += diff * (priceUsd ?? avgCost(p));
  else p.cost = balance <= 0 || p.qty <= 0 ? 0 : p.cost * (balance / p.qty);
  p.qty = balance > 0 ? balance : 0;
  return true;
}

/** What a window sums for one wallet (performance, leaderboard). */
export interface WindowTotals {
  realized: number;
  volume: number;
  buys: number;
  sells: number;
  unpriced: number;
  /** Tokens with a trade in the window. */
  tokens: number;
  /** Tokens sold in the window, and those of them with realized PnL above 0. */
  sold: number;
  wins: number;
  best: { token: string; realized: number } | null;
  worst: { token: string; realized: number } | null;
}

/**
 * Sums a wallet's positions over the UTC days from `fromDay` on (null: all time, from
 * the positions' totals): realized PnL of sells in it, volume, counts, tokens traded,
 * win rate inputs, best and worst token by realized PnL among those sold in it (ties: the lower address).
 */
export function windowTotals(state: Readonly<WalletState>, fromDay: number | null): WindowTotals {
  const out: WindowTotals = { realized: 0, volume: 0, buys: 0, sells: 0, unpriced: 0, tokens: 0, sold: 0, wins: 0, best: null, worst: null };
  for (const [token, p] of state.positions) {
    let realized = 0;
    let buys = 0;
    let sells = 0;
    if (fromDay === null) {
      realized = p.realized;
      buys = p.buys;
      sells = p.sells;
      out.volume += p.buyUsd + p.sellUsd;
      out.unpriced += p.unpriced;
    } else {
      const d = p.days;
      for (let i = d.length - DAY_FIELDS; i >= 0 && d[i]! >= fromDay; i -= DAY_FIELDS) {
        buys += d[i + 1]!;
        sells += d[i + 2]!;
        out.volume += d[i + 3]!;
        realized += d[i + 4]!;
        out.unpriced += d[i + 5]!;
      }
    }
    out.buys += buys;
    out.sells += sells;
    if (buys + sells > 0) out.tokens++;
    if (sells === 0) continue;
    out.realized += realized;
    out.sold++;
    if (realized > 0) out.wins++;
    if (out.best === null || realized > out.best.realized || (realized === out.best.realized && token < out.best.token)) out.best = { token, realized };
    if (out.worst === null || realized < out.worst.realized || (realized === out.worst.realized && token < out.worst.token)) out.worst = { token, realized };
  }
  return out;
}

/** Win rate in percent from window totals; null when nothing was sold in the window. */
export const winRatePct = (w: Pick<WindowTotals, 'sold' | 'wins'>): number | null => (w.sold === 0 ? null : (w.wins / w.sold) * 100);

/** One daily_pnl row per UTC day from `fromDay` to `toDay`, oldest first; days without trades are zeros. */
export function dailyRows(state: Readonly<WalletState> | undefined, fromDay: number, toDay: number) {
  const n = toDay - fromDay + 1;
  const realized = new Float64Array(n);
  const volume = new Float64Array(n);
  const buys = new Float64Array(n);
  const sells = new Float64Array(n);
  if (state) {
    for (const p of state.positions.values()) {
      const d = p.days;
      for (let i = d.length - DAY_FIELDS; i >= 0 && d[i]! >= fromDay; i -= DAY_FIELDS) {
        const k = d[i]! - fromDay;
        if (k >= n) continue;
        buys[k] += d[i + 1]!;
        sells[k] += d[i + 2]!;
        volume[k] += d[i + 3]!;
        realized[k] += d[i + 4]!;
      }
    }
  }
  return Array.from({ length: n }, (_, k) => ({
    date: new Date((fromDay + k) * DAY_MS).toISOString().slice(0, 10),
    realized_pnl_usd: realized[k]!,
    volume_usd: volume[k]!,
    buy_count: buys[k]!,
    sell_count: sells[k]!,
  }));
}

/** Whether a position is open (holds a quantity above 0). */
export const isOpen = (p: Position): boolean => p.qty > 0;

/** The raw balance of a position (qty × 10^decimals, rounded), or null when its decimals are unknown. */
export function rawOf(p: Position, decimals: number | null): string | null {
  const dec = decimals ?? (p.decimals >= 0 ? p.decimals : null);
  if (dec === null) return null;
  return BigInt(Math.round(p.qty * 10 ** dec)).toString();
}
