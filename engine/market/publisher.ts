import { countCandleChanges, takeCandleChanges, type PoolOutputs } from '../../actors/pool/pool.actor.ts';
import type { PoolInfo, PoolState } from '../../actors/pool/pool.logic.ts';
import { metadataRecord, supplyOf, type TokenState } from '../../actors/token/token.logic.ts';
import { CANDLE_CURRENCIES, CANDLE_MODES, INTERVAL_NAMES, KNOWN_MINTS, TRADE, type StoredTrade } from '../model/index.ts';
import type { ActorHost } from '../supervisor/host.ts';
import { NO_TOPICS, topics, CANDLES_FRAME_PREFIX, type TopicSink } from '../topics.ts';
import { CandleHistory, RESUME_HISTORY_MS } from './candle-history.ts';
import { candleAt, cutOf, graduationOf } from './candle-series.ts';
import type { MarketQuery } from './market-query.ts';
import { tradeJson } from './views.ts';


export interface PublisherDeps {
  /** The sink attached now (NO_TOPICS until a transport attaches). */
  sink(): TopicSink;
  market(): MarketQuery;
  /** The pools' host: a flush changes a pool's candle state through it (ActorHost.update), never behind it. */
  pools(): Pick<ActorHost<PoolState>, 'update' | 'get'>;
  token(address: string): TokenState | undefined;
  /** The labels of a wallet now (SERVICE.md 2.8 `labels`). */
  labels(wallet: string): string[];
  /** Wall or event time, for the resume history's 10 minutes. */
  now(): number;
  /** How often a pool's candle series are checked for subscribers. */
  subscriberCheckMs?: number;
}

/** A pool's trade topics, named once: `has` on a name it has hashed before is cheap. */
interface TradeTopics {
  pool: string;
  base: string;
  /** The quote token's, in a token-to-token pool. */
  quote: string | null;
}

interface PoolWatch {
  /** When the pool's 28 candle topics were last checked for subscribers. */
  checkedAt: number;
  /** Indices into SERIES of the series with subscribers at that check. */
  series: number[];
}

/** Every (interval, mode, currency) series, in a fixed order. */
const SERIES = INTERVAL_NAMES.flatMap((interval) => CANDLE_MODES.flatMap((mode) => CANDLE_CURRENCIES.map((currency) => ({ interval, mode, currency }))));

/**
 * The engine's live output (ARCHITECTURE.md, "Topics"): turns what the actors apply
 * into stream frames, each serialized once and only for topics with subscribers.
 *
 * - Trades are published as each swap is applied (pool_trades, token_trades of the
 *   base token and, in a token-to-token pool, of the quote token from its side).
 * - Pools a batch touched are flushed at most every `flushMs` (the engine calls
 *   `flush` after each batch and on a timer): the pool takes its candle changes
 *   (closed candles to its batched candle writer; each taking is one `seq` of the
 *   interval's series) through its host, which marks it dirty (ActorHost.update: the
 *   seqs are persisted with the pool and must reach its next snapshot), the changed
 *   candles are published, and pool_metrics is published for pools with subscribers.
 * - Candle changes are also recorded for resume (DECISIONS.md: at least 10 minutes)
 *   for pools whose candles someone watched in the last 10 minutes.
 */
/** No pass under way (never added to). */
const NONE = new Set<string>();

export class MarketPublisher implements PoolOutputs {
  /** Pools touched since the last pass began, by address (their actor may be rebuilt or passivated meanwhile). */
  private touched = new Set<string>();
  /** The flush pass under way (passOver the pools touched before it began), or null. */
  private pass: Generator<void> | null = null;
  /** The pools of the pass under way (empty between passes). */
  private passing: Set<string> = NONE;
  /** Pools whose metrics changed without a trade (their token's holders), since the last flush. */
  private metricsTouched = new Set<string>();
  private readonly watches = new Map<string, PoolWatch>();
  /** By the pool's info object: a new `pool` event (a new info) names them again, and they go with the state. */
  private readonly tradeTopics = new WeakMap<PoolInfo, TradeTopics>();
  readonly history = new CandleHistory();
  private readonly checkMs: number;

  constructor(private readonly deps: PublisherDeps) {
    this.checkMs = deps.subscriberCheckMs ?? 1_000;
  }

  trade(state: PoolState, stored: StoredTrade): void {
    this.touched.add(state.pool_address);
    const sink = this.deps.sink();
    if (sink === NO_TOPICS) return;
    const info = state.info!;
    const names = this.tradeTopicsOf(info);
    const toPool = sink.has(names.pool);
    const toBase = sink.has(names.base);
    const toQuote = names.quote !== null && sink.has(names.quote);
    if (!toPool && !toBase && !toQuote) return;
    const labels = this.deps.labels(stored[TRADE.wallet]);
    if (toPool || toBase) {
      const data = tradeJson(stored, state, info.base_address, null, labels);
      if (toPool) sink.publish(names.pool, `{"stream":"pool_trades","data":${data}}`);
      if (toBase) sink.publish(names.base, `{"stream":"token_trades","data":${data}}`);
    }
    if (toQuote) {
      const data = tradeJson(stored, state, info.quote_address, supplyOf(this.deps.token(info.quote_address)), labels);
      sink.publish(names.quote!, `{"stream":"token_trades","data":${data}}`);
    }
  }

  /** The trade topics of a pool: not two concatenations and two hashes of new strings per trade. */
  private tradeTopicsOf(info: PoolInfo): TradeTopics {
    let names = this.tradeTopics.get(info);
    if (names === undefined) {
      names = {
        pool: topics.poolTrades(info.pool_address),
        base: topics.tokenTrades(info.base_address),
        quote: info.quote_address in KNOWN_MINTS ? null : topics.tokenTrades(info.quote_address),
      };
      this.tradeTopics.set(info, names);
    }
    return names;
  }

