import { supplyOf, type PoolInfo, type PoolState, type TokenState } from '../../actors/index.ts';
import { TRADE, tradeJson, type StoredTrade } from '../model/index.ts';
import type { CandleHistory } from './candle-history.ts';
import { CandleStream, type PoolStates } from './candles.ts';
import { PoolMetricsStream, type PoolMetricsSource } from './pool-metrics.ts';
import { poolTradesFrame, poolTradesTopic } from './pool-trades.ts';
import { NO_TOPICS, type TopicSink } from './sink.ts';
import { publishTokenMetadata } from './token-metadata.ts';
import { baseTradesTopic, quoteTradesTopic, tokenTradesFrame } from './token-trades.ts';

export interface PublisherDeps {
  /** The sink attached now (NO_TOPICS until a transport attaches). */
  sink(): TopicSink;
  /** The reads pool_metrics frames are built with (engine/query: `pools.poolMetrics`). */
  market(): { pools: PoolMetricsSource };
  /** The pools' host: a flush changes a pool's candle state through it (ActorHost.update), never behind it. */
  pools(): PoolStates;
  token(address: string): TokenState | undefined;
  /** The labels of a wallet now (SERVICE.md 2.8 `labels`). */
  labels(wallet: string): string[];
  /** Wall or event time, for the resume history's 10 minutes. */
  now(): number;
}

/** A pool's trade topics, named once: `has` on a name it has hashed before is cheap. */
interface TradeTopics {
  pool: string;
  base: string;
  /** The quote token's, in a token-to-token pool. */
  quote: string | null;
}

/**
 * The engine's live output (ARCHITECTURE.md, "Topics"): turns what the actors apply
 * into stream frames, each serialized once and only for topics with subscribers. One
 * file per stream (pool-trades.ts, token-trades.ts, token-metadata.ts,
 * pool-metrics.ts, candles.ts); this coordinator hands each applied change to its
 * streams and runs the live flush.
 *
 * - Trades are published as each swap is applied (pool_trades, token_trades of the
 *   base token and, in a token-to-token pool, of the quote token from its side); the
 *   base side's record is serialized once for pool_trades and token_trades.
 * - Pools a batch touched are flushed at most every `flushMs` (the engine calls
 *   `flush` after each batch and on a timer): each pool's candle changes are taken and
 *   published (candles.ts), then its pool_metrics for subscribers (pool-metrics.ts).
 */
/** No pass under way (never added to). */
const NONE = new Set<string>();

export class MarketPublisher {
  /** Pools touched since the last pass began, by address (their actor may be rebuilt or passivated meanwhile). */
  private touched = new Set<string>();
  /** The flush pass under way (passOver the pools touched before it began), or null. */
  private pass: Generator<void> | null = null;
  /** The pools of the pass under way (empty between passes). */
  private passing: Set<string> = NONE;
  /** By the pool's info object: a new `pool` event (a new info) names them again, and they go with the state. */
  private readonly tradeTopics = new WeakMap<PoolInfo, TradeTopics>();
  private readonly candles: CandleStream;
  private readonly metrics: PoolMetricsStream;

  constructor(private readonly deps: PublisherDeps) {
    this.candles = new CandleStream(deps.pools);
    this.metrics = new PoolMetricsStream(() => deps.market().pools);
  }

  /** The candles stream's record of changes, for a resume by seq (engine/query CandlesQuery). */
  get history(): CandleHistory {
    return this.candles.history;
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
      if (toPool) sink.publish(names.pool, poolTradesFrame(data));
      if (toBase) sink.publish(names.base, tokenTradesFrame(data));
    }
    if (toQuote) {
      const data = tradeJson(stored, state, info.quote_address, supplyOf(this.deps.token(info.quote_address)), labels);
      sink.publish(names.quote!, tokenTradesFrame(data));
    }
  }

  /** The trade topics of a pool: not two concatenations and two hashes of new strings per trade. */
  private tradeTopicsOf(info: PoolInfo): TradeTopics {
    let names = this.tradeTopics.get(info);
    if (names === undefined) {
      names = { pool: poolTradesTopic(info), base: baseTradesTopic(info), quote: quoteTradesTopic(info) };
      this.tradeTopics.set(info, names);
    }
    return names;
  }

  /** A token's metadata changed (token actor). */
  metadata(state: TokenState): void {
    publishTokenMetadata(this.deps.sink(), state);
  }

  /** A token's holders changed (token actor): pool_metrics of its pools, at the next flush. */
  holders(state: TokenState): void {
    if (this.deps.sink() === NO_TOPICS) return;
    this.metrics.holders(state);
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
    const metrics = this.metrics.take(pool);
    if (!touched && !passing && !metrics) return;
    const sink = this.deps.sink();
    if (touched || passing) {
      const state = this.candles.flush(pool, sink, this.deps.now());
      if (state?.info) this.metrics.publish(pool, sink);
    } else this.metrics.publish(pool, sink);
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
    // Pools that also traded publish their metrics with the rest of their flush below.
    this.metrics.publishTouched(this.deps.sink(), this.touched);
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
        const state = this.candles.flush(pool, sink, now);
        if (state?.info) this.metrics.publish(pool, sink);
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
    this.candles.passEnded(now, touched.size);
  }

  /**
   * A subscription to one of the pool's candle series starts now: the next flush
   * publishes to it without waiting for the periodic subscriber check.
   */
  candleSubscribed(pool: string): void {
    this.candles.candleSubscribed(pool);
  }
}
