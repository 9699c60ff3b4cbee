import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredCandle } from '../../actors/pool/candles.ts';
import type { CandleRow } from '../../actors/pool/candles.bucket.ts';
import { CandleRows } from '../../actors/pool/candle-rows.ts';
import { PoolClosedCandles, WRITE_AT } from '../../actors/pool/closed-candles.ts';
import { CandlesRepo } from '../../storage/candles.repo.ts';
import { openStorage, type Storage } from '../../storage/lmdb.ts';
import { tempDir, type TempDir } from '../helpers/fixtures.ts';

/** A 16-number candle row (no USD tracks; interval 0 = 1s, 2 = 1m) with a recognizable close. */
const candle = (interval: '1s' | '1m', start: number, close = start): CandleRow => [interval === '1s' ? 0 : 2, start, 1, 0, 1, 0, 1, 1, 1, close, 1, 1, 1, close, 1, 0];
const starts = (list: StoredCandle[]) => list.map((c) => c[1]);
const rows = (list: CandleRow[]) => CandleRows.fromRows(list);

let dir: TempDir;
let storage: Storage;
let repo: CandlesRepo;
beforeEach(() => {
  dir = tempDir();
  storage = openStorage(dir.path);
  repo = new CandlesRepo(storage);
});
afterEach(async () => {
  await storage.close();
  dir.cleanup();
});

describe('CandlesRepo segments', () => {
  it('writes one segment per interval per write, and reads ranges newest-limited, oldest first', async () => {
    await repo.write('P', rows([candle('1s', 3_000), candle('1m', 0), candle('1s', 1_000), candle('1s', 2_000)]));
    await repo.write('P', rows([candle('1s', 4_000), candle('1s', 5_000)]));
    expect([...storage.candles.getKeys({ start: ['P'], end: ['P\u0000'] })]).toEqual([['P', 0, 1_000], ['P', 0, 4_000], ['P', 2, 0]]);
    expect(starts(repo.read('P', '1s', 0, 10_000, 100))).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
    expect(starts(repo.read('P', '1s', 0, 10_000, 2))).toEqual([4_000, 5_000]);
    expect(starts(repo.read('P', '1s', 2_000, 4_000, 100))).toEqual([2_000, 3_000, 4_000]);
    expect(starts(repo.read('P', '1m', 0, 10_000, 100))).toEqual([0]);
    expect(repo.get('P', '1s', 4_000)?.[1]).toBe(4_000);
    expect(repo.get('P', '1s', 4_500)).toBeUndefined();
  });

  it('merges a late candle into the segment that covers it, replacing one with the same start', async () => {
    await repo.write('P', rows([candle('1s', 1_000), candle('1s', 3_000)]));
    await repo.write('P', rows([candle('1s', 5_000), candle('1s', 6_000)]));
    await repo.write('P', rows([candle('1s', 2_000), candle('1s', 5_000, 99), candle('1s', 500), candle('1s', 7_000)]));
    expect(starts(repo.read('P', '1s', 0, 10_000, 100))).toEqual([500, 1_000, 2_000, 3_000, 5_000, 6_000, 7_000]);
    expect(repo.get('P', '1s', 5_000)![9]).toBe(99);
  });

  it('prunes candles that start before the cutoff: whole segments, and part of one that straddles it', async () => {
    await repo.write('P', rows([candle('1s', 1_000), candle('1s', 2_000)]));
    await repo.write('P', rows([candle('1s', 3_000), candle('1s', 4_000)]));
    expect(repo.prune('P', '1s', 3_000)).toBe(2);
    await storage.meta.put('sync', 1);
    expect(starts(repo.read('P', '1s', 0, 10_000, 100))).toEqual([3_000, 4_000]);
    expect(repo.prune('P', '1s', 3_500)).toBe(1);
    await storage.meta.put('sync', 2);
    expect([...storage.candles.getKeys({ start: ['P'], end: ['P\u0000'] })]).toEqual([['P', 0, 4_000]]);
  });
});

describe('CandlesRepo segment tails', () => {
  it('places candles the same with a tail hint as without, a stale one (after retention) included', async () => {
    const other = new CandlesRepo(storage);
    const tails = new Float64Array(7).fill(NaN);
    const writes = [
      [candle('1s', 1_000), candle('1s', 3_000)],
      [candle('1s', 5_000), candle('1s', 6_000)],
      [candle('1s', 2_000), candle('1s', 5_000, 99), candle('1s', 500), candle('1s', 7_000)],
    ];
    for (const w of writes) await other.write('H', rows(w), tails);
    for (const w of writes) await repo.write('P', rows(w));
    expect(tails[0]).toBe(7_000);
    expect(repo.read('H', '1s', 0, 10_000, 100)).toEqual(repo.read('P', '1s', 0, 10_000, 100));
    // Retention removes every segment; the tail still says 7,000.
    other.prune('H', '1s', 8_000);
    await storage.meta.put('sync', 1);
    await other.write('H', rows([candle('1s', 6_500), candle('1s', 9_000)]), tails);
    expect(starts(other.read('H', '1s', 0, 10_000, 100))).toEqual([6_500, 9_000]);
    expect(tails[0]).toBe(9_000);
  });
});

describe('PoolClosedCandles', () => {
  it('buffers closed candles until WRITE_AT, reads through memory and LMDB alike', async () => {
    const closed = new PoolClosedCandles('P', repo);
    closed.add(rows(Array.from({ length: WRITE_AT - 1 }, (_, i) => candle('1s', i * 1_000))));
    expect(closed.buffer.length).toBe(WRITE_AT - 1);
    closed.add(rows([candle('1s', 0, 7)])); // an update of a buffered candle, not a new one
    expect(closed.buffer.length).toBe(WRITE_AT - 1);
    expect(closed.get('1s', 0)![9]).toBe(7);
    closed.add(rows([candle('1s', (WRITE_AT - 1) * 1_000)]));
    expect(closed.buffer.length).toBe(0);
    // Readable while the write is in flight, and after it committed.
    expect(starts(closed.read('1s', 0, 1e9, 3))).toEqual([(WRITE_AT - 3) * 1_000, (WRITE_AT - 2) * 1_000, (WRITE_AT - 1) * 1_000]);
    await storage.meta.put('sync', 1);
    expect(starts(repo.read('P', '1s', 0, 1e9, 1_000)).length).toBe(WRITE_AT);
    expect(closed.get('1s', 0)![9]).toBe(7);
  });
});
