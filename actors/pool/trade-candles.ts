import { CANDLE_INTERVALS, FOLDED_INTERVALS, SUB_SPAN, TRADE, intervalIndex, mergeTrade, toStored, type CandleInterval, type CandleTrade, type StoredCandle, type StoredTrade, type TradeSpan } from '../../engine/model/index.ts';
import { newBucket, releaseBucket } from './candles.bucket.ts';

/**
 * The 1s and 15s candles that are not stored (issue 25): a closed one is folded from
 * the pool's trades of its range when read, the way PoolCandles.add folded them when
 * they were live (mergeTrade, on the trade's values as the trades store keeps them), so
 * that it is the candle a stored series gave, bit for bit. 300 candles of 1s are at
 * most 5 minutes of a pool's trades; the trades store keeps 30 days, the stored
 * series kept 3 (1s) and 14 (15s). Their live buckets stay in PoolCandles and stream
 * as before.
 */

/** FOLDED_INTERVALS as a bit per interval index (ClosedCandleStore.folded). */
export const FOLDED_MASK = FOLDED_INTERVALS.reduce((mask, interval) => mask | (1 << intervalIndex(interval)), 0);

/** A pool's trades in a span, in its order, each position once (pool-trades.ts poolTrades). */
export type TradeSource = (w: TradeSpan) => Iterator<StoredTrade>;

/** What mergeTrade takes of a stored trade: one object, filled per trade. */
const TRADE_VALUES: CandleTrade = { priceQuote: 0, marketCapQuote: 0, quoteAmount: 0, priceUsd: null, marketCapUsd: null, quoteUsd: null };

/**
 * Merges a stored trade into the bucket d (offset 0) as PoolCandles.add does with the
 * PoolTrade applySwap derived: the USD price and market cap are the quote values × the
 * quote's USD price at the trade, the products applySwap takes.
 */
function mergeStored(d: Float64Array, t: StoredTrade): void {
  const usd = t[TRADE.quoteUsd];
  const v = TRADE_VALUES;
  v.priceQuote = t[TRADE.priceQuote];
  v.marketCapQuote = t[TRADE.marketCapQuote];
  v.quoteAmount = t[TRADE.quoteAmount];
  v.quoteUsd = usd;
  v.priceUsd = usd === null ? null : v.priceQuote * usd;
  v.marketCapUsd = usd === null ? null : v.marketCapQuote * usd;
  mergeTrade(d, 0, v, t[TRADE.slot], t[TRADE.txIndex] * SUB_SPAN + t[TRADE.eventIndex], usd !== null);
}

/** The candle of `interval` starting at `startAt`, from the trades; undefined when none falls in it. */
export function foldCandle(trades: TradeSource, interval: CandleInterval, startAt: number): StoredCandle | undefined {
  const length = CANDLE_INTERVALS[interval];
  const it = trades({ order: 'asc', minAt: startAt, maxAt: startAt + length - 1, numbersOnly: true });
  let d: Float64Array | null = null;
  for (let next = it.next(); !next.done; next = it.next()) {
    d ??= newBucket(intervalIndex(interval), startAt);
    mergeStored(d, next.value);
  }
  if (d === null) return undefined;
  const out = toStored(d, 0);
  releaseBucket(d);
  return out;
}

/**
 * The candles of `interval` with from <= start_at <= to, from the trades: the newest
 * `limit`, oldest first (ClosedCandleStore.read). One walk back from the range's end,
 * which stops at the first trade of a bucket older than the `limit`th.
 */
export function foldCandles(trades: TradeSource, interval: CandleInterval, from: number, to: number, limit: number): StoredCandle[] {
  if (!(limit > 0) || !(from <= to)) return [];
  const length = CANDLE_INTERVALS[interval];
  const iv = intervalIndex(interval);
  // Trades of buckets starting in [from, to] (times are whole ms).
  const minAt = Math.ceil(from / length) * length;
  const maxAt = Math.floor(to / length) * length + length - 1;
  const it = trades({ order: 'desc', minAt, maxAt, numbersOnly: true });
  const buckets: Float64Array[] = [];
  let d: Float64Array | null = null;
  for (let next = it.next(); !next.done; next = it.next()) {
    const t = next.value;
    const start = Math.floor(t[TRADE.at] / length) * length;
    if (d === null || start !== d[1]) {
      if (buckets.length === limit) {
        it.return?.(); // the trades' LMDB iterators end their read transactions
        break;
      }
      d = newBucket(iv, start);
      buckets.push(d);
    }
    mergeStored(d, t);
  }
  const out = new Array<StoredCandle>(buckets.length);
  for (let k = 0; k < buckets.length; k++) {
    out[buckets.length - 1 - k] = toStored(buckets[k]!, 0);
    releaseBucket(buckets[k]!);
  }
  return out;
}
