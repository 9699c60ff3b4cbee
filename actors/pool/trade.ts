/**
 * One swap as a pool actor derives it from a `swap` event: decimal-adjusted, priced,
 * valued. The input of candles, rolling windows and totals; the trades store keeps it.
 * Everything is from the pool's base token's side (INGEST.md: buy = wallet receives base).
 */
export interface PoolTrade {
  /** Block time, Unix ms. */
  at: number;
  slot: number;
  txIndex: number;
  eventIndex: number;
  side: 'buy' | 'sell';
  wallet: string;
  /** Base tokens moved, whole tokens. */
  baseAmount: number;
  /** Quote asset moved, whole units (SOL, USDC, or the quote token). */
  quoteAmount: number;
  /** Trade price: quoteAmount / baseAmount. */
  priceQuote: number;
  /** priceQuote × the quote asset's USD price at `at`; null before any price is known. */
  priceUsd: number | null;
  /** The trade's price (priceQuote) × total supply of the base token, in quote. */
  marketCapQuote: number;
  marketCapUsd: number | null;
  /** Quote asset's USD price at `at`, or null. */
  quoteUsd: number | null;
}

/** Total order of trades within the chain: (slot, txIndex, eventIndex). */
export function comparePosition(a: Pick<PoolTrade, 'slot' | 'txIndex' | 'eventIndex'>, b: Pick<PoolTrade, 'slot' | 'txIndex' | 'eventIndex'>): number {
  return a.slot - b.slot || a.txIndex - b.txIndex || a.eventIndex - b.eventIndex;
}
