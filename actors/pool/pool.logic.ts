import type { MigrationEvent, PoolEvent, SwapEvent } from '../../engine/ingest/index.ts';
import { KNOWN_MINTS, type StoredTrade, type TradeKey } from '../../engine/model/index.ts';
import type { CandlesRepo, TradesRepo } from '../../storage/index.ts';
import { PoolCandles, SEQ_STALE_GAP } from './candles.ts';
import { PoolClosedCandles } from './closed-candles.ts';
import { CurveGain } from './curve-gain.ts';
import { DistinctWallets } from './distinct.ts';
import type { PoolTrade } from './trade.ts';
import { TradeLog } from './trade-log.ts';
import { PoolWindows } from './windows.ts';
import { poolTrades } from './pool-trades.ts';
import type { TradeSource } from './trade-candles.ts';

/** What the pool actor knows of its pool from its `pool` event and migrations. */
export interface PoolInfo {
  pool_address: string;
  base_address: string;
  quote_address: string;
  dex: string;
  pool_type: 'bonding_curve' | 'amm' | 'cpmm' | 'clmm';
  created_at: number;
  created_slot: number;
  migrated_from_pool_address: string | null;
  migrated_at: number | null;
  /** The pool that replaced this bonding curve at graduation. */
  replaced_by_pool_address: string | null;
  /** Real base reserve at launch, whole tokens (bonding curves). */
  curve_initial_real_base: number | null;
}

/** Everything a swap needs from other actors, read when it is applied. */
export interface PricingInputs {
  baseDecimals: number;
  quoteDecimals: number;
  /** Total supply of the base token, whole tokens. */
  supply: number | null;
  /** USD price of the quote asset at the trade's time, or null. */
  quoteUsd: number | null;
}

export interface PoolTotals {
  volume_quote: number;
  buy_volume_quote: number;
  sell_volume_quote: number;
  volume_usd: number | null;
  buy_volume_usd: number | null;
  sell_volume_usd: number | null;
  trade_count: number;
  buy_count: number;
  sell_count: number;
  ath_market_cap_quote: number;
  ath_market_cap_usd: number | null;
  /** Time of the trade that set ath_market_cap_quote (chart_lines' ath set_at); absent in snapshots written before it. */
  ath_at?: number | null;
  first_trade_at: number | null;
  /** Position and price of the first trade (by chain order): launch price. */
  first_key: TradeKey | null;
  launch_price_quote: number | null;
  launch_price_usd: number | null;
}

export interface PoolState {
  pool_address: string;
  info: PoolInfo | null;
  /** Swaps seen before the pool event or the base token's decimals; applied once known. */
  waiting: SwapEvent[];
  /** Reserves after the latest trade by chain position, whole units. */
  last_key: [slot: number, txIndex: number, eventIndex: number] | null;
  base_reserve: number;
  quote_reserve: number;
  real_base_reserve: number | null;
  real_quote_reserve: number | null;
  last_trade_at: number | null;
  last_quote_usd: number | null;
  supply: number | null;
  totals: PoolTotals;
  /**
   * Trades not yet in the trades store (written with the pool's snapshot), sorted, as
   * msgpack bytes encoded when applied: no JS object per trade outlives the swap.
   */
  unsaved: TradeLog;
  /**
   * The batch of trades written to the trades store whose transaction has not committed
   * yet (one at a time, pool.actor.ts): LMDB shows a put only once committed, so reads
   * take it from here meanwhile (never in a snapshot: the snapshot commits with it).
   */
  writing: TradeLog | null;
  /** The latest trade position already in the trades store. */
  persisted_up_to: TradeKey | null;
  /** Candles of every interval; closed ones go to `closed` and from there to LMDB, but 1s and 15s ones, which `closed` folds from the trades. */
  candles: PoolCandles;
  closed: PoolClosedCandles;
  /** Rolling 1m-24h windows (SERVICE.md 2.5). */
  windows: PoolWindows;
  /** All-time distinct traders, buyers, sellers (approximate). */
  distinct: DistinctWallets;
  /** A curve's reserve at the start of the last 5 minutes (bonding_curve_gain_5m_pct). */
  curveGain: CurveGain;
  /**
   * Swaps that waited (for the pool event or the token's decimals) and were applied by
   * a pool event: that event's seq and their keys. Their `pool.trade` events are
   * derived at that seq, not their own (the pool actor's rederive reads this).
   */
  drained: Array<[seq: number, keys: TradeKey[]]>;
  /** The trade that completed the bonding curve (its `pool.graduated` with no pool to go to), once one did. */
  completed_key: TradeKey | null;
}


