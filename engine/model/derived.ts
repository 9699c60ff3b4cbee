import { KNOWN_MINTS } from './mints.ts';
import type { Signal } from './signal.ts';
import { TRADE, type StoredTrade } from './trade.ts';

/**
 * Derived events: what an actor's apply emits (ActorContext.emit) for other actors and
 * the live layer, delivered by the router (engine/supervisor/router.ts) in the same
 * batch under the seq of the event that caused them. Never stored: on start-up replay
 * and on a rebuild they are recomputed (ActorBehavior.rederive), so a consumer sees
 * each exactly once. Pure shapes.
 */
export type DerivedEvent = PoolTradeEvent | TokenHoldersEvent | PoolGraduatedEvent | SignalEvent;

/** The type names of derived events. */
export type DerivedType = DerivedEvent['type'];

/** Every derived event type (an actor kind that takes one of them is recomputed on rebuilds). */
export const DERIVED_TYPES: readonly DerivedType[] = ['pool.trade', 'token.holders', 'pool.graduated', 'signal'];

/** A priced trade, emitted by the pool actor once per swap it applies (after pricing; a swap that waited, when it is applied). */
export interface PoolTradeEvent {
  type: 'pool.trade';
  pool_address: string;
  base_address: string;
  quote_address: string;
  /**
   * The trade as stored (read with TRADE.*): priceQuote, quoteUsd (null: USD unknown), a
   * curve's progress after it (curvePct), the same when derived again. Shared, never to
   * be changed.
   */
  trade: StoredTrade;
  /**
   * A bonding curve's progress (0..100), the larger of before and after the trade, so
   * that the almost_bonded feed takes only the trades of curves at or past its
   * threshold (or leaving it); null for a pool without a curve; absent on a trade
   * derived again from the trades store (ActorBehavior.rederive), where it is not known.
   */
  curve_pct?: number | null;
}

/**
 * A token actor's holder balance changed: a balance event that became the wallet's
 * current balance (its first, or one of a later slot than the current one): wallet,
 * token, new raw balance (and as a number), the balance's slot and time. A last write
 * by slot: recomputed on replay only while it is still the wallet's current balance.
 */
export interface TokenHoldersEvent {
  type: 'token.holders';
  token_address: string;
  wallet_address: string;
  balance_raw: string;
  balance: number;
  slot: number;
  at: number;
}

/**
 * A bonding curve completed (its real base reserve reached 0: `migrated_to_pool_address`
 * null) or graduated into another pool (its migration: that pool's address).
 */
export interface PoolGraduatedEvent {
  type: 'pool.graduated';
  pool_address: string;
  token_address: string;
  migrated_to_pool_address: string | null;
  at: number;
}

/**
 * A signal fired (DECISIONS.md "Signals"): emitted by the signal actors once per signal,
 * recomputed on replay like every derived event (its `signal_id` is the same every
 * time). The signals store, the token_signals / wallet_signals streams and the markers
 * (a `mark` of type `signal`) take it.
 */
export interface SignalEvent {
  type: 'signal';
  signal: Signal;
}

/** A trade seen from one of its tokens (DECISIONS.md, Wallet accounting; SERVICE.md 9 change 5). */
export interface TokenSideTrade {
  token_address: string;
  /** 1: the wallet received the token (a buy of it), 0: it gave it (a sell). */
  side: 0 | 1;
  /** Whole tokens of `token_address`. */
  token_amount: number;
  /** Whole units of the other side's asset. */
  counter_amount: number;
  /** The token's price in the other asset. */
  price_counter: number;
  /** The token's USD price at the trade; null when the quote's USD price was unknown. */
  price_usd: number | null;
  /** The trade's USD value (quote amount × quote USD); null when unknown. */
  amount_usd: number | null;
}

/**
 * A pool trade from `token`'s side: for the pool's base token the stored trade as it
 * is; for its quote token when that is not a known quote mint (a token-quoted pool)
 * the side flipped, the amounts swapped and the price inverted. Null for any other
 * token (wSOL or USDC as a quote: nobody keeps positions in them).
 */
export function tradeFromTokenSide(e: PoolTradeEvent, token: string): TokenSideTrade | null {
  const t = e.trade;
  const quoteUsd = t[TRADE.quoteUsd];
  const priceQuote = t[TRADE.priceQuote];
  const amountUsd = quoteUsd === null ? null : t[TRADE.quoteAmount] * quoteUsd;
  if (token === e.base_address) {
    return {
      token_address: token,
      side: t[TRADE.side],
      token_amount: t[TRADE.baseAmount],
      counter_amount: t[TRADE.quoteAmount],
      price_counter: priceQuote,
      price_usd: quoteUsd === null ? null : priceQuote * quoteUsd,
      amount_usd: amountUsd,
    };
  }
  if (token !== e.quote_address || token in KNOWN_MINTS) return null;
  return {
    token_address: token,
    side: t[TRADE.side] === 1 ? 0 : 1,
    token_amount: t[TRADE.quoteAmount],
    counter_amount: t[TRADE.baseAmount],
    price_counter: priceQuote > 0 ? 1 / priceQuote : 0,
    price_usd: quoteUsd,
    amount_usd: amountUsd,
  };
}
