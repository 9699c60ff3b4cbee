import type { ClosedCandleStore, StoredCandle } from '../actors/pool/candles.ts';
import { CANDLE_INTERVALS, type CandleInterval } from '../actors/pool/trade.ts';
import type { Storage } from './lmdb.ts';

const INTERVALS = Object.keys(CANDLE_INTERVALS) as CandleInterval[];
const ivIndex = (interval: CandleInterval) => INTERVALS.indexOf(interval);

/**
 * Closed candles in LMDB (`candles`: key [pool, interval index, start_at], value the
 * StoredCandle tuple). Puts are lmdb-js async puts that join the event turn's
 * transaction; until a put commits LMDB does not show it, so the repo keeps each
 * written candle in a write-behind map that reads consult first, and drops it once
 * its transaction has committed. That is the read-your-writes PoolCandles needs.
 */
export class CandlesRepo {
  /** `pool|iv|start` → candle written but not yet committed. */
  private readonly unsettled = new Map<string, StoredCandle>();
  private readonly stores = new Map<string, ClosedCandleStore>();

  constructor(private readonly storage: Storage) {}

  write(pool: string, candles: readonly StoredCandle[]): void {
    const db = this.storage.candles;
    for (const c of candles) {
      const iv = ivIndex(c[0]);
      const id = `${pool}|${iv}|${c[1]}`;
      this.unsettled.set(id, c);
      const settle = () => {
        if (this.unsettled.get(id) === c) this.unsettled.delete(id);
      };
      db.put([pool, iv, c[1]], c).then(settle, settle);
    }
  }

  get(pool: string, interval: CandleInterval, startAt: number): StoredCandle | undefined {
    const iv = ivIndex(interval);
    return this.unsettled.get(`${pool}|${iv}|${startAt}`) ?? (this.storage.candles.get([pool, iv, startAt]) as StoredCandle | undefined);
  }

  /** Candles with from <= start_at <= to: the newest `limit`, oldest first. */
  read(pool: string, interval: CandleInterval, from: number, to: number, limit: number): StoredCandle[] {
    const iv = ivIndex(interval);
    const out: StoredCandle[] = [];
    for (const { value } of this.storage.candles.getRange({ start: [pool, iv, to], end: [pool, iv, from - 1], reverse: true, limit })) {
      out.push(value as StoredCandle);
    }
    out.reverse();
    if (this.unsettled.size === 0) return out;
    // Overlay what is written but not committed: replace or insert by start_at.
    const prefix = `${pool}|${iv}|`;
    let merged = false;
    for (const [id, c] of this.unsettled) {
      if (!id.startsWith(prefix) || c[1] < from || c[1] > to) continue;
      const i = out.findIndex((o) => o[1] === c[1]);
      if (i >= 0) out[i] = c;
      else {
        out.push(c);
        merged = true;
      }
    }
    if (merged) out.sort((a, b) => a[1] - b[1]);
    return out.length > limit ? out.slice(out.length - limit) : out;
  }

  /** The ClosedCandleStore of one pool, for its PoolCandles. */
  storeFor(pool: string): ClosedCandleStore {
    let store = this.stores.get(pool);
    if (!store) {
      store = {
        read: (interval, from, to, limit) => this.read(pool, interval, from, to, limit),
        get: (interval, startAt) => this.get(pool, interval, startAt),
      };
      // Pools come and go with passivation; the map only saves an allocation per activation.
      if (this.stores.size > 100_000) this.stores.clear();
      this.stores.set(pool, store);
    }
    return store;
  }

  /** Deletes the candles of one interval that start before `before` (retention). */
  prune(pool: string, interval: CandleInterval, before: number): number {
    const iv = ivIndex(interval);
    let removed = 0;
    for (const key of this.storage.candles.getKeys({ start: [pool, iv, 0], end: [pool, iv, before] })) {
      this.storage.candles.remove(key as never);
      removed++;
    }
    return removed;
  }
}