/**
 * The pool's trades for the candles it folds from them (trade-candles.ts): the trades
 * store's and those in `state` as it is when read (`unsaved` and `writing` are replaced
 * at checkpoints).
 */
export function tradeSourceOf(pool_address: string, tradesRepo: TradesRepo | null, state: () => PoolState): TradeSource {
  return (w) => poolTrades(tradesRepo, pool_address, state(), w);
}

/**
 * A new pool; without a candles repo its closed candles stay in memory, without a
 * trades repo its trades (tests). `staleGaps`: the pool may have existed before
 * (ActorBehavior.initial): its candle seqs start that many SEQ_STALE_GAPs on.
 */
export function initialPool(pool_address: string, candlesRepo: CandlesRepo | null = null, staleGaps = 0, tradesRepo: TradesRepo | null = null): PoolState {
  const closed = new PoolClosedCandles(pool_address, candlesRepo, undefined, tradeSourceOf(pool_address, tradesRepo, () => state));
  const state: PoolState = {
    pool_address,
    info: null,
    waiting: [],
    last_key: null,
    base_reserve: 0,
    quote_reserve: 0,
    real_base_reserve: null,
    real_quote_reserve: null,
    last_trade_at: null,
    last_quote_usd: null,
    supply: null,
    totals: {
      volume_quote: 0, buy_volume_quote: 0, sell_volume_quote: 0, volume_usd: null, buy_volume_usd: null, sell_volume_usd: null,
      trade_count: 0, buy_count: 0, sell_count: 0, ath_market_cap_quote: 0, ath_market_cap_usd: null, ath_at: null,
      first_trade_at: null, first_key: null, launch_price_quote: null, launch_price_usd: null,
    },
    unsaved: new TradeLog(),
    writing: null,
    persisted_up_to: null,
    candles: new PoolCandles(closed, staleGaps * SEQ_STALE_GAP),
    closed,
    windows: new PoolWindows(),
    distinct: new DistinctWallets(),
    curveGain: new CurveGain(),
    drained: [],
    completed_key: null,
  };
  return state;
}

export function applyPool(state: PoolState, e: PoolEvent, decimalsOfBase: number | null): void {
  const existing = state.info;
  state.info = {
    pool_address: e.pool_address,
    base_address: e.base_address,
    quote_address: e.quote_address,
    dex: e.dex,
    pool_type: e.pool_type,
    created_at: e.created_at,
    created_slot: e.slot,
    migrated_from_pool_address: e.migrated_from_pool_address ?? existing?.migrated_from_pool_address ?? null,
    migrated_at: existing?.migrated_at ?? null,
    replaced_by_pool_address: existing?.replaced_by_pool_address ?? null,
    curve_initial_real_base:
      e.curve_initial_real_base_raw != null && decimalsOfBase !== null ? Number(e.curve_initial_real_base_raw) / 10 ** decimalsOfBase : null,
  };
}

/** A migration names this pool as the curve (from) or the AMM pool (to). */
export function applyMigrationToPool(state: PoolState, e: MigrationEvent): 'graduated' | 'migrated_into' | null {
  const info = state.info;
  if (!info) return null;
  if (e.from_pool_address === state.pool_address) {
    info.replaced_by_pool_address = e.to_pool_address;
    info.migrated_at = e.at;
    return 'graduated';
  }
  info.migrated_from_pool_address ??= e.from_pool_address;
  info.migrated_at = e.at;
  return 'migrated_into';
}

