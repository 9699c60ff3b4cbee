/**
 * The signal kinds of DECISIONS.md ("Signals", "Signals, posts, markers, chart lines"):
 * their shapes, the one table of thresholds (every number a formula reads, with its
 * unit), the score ramps and the cooldown rule. The formulas are in SIGNALS.md beside
 * this file and in token-signals.logic.ts / wallet-signals.logic.ts.
 */

import { TRADE, type StoredTrade } from '../../engine/model/index.ts';
import { TOKEN_SIGNAL_KINDS, WALLET_SIGNAL_KINDS, type Signal, type SignalKind, type TokenSignalKind, type WalletSignalKind } from '../../engine/model/index.ts';

export { TOKEN_SIGNAL_KINDS, WALLET_SIGNAL_KINDS, type Signal, type SignalKind, type TokenSignalKind, type WalletSignalKind };

/**
 * A trade as the signals read it: seen from the token's side (router contract:
 * `tradeFromTokenSide`), with its USD values (null while the quote has no USD price).
 */
export interface SignalTrade {
  /** `<tx_hash>:<event_index>` (SERVICE.md 2.8). */
  trade_id: string;
  token_address: string;
  pool_address: string;
  wallet_address: string;
  side: 'buy' | 'sell';
  at: number;
  token_amount: number;
  amount_usd: number | null;
  price_usd: number | null;
  market_cap_usd: number | null;
}

/**
 * A SignalTrade over a stored trade, filled per delivery by the actors that run the
 * signals (one object each, no allocation per trade): `trade_id` is built only when a
 * signal names it.
 */
export class SignalTradeView implements SignalTrade {
  stored: StoredTrade = null as unknown as StoredTrade;
  token_address = '';
  pool_address = '';
  wallet_address = '';
  side: 'buy' | 'sell' = 'buy';
  at = 0;
  token_amount = 0;
  amount_usd: number | null = null;
  price_usd: number | null = null;
  market_cap_usd: number | null = null;
  get trade_id(): string {
    return `${this.stored[TRADE.txHash]}:${this.stored[TRADE.eventIndex]}`;
  }
}

/** The thresholds of every kind. `cooldownMs`: a signal fires once per (kind, token, wallet set) per cooldown. */
export interface SignalThresholds {
  volume_spike: {
    /** The recent window and the baseline before it. */
    windowMs: number;
    baselineMs: number;
    /** Resolution of the token's rolling USD volume. */
    bucketMs: number;
    /** recent volume / baseline volume per window length, at least. */
    minRatio: number;
    /** The ratio scoring 1. */
    fullRatio: number;
    /** Recent USD volume at least. */
    minVolumeUsd: number;
    /** The baseline never counts as less than this per window (a quiet token's first trades are no spike). */
    baselineFloorUsd: number;
    /** The token has traded this long (a launch is all spike). */
    minAgeMs: number;
    cooldownMs: number;
  };
  price_breakout: {
    /** The previous all-time high stood this long. */
    minAthAgeMs: number;
    /** The new price is this much above it, percent. */
    minBreakPct: number;
    /** The price multiple of the old high scoring 1. */
    fullMultiple: number;
    minMarketCapUsd: number;
    minAgeMs: number;
    cooldownMs: number;
  };
  smart_money_buy: { label: string; minUsd: number; fullUsd: number; cooldownMs: number };
  kol_buy: { label: string; minUsd: number; fullUsd: number; cooldownMs: number };
  dev_sell: {
    /** Tokens sold by the creator in one trade, percent of total supply. */
    minSupplyPct: number;
    fullSupplyPct: number;
    cooldownMs: number;
  };
  whale_buy: {
    /** Any wallet buying this much is a whale buy... */
    minUsd: number;
    /** ...and a wallet labeled `label` from this much. */
    labeledMinUsd: number;
    label: string;
    fullUsd: number;
    cooldownMs: number;
  };
  migration: {
    /** Launch to graduation this fast scores 1, this slow (or slower) 0.5. */
    fastMs: number;
    slowMs: number;
    cooldownMs: number;
  };
  almost_bonded: {
    /** Fires when a curve's progress crosses this, percent (the almost_bonded feed's 70). */
    minProgressPct: number;
    /** Progress gained over the last 5 minutes scoring 1, in points. */
    fullGain5mPct: number;
    cooldownMs: number;
  };
  cluster_buy: {
    /** Buys by wallets with one of these labels count. */
    labels: readonly string[];
    windowMs: number;
    minWallets: number;
    fullWallets: number;
    minBuyUsd: number;
    cooldownMs: number;
  };
  big_win: {
    minProfitUsd: number;
    /** Proceeds over the cost of the tokens sold, at least. */
    minMultiple: number;
    fullProfitUsd: number;
    cooldownMs: number;
  };
  first_buy: {
    /** Tracked wallets: those with one of these labels (bots, snipers and bundlers buy everything first). */
    labels: readonly string[];
    minUsd: number;
    fullUsd: number;
    cooldownMs: number;
  };
}

