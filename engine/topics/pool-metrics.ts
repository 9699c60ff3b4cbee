import type { TokenState } from '../../actors/index.ts';
import { topics } from './names.ts';
import { NO_TOPICS, type TopicSink } from './sink.ts';

/** The pool_metrics shape of a pool (engine/query PoolsQuery.poolMetrics, as GET /pools/metrics has it), or null. */
export interface PoolMetricsSource {
  poolMetrics(address: string): object | null;
}

/**
 * pool_metrics:<pool>: a pool's metrics (SERVICE.md 6), at most once per live flush:
 * for a pool the flush takes (it traded), and for a pool whose metrics changed without
 * a trade (its token's holders), noted here until the next flush.
 */
export class PoolMetricsStream {
  /** Pools whose metrics changed without a trade (their token's holders), since the last flush. */
  private touched = new Set<string>();

  constructor(private readonly source: () => PoolMetricsSource) {}

  /** A token's holders changed: pool_metrics of its pools, at the next flush. */
  holders(state: TokenState): void {
    for (const pool of state.pools) this.touched.add(pool);
  }

  /** Takes `pool` out of the pools noted (true when it was there): its flush is being taken now (MarketPublisher.flushOne). */
  take(pool: string): boolean {
    return this.touched.delete(pool);
  }

  /** Publishes the pools noted since the last call, but those in `flushed` (their flush publishes them). */
  publishTouched(sink: TopicSink, flushed: ReadonlySet<string>): void {
    if (this.touched.size === 0) return;
    const pools = this.touched;
    this.touched = new Set();
    for (const pool of pools) if (!flushed.has(pool)) this.publish(pool, sink);
  }

  /** Publishes a pool's metrics when somebody listens. */
  publish(pool: string, sink: TopicSink): void {
    if (sink === NO_TOPICS) return;
    const topic = topics.poolMetrics(pool);
    if (!sink.has(topic)) return;
    const data = this.source().poolMetrics(pool);
    if (data) sink.publish(topic, `{"stream":"pool_metrics","data":${JSON.stringify(data)}}`);
  }
}
