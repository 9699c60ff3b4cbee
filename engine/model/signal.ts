/**
 * The signal shape (DECISIONS.md "Signals"): what the signal actors emit as the derived
 * event `signal` (engine/model/derived.ts), what routes 17 and 22 list and what the
 * token_signals / wallet_signals streams carry (with `event` = kind), and what the
 * markers stream marks. The formulas and thresholds are in actors/signals/.
 */

export const TOKEN_SIGNAL_KINDS = ['volume_spike', 'price_breakout', 'smart_money_buy', 'kol_buy', 'dev_sell', 'whale_buy', 'migration', 'almost_bonded'] as const;
export const WALLET_SIGNAL_KINDS = ['cluster_buy', 'big_win', 'first_buy'] as const;
export type TokenSignalKind = (typeof TOKEN_SIGNAL_KINDS)[number];
export type WalletSignalKind = (typeof WALLET_SIGNAL_KINDS)[number];
export type SignalKind = TokenSignalKind | WalletSignalKind;

/** A signal (DECISIONS.md "Signals"): the item of route 17/22 and of token_signals/wallet_signals (with `event` = kind). */
export interface Signal {
  /** `<kind>:<token>:<trigger>`, the trigger being the trade's id or the graduated pool: the same on every replay. */
  signal_id: string;
  kind: SignalKind;
  token_address: string;
  pool_address: string | null;
  wallet_addresses: string[];
  at: number;
  /** 0..1: how far past its threshold (0 at it, 1 at the kind's "full" value or beyond). */
  score: number;
  detail: Record<string, number | string | boolean | null | readonly string[]>;
}


const TOKEN_KINDS: ReadonlySet<string> = new Set(TOKEN_SIGNAL_KINDS);

/** Whether a kind is a token signal's (route 17, token_signals) rather than a wallet signal's (route 22, wallet_signals). */
export const isTokenSignal = (kind: SignalKind): boolean => TOKEN_KINDS.has(kind);
