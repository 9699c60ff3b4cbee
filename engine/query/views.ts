import {
  DEFAULT_SNIPER_SLOTS,
  DistinctCounter,
  curveGain5m,
  curveProgress,
  holderStats,
  liquidityQuote,
  rawSupplyOf,
  spotPrice,
  supplyOf,
  type PoolState,
  type PoolTotals,
  type TokenState,
} from '../../actors/index.ts';

/**
 * The response shapes of SERVICE.md section 2 built from actor state. Pure functions:
 * the route groups (pools.ts, tokens.ts, search.ts) read the actors through state.ts
 * and pass their state. The token object and the trade record are the token actor's
 * (actors/index.ts tokenObject) and the model's (engine/model tradeRecord).
 */

const round = (n: number | null) => (n === null || !Number.isFinite(n) ? null : n);

/** The pool object of SERVICE.md 2.11, with its address. */
export function poolObject(s: PoolState) {
  const info = s.info!;
  return {
    pool_address: info.pool_address,
    base_address: info.base_address,
    quote_address: info.quote_address,
    dex: info.dex,
    pool_type: info.pool_type,
    created_at: info.created_at,
    migrated_from_pool_address: info.migrated_from_pool_address,
    migrated_at: info.migrated_from_pool_address ? info.migrated_at : null,
  };
}

/** SERVICE.md 2.3; `quoteUsd` is the quote asset's latest USD price, or null. */
export function snapshotOf(s: PoolState, quoteUsd: number | null) {
  const price = spotPrice(s);
  const supply = s.supply ?? 0;
  const liquidity = liquidityQuote(s);
  return {
    price_quote: price,
    price_usd: quoteUsd === null ? null : price * quoteUsd,
    market_cap_quote: price * supply,
    market_cap_usd: quoteUsd === null ? null : price * supply * quoteUsd,
    liquidity_quote: liquidity,
    liquidity_usd: quoteUsd === null ? null : liquidity * quoteUsd,
    bonding_curve_progress_pct: curveProgress(s) ?? 0,
  };
}

/**
 * Base tokens a pool holds, whole tokens, from its latest swap: an AMM's base reserve;
 * a bonding curve's real base reserve plus what it keeps back for its migration
 * (a launchpad curve holds the whole supply at launch: pump.fun's 793.1M for sale
 * and 206.9M for the AMM pool), nothing once graduated (all moved to its AMM pool).
 */
export function heldByPool(p: PoolState, supply: number): number {
  const info = p.info;
  if (!info) return 0;
  if (info.pool_type !== 'bonding_curve') return p.base_reserve;
  if (info.replaced_by_pool_address !== null) return 0;
  const initial = info.curve_initial_real_base;
  if (initial === null) return p.real_base_reserve ?? 0;
  return (p.real_base_reserve ?? initial) + Math.max(0, supply - initial);
}

const clamp = (n: number, max: number) => Math.min(max, Math.max(0, n));

/**
 * The pools whose trades are a token's (its totals on GET /tokens/{token} and in
 * search): those where it is the base, a graduated token's curve and its AMM pools
 * alike, in `pools`' order; the first of `pools` alone (its main pool) for a token
 * that is only ever a quote.
 */
export function tradedPools(token: string, pools: readonly PoolState[]): PoolState[] {
  const base = pools.filter((p) => p.info!.base_address === token);
  return base.length > 0 ? base : pools.slice(0, 1);
}

/** What a token's totals count over its traded pools (tokenTotals). */
export interface TokenTotals extends PoolTotals {
  trader_count: number;
  buyer_count: number;
  seller_count: number;
}

/** Is trade position a ([at, slot, tx, event]) before b, by chain order? */
const before = (a: PoolTotals['first_key'], b: PoolTotals['first_key']) =>
  a !== null && (b === null || (a[1] - b[1] || a[2] - b[2] || a[3] - b[3]) < 0);

/**
 * A token's all-time totals across its `traded` pools (tradedPools), the one
 * definition GET /tokens/{token} and search share: counts and USD volumes summed over
 * every pool; quote volumes, the quote ATH and the quote launch price over the pools in
 * `quote` (the main pool's quote asset) only, so they stay in one unit; the USD ATH
 * the highest of all; the launch (first_trade_at, launch_price_usd) the first trade
 * by chain position of all; distinct wallets the union (approximate past 512).
 * A USD volume is null while no counted trade had a USD value.
 */