const posAfter = (a: [number, number, number], e: SwapEvent) =>
  e.slot > a[0] || (e.slot === a[0] && (e.tx_index > a[1] || (e.tx_index === a[1] && e.event_index > a[2])));

/**
 * Derives the trade of a swap (INGEST.md derivations) and applies it to reserves and
 * totals. Reserves follow the latest trade by chain position, so late arrivals do not
 * move them back. Returns the record of it the trades store keeps.
 */
export function applySwap(state: PoolState, e: SwapEvent, p: PricingInputs): StoredTrade {
  const baseScale = 10 ** p.baseDecimals;
  const quoteScale = 10 ** p.quoteDecimals;
  const baseAmount = Number(e.base_amount_raw) / baseScale;
  const quoteAmount = Number(e.quote_amount_raw) / quoteScale;
  const baseReserve = Number(e.base_reserve_raw) / baseScale;
  const quoteReserve = Number(e.quote_reserve_raw) / quoteScale;
  const spot = baseReserve > 0 ? quoteReserve / baseReserve : 0;
  const priceQuote = baseAmount > 0 ? quoteAmount / baseAmount : spot;
  const supply = p.supply ?? 0;
  // The trade's own price × supply (DECISIONS.md): market-cap candles are price candles × supply.
  const marketCapQuote = priceQuote * supply;
  const usd = p.quoteUsd;
  const trade: PoolTrade = {
    at: e.at,
    slot: e.slot,
    txIndex: e.tx_index,
    eventIndex: e.event_index,
    side: e.side,
    wallet: e.wallet_address,
    baseAmount,
    quoteAmount,
    priceQuote,
    priceUsd: usd === null ? null : priceQuote * usd,
    marketCapQuote,
    marketCapUsd: usd === null ? null : marketCapQuote * usd,
    quoteUsd: usd,
  };
  const realBaseReserve = e.real_base_reserve_raw != null ? Number(e.real_base_reserve_raw) / baseScale : null;
  const lastKey = state.last_key;
  if (lastKey === null || posAfter(lastKey, e)) {
    if (lastKey === null) state.last_key = [e.slot, e.tx_index, e.event_index];
    else {
      lastKey[0] = e.slot;
      lastKey[1] = e.tx_index;
      lastKey[2] = e.event_index;
    }
    state.base_reserve = baseReserve;
    state.quote_reserve = quoteReserve;
    state.real_base_reserve = realBaseReserve;
    state.real_quote_reserve = e.real_quote_reserve_raw != null ? Number(e.real_quote_reserve_raw) / quoteScale : null;
    state.last_trade_at = e.at;
    if (usd !== null) state.last_quote_usd = usd;
  }
  if (p.supply !== null) state.supply = p.supply;
  if (realBaseReserve !== null && state.info?.pool_type === 'bonding_curve') {
    state.curveGain.add(e.at, e.slot, e.tx_index, e.event_index, realBaseReserve);
  }
  const t = state.totals;
  const buy = e.side === 'buy';
  t.trade_count++;
  t.volume_quote += quoteAmount;
  if (buy) {
    t.buy_count++;
    t.buy_volume_quote += quoteAmount;
  } else {
    t.sell_count++;
    t.sell_volume_quote += quoteAmount;
  }
  if (usd !== null) {
    const v = quoteAmount * usd;
    t.volume_usd = (t.volume_usd ?? 0) + v;
    if (buy) t.buy_volume_usd = (t.buy_volume_usd ?? 0) + v;
    else t.sell_volume_usd = (t.sell_volume_usd ?? 0) + v;
    if (trade.marketCapUsd! > (t.ath_market_cap_usd ?? 0)) t.ath_market_cap_usd = trade.marketCapUsd;
  }
  if (marketCapQuote > t.ath_market_cap_quote) {
    t.ath_market_cap_quote = marketCapQuote;
    t.ath_at = e.at;
  }
  // The launch trade is the first by chain position (slot, tx, event), not by time.
  const first = t.first_key;
  if (first === null || (e.slot - first[1] || e.tx_index - first[2] || e.event_index - first[3]) < 0) {
    t.first_key = [e.at, e.slot, e.tx_index, e.event_index];
    t.first_trade_at = e.at;
    t.launch_price_quote = priceQuote;
    t.launch_price_usd = trade.priceUsd;
  }
  // A curve's trade carries its progress (StoredTrade.curvePct): one literal or the other, no array grown.
  const stored: StoredTrade =
    state.info?.pool_type === 'bonding_curve'
      ? [e.at, e.slot, e.tx_index, e.event_index, buy ? 1 : 0, e.wallet_address, baseAmount, quoteAmount, priceQuote, usd, marketCapQuote, e.tx_hash, curveAfterTrade(state)]
      : [e.at, e.slot, e.tx_index, e.event_index, buy ? 1 : 0, e.wallet_address, baseAmount, quoteAmount, priceQuote, usd, marketCapQuote, e.tx_hash];
  state.unsaved.insert(stored);
  state.candles.add(trade);
  state.windows.add(trade);
  state.distinct.add(e.wallet_address, buy);
  return stored;
}

