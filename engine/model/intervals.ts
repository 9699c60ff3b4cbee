/**
 * The engine's time tables, each spelled once: candle intervals (SERVICE.md 4.4),
 * rolling windows (SERVICE.md 2.5), the search route's windows, and the candle modes
 * and currencies. HTTP and WebSocket parameters, the actors and storage all read them
 * from here.
 */

/** Candle intervals of SERVICE.md 4.4, with their length in ms. */
export const CANDLE_INTERVALS = { '1s': 1_000, '15s': 15_000, '1m': 60_000, '15m': 900_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 } as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;

/** Interval names in CANDLE_INTERVALS order; an interval is its index in here (candle rows store that index). */
export const INTERVAL_NAMES = Object.keys(CANDLE_INTERVALS) as [CandleInterval, ...CandleInterval[]];
/** Interval lengths in ms, by interval index. */
export const INTERVAL_LENGTHS: readonly number[] = INTERVAL_NAMES.map((name) => CANDLE_INTERVALS[name]);
export const INTERVAL_COUNT = INTERVAL_NAMES.length;

/**
 * Intervals whose closed candles are not stored but folded from the pool's trades when
 * read (actors/pool/trade-candles.ts; issue 25): 300 candles of 1s are 5 minutes of
 * trades. Their live buckets stream like every interval's.
 */
export const FOLDED_INTERVALS: readonly CandleInterval[] = ['1s', '15s'];

/** The index of an interval in INTERVAL_NAMES; throws on a name that is none. */
export function intervalIndex(interval: CandleInterval): number {
  const i = INTERVAL_NAMES.indexOf(interval);
  if (i < 0) throw new Error(`unknown candle interval ${String(interval)}`);
  return i;
}

/** What a candle series reads: the price or the market cap track. */
export const CANDLE_MODES = ['price', 'market_cap'] as const;
export type CandleMode = (typeof CANDLE_MODES)[number];
/** The currency of a candle series: the pool's quote asset or USD (the order the publisher flushes them in). */
export const CANDLE_CURRENCIES = ['usd', 'quote'] as const;
export type CandleCurrency = (typeof CANDLE_CURRENCIES)[number];

/** Rolling windows of SERVICE.md 2.5, in order, with their length in ms. */
export const WINDOWS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS;
/** Window names in WINDOWS order. */
export const WINDOW_NAMES = Object.keys(WINDOWS) as [WindowName, ...WindowName[]];
/** Buckets per window: the edge error of a rolling window is 1/60 of it (actors/pool/windows.ts). */
export const WINDOW_BUCKETS = 60;
/** Bucket length of each window, in ms. */
export const WINDOW_RESOLUTION_MS = Object.fromEntries(WINDOW_NAMES.map((name) => [name, WINDOWS[name] / WINDOW_BUCKETS])) as Record<WindowName, number>;

/** The windows of the search route (GET /v1/search?window=), in the order of a token record's `window_usd`. */
export const SEARCH_WINDOWS = ['5m', '1h', '6h', '24h'] as const satisfies readonly WindowName[];
export type SearchWindow = (typeof SEARCH_WINDOWS)[number];