export function tokenTotals(traded: readonly PoolState[], quote: string): TokenTotals {
  if (traded.length === 1) {
    const p = traded[0]!;
    return { ...p.totals, trader_count: p.distinct.traders.count, buyer_count: p.distinct.buyers.count, seller_count: p.distinct.sellers.count };
  }
  const out: TokenTotals = {
    volume_quote: 0, buy_volume_quote: 0, sell_volume_quote: 0, volume_usd: null, buy_volume_usd: null, sell_volume_usd: null,
    trade_count: 0, buy_count: 0, sell_count: 0, ath_market_cap_quote: 0, ath_market_cap_usd: null,
    first_trade_at: null, first_key: null, launch_price_quote: null, launch_price_usd: null,
    trader_count: 0, buyer_count: 0, seller_count: 0,
  };
  const add = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);
  let quoteLaunch: PoolTotals['first_key'] = null;
  for (const p of traded) {
    const t = p.totals;
    out.trade_count += t.trade_count;
    out.buy_count += t.buy_count;
    out.sell_count += t.sell_count;
    out.volume_usd = add(out.volume_usd, t.volume_usd);
    out.buy_volume_usd = add(out.buy_volume_usd, t.buy_volume_usd);
    out.sell_volume_usd = add(out.sell_volume_usd, t.sell_volume_usd);
    if (t.ath_market_cap_usd !== null && t.ath_market_cap_usd > (out.ath_market_cap_usd ?? -Infinity)) out.ath_market_cap_usd = t.ath_market_cap_usd;
    if (before(t.first_key, out.first_key)) {
      out.first_key = t.first_key;
      out.first_trade_at = t.first_trade_at;
      out.launch_price_usd = t.launch_price_usd;
    }
    if (p.info!.quote_address !== quote) continue;
    out.volume_quote += t.volume_quote;
    out.buy_volume_quote += t.buy_volume_quote;
    out.sell_volume_quote += t.sell_volume_quote;
    if (t.ath_market_cap_quote > out.ath_market_cap_quote) out.ath_market_cap_quote = t.ath_market_cap_quote;
    if (before(t.first_key, quoteLaunch)) {
      quoteLaunch = t.first_key;
      out.launch_price_quote = t.launch_price_quote;
    }
  }
  out.trader_count = DistinctCounter.unionCount(traded.map((p) => p.distinct.traders));
  out.buyer_count = DistinctCounter.unionCount(traded.map((p) => p.distinct.buyers));
  out.seller_count = DistinctCounter.unionCount(traded.map((p) => p.distinct.sellers));
  return out;
}

/**
 * SERVICE.md 2.4: every field the engine derives from the events it has; null where
 * it has nothing yet. Distinct counts are exact up to 512 wallets, then HyperLogLog estimates (actors/pool/distinct.ts).
 *
 * Holder-based fields come from the base token's `balance` events (actors/token/
 * holders.ts) and are null before its first one; shares are of the total supply, and
 * the token's own pools are not holders. holder_count: wallets holding now. top10_pct:
 * the 10 largest holders. dev_pct: the creator's balance (null without a
 * creator_address). Bundlers: wallets first seen holding in the creation slot of the
 * launch pool (the token's earliest pool, when a bonding curve); snipers: first seen
 * holding in the `sniperSlots` (default 3) slots after it; the creator is neither.
 * bundler_count counts them all (sold out or not); bundle_pct and sniper_pct are what
 * they hold now; all null for a token not launched on a curve.
 * circulating_supply: total supply minus what `pools` (the token's pools, where it
 * is the base (heldByPool) or the quote (its quote reserve); by default this one)
 * hold; null for a graduated curve whose AMM pool is not among them.
 * bonding_curve_gain_5m_pct: the curve's progress now minus its progress at the start
 * of the 5 minutes up to `now` (actors/pool/curve-gain.ts), in percentage points; null
 * for pools without a curve, for a graduated curve, and when no `now` is given.
 */
export interface TotalsOptions {
  /** The base token's pools (circulating_supply); default: this one. */
  pools?: readonly PoolState[];
  /** The engine clock's now (bonding_curve_gain_5m_pct); without it, that is null. */
  now?: number | null;
  /** The sniper window in slots (config `market.sniperSlots`). */
  sniperSlots?: number;
  /**
   * The token's totals (tokenTotals) for the all-time counts, volumes, ATH and launch
   * (GET /tokens/{token}); default: this pool's own.
   */
  token?: TokenTotals;
}

