import { CandleRows, type CandleInterval, type StoredCandle } from '../../engine/model/index.ts';
import type { ClosedCandleStore, PoolCandles } from '../../actors/pool/candles.ts';

/** The closed-candle port as the pool actor backs it with LMDB, here a Map (read-your-writes): the stored series. */
export class MemoryStore implements ClosedCandleStore {
  readonly rows = new Map<string, StoredCandle>();
  reads = 0;
  put(candles: StoredCandle[]): void {
    for (const c of candles) this.rows.set(`${c[0]}:${c[1]}`, c);
  }
  read(interval: CandleInterval, fromStartAt: number, toStartAt: number, limit: number): StoredCandle[] {
    this.reads++;
    const all = [...this.rows.values()].filter((c) => c[0] === interval && c[1] >= fromStartAt && c[1] <= toStartAt).sort((a, b) => a[1] - b[1]);
    return all.slice(Math.max(0, all.length - limit));
  }
  get(interval: CandleInterval, startAt: number): StoredCandle | undefined {
    return this.rows.get(`${interval}:${startAt}`);
  }
}

/**
 * What one drain hands out, as StoredCandles: drainClosedInto (the engine's call) into
 * a fresh CandleRows, read back row by row.
 */
export function drainClosed(candles: PoolCandles): StoredCandle[] {
  const rows = new CandleRows();
  candles.drainClosedInto(rows);
  return Array.from({ length: rows.length }, (_, i) => rows.stored(i));
}