const MIN = 60_000;
const HOUR = 60 * MIN;

/** The defaults (config `signals.<kind>.<name>` when wired): the one table. */
export const SIGNAL_DEFAULTS: Readonly<SignalThresholds> = {
  volume_spike: { windowMs: 5 * MIN, baselineMs: HOUR, bucketMs: 30_000, minRatio: 3, fullRatio: 30, minVolumeUsd: 5_000, baselineFloorUsd: 1_000, minAgeMs: 10 * MIN, cooldownMs: 30 * MIN },
  price_breakout: { minAthAgeMs: 10 * MIN, minBreakPct: 1, fullMultiple: 2, minMarketCapUsd: 20_000, minAgeMs: 15 * MIN, cooldownMs: 30 * MIN },
  smart_money_buy: { label: 'smart_money', minUsd: 500, fullUsd: 10_000, cooldownMs: HOUR },
  kol_buy: { label: 'kol', minUsd: 250, fullUsd: 5_000, cooldownMs: HOUR },
  dev_sell: { minSupplyPct: 0.5, fullSupplyPct: 10, cooldownMs: 15 * MIN },
  whale_buy: { minUsd: 5_000, labeledMinUsd: 1_000, label: 'whale', fullUsd: 50_000, cooldownMs: HOUR },
  migration: { fastMs: 5 * MIN, slowMs: 24 * HOUR, cooldownMs: 24 * HOUR },
  almost_bonded: { minProgressPct: 70, fullGain5mPct: 30, cooldownMs: HOUR },
  cluster_buy: { labels: ['smart_money', 'kol', 'whale'], windowMs: 10 * MIN, minWallets: 3, fullWallets: 10, minBuyUsd: 100, cooldownMs: HOUR },
  big_win: { minProfitUsd: 1_000, minMultiple: 2, fullProfitUsd: 100_000, cooldownMs: HOUR },
  first_buy: { labels: ['smart_money', 'kol', 'whale'], minUsd: 50, fullUsd: 5_000, cooldownMs: 24 * HOUR },
};

/**
 * The smallest USD amount of a buy whose wallet labels a token kind reads (smart_money_buy,
 * kol_buy, whale_buy's labeled minimum, cluster_buy): smaller buys and sells fire nothing
 * that depends on labels, so their labels are not read.
 */
export const labeledBuyMinUsd = (t: SignalThresholds): number =>
  Math.min(t.smart_money_buy.minUsd, t.kol_buy.minUsd, Math.min(t.whale_buy.labeledMinUsd, t.whale_buy.minUsd), t.cluster_buy.minBuyUsd);

/** The longest cooldown of a table: how long a cooldown entry must be kept. */
export const longestCooldownMs = (t: SignalThresholds): number => Math.max(...Object.values(t).map((k: { cooldownMs: number }) => k.cooldownMs));