/** The change from the launch price, in percent (null without a price or a launch price). */
const changePct = (now: number | null, launch: number | null) => (now === null || !launch ? null : round((100 * (now - launch)) / launch));

/** raw as a share of supplyRaw, 0-100; null when either is unknown. */
export const sharePct = (raw: number | null | undefined, supplyRaw: number | null) =>
  raw === null || raw === undefined || supplyRaw === null || !(supplyRaw > 0) ? null : clamp((100 * raw) / supplyRaw, 100);

function holdsPool(pools: readonly PoolState[], address: string): boolean {
  for (const p of pools) if (p.pool_address === address) return true;
  return false;
}

// No closure per call (tsx gives each one made a defineProperty for its name).
export function totalsOf(s: PoolState, base: TokenState | undefined, quoteUsd: number | null, options: TotalsOptions = {}) {
  const { pools = [s], now = null, sniperSlots = DEFAULT_SNIPER_SLOTS, token } = options;
  const t = token ?? s.totals;
  const price = spotPrice(s);
  const f = base?.fields ?? {};
  const supply = supplyOf(base);
  let circulating: number | null = null;
  if (supply !== null && base) {
    let held = 0;
    let complete = true;
    for (const p of pools) {
      if (!p.info) continue;
      // A token-to-token pool holds the token as its quote.
      if (p.info.quote_address === base.token_address) held += p.info.pool_type === 'bonding_curve' ? (p.real_quote_reserve ?? 0) : p.quote_reserve;
      if (p.info.base_address !== base.token_address) continue;
      held += heldByPool(p, supply);
      // A graduated curve's tokens are in the pool it became: without that pool, unknown.
      const next = p.info.replaced_by_pool_address;
      if (next !== null && !holdsPool(pools, next)) complete = false;
    }
    circulating = complete ? clamp(supply - held, supply) : null;
  }
  const holders = base ? holderStats(base, sniperSlots) : null;
  const supplyRaw = rawSupplyOf(base);
  return {
    volume_quote: t.volume_quote,
    buy_volume_quote: t.buy_volume_quote,
    sell_volume_quote: t.sell_volume_quote,
    ath_market_cap_quote: t.ath_market_cap_quote,
    trade_count: t.trade_count,
    buy_count: t.buy_count,
    sell_count: t.sell_count,
    trader_count: token ? token.trader_count : s.distinct.traders.count,
    buyer_count: token ? token.buyer_count : s.distinct.buyers.count,
    seller_count: token ? token.seller_count : s.distinct.sellers.count,
    volume_usd: t.volume_usd,
    buy_volume_usd: t.buy_volume_usd,
    sell_volume_usd: t.sell_volume_usd,
    ath_market_cap_usd: t.ath_market_cap_usd,
    launch_price_quote: t.launch_price_quote,
    launch_price_usd: t.launch_price_usd,
    price_change_pct_quote: changePct(t.trade_count ? price : null, t.launch_price_quote),
    price_change_pct_usd: changePct(t.trade_count && quoteUsd !== null ? price * quoteUsd : null, t.launch_price_usd),
    total_supply: supply,
    circulating_supply: circulating,
    lp_burned_pct: (f.lp_burned_pct as number | null | undefined) ?? null,
    dev_pct: sharePct(holders?.creatorRaw, supplyRaw),
    sniper_pct: sharePct(holders?.sniperRaw, supplyRaw),
    bundle_pct: sharePct(holders?.bundleRaw, supplyRaw),
    top10_pct: sharePct(holders?.top10Raw, supplyRaw),
    bonding_curve_gain_5m_pct: now === null ? null : curveGain5m(s, now),
    first_trade_at: t.first_trade_at,
    holder_count: holders?.holderCount ?? null,
    bundler_count: holders?.bundlerCount ?? null,
    mint_revoked: 'mint_authority' in f ? f.mint_authority === null : null,
    freeze_revoked: 'freeze_authority' in f ? f.freeze_authority === null : null,
    dex_paid: (f.dex_paid as boolean | null | undefined) ?? null,
  };
}
