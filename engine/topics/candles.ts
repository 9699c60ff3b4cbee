import { candleAt, countCandleChanges, cutOf, graduationOf, takeCandleChanges, type CandleTaking, type PoolState } from '../../actors/index.ts';
import { CANDLE_CURRENCIES, CANDLE_MODES, INTERVAL_NAMES } from '../model/index.ts';
import { CandleHistory, RESUME_HISTORY_MS } from './candle-history.ts';
import { topics } from './names.ts';
import { NO_TOPICS, type TopicSink } from './sink.ts';

/** The prefix every candles frame starts with (see TopicSink). */
export const CANDLES_FRAME_PREFIX = '{"stream":"candles","data":{';

/** The candles frame (SERVICE.md 6), starting with CANDLES_FRAME_PREFIX. */
export function candleFrame(pool: string, interval: string, mode: string, currency: string, seq: number, candles: unknown[]): string {
  return `${CANDLES_FRAME_PREFIX}"pool_address":"${pool}","interval":"${interval}","mode":"${mode}","currency":"${currency}","seq":${seq},"candles":${JSON.stringify(candles)}}}`;
}

/**
 * The pools' host as the candles stream uses it: a flush changes a pool's candle state
 * through it (ActorHost.update, which marks the pool dirty), never behind it.
 */
export interface PoolStates {
  update<R>(key: string, change: (state: PoolState) => R): R | undefined;
  get(key: string): Readonly<PoolState> | undefined;
}

interface PoolWatch {
  /** When the pool's 28 candle topics were last checked for subscribers. */
  checkedAt: number;
  /** Indices into SERIES of the series with subscribers at that check. */
  series: number[];
}

/**
 * How often a pool's 28 candle topics are checked for subscribers, in ms: a busy pool
 * nobody watches costs a Map lookup per flush instead of 28 `has` calls; a new
 * subscription is seen at once (candleSubscribed).
 */
const SUBSCRIBER_CHECK_MS = 1_000;

/** Every (interval, mode, currency) series, in a fixed order. */
const SERIES = INTERVAL_NAMES.flatMap((interval) => CANDLE_MODES.flatMap((mode) => CANDLE_CURRENCIES.map((currency) => ({ interval, mode, currency }))));

/**
 * candles:<pool>:<interval>:<mode>:<currency>: the candles of one series changed since
 * the last flush, with the series' seq (SERVICE.md 6, DECISIONS.md "Candle resume").
 *
 * A flush of a pool takes its candle changes (closed candles to its batched candle
 * writer; each taking is one `seq` of the interval's series) through its host, which
 * marks it dirty (the seqs are persisted with the pool and must reach its next
 * snapshot), and publishes the changed candles of the series with subscribers. The
 * changes are also recorded for resume (DECISIONS.md: at least 10 minutes) for pools
 * whose candles someone watched in the last 10 minutes.
 */
export class CandleStream {
  private readonly watches = new Map<string, PoolWatch>();
  readonly history = new CandleHistory();

  constructor(private readonly pools: () => PoolStates) {}

  /** Takes a pool's candle changes and publishes them; the pool's state after, or undefined when its actor is stopped. */
  flush(pool: string, sink: TopicSink, now: number): PoolState | undefined {
    const watch = sink === NO_TOPICS ? null : this.watchOf(pool, sink, now);
    // Nobody watches these candles or could resume them from the history: no frame,
    // but the seqs move on (a client that saw one and resumes must not read "unchanged").
    const listed = watch !== null && (watch.series.length > 0 || this.history.isRecording(pool));
    const pools = this.pools();
    // Through the host: the taking changes the pool's persisted seqs (ActorHost.update).
    const taking: CandleTaking | undefined = pools.update(pool, listed ? takeCandleChanges : countCandleChanges);
    if (taking === undefined) return undefined; // stopped after repeated crashes
    const { state, changed } = taking;
    if (changed.length > 0) {
      const candles = state.candles;
      this.history.record(pool, changed, (interval) => candles.seqOf(interval), now, watch!.series.length > 0);
      // A graduated pool's bucket holding the migration shows the curve's trades too
      // (the curve is read only for such a bucket: most flushes of a graduated pool have none).
      const cut = cutOf(state);
      const graduation = watch!.series.length > 0 && changed.some((c) => c.start_at < cut) ? graduationOf(state, (address) => pools.get(address)) : null;
      for (const k of watch!.series) {
        const { interval, mode, currency } = SERIES[k]!;
        const starts = changed.filter((c) => c.interval === interval);
        if (starts.length === 0) continue;
        const list = starts.map((c) => candleAt(state, graduation, interval, c.start_at, mode, currency)).filter((c) => c !== null);
        const frame = candleFrame(pool, interval, mode, currency, candles.seqOf(interval), list);
        sink.publish(topics.candles(pool, interval, mode, currency), frame);
      }
    }
    return state;
  }

  /** A flush pass over `flushed` pools ended at `now`: the history and the subscriber checks forget what is old. */
  passEnded(now: number, flushed: number): void {
    this.history.trim(now - RESUME_HISTORY_MS);
    if (this.watches.size > 2 * flushed + 1_000) {
      for (const [pool, watch] of this.watches) if (now - watch.checkedAt > 10 * SUBSCRIBER_CHECK_MS) this.watches.delete(pool);
    }
  }

  /**
   * Which of the pool's candle series have subscribers, checked at most every SUBSCRIBER_CHECK_MS
   * (28 lookups): negative answers are cached too, so a busy pool nobody watches
   * costs one Map lookup per flush.
   */
  private watchOf(pool: string, sink: TopicSink, now: number): PoolWatch {
    let watch = this.watches.get(pool);
    if (watch && now - watch.checkedAt < SUBSCRIBER_CHECK_MS && now >= watch.checkedAt) return watch;
    const series: number[] = [];
    for (let k = 0; k < SERIES.length; k++) {
      const { interval, mode, currency } = SERIES[k]!;
      if (sink.has(topics.candles(pool, interval, mode, currency))) series.push(k);
    }
    if (!watch) {
      watch = { checkedAt: now, series };
      this.watches.set(pool, watch);
    } else {
      watch.checkedAt = now;
      watch.series = series;
    }
    return watch;
  }

  /**
   * A subscription to one of the pool's candle series starts now: the next flush
   * publishes to it without waiting for the periodic subscriber check.
   */
  candleSubscribed(pool: string): void {
    this.watches.delete(pool);
  }
}