  /** A token's metadata changed (token actor). */
  metadata(state: TokenState): void {
    const sink = this.deps.sink();
    const topic = topics.tokenMetadata();
    if (sink.has(topic)) sink.publish(topic, `{"stream":"token_metadata","data":${JSON.stringify(metadataRecord(state))}}`);
  }

  /** A token's holders changed (token actor): pool_metrics of its pools, at the next flush. */
  holders(state: TokenState): void {
    if (this.deps.sink() === NO_TOPICS) return;
    for (const pool of state.pools) this.metricsTouched.add(pool);
  }

  /** Flushes every pool touched since the last flush, the pass under way first (see the class comment). */
  flush(): void {
    for (let pass = this.flushPass(); pass !== null; pass = this.flushPass()) while (!pass.next().done);
  }

  /**
   * Flushes one pool now if a flush has yet to take its changes (touched, in the pass
   * under way, or its metrics due), and takes it out of that flush: the actor host calls
   * this before passivating the pool past its bound (ActorHost.beforeEvict), where the
   * flush would otherwise activate it again at once. A pass under way skips it (a Set's
   * iteration skips what is deleted before it is reached).
   */
  flushOne(pool: string): void {
    const touched = this.touched.delete(pool);
    const passing = this.passing.delete(pool);
    const metrics = this.metricsTouched.delete(pool);
    if (!touched && !passing && !metrics) return;
    const sink = this.deps.sink();
    if (touched || passing) this.flushPool(pool, sink, this.deps.now());
    else this.publishMetrics(pool, sink);
  }

  /** Whether a flush pass has pools left. */
  get flushing(): boolean {
    return this.pass !== null;
  }

  /**
   * The flush pass under way, or a new one over the pools touched since the last (null:
   * none touched). Each step flushes 64 pools, so that the engine runs a pass in slices
   * (Engine.flushDue): a pass over thousands of pools (~2.5 µs each) would hold the
   * event loop for over 10 ms, and every frame behind it. A pool touched again while a
   * pass is on is flushed again in the next: its newer changes, if the pass has not
   * taken them already.
   */
  flushPass(): Iterator<void> | null {
    if (this.metricsTouched.size > 0) {
      const pools = this.metricsTouched;
      this.metricsTouched = new Set();
      const sink = this.deps.sink();
      // Pools that also traded publish their metrics with the rest of their flush below.
      for (const pool of pools) if (!this.touched.has(pool)) this.publishMetrics(pool, sink);
    }
    if (this.pass === null && this.touched.size > 0) {
      this.pass = this.passOver(this.touched);
      this.passing = this.touched;
      this.touched = new Set();
    }
    return this.pass;
  }

  private *passOver(touched: Set<string>): Generator<void> {
    let sink = this.deps.sink();
    let now = this.deps.now();
    try {
      let k = 0;
      for (const pool of touched) {
        this.flushPool(pool, sink, now);
        if ((++k & 63) === 0) {
          yield;
          // Later turns: the sink may have changed, and time has passed.
          sink = this.deps.sink();
          now = this.deps.now();
        }
      }
    } finally {
      // Also when a pool's flush threw: the pass ends there, the next begins afresh.
      this.pass = null;
      this.passing = NONE;
    }
    this.history.trim(now - RESUME_HISTORY_MS);
    if (this.watches.size > 2 * touched.size + 1_000) {
      for (const [pool, watch] of this.watches) if (now - watch.checkedAt > 10 * this.checkMs) this.watches.delete(pool);
    }
  }

  private flushPool(pool: string, sink: TopicSink, now: number): void {
    const watch = sink === NO_TOPICS ? null : this.watchOf(pool, sink, now);
    // Nobody watches these candles or could resume them from the history: no frame,
    // but the seqs move on (a client that saw one and resumes must not read "unchanged").
    const listed = watch !== null && (watch.series.length > 0 || this.history.isRecording(pool));
    const pools = this.deps.pools();
    // Through the host: the taking changes the pool's persisted seqs (ActorHost.update).
    const taking = pools.update(pool, listed ? takeCandleChanges : countCandleChanges);
    if (taking === undefined) return; // stopped after repeated crashes
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
    if (state.info) this.publishMetrics(pool, sink);
  }

  private publishMetrics(pool: string, sink: TopicSink): void {
    if (sink === NO_TOPICS) return;
    const topic = topics.poolMetrics(pool);
    if (!sink.has(topic)) return;
    const data = this.deps.market().poolMetrics(pool);
    if (data) sink.publish(topic, `{"stream":"pool_metrics","data":${JSON.stringify(data)}}`);
  }

  /**
   * Which of the pool's candle series have subscribers, checked at most every checkMs
   * (28 lookups): negative answers are cached too, so a busy pool nobody watches
   * costs one Map lookup per flush.
   */
  private watchOf(pool: string, sink: TopicSink, now: number): PoolWatch {
    let watch = this.watches.get(pool);
    if (watch && now - watch.checkedAt < this.checkMs && now >= watch.checkedAt) return watch;
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

/** The candles frame (SERVICE.md 6), starting with CANDLES_FRAME_PREFIX. */
export function candleFrame(pool: string, interval: string, mode: string, currency: string, seq: number, candles: unknown[]): string {
  return `${CANDLES_FRAME_PREFIX}"pool_address":"${pool}","interval":"${interval}","mode":"${mode}","currency":"${currency}","seq":${seq},"candles":${JSON.stringify(candles)}}}`;
}
