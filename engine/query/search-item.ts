import { metadataRecord, type PoolState } from '../../actors/index.ts';
import type { SearchWindow } from '../model/index.ts';
import type { PoolsQuery } from './pools.ts';
import type { MarketState } from './state.ts';
import { tokenTotals, tradedPools } from './views.ts';

/**
 * A GET /v1/tokens/search item (SERVICE.md 2.2), read from the actors when a page is
 * served (search.ts orders the tokens, this reads each one of the page) now: price, market cap and liquidity of the token's main pool,
 * in its quote asset and in USD through that same quote's USD price (null when it
 * has none: never 0); volumes, counts, ATH and traders are the token's totals
 * (views.ts tokenTotals, as GET /tokens/{token} has them), or over `window`. Quote
 * units are the main pool's: volume_quote and ath_market_cap_quote count the pools
 * in its quote asset; the USD figures count them all.
 */
export function searchItem(market: MarketState, pools: PoolsQuery, token: string, window: SearchWindow | undefined) {
  const state = market.token(token);
  const ranked = state ? market.tokenPools(token) : [];
  const main = ranked[0];
  // Only what the item shows: a whole poolMetrics view also computed heat, holders and supply.
  const snapshot = main ? pools.poolSnapshot(main.pool_address) : null;
  if (!state || !main || !snapshot) return null;
  const info = main.info!;
  const traded = tradedPools(token, ranked);
  const totals = tokenTotals(traded, info.quote_address);
  const figures = window === undefined ? null : windowFigures(traded, info.quote_address, window, market.clock.now());
  const meta = metadataRecord(state);
  return {
    token_address: token,
    pool_address: main.pool_address,
    symbol: meta.symbol,
    name: meta.name,
    image_url: meta.image_url,
    // SERVICE.md 2.2 types the USD fields as numbers; a USD value not known (a quote
    // without a USD price) is null, never 0, and the item is left out of a sort by it.
    market_cap_quote: snapshot.market_cap_quote,
    market_cap_usd: snapshot.market_cap_usd,
    ath_market_cap_quote: totals.ath_market_cap_quote,
    ath_market_cap_usd: totals.ath_market_cap_usd,
    liquidity_quote: snapshot.liquidity_quote,
    liquidity_usd: snapshot.liquidity_usd,
    volume_quote: figures ? figures.volumeQuote : totals.volume_quote,
    volume_usd: figures ? figures.volumeUsd : volumeUsd(totals.trade_count, totals.volume_usd),
    trader_count: totals.trader_count,
    buy_count: figures ? figures.buys : totals.buy_count,
    sell_count: figures ? figures.sells : totals.sell_count,
    socials: meta.socials,
    dex: info.dex,
    pool_type: info.pool_type,
    bonding_curve_progress_pct: info.pool_type === 'bonding_curve' ? snapshot.bonding_curve_progress_pct : null,
    migrated: state.migrated,
    created_at: info.created_at,
  };
}

/** A USD volume: 0 without trades, null when there were trades and none had a USD value. */
export const volumeUsd = (trades: number, usd: number | null) => (trades === 0 ? 0 : usd);

/**
 * A token's search figures over its `traded` pools and `window` (read at `now`):
 * volumes, buy and sell counts. Quote units are `quote`'s: only the pools in that quote
 * asset count in volumeQuote; the USD volume counts them all (null when the window had
 * trades and none had a USD value).
 */
function windowFigures(traded: readonly PoolState[], quote: string, window: SearchWindow, now: number) {
  const f = { volumeQuote: 0, volumeUsd: null as number | null, buys: 0, sells: 0 };
  for (const p of traded) {
    const windowed = p.windows.read(now);
    const i = windowed.t.indexOf(window);
    if (i < 0) continue;
    if (p.info!.quote_address === quote) f.volumeQuote += windowed.v[i]![0] ?? 0;
    const usd = windowed.v[i]![1];
    if (usd !== null) f.volumeUsd = (f.volumeUsd ?? 0) + usd;
    f.buys += windowed.bc[i]!;
    f.sells += windowed.sc[i]!;
  }
  f.volumeUsd = volumeUsd(f.buys + f.sells, f.volumeUsd);
  return f;
}

export type SearchItem = NonNullable<ReturnType<typeof searchItem>>;