/** Spot price after the latest trade, quote per base. */
export const spotPrice = (s: PoolState) => (s.base_reserve > 0 ? s.quote_reserve / s.base_reserve : 0);

/**
 * INGEST.md: 2 × quote reserve for AMMs; the real quote reserve on a bonding curve,
 * none once it graduated (what it held moved to the pool that replaced it, so a
 * token's pools never count it twice).
 */
export function liquidityQuote(s: PoolState): number {
  if (s.info?.pool_type === 'bonding_curve') return s.info.replaced_by_pool_address !== null ? 0 : (s.real_quote_reserve ?? 0);
  return 2 * s.quote_reserve;
}

/** 0..100; 0 after migration; null for pools without a curve. */
export function curveProgress(s: PoolState): number | null {
  const info = s.info;
  if (!info || info.pool_type !== 'bonding_curve') return null;
  if (info.replaced_by_pool_address) return 0;
  const initial = info.curve_initial_real_base;
  if (!initial || s.real_base_reserve === null) return 0;
  return progressOf(initial, s.real_base_reserve);
}

/**
 * StoredTrade.curvePct of a curve's trade, once it is applied: its progress as the
 * pool stands (reserves of the latest trade by chain position), 100 once complete (the
 * real base reserve at 0, or a completion recorded), null once migrated.
 */
function curveAfterTrade(s: PoolState): number | null {
  if (s.info!.replaced_by_pool_address) return null;
  return s.completed_key !== null || s.real_base_reserve === 0 ? 100 : curveProgress(s);
}

/** Curve progress 0..100 at a real base reserve, from the reserve at launch (> 0). */
function progressOf(initial: number, reserve: number): number {
  return Math.min(100, Math.max(0, (100 * (initial - reserve)) / initial));
}

/**
 * bonding_curve_gain_5m_pct: curve progress now minus progress at the start of the
 * 5 minutes up to `now` (curve-gain.ts), in percentage points, rounded like the
 * other percentages; 0 for a curve that lost progress over them (sells: SERVICE.md
 * 2.4 keeps every _pct of the totals within 0 to 100, and the field names a gain);
 * null for pools without a curve and for a curve that graduated (its progress reads
 * 0 from then on, which is no loss of progress).
 */
export function curveGain5m(s: PoolState, now: number): number | null {
  const progress = curveProgress(s);
  if (progress === null || s.info!.replaced_by_pool_address) return null;
  return curveGainTo(s, progress, now);
}

/**
 * curveGain5m from a progress given (a trade's StoredTrade.curvePct, read by the
 * token's signals) rather than the pool's now; null without a curve's launch reserve.
 */
export function curveGainTo(s: PoolState, progress: number, now: number): number | null {
  const initial = s.info?.curve_initial_real_base;
  if (!initial) return null;
  const reserve = s.curveGain.reserveAtWindowStart(now);
  const before = reserve === null ? 0 : progressOf(initial, reserve);
  return Math.max(0, progress - before);
}

/** Is the quote asset wSOL/USDC (priced by quote_price) rather than a token? */
export const quoteIsKnown = (info: PoolInfo) => info.quote_address in KNOWN_MINTS;
