import type { WindowName } from '../../engine/model/index.ts';
import type { Windowed } from './windows.ts';

/**
 * Heat of a pool (SERVICE.md 2.6), a pure function of its windowed metrics, its age and
 * its liquidity. HEAT.md (next to this file, linked from the API description) explains
 * the same formula for clients.
 *
 * null when the pool has no trade in its 24h window.
 *
 * absolute (0-100): how much is going on, from the last hour, on saturating log scales:
 *   L(x; lo, hi) = clamp01((log10(1 + x) − log10(1 + lo)) / (log10(1 + hi) − log10(1 + lo)))
 *   absolute = round(100 × (0.5·L(volume 1h USD; $100, $1M) + 0.3·L(trades 1h; 5, 5,000)
 *                           + 0.2·L(traders 1h; 3, 1,000)))
 *   The volume term is left out (weights renormalized) while the USD volume is unknown.
 *
 * momentum (0-100): how much the last 5 minutes outrun the last hour.
 *   span5 = min(5 min, age), span60 = min(60 min, age) (a young pool's hour is its life)
 *   ratio(x) = (x5m / span5) / (x1h / span60), the 5m rate over the 1h average rate
 *   surge(r) = clamp01(ln r / ln 4): 0 at or below the hour's pace, 1 at 4× it
 *   activity = min(1, trades 5m / 10): a surge needs trades to stand on
 *   price  = min(1, |price change 5m, quote| / 20 %) × activity
 *   volume = surge(ratio(quote volume)) × activity
 *   txns   = surge(ratio(trades)) × activity
 *   momentum = round(100 × (0.4·price + 0.35·volume + 0.25·txns))
 *   Quote, not USD, so a move of the quote asset (SOL) is not the pool's momentum.
 *
 * drivers: the components at 0.5 or more, strongest first (ties: price, volume, txns).
 * direction: the sign of the 5m quote price change; when it is 0 or null, of the 1h, then
 *   24h change; up when all are flat.
 * confidence (0-1, two decimals) = min(1, age / 10 min) × min(1, trades 1h / 30)
 *   × (0.5 + 0.5 · min(1, liquidity USD / $5,000)), the last factor 1 when liquidity
 *   is unknown: young pools, few trades and thin pools make noisy heat.
 */

export type HeatDriver = 'price' | 'volume' | 'txns';

export interface Heat {
  absolute: number;
  momentum: number;
  direction: 'up' | 'down';
  drivers: HeatDriver[];
  confidence: number;
}

export interface HeatInput {
  /** The pool's windowed metrics (PoolWindows.read); 5m, 1h and 24h are used. */
  windowed: Windowed;
  /** Milliseconds since the pool's creation. */
  ageMs: number;
  /** Pool liquidity in USD, null when unknown. */
  liquidityUsd: number | null;
}

/** Every constant of the formula, in one place (HEAT.md quotes them). */
export const HEAT = {
  absolute: {
    volumeUsd: { lo: 100, hi: 1_000_000, weight: 0.5 },
    trades: { lo: 5, hi: 5_000, weight: 0.3 },
    traders: { lo: 3, hi: 1_000, weight: 0.2 },
  },
  momentum: {
    /** The 5m rate at this multiple of the 1h average rate is a full surge. */
    surgeFull: 4,
    /** A 5m price change of this many percent, either way, is a full price component. */
    priceFullPct: 20,
    /** Trades in 5m for components to count fully. */
    activityTrades: 10,
    weights: { price: 0.4, volume: 0.35, txns: 0.25 },
  },
  driverThreshold: 0.5,
  confidence: { ageFullMs: 10 * 60_000, tradesFull: 30, liquidityFullUsd: 5_000 },
} as const;

const MINUTE = 60_000;
const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);
const logScale = (x: number, { lo, hi }: { lo: number; hi: number }) =>
  clamp01((Math.log10(1 + x) - Math.log10(1 + lo)) / (Math.log10(1 + hi) - Math.log10(1 + lo)));
const surge = (ratio: number) => (ratio > 1 ? clamp01(Math.log(ratio) / Math.log(HEAT.momentum.surgeFull)) : 0);

