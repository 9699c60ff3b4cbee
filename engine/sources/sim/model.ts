import type { AmmState, Venue } from './amm.ts';
import type { CurveState } from './curve.ts';
import type { StockDefinition } from './stocks.ts';

/**
 * The state of the simulated market: tokens, their pools, who holds what. Plain data;
 * world.ts owns it, the other modules change it.
 */

/**
 * A launch's fate is drawn when it launches and steers its activity (heat) and buy
 * pressure. `established` tokens and `stock`s exist from the start and never die.
 */
export type Fate = 'dud' | 'mid' | 'graduate' | 'runner' | 'established' | 'stock';

export interface Holding {
  wallet: number;
  /** Raw token units; below 2^53 because every supply is. */
  balance: number;
  /** Slot of this holding's latest balance event (-1: none): one per slot at most. */
  slot: number;
  /** Index in the token's `holders` while balance > 0, else -1. */
  position: number;
  /** SOL per whole token paid on the latest buy (take-profit decisions). */
  entryPriceSol: number;
}

export interface TokenState {
  mint: string;
  symbol: string;
  fate: Fate;
  creator: number;
  launchedAt: number;
  /** The SOL- or USDC-quoted pool that prices the token (curve, then its AMM). */
  primary: PoolState;
  pools: PoolState[];
  holdings: Map<number, Holding>;
  /** Wallets with a positive balance, in no order (swap-remove). */
  holders: number[];
  /** Relative share of the swap flow right now (recomputed every tick). */
  heat: number;
  peakHeat: number;
  /** Decay time constant of heat in ms. */
  tauMs: number;
  /** Probability that a random trade is a buy. */
  buyBias: number;
  /** Extra heat from a callout, decaying; and its extra buy bias. */
  boost: number;
  boostBias: number;
  /** When the token graduated (ms), or -1. */
  graduatedAt: number;
  /** Heat decays as peakHeat × exp(−(at − decayFrom) / tauMs). */
  decayFrom: number;
  /** Mint and freeze authority while not revoked (established tokens), else null. */
  authority: string | null;
  dexPaid: boolean;
  /** Slot of the latest `token` event: one per slot (its identity includes the slot). */
  metaSlot: number;
  /** Pump phase end of a runner after graduation (ms). */
  pumpUntil: number;
  dead: boolean;
  /**
   * For stocks: the definition, and the fair price in USD their pool tracks. For
   * established tokens the reference price is in SOL: a random walk their flow reverts to.
   */
  stock: StockDefinition | null;
  referencePrice: number;
  /** Wallet that seeded liquidity (treasury of established tokens and stocks), or -1. */
  treasury: number;
}

export type PoolRole = 'primary' | 'secondary';

export interface PoolState {
  address: string;
  token: TokenState;
  quoteMint: string;
  /** The quote token when it is a simulated token (token-to-token pool), else null. */
  quoteToken: TokenState | null;
  quoteDecimals: number;
  venue: Venue | null;
  curve: CurveState | null;
  amm: AmmState | null;
  role: PoolRole;
  /** Share of the token's heat this pool gets. */
  share: number;
  /** Random trades start here (keeps seeded pools' first slots free of fake snipers). */
  tradableSlot: number;
  active: boolean;
  /** A swap happened in it: the engine has its reserves, so a price for the token (genesis distributions wait for it). */
  traded: boolean;
}

/** Deferred work, run at the start of its slot (after launches). */
export type Action =
  | { kind: 'buy'; token: TokenState; wallet: number; sizeSol: number; takeProfit: boolean }
  | { kind: 'sell'; token: TokenState; wallet: number; fraction: number }
  | { kind: 'take_profit'; token: TokenState; wallet: number; tries: number }
  | { kind: 'migrate'; token: TokenState }
  | { kind: 'second_pool'; token: TokenState }
  | { kind: 'metadata'; token: TokenState }
  | { kind: 'callout'; token: TokenState; kol: number; buy: boolean }
  | { kind: 'distribute'; token: TokenState; wallet: number; amount: number };

/** Share of launches per fate (the rest are duds). */
export const FATE_SHARES = { runner: 0.008, graduate: 0.027, mid: 0.17 } as const;

/** Per fate: heat at launch (log-normal median), decay time constant, buy bias at launch. */
export const FATE_PARAMS: Readonly<Record<'dud' | 'mid' | 'graduate' | 'runner', { heat: number; tauMs: [number, number]; buyBias: number }>> = {
  dud: { heat: 0.6, tauMs: [30_000, 180_000], buyBias: 0.5 },
  mid: { heat: 1.0, tauMs: [180_000, 900_000], buyBias: 0.53 },
  graduate: { heat: 2.2, tauMs: [1_200_000, 3_600_000], buyBias: 0.68 },
  runner: { heat: 2.8, tauMs: [2_400_000, 5_400_000], buyBias: 0.7 },
};

/** A token whose heat falls below this is dead: no more trades, its state is dropped. */
export const DEAD_HEAT = 0.02;
/** Heat of established tokens and of each stock (they never decay). */
export const ESTABLISHED_HEAT = 1.2;
export const STOCK_HEAT = 0.35;
/** A token bound to graduate that has not after this long turns into a fading `mid`. */
export const GRADUATE_DEADLINE_MS = 45 * 60_000;
/** Share of heat a second pool gets (the primary keeps the rest). */
export const SECONDARY_SHARE = 0.25;
