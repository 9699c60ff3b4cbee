import type { Candle, CandleCurrency, CandleInterval, CandleMode } from '../../engine/model/index.ts';
import type { SeriesOptions } from './candles.ts';
import type { PoolState } from './pool.logic.ts';

/**
 * A pool's candles as the candles route, a candles subscription's resume and its live
 * frames show them (DECISIONS.md, "Prices and market cap"): a pool a bonding curve
 * graduated into continues the curve's candles before `migrated_at`, as its trades
 * route includes the curve's trades, so that a token's chart is one series across
 * graduation. The curve's own series keeps only its own candles.
 *
 * - The curve's candles that start before the cut (`migrated_at`; the pool's
 *   `created_at` while no migration event named it) come first; the pool's own follow.
 * - The bucket holding the cut has trades of both: one candle, with the curve's open,
 *   the pool's close, the high and low of both, and both volumes.
 * - Every interval and mode; in USD always, in quote units only when both pools are
 *   quoted in the same asset (otherwise the quote series is the pool's own).
 * - One level: the curve's own predecessor, if any, is not followed (nor by the trades route).
 * - `seq` is the graduated pool's: a curve trade arriving late (after the graduation)
 *   changes what the route and a resume by time show, not the pool's seq, so no live
 *   frame or resume by seq carries it.
 */

/** The bonding curve a pool graduated from, and where its candles stop. */
export interface Graduation {
  curve: Readonly<PoolState>;
  /** Curve candles starting before this time continue the pool's series. */
  cut: number;
}

/**
 * The curve whose candles `state` continues, or null: a pool no curve graduated into,
 * a curve the engine does not know, or one of another base token.
 */
export function graduationOf(state: Readonly<PoolState>, pool: (address: string) => Readonly<PoolState> | undefined): Graduation | null {
  const cut = cutOf(state);
  if (cut === -Infinity) return null;
  const info = state.info!;
  const curve = pool(info.migrated_from_pool_address!);
  if (!curve?.info || curve.info.base_address !== info.base_address) return null;
  return { curve, cut };
}

/**
 * Where the candles of the curve `state` graduated from stop (Graduation.cut), without
 * reading the curve; −Infinity for a pool no curve graduated into. A bucket starting at
 * or after it is the pool's alone.
 */
export function cutOf(state: Readonly<PoolState>): number {
  const info = state.info;
  if (!info?.migrated_from_pool_address) return -Infinity;
  return info.migrated_at ?? info.created_at;
}

/** The graduation, if the curve's candles join the series in this currency. */
function joining(state: Readonly<PoolState>, g: Graduation | null, currency: CandleCurrency): Graduation | null {
  if (g === null) return null;
  return currency === 'usd' || g.curve.info!.quote_address === state.info!.quote_address ? g : null;
}

/**
 * The bucket holding the cut, from both pools: `earlier` is the curve's candle, `later`
 * the pool's (same start_at). A candle without a value (a USD track of a bucket where no
 * trade had a USD value) gives way to the other.
 */
export function mergeCandles(earlier: Candle, later: Candle): Candle {
  if (earlier.open === null) return later;
  if (later.open === null) return earlier;
  return {
    start_at: later.start_at,
    open: earlier.open,
    high: Math.max(earlier.high!, later.high!),
    low: Math.min(earlier.low!, later.low!),
    close: later.close,
    volume: earlier.volume! + later.volume!,
  };
}

/** The `limit` newest candles of `state`'s series in the range, oldest first, with the curve's before the cut. */
export function candleSeries(
  state: Readonly<PoolState>,
  graduation: Graduation | null,
  interval: CandleInterval,
  mode: CandleMode,
  currency: CandleCurrency,
  opts: SeriesOptions,
): Candle[] {
  const own = state.candles.series(interval, mode, currency, opts);
  const g = joining(state, graduation, currency);
  if (g === null) return own;
  const endTime = Math.min(opts.endTime ?? Infinity, g.cut - 1);
  if (opts.startTime !== undefined && opts.startTime > endTime) return own;
  const before = g.curve.candles.series(interval, mode, currency, { startTime: opts.startTime, endTime, limit: opts.limit });
  if (before.length === 0) return own;
  // Both ascending by start_at; the newest `limit` of the union are among each one's newest `limit`.
  const out: Candle[] = [];
  let i = 0;
  let k = 0;
  while (i < before.length || k < own.length) {
    const a = i < before.length ? before[i]!.start_at : Infinity;
    const b = k < own.length ? own[k]!.start_at : Infinity;
    if (a < b) out.push(before[i++]!);
    else if (b < a) out.push(own[k++]!);
    else out.push(mergeCandles(before[i++]!, own[k++]!));
  }
  return out.length > opts.limit ? out.slice(out.length - opts.limit) : out;
}

/** One candle of `state`'s series (a changed one, for a live frame or a resume), or null if the bucket has no trades. */
export function candleAt(
  state: Readonly<PoolState>,
  graduation: Graduation | null,
  interval: CandleInterval,
  start: number,
  mode: CandleMode,
  currency: CandleCurrency,
): Candle | null {
  const own = state.candles.candle(interval, start, mode, currency);
  const g = joining(state, graduation, currency);
  if (g === null || start >= g.cut) return own;
  const before = g.curve.candles.candle(interval, start, mode, currency);
  if (before === null) return own;
  return own === null ? before : mergeCandles(before, own);
}