/** A window's index in windowed metrics. */
function windowIndex(w: Windowed, name: WindowName): number {
  const i = w.t.indexOf(name);
  if (i < 0) throw new Error(`computeHeat: windowed metrics lack ${name}`);
  return i;
}

/** The 5m rate over the 1h average rate, each over the span the pool has lived of it. */
const rateRatio = (x5: number, x60: number, span5: number, span60: number) => (x60 > 0 ? x5 / span5 / (x60 / span60) : 0);

const DRIVER_ORDER: readonly HeatDriver[] = ['price', 'volume', 'txns'];

/** The components at or past the driver threshold, strongest first; ties in DRIVER_ORDER. */
function driversOf(components: Record<HeatDriver, number>): HeatDriver[] {
  const drivers: HeatDriver[] = [];
  for (const d of DRIVER_ORDER) {
    const x = components[d];
    if (!(x >= HEAT.driverThreshold)) continue;
    // After every driver at least as strong: earlier in DRIVER_ORDER wins a tie.
    let i = drivers.length;
    while (i > 0 && components[drivers[i - 1]!] < x) i--;
    drivers.splice(i, 0, d);
  }
  return drivers;
}

/** The first price change that moved (neither null nor 0), shortest window first. */
const firstMove = (a: number | null, b: number | null, c: number | null) =>
  a !== null && a !== 0 ? a : b !== null && b !== 0 ? b : c !== null && c !== 0 ? c : undefined;

// No closure is made per call: tsx keeps function names, so each one made costs a
// defineProperty (per-call closures here and in totalsOf were ~4.6 % of a
// /pools/metrics request).
export function computeHeat(input: HeatInput): Heat | null {
  const { windowed: w } = input;
  const m5 = windowIndex(w, '5m');
  const h1 = windowIndex(w, '1h');
  const h24 = windowIndex(w, '24h');
  if (w.tc[h24] === 0) return null;
  const age = Math.max(0, input.ageMs);

  const a = HEAT.absolute;
  const volumeUsd = w.v[h1]![1];
  // Summed in the order the terms list (trades, traders, USD volume when known).
  let weighted = a.trades.weight * logScale(w.tc[h1]!, a.trades) + a.traders.weight * logScale(w.m[h1]!, a.traders);
  let weights = a.trades.weight + a.traders.weight;
  if (volumeUsd !== null) {
    weighted += a.volumeUsd.weight * logScale(volumeUsd, a.volumeUsd);
    weights += a.volumeUsd.weight;
  }
  const absolute = Math.round((100 * weighted) / weights);

  const mo = HEAT.momentum;
  const span5 = Math.min(5 * MINUTE, Math.max(age, 1_000));
  const span60 = Math.min(60 * MINUTE, Math.max(age, 1_000));
  const activity = Math.min(1, w.tc[m5]! / mo.activityTrades);
  const price5 = w.pp[m5]![0];
  const components: Record<HeatDriver, number> = {
    price: Math.min(1, Math.abs(price5 ?? 0) / mo.priceFullPct) * activity,
    volume: surge(rateRatio(w.v[m5]![0], w.v[h1]![0], span5, span60)) * activity,
    txns: surge(rateRatio(w.tc[m5]!, w.tc[h1]!, span5, span60)) * activity,
  };
  const momentum = Math.round(100 * (mo.weights.price * components.price + mo.weights.volume * components.volume + mo.weights.txns * components.txns));
  const drivers = driversOf(components);

  const move = firstMove(price5, w.pp[h1]![0], w.pp[h24]![0]);
  const c = HEAT.confidence;
  const liquidity = input.liquidityUsd === null ? 1 : 0.5 + 0.5 * clamp01(input.liquidityUsd / c.liquidityFullUsd);
  const confidence = Math.round(100 * clamp01(age / c.ageFullMs) * Math.min(1, w.tc[h1]! / c.tradesFull) * liquidity) / 100;

  return { absolute, momentum, direction: move !== undefined && move! < 0 ? 'down' : 'up', drivers, confidence };
}
