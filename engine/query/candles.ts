import { candleAt, candleSeries } from '../../actors/index.ts';
import { RESUME_CANDLES_MAX } from '../bounds.ts';
import { CANDLE_INTERVALS, type Candle, type CandleCurrency, type CandleInterval, type CandleMode } from '../model/index.ts';
import type { MarketState } from './state.ts';

export interface CandlesRequest {
  interval: CandleInterval;
  mode: CandleMode;
  currency: CandleCurrency;
  startTime?: number;
  endTime?: number;
  limit: number;
}

export interface CandleResumeRequest {
  pool_address: string;
  interval: CandleInterval;
  mode: CandleMode;
  currency: CandleCurrency;
  afterSeq?: number;
  afterTime?: number;
}

/**
 * Which candles changed after a seq, as the candles stream records them for resume
 * (engine/topics CandleHistory): the start_at of each, ascending, or null when the
 * record does not reach back that far.
 */
export interface ChangedCandles {
  changedSince(pool: string, interval: CandleInterval, afterSeq: number): number[] | null;
}

export interface CandlesQueryOptions {
  state: MarketState;
  /** The candles stream's record of changes (engine/topics), for resume by seq. */
  history: ChangedCandles;
}

/**
 * GET /pools/{pool}/candles and what a candles subscription's resume sends first: a
 * pool's series, a graduated pool's continuing its curve's (actors/pool/candle-series.ts).
 */
export class CandlesQuery {
  private readonly state: MarketState;
  private readonly history: ChangedCandles;

  constructor(options: CandlesQueryOptions) {
    this.state = options.state;
    this.history = options.history;
  }

  /**
   * GET /pools/{pool}/candles: the newest `limit` candles in the range, oldest first,
   * a graduated pool's continuing its curve's (candle-series.ts); null for an unknown pool.
   */
  candles(address: string, req: CandlesRequest): Candle[] | null {
    const s = this.state.pool(address);
    if (!s) return null;
    return candleSeries(s, this.state.graduation(s), req.interval, req.mode, req.currency, { startTime: req.startTime, endTime: req.endTime, limit: req.limit });
  }

  /**
   * What a candles subscription with resume_after_seq / resume_after_time gets first
   * (DECISIONS.md, "Candle resume"): the series' current seq and every candle changed
   * after afterSeq: none when afterSeq is the current seq (seqs count every change,
   * watched or not: PoolCandles.skipChanged), those the history lists when it reaches
   * back that far; otherwise (a seq older than the history, or one this series has not
   * reached, seen before a restart: seqs then moved on by SEQ_STALE_GAP) every candle
   * from the one holding afterTime on, or else the newest 300 (a fresh load); with
   * neither given, nothing. At most RESUME_CANDLES_MAX candles, the newest; a graduated
   * pool's continue its curve's before the migration (candle-series.ts). Null for an
   * unknown pool.
   */
  candleResume(req: CandleResumeRequest): { seq: number; candles: Candle[] } | null {
    const s = this.state.pool(req.pool_address);
    if (!s) return null;
    const g = this.state.graduation(s);
    const series = (startTime: number | undefined, limit: number) => candleSeries(s, g, req.interval, req.mode, req.currency, { startTime, limit });
    const seq = s.candles.seqOf(req.interval);
    if (req.afterSeq !== undefined) {
      const starts = req.afterSeq === seq ? [] : req.afterSeq > seq ? null : this.history.changedSince(req.pool_address, req.interval, req.afterSeq);
      if (starts) {
        const candles = starts.slice(-RESUME_CANDLES_MAX).map((start) => candleAt(s, g, req.interval, start, req.mode, req.currency)).filter((c): c is Candle => c !== null);
        return { seq, candles };
      }
    }
    if (req.afterTime !== undefined) {
      const length = CANDLE_INTERVALS[req.interval];
      return { seq, candles: series(Math.floor(req.afterTime / length) * length, RESUME_CANDLES_MAX) };
    }
    // A seq too old for the history and no time to fall back on: the newest candles, as a fresh load.
    if (req.afterSeq !== undefined) return { seq, candles: series(undefined, 300) };
    return { seq, candles: [] };
  }

  /**
   * A version of a pool's candles: they change only with the pool's own events, and
   * those of the curve it graduated from (candle-series.ts); null while either is not
   * in memory.
   */
  candlesVersion(address: string): string | null {
    const pool = this.state.poolVersion(address);
    if (pool === undefined) return null;
    const s = this.state.pool(address);
    const g = s ? this.state.graduation(s) : null;
    if (g === null) return String(pool);
    const curve = this.state.poolVersion(g.curve.pool_address);
    return curve === undefined ? null : `${pool}.${curve}`;
  }
}
