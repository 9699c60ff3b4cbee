/**
 * A trade as stored: a tuple, so that msgpack writes no field names (millions of them).
 * Fields are read by the indices of TRADE (`t[TRADE.wallet]`) or by destructuring in
 * this order; nothing else spells a position. Twelve values, and a thirteenth,
 * `curvePct`, on the trades of a bonding-curve pool (none on other pools' trades and on
 * curve trades stored before it existed).
 */
export type StoredTrade = [
  at: number,
  slot: number,
  txIndex: number,
  eventIndex: number,
  /** 1 buy, 0 sell (INGEST.md: buy = the wallet receives base). */
  side: 0 | 1,
  wallet: string,
  baseAmount: number,
  quoteAmount: number,
  priceQuote: number,
  quoteUsd: number | null,
  marketCapQuote: number,
  txHash: string,
  /**
   * A bonding curve's progress (0..100) after the trade, as the pool stood once it was
   * applied (its reserves follow the latest trade by chain position): 100 once the
   * curve completed, null once it migrated. What the token's signals read of the curve
   * (almost_bonded), so that a trade derived again on start-up replay
   * (ActorBehavior.rederive) gives them the progress of its time, not the pool's now.
   */
  curvePct?: number | null,
];

/** The index of each field of a StoredTrade: the one accessor set. */
export const TRADE = {
  at: 0,
  slot: 1,
  txIndex: 2,
  eventIndex: 3,
  side: 4,
  wallet: 5,
  baseAmount: 6,
  quoteAmount: 7,
  priceQuote: 8,
  quoteUsd: 9,
  marketCapQuote: 10,
  txHash: 11,
  curvePct: 12,
} as const;

/** The number of fields every StoredTrade has (its msgpack fixarray length without `curvePct`). */
export const TRADE_FIELDS = 12;

/** The most fields a StoredTrade has (with `curvePct`). */
export const TRADE_FIELDS_MAX = 13;

/** A position in a pool's trade order: a stored trade's first four fields. */
export type TradeKey = [at: number, slot: number, txIndex: number, eventIndex: number];

/**
 * The order of trade lists (SERVICE.md 2.8): created_at, then slot, tx_index,
 * event_index. Takes trades or trade keys alike (their first four numbers).
 */
export function compareKey(a: ArrayLike<unknown>, b: ArrayLike<unknown>): number {
  return (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number) || (a[2] as number) - (b[2] as number) || (a[3] as number) - (b[3] as number);
}

/** compareKey typed for stored trades. */
export const compareStored: (a: StoredTrade, b: StoredTrade) => number = compareKey;

/**
 * Which trades a list takes: those in [minAt, maxAt], in `order`, and strictly after
 * (asc) or before (desc) `after` when given (a cursor continuing a page).
 */
export interface TradeSpan {
  order: 'asc' | 'desc';
  minAt: number;
  maxAt: number;
  /** Exclusive: continue after (asc) or before (desc) this position. */
  after?: TradeKey;
  /**
   * Decode only the numbers: the wallet and the tx hash come as null (a reader that needs
   * neither, as the 1s and 15s candles folded from the trades, skips their strings).
   */
  numbersOnly?: boolean;
}
