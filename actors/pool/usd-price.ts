import { KNOWN_MINTS, STABLE_MINTS } from '../../engine/model/index.ts';
import { quotePriceAt, latestQuotePrice, type QuotePriceState } from '../quote-price/index.ts';
import type { TokenState } from '../token/index.ts';
import { liquidityQuote, spotPrice, type PoolState } from './pool.logic.ts';

/**
 * USD prices of quote assets and the order of a token's pools (DECISIONS.md, "Prices
 * and market cap"), shared by the reads (engine/query/state.ts: the latest
 * prices) and the pool actor (a trade's USD value: the prices at the trade).
 *
 * - A known mint (wSOL, USDC, USDT) is worth what its `quote_price` events say, at
 *   or before the time asked; USDC and USDT are worth 1 USD until one says otherwise.
 * - A token is worth its main pool's spot price × that pool's quote's USD price.
 * - A token's main pool is the pool where it is the base with the most liquidity in
 *   USD, a token-quoted pool's liquidity valued at the quote token's USD price; a pool
 *   whose USD value is unknown ranks after every pool whose value is known (among
 *   themselves, by liquidity in their quote units).
 *
 * Recursion is bounded: valuing a pool quoted in a token follows at most
 * TOKEN_QUOTE_HOPS token quotes. A quote token's own pools are then valued only
 * through known mints, so a token A quoted in B whose main pool is quoted in A (a
 * cycle), or a chain A → B → C → SOL, leaves A's pool in B valued through B's known-mint
 * pools only, or unknown.
 */

/** Token quotes followed to value a pool (see the file comment). */
export const TOKEN_QUOTE_HOPS = 1;

/** What valuing reads: declared pools, tokens, and the USD price of a known mint. */
export interface UsdReader {
  token(address: string): TokenState | undefined;
  /** A pool's state once its `pool` event is applied (info set), else undefined. */
  pool(address: string): PoolState | undefined;
  /** A known mint's USD price (knownMintUsd), or null. */
  mintUsd(mint: string): number | null;
}

/**
 * A known mint's USD price from its quote price state: the latest, or the one at or
 * before `at`; for USDC and USDT, 1 when none is known.
 */
export function knownMintUsd(mint: string, state: QuotePriceState | undefined, at?: number): number | null {
  const price = state === undefined ? null : at === undefined ? (latestQuotePrice(state)?.price_usd ?? null) : quotePriceAt(state, at);
  return price ?? (mint in STABLE_MINTS ? 1 : null);
}

/** The USD price of a pool's quote asset: a known mint's, or a token's (following at most `hops` token quotes). */
export function quoteUsdOf(quote: string, r: UsdReader, hops = TOKEN_QUOTE_HOPS): number | null {
  if (quote in KNOWN_MINTS) return r.mintUsd(quote);
  return hops > 0 ? tokenUsdOf(quote, r, hops - 1) : null;
}

/**
 * A pool's rank value: its liquidity in USD when its quote's USD price is known (≥ 0);
 * otherwise −1 / (1 + its liquidity in quote units), in (−1, 0): below every known
 * value, and higher for more liquidity.
 */
export function poolValue(p: PoolState, r: UsdReader, hops = TOKEN_QUOTE_HOPS): number {
  const liquidity = liquidityQuote(p);
  const usd = quoteUsdOf(p.info!.quote_address, r, hops);
  return usd === null ? -1 / (1 + liquidity) : liquidity * usd;
}

/** The token's main pool among the pools where it is the base (the highest poolValue; the lower address on a tie), or undefined. */
export function mainBasePool(token: string, r: UsdReader, hops = TOKEN_QUOTE_HOPS): PoolState | undefined {
  const t = r.token(token);
  if (!t) return undefined;
  let best: PoolState | undefined;
  let bestValue = -Infinity;
  for (const address of t.pools) {
    const p = r.pool(address);
    if (!p || p.info!.base_address !== token) continue;
    const value = poolValue(p, r, hops);
    if (value > bestValue || (value === bestValue && best !== undefined && address < best.pool_address)) {
      best = p;
      bestValue = value;
    }
  }
  return best;
}

/** A token's USD price: its main pool's spot price × that pool's quote's USD price; null when unknown. */
export function tokenUsdOf(token: string, r: UsdReader, hops = TOKEN_QUOTE_HOPS): number | null {
  const main = mainBasePool(token, r, hops);
  if (!main || main.base_reserve <= 0) return null;
  const usd = quoteUsdOf(main.info!.quote_address, r, hops);
  return usd === null ? null : spotPrice(main) * usd;
}

/**
 * How a quote asset's units convert to USD, without the known mint's price: the known
 * mint reached and how many of its units one quote unit is worth (1 for the mint
 * itself; a token's main pool spot price, following at most `hops` token quotes as
 * quoteUsdOf does); null when no known mint is reached. quoteUsdOf(quote) is
 * mintUsd(mint) × factor. For read models that price at query time (search).
 */
export function quoteUsdVia(quote: string, r: UsdReader, hops = TOKEN_QUOTE_HOPS): [mint: string, factor: number] | null {
  if (quote in KNOWN_MINTS) return [quote, 1];
  if (hops <= 0) return null;
  const main = mainBasePool(quote, r, hops - 1);
  if (!main || main.base_reserve <= 0) return null;
  const via = quoteUsdVia(main.info!.quote_address, r, hops - 1);
  return via === null ? null : [via[0], via[1] * spotPrice(main)];
}