const clamp01 = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x);

/**
 * 0 at `lo`, 1 at `hi`, on a log scale (amounts and ratios span orders of magnitude); 0
 * below, 1 above. A threshold set to 0 or less (an operator turning a floor off) falls
 * back to the linear ramp from 0, never NaN.
 */
export function logRamp(x: number, lo: number, hi: number): number {
  if (!(lo > 0)) return linearRamp(x, 0, hi);
  if (!(x > lo)) return 0;
  return clamp01(Math.log(x / lo) / Math.log(hi / lo));
}

/** 0 at `lo`, 1 at `hi`, linear. */
export function linearRamp(x: number, lo: number, hi: number): number {
  return clamp01((x - lo) / (hi - lo));
}

/**
 * Cooldowns: when each (kind, token, wallet set) last fired. A signal fires only when
 * its key never fired or fired at least `cooldownMs` away from `at`, before or after
 * (events may arrive out of order by a few seconds; the same events give the same
 * signals in any order that keeps each key's own order). Plain state, pruned by `prune`.
 */
export class Cooldowns {
  private readonly last: Map<string, number>;

  constructor(entries?: Iterable<readonly [string, number]>) {
    this.last = new Map(entries);
  }

  /** Plain data for a snapshot: [key, at] pairs. */
  toData(): Array<[string, number]> {
    return [...this.last];
  }

  /** Records and returns true when the key may fire at `at`; false inside its cooldown. */
  admit(key: string, at: number, cooldownMs: number): boolean {
    const prev = this.last.get(key);
    if (prev !== undefined && Math.abs(at - prev) < cooldownMs) return false;
    this.last.set(key, at);
    return true;
  }

  /** Forgets keys that fired more than `keepMs` before `now` (the longest cooldown). */
  prune(now: number, keepMs: number): void {
    for (const [key, at] of this.last) if (at <= now - keepMs) this.last.delete(key);
  }

  get size(): number {
    return this.last.size;
  }
}

/** The cooldown key of DECISIONS.md: kind, token and the wallet set (sorted, so order does not matter). */
export function cooldownKey(kind: SignalKind, token: string, wallets: readonly string[]): string {
  return wallets.length <= 1 ? `${kind}|${token}|${wallets[0] ?? ''}` : `${kind}|${token}|${[...wallets].sort().join(',')}`;
}

/** Overrides as the config file gives them (`signals.<kind>.<name>`): checked against SIGNAL_DEFAULTS by resolveSignalThresholds. */
export type SignalOverrides = Record<string, Record<string, unknown>>;

/**
 * SIGNAL_DEFAULTS with the config's `signals.<kind>.<name>` overrides: each must name a
 * kind and threshold of the table and have its type (a finite number ≥ 0, or a list of
 * label names where the default is one). Throws naming the first bad key.
 */
export function resolveSignalThresholds(overrides: SignalOverrides = {}): SignalThresholds {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [kind, table] of Object.entries(SIGNAL_DEFAULTS)) out[kind] = { ...table };
  for (const [kind, table] of Object.entries(overrides)) {
    const target = out[kind];
    if (!target) throw new Error(`signals.${kind}: not a signal kind (one of ${Object.keys(SIGNAL_DEFAULTS).join(', ')})`);
    for (const [name, value] of Object.entries(table ?? {})) {
      const current = target[name];
      const path = `signals.${kind}.${name}`;
      if (current === undefined) throw new Error(`${path}: not a threshold of ${kind} (one of ${Object.keys(target).join(', ')})`);
      if (typeof current === 'number' && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) throw new Error(`${path}: expected a number ≥ 0`);
      if (typeof current === 'string' && typeof value !== 'string') throw new Error(`${path}: expected a label name`);
      if (Array.isArray(current) && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) throw new Error(`${path}: expected a list of label names`);
      target[name] = value;
    }
  }
  return out as unknown as SignalThresholds;
}
