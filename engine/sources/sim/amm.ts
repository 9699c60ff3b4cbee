/**
 * Constant-product pools (x·y = k) on raw integers. The LP fee stays in the pool (the
 * reserves grow by the whole input, the output is priced on the input net of the fee),
 * so k never decreases; fees outside the reserves (protocol, creator) are charged to
 * the trader on top of a buy's input and off a sell's output and never reach them.
 * `quote_amount_raw` of a swap is always what entered or left the reserves.
 */

export interface Venue {
  dex: string;
  poolType: 'amm' | 'cpmm' | 'clmm';
  /** Basis points kept in the pool. */
  lpFeeBps: bigint;
  /** Basis points charged outside the reserves (protocol + creator). */
  outsideFeeBps: bigint;
}

/** The venues the simulator trades on. DLMM bins are not modelled: its pools price by x·y = k. */
export const VENUES = {
  pumpswap: { dex: 'pumpswap', poolType: 'amm', lpFeeBps: 20n, outsideFeeBps: 10n },
  raydiumCpmm: { dex: 'raydium_cpmm', poolType: 'cpmm', lpFeeBps: 25n, outsideFeeBps: 0n },
  meteoraDlmm: { dex: 'meteora_dlmm', poolType: 'clmm', lpFeeBps: 30n, outsideFeeBps: 0n },
} as const satisfies Record<string, Venue>;

export interface AmmState {
  base: bigint;
  quote: bigint;
  lpFeeBps: bigint;
}

export interface AmmFill {
  base: bigint;
  quote: bigint;
}

/** The part of a gross input that reaches the reserves after outside fees. */
export function ammNetOfFee(gross: bigint, outsideFeeBps: bigint): bigint {
  return outsideFeeBps === 0n ? gross : (gross * 10_000n) / (10_000n + outsideFeeBps);
}

/** Buy base with `quoteIn` entering the reserves; null when it buys nothing. */
export function ammBuy(pool: AmmState, quoteIn: bigint): AmmFill | null {
  if (quoteIn <= 0n) return null;
  const effective = (quoteIn * (10_000n - pool.lpFeeBps)) / 10_000n;
  const base = (pool.base * effective) / (pool.quote + effective);
  if (base <= 0n) return null;
  pool.base -= base;
  pool.quote += quoteIn;
  return { base, quote: quoteIn };
}

/** Sell `baseIn` into the pool; null when it returns nothing. */
export function ammSell(pool: AmmState, baseIn: bigint): AmmFill | null {
  if (baseIn <= 0n) return null;
  const effective = (baseIn * (10_000n - pool.lpFeeBps)) / 10_000n;
  const quote = (pool.quote * effective) / (pool.base + effective);
  if (quote <= 0n) return null;
  pool.base += baseIn;
  pool.quote -= quote;
  return { base: baseIn, quote };
}

/** Spot price in quote per base, decimal-adjusted. */
export function ammPrice(pool: AmmState, baseDecimals: number, quoteDecimals: number): number {
  return (Number(pool.quote) / Number(pool.base)) * 10 ** (baseDecimals - quoteDecimals);
}
