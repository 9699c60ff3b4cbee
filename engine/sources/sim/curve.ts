/**
 * pump.fun's constant-product bonding curve on raw integers (lamports and 6-decimal
 * token units), rounding as the on-chain program does: in the curve's favour, so the
 * product of the virtual reserves never decreases.
 *
 * The virtual reserves price the curve; the real ones are what it holds. Both move by
 * the same amounts, so virtual − real stays constant: 30 SOL on the quote side and
 * 279,900,000 tokens (1,073,000,000 − 793,100,000) on the base side.
 */

export const PUMP_DECIMALS = 6;
/** 1,000,000,000 tokens of 6 decimals. */
export const PUMP_TOTAL_SUPPLY_RAW = 1_000_000_000_000_000n;
/** 30 SOL in lamports. */
export const PUMP_INITIAL_VIRTUAL_QUOTE_RAW = 30_000_000_000n;
/** 1,073,000,000 tokens. */
export const PUMP_INITIAL_VIRTUAL_BASE_RAW = 1_073_000_000_000_000n;
/** 793,100,000 tokens for sale; the curve completes when none are left. */
export const PUMP_INITIAL_REAL_BASE_RAW = 793_100_000_000_000n;
/** Tokens kept back for the AMM pool a completed curve migrates into (206,900,000). */
export const PUMP_MIGRATION_BASE_RAW = PUMP_TOTAL_SUPPLY_RAW - PUMP_INITIAL_REAL_BASE_RAW;
/**
 * Curve trading fee, basis points of the SOL amount: 95 to the protocol and 5 to the
 * creator. Charged outside the reserves: a buyer pays quote_amount plus the fee, a
 * seller receives quote_amount minus it.
 */
export const PUMP_CURVE_PROTOCOL_FEE_BPS = 95n;
export const PUMP_CURVE_CREATOR_FEE_BPS = 5n;
export const PUMP_CURVE_FEE_BPS = PUMP_CURVE_PROTOCOL_FEE_BPS + PUMP_CURVE_CREATOR_FEE_BPS;

export interface CurveState {
  virtualBase: bigint;
  virtualQuote: bigint;
  realBase: bigint;
  realQuote: bigint;
  complete: boolean;
}

/** Amounts one trade moved: base tokens and the lamports that entered or left the reserves. */
export interface CurveFill {
  base: bigint;
  quote: bigint;
}

export function newCurve(): CurveState {
  return {
    virtualBase: PUMP_INITIAL_VIRTUAL_BASE_RAW,
    virtualQuote: PUMP_INITIAL_VIRTUAL_QUOTE_RAW,
    realBase: PUMP_INITIAL_REAL_BASE_RAW,
    realQuote: 0n,
    complete: false,
  };
}

/** The part of a buyer's gross SOL budget that reaches the reserves (the fee is on top). */
export function curveNetOfFee(grossLamports: bigint): bigint {
  return (grossLamports * 10_000n) / (10_000n + PUMP_CURVE_FEE_BPS);
}

/**
 * Buy with `quoteIn` lamports into the reserves. The last buy is cut to the tokens
 * left and charged exactly their price; it completes the curve. Null when the curve
 * is complete or the amount buys nothing.
 */
export function curveBuy(curve: CurveState, quoteIn: bigint): CurveFill | null {
  if (curve.complete || quoteIn <= 0n) return null;
  const k = curve.virtualBase * curve.virtualQuote;
  let base = curve.virtualBase - (k / (curve.virtualQuote + quoteIn) + 1n);
  let quote = quoteIn;
  if (base <= 0n) return null;
  if (base >= curve.realBase) {
    base = curve.realBase;
    quote = curveBuyCost(curve, base);
  }
  applyBuy(curve, base, quote);
  return { base, quote };
}

/** Lamports a buy of exactly `base` tokens costs (rounded up), before fees. */
export function curveBuyCost(curve: CurveState, base: bigint): bigint {
  const num = curve.virtualQuote * base;
  const den = curve.virtualBase - base;
  return (num + den - 1n) / den;
}

function applyBuy(curve: CurveState, base: bigint, quote: bigint): void {
  curve.virtualBase -= base;
  curve.realBase -= base;
  curve.virtualQuote += quote;
  curve.realQuote += quote;
  if (curve.realBase === 0n) curve.complete = true;
}

/** Sell `baseIn` tokens: lamports out (rounded down), never more than the real SOL held. */
export function curveSell(curve: CurveState, baseIn: bigint): CurveFill | null {
  if (curve.complete || baseIn <= 0n) return null;
  let quote = (baseIn * curve.virtualQuote) / (curve.virtualBase + baseIn);
  if (quote > curve.realQuote) quote = curve.realQuote;
  if (quote <= 0n) return null;
  curve.virtualBase += baseIn;
  curve.realBase += baseIn;
  curve.virtualQuote -= quote;
  curve.realQuote -= quote;
  return { base: baseIn, quote };
}

/** Spot price in SOL per whole token (virtual quote / virtual base, decimal-adjusted). */
export function curvePriceSol(curve: CurveState): number {
  return Number(curve.virtualQuote) / 1e9 / (Number(curve.virtualBase) / 1e6);
}

/** INGEST.md: 100 × (initial real base − real base) / initial real base. */
export function curveProgressPct(curve: CurveState): number {
  return (100 * Number(PUMP_INITIAL_REAL_BASE_RAW - curve.realBase)) / Number(PUMP_INITIAL_REAL_BASE_RAW);
}

/** Market cap in SOL: spot price × total supply (1,000,000,000 tokens). */
export function curveMarketCapSol(curve: CurveState): number {
  return curvePriceSol(curve) * 1e9;
}
