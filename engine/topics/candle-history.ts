import { INTERVAL_NAMES as INTERVALS, intervalIndex, type CandleInterval } from '../model/index.ts';

/** DECISIONS.md: the server keeps at least the last 10 minutes of candle events. */
export const RESUME_HISTORY_MS = 10 * 60_000;

/** A run: seqs [from, to] that all changed the candle starting at `start`, last recorded at `at`. */
const RUN = 4;

interface PoolHistory {
  /** Recording goes on until this time (the last time a series of the pool had subscribers + 10 min). */
  until: number;
  /** Per interval: runs, RUN numbers each (seqFrom, seqTo, start, at), oldest first. */
  runs: number[][];
  /** Per interval: every change with seq >= this is in `runs`. */
  coveredFrom: number[];
}

/**
 * Which candles changed at which `seq`, per pool and interval, for the candles
 * stream's resume_after_seq (DECISIONS.md, "Candle resume"). Kept in memory only for
 * pools whose candles someone subscribed to in the last 10 minutes (a client that
 * resumes was subscribed before it dropped), and only for the last 10 minutes; older
 * or unknown seqs fall back to resume_after_time. Runs compress the common case:
 * consecutive seqs changing the same (current) candle are one run.
 */
export class CandleHistory {
  private readonly pools = new Map<string, PoolHistory>();

  isRecording(pool: string): boolean {
    return this.pools.has(pool);
  }

  /**
   * Records one taking of changed candles (PoolCandles.takeChanged, seqs already
   * advanced). `watched`: the pool's candles have subscribers now.
   */
  record(pool: string, changed: ReadonlyArray<{ interval: CandleInterval; start_at: number }>, seqOf: (interval: CandleInterval) => number, now: number, watched: boolean): void {
    let h = this.pools.get(pool);
    if (!h) {
      if (!watched) return;
      const changedIntervals = new Set(changed.map((c) => c.interval));
      h = {
        until: 0,
        runs: INTERVALS.map(() => []),
        coveredFrom: INTERVALS.map((interval) => (changedIntervals.has(interval) ? seqOf(interval) : seqOf(interval) + 1)),
      };
      this.pools.set(pool, h);
    }
    if (watched) h.until = now + RESUME_HISTORY_MS;
    for (const { interval, start_at } of changed) {
      const runs = h.runs[intervalIndex(interval)]!;
      const seq = seqOf(interval);
      const n = runs.length;
      // The same candle at the next seq extends its run; at the same seq it is already there.
      if (n > 0 && runs[n - 2] === start_at && (runs[n - 3] === seq - 1 || runs[n - 3] === seq)) {
        runs[n - 3] = seq;
        runs[n - 1] = now;
      } else runs.push(seq, seq, start_at, now);
    }
  }

  /** Drops runs last recorded before `cutoff`, and pools nobody watched for 10 minutes. */
  trim(cutoff: number): void {
    for (const [pool, h] of this.pools) {
      if (h.until < cutoff) {
        this.pools.delete(pool);
        continue;
      }
      for (let iv = 0; iv < h.runs.length; iv++) {
        const runs = h.runs[iv]!;
        let drop = 0;
        while (drop < runs.length && runs[drop + 3]! < cutoff) drop += RUN;
        if (drop === 0) continue;
        h.coveredFrom[iv] = Math.max(h.coveredFrom[iv]!, runs[drop - 3]! + 1);
        runs.splice(0, drop);
      }
    }
  }

  /**
   * The start_at of every candle of the interval changed at a seq after `afterSeq`,
   * ascending; null when the history does not reach back that far.
   */
  changedSince(pool: string, interval: CandleInterval, afterSeq: number): number[] | null {
    const h = this.pools.get(pool);
    if (!h) return null;
    const iv = intervalIndex(interval);
    if (afterSeq < h.coveredFrom[iv]! - 1) return null;
    const runs = h.runs[iv]!;
    const starts = new Set<number>();
    for (let k = 0; k < runs.length; k += RUN) if (runs[k + 1]! > afterSeq) starts.add(runs[k + 2]!);
    return [...starts].sort((a, b) => a - b);
  }
}
