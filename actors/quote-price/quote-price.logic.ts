import type { QuotePriceEvent } from '../../engine/ingest/index.ts';

/**
 * USD prices of one quote asset over time, for GET /market/sol-price and for the USD
 * value of a trade (the latest price at or before the trade's time, INGEST.md).
 */
export interface QuotePriceState {
  quote_address: string;
  /** Times (Unix ms), ascending, and the price at each. */
  times: number[];
  prices: number[];
}

/** Points older than this before the newest are dropped: trades arrive at most seconds late. */
export const QUOTE_PRICE_RETENTION_MS = 24 * 3_600_000;

export function initialQuotePrice(quote_address: string): QuotePriceState {
  return { quote_address, times: [], prices: [] };
}

/** Index of the last time <= at, or -1. */
function floorIndex(times: number[], at: number): number {
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Inserts a price point in time order (arrival order does not matter). */
export function applyQuotePrice(state: QuotePriceState, e: QuotePriceEvent): void {
  const { times, prices } = state;
  const n = times.length;
  if (n === 0 || e.at > times[n - 1]!) {
    times.push(e.at);
    prices.push(e.price_usd);
  } else {
    const i = floorIndex(times, e.at);
    if (i >= 0 && times[i] === e.at) prices[i] = e.price_usd;
    else {
      times.splice(i + 1, 0, e.at);
      prices.splice(i + 1, 0, e.price_usd);
    }
  }
  const horizon = times[times.length - 1]! - QUOTE_PRICE_RETENTION_MS;
  if (times[0]! < horizon) {
    const keepFrom = floorIndex(times, horizon - 1) + 1;
    times.splice(0, keepFrom);
    prices.splice(0, keepFrom);
  }
}

/** The latest point, or null before any. */
export function latestQuotePrice(state: QuotePriceState): { price_usd: number; at: number } | null {
  const n = state.times.length;
  return n ? { price_usd: state.prices[n - 1]!, at: state.times[n - 1]! } : null;
}

/** The price at or before `at`; null when none is known that early. */
export function quotePriceAt(state: QuotePriceState, at: number): number | null {
  const i = floorIndex(state.times, at);
  return i < 0 ? null : state.prices[i]!;
}
