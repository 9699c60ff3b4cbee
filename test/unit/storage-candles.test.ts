import { WRITE_AT } from '../../engine/bounds.ts';
import { CandleRows, type CandleRow, type StoredCandle } from '../../engine/model/index.ts';
import { describe, expect, it, vi } from 'vitest';
import { PoolClosedCandles } from '../../actors/pool/closed-candles.ts';
import { CandlesRepo } from '../../storage/candles.repo.ts';
import type { Storage } from '../../storage/lmdb.ts';
import { rng, useTempRepo } from '../helpers/fixtures.ts';

/** A 16-number candle row (no USD tracks; interval 0 = 1s, 2 = 1m) with a recognizable close. */
const candle = (interval: '1s' | '1m', start: number, close = start): CandleRow => [interval === '1s' ? 0 : 2, start, 1, 0, 1, 0, 1, 1, 1, close, 1, 1, 1, close, 1, 0];
const starts = (list: StoredCandle[]) => list.map((c) => c[1]);
const rows = (list: CandleRow[]) => CandleRows.fromRows(list);
const closes = (list: StoredCandle[]) => list.map((c) => `${c[1]}:${c[9]}`);
const keys = (s: Storage, pool: string) => [...s.candles.getKeys({ start: [pool], end: [`${pool}\u0000`] })];

const temp = useTempRepo((storage) => new CandlesRepo(storage));

describe('CandlesRepo segments', () => {
  it('writes one segment per interval per write, and reads ranges newest-limited, oldest first', async () => {
    await temp.repo.write('P', rows([candle('1s', 3_000), candle('1m', 0), candle('1s', 1_000), candle('1s', 2_000)]));
    await temp.repo.write('P', rows([candle('1s', 4_000), candle('1s', 5_000)]));
    expect([...temp.storage.candles.getKeys({ start: ['P'], end: ['P\u0000'] })]).toEqual([['P', 0, 1_000], ['P', 0, 4_000], ['P', 2, 0]]);
    expect(starts(temp.repo.read('P', '1s', 0, 10_000, 100))).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
    expect(starts(temp.repo.read('P', '1s', 0, 10_000, 2))).toEqual([4_000, 5_000]);
    expect(starts(temp.repo.read('P', '1s', 2_000, 4_000, 100))).toEqual([2_000, 3_000, 4_000]);
    expect(starts(temp.repo.read('P', '1m', 0, 10_000, 100))).toEqual([0]);
    expect(temp.repo.get('P', '1s', 4_000)?.[1]).toBe(4_000);
    expect(temp.repo.get('P', '1s', 4_500)).toBeUndefined();
  });

  it('merges a late candle into the segment that covers it, replacing one with the same start', async () => {
    await temp.repo.write('P', rows([candle('1s', 1_000), candle('1s', 3_000)]));
    await temp.repo.write('P', rows([candle('1s', 5_000), candle('1s', 6_000)]));
    await temp.repo.write('P', rows([candle('1s', 2_000), candle('1s', 5_000, 99), candle('1s', 500), candle('1s', 7_000)]));
    expect(starts(temp.repo.read('P', '1s', 0, 10_000, 100))).toEqual([500, 1_000, 2_000, 3_000, 5_000, 6_000, 7_000]);
    expect(temp.repo.get('P', '1s', 5_000)![9]).toBe(99);
  });

  it('prunes candles that start before the cutoff: whole segments, and part of one that straddles it', async () => {
    await temp.repo.write('P', rows([candle('1s', 1_000), candle('1s', 2_000)]));
    await temp.repo.write('P', rows([candle('1s', 3_000), candle('1s', 4_000)]));
    expect(temp.repo.prune('P', '1s', 3_000)).toBe(2);
    await temp.storage.meta.put('sync', 1);
    expect(starts(temp.repo.read('P', '1s', 0, 10_000, 100))).toEqual([3_000, 4_000]);
    expect(temp.repo.prune('P', '1s', 3_500)).toBe(1);
    await temp.storage.meta.put('sync', 2);
    expect([...temp.storage.candles.getKeys({ start: ['P'], end: ['P\u0000'] })]).toEqual([['P', 0, 4_000]]);
  });
});

describe('CandlesRepo segment tails', () => {
  it('places candles the same with a tail hint as without, a stale one (after retention) included', async () => {
    const other = new CandlesRepo(temp.storage);
    const tails = new Float64Array(7).fill(NaN);
    const writes = [
      [candle('1s', 1_000), candle('1s', 3_000)],
      [candle('1s', 5_000), candle('1s', 6_000)],
      [candle('1s', 2_000), candle('1s', 5_000, 99), candle('1s', 500), candle('1s', 7_000)],
    ];
    for (const w of writes) await other.write('H', rows(w), tails);
    for (const w of writes) await temp.repo.write('P', rows(w));
    expect(tails[0]).toBe(7_000);
    expect(temp.repo.read('H', '1s', 0, 10_000, 100)).toEqual(temp.repo.read('P', '1s', 0, 10_000, 100));
    // Retention removes every segment; the tail still says 7,000.
    other.prune('H', '1s', 8_000);
    await temp.storage.meta.put('sync', 1);
    await other.write('H', rows([candle('1s', 6_500), candle('1s', 9_000)]), tails);
    expect(starts(other.read('H', '1s', 0, 10_000, 100))).toEqual([6_500, 9_000]);
    expect(tails[0]).toBe(9_000);
  });
});

describe('PoolClosedCandles', () => {
  it('buffers closed candles until WRITE_AT, reads through memory and LMDB alike', async () => {
    const closed = new PoolClosedCandles('P', temp.repo);
    closed.buffer.putAll(rows(Array.from({ length: WRITE_AT - 1 }, (_, i) => candle('1s', i * 1_000))));
    expect(closed.buffer.length).toBe(WRITE_AT - 1);
    closed.buffer.putAll(rows([candle('1s', 0, 7)])); // an update of a buffered candle, not a new one
    expect(closed.buffer.length).toBe(WRITE_AT - 1);
    expect(closed.get('1s', 0)![9]).toBe(7);
    closed.buffer.putAll(rows([candle('1s', (WRITE_AT - 1) * 1_000)]));
    closed.write();
    expect(closed.buffer.length).toBe(0);
    // Readable while the write is in flight, and after it committed.
    expect(starts(closed.read('1s', 0, 1e9, 3))).toEqual([(WRITE_AT - 3) * 1_000, (WRITE_AT - 2) * 1_000, (WRITE_AT - 1) * 1_000]);
    await temp.storage.meta.put('sync', 1);
    expect(starts(temp.repo.read('P', '1s', 0, 1e9, 1_000)).length).toBe(WRITE_AT);
    expect(closed.get('1s', 0)![9]).toBe(7);
  });

  it('takes one write at a time: candles gathered meanwhile wait, newer ones win in reads, and go out after the commit', async () => {
    const closed = new PoolClosedCandles('P', temp.repo);
    const settled = async () => {
      await temp.storage.candles.committed;
      await new Promise((resolve) => setImmediate(resolve));
    };
    closed.buffer.putAll(rows([candle('1s', 1_000), candle('1s', 2_000)]));
    closed.write();
    const inFlight = [1_000, 2_000];
    expect(closed.buffer.length).toBe(0);
    // In flight: a newer version of one of its candles, and a new one; a second write waits.
    closed.buffer.putAll(rows([candle('1s', 2_000, 22), candle('1s', 3_000)]));
    closed.write();
    expect(closed.buffer.length).toBe(2);
    expect(temp.repo.read('P', '1s', 0, 1e9, 100)).toEqual([]);
    expect(closed.get('1s', 1_000)![9]).toBe(1_000);
    expect(closed.get('1s', 2_000)![9]).toBe(22);
    expect(closed.read('1s', 0, 1e9, 100).map((c) => `${c[1]}:${c[9]}`)).toEqual(['1000:1000', '2000:22', '3000:3000']);
    await settled();
    expect(starts(temp.repo.read('P', '1s', 0, 1e9, 100))).toEqual(inFlight);
    expect(closed.get('1s', 2_000)![9]).toBe(22);
    closed.write();
    expect(closed.buffer.length).toBe(0);
    await settled();
    expect(temp.repo.read('P', '1s', 0, 1e9, 100).map((c) => `${c[1]}:${c[9]}`)).toEqual(['1000:1000', '2000:22', '3000:3000']);
    expect(closed.read('1s', 0, 1e9, 2).map((c) => c[1])).toEqual([2_000, 3_000]);
    // Nothing buffered: nothing to write.
    closed.write();
    expect(closed.get('1s', 3_000)![9]).toBe(3_000);
  });

  it("holds room for a quiet pool's few candles, not a write's worth, and counts what it holds (the pool's estimate)", async () => {
    const closed = new PoolClosedCandles('P', temp.repo);
    expect(closed.bytes).toBe(0);
    closed.buffer.putAll(rows([candle('1m', 60_000)]));
    // 4 rows of 31 doubles, not WRITE_AT + 16 of them (11,904 bytes per pool).
    expect(closed.bytes).toBe(4 * 31 * 8);
    closed.buffer.putAll(rows(Array.from({ length: WRITE_AT - 1 }, (_, i) => candle('1m', (i + 2) * 60_000))));
    expect(closed.bytes).toBeGreaterThanOrEqual(WRITE_AT * 31 * 8);
    // A write takes the buffer in flight, still counted; the next buffer starts as small as the first.
    const before = closed.bytes;
    closed.write();
    expect(closed.bytes).toBe(before);
    closed.buffer.putAll(rows([candle('1m', 100 * 60_000)]));
    expect(closed.bytes).toBe(before + 4 * 31 * 8);
    // Committed: the written rows are let go, not kept as the next write's partner.
    await temp.storage.candles.committed;
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed.bytes).toBe(4 * 31 * 8);
    expect(closed.get('1m', 100 * 60_000)).toBeDefined();
    expect(closed.get('1m', 2 * 60_000)).toBeDefined();
    // A snapshot's bytes count until decoded.
    const restored = PoolClosedCandles.fromSnapshot('P', temp.repo, new Uint8Array(3 * 31 * 8));
    expect(restored.bytes).toBe(3 * 31 * 8);
  });
});

describe('CandlesRepo: several late candles in one write', () => {
  it('keeps every update of candles that share a stored segment', async () => {
    await temp.repo.write('P', rows([candle('1s', 1_000), candle('1s', 2_000), candle('1s', 3_000)]));
    await temp.repo.write('P', rows([candle('1s', 1_000, 11), candle('1s', 3_000, 33)]));
    expect(closes(temp.repo.read('P', '1s', 0, 1e9, 100))).toEqual(['1000:11', '2000:2000', '3000:33']);
    expect(keys(temp.storage, 'P')).toEqual([['P', 0, 1_000]]);
  });

  it('merges late candles spread over segments, before every segment and beside new ones, one put per segment', async () => {
    await temp.repo.write('P', rows([candle('1s', 1_000), candle('1s', 3_000)]));
    await temp.repo.write('P', rows([candle('1s', 5_000), candle('1s', 7_000)]));
    await temp.repo.write('P', rows([candle('1m', 60_000)]));
    await temp.repo.write(
      'P',
      rows([
        candle('1s', 200, 2), candle('1s', 400, 4), // before every segment: one new segment for both
        candle('1s', 2_000, 20), candle('1s', 3_000, 30), candle('1s', 1_000, 10), // first segment, one replaced twice over
        candle('1s', 6_000, 60), candle('1s', 7_000, 70), candle('1s', 5_500, 55), // second segment
        candle('1s', 9_000, 90), // new, after the tail
        candle('1m', 60_000, 6), // the other interval's only candle, updated
      ]),
    );
    expect(closes(temp.repo.read('P', '1s', 0, 1e9, 100))).toEqual([
      '200:2', '400:4', '1000:10', '2000:20', '3000:30', '5000:5000', '5500:55', '6000:60', '7000:70', '9000:90',
    ]);
    expect(closes(temp.repo.read('P', '1m', 0, 1e9, 100))).toEqual(['60000:6']);
    expect(keys(temp.storage, 'P')).toEqual([['P', 0, 200], ['P', 0, 1_000], ['P', 0, 5_000], ['P', 0, 9_000], ['P', 2, 60_000]]);
  });

  it('reads a covering segment once for all the late candles bound for it, none for candles before every segment', async () => {
    await temp.repo.write('P', rows([candle('1s', 1_000), candle('1s', 3_000)]));
    await temp.repo.write('P', rows([candle('1s', 5_000), candle('1s', 7_000)]));
    const tails = new Float64Array(7).fill(7_000);
    const get = vi.spyOn(temp.storage.candles, 'get');
    await temp.repo.write('P', rows([100, 200, 1_000, 1_500, 2_000, 2_500, 3_000, 5_000, 6_000, 6_500, 8_000].map((start) => candle('1s', start, start + 1))), tails);
    expect(get).toHaveBeenCalledTimes(2);
    expect(keys(temp.storage, 'P')).toEqual([['P', 0, 100], ['P', 0, 1_000], ['P', 0, 5_000], ['P', 0, 8_000]]);
    expect(closes(temp.repo.read('P', '1s', 0, 1e9, 100))).toEqual(
      [100, 200, 1_000, 1_500, 2_000, 2_500, 3_000, 5_000, 6_000, 6_500, 7_000, 8_000].map((s) => `${s}:${s === 7_000 ? s : s + 1}`),
    );
  });

  it('agrees with a plain map of start → close over random writes of new and late candles', async () => {
    const random = rng(9_001);
    const tails = new Float64Array(7).fill(NaN);
    const model = new Map<number, number>();
    let next = 10_000;
    for (let w = 0; w < 40; w++) {
      const batch = new Map<number, number>();
      // Late updates of stored candles, a few earlier than everything, and new ones.
      const known = [...model.keys()];
      for (let k = 0, n = Math.floor(random() * 6); k < n && known.length > 0; k++) batch.set(known[Math.floor(random() * known.length)]!, w * 100 + k);
      if (random() < 0.2) batch.set(Math.floor(random() * 10_000), w * 100 + 50);
      for (let k = 0, n = Math.floor(random() * 4); k < n; k++) batch.set((next += 1_000), w * 100 + 60 + k);
      if (batch.size === 0) continue;
      await temp.repo.write('P', rows([...batch].map(([start, close]) => candle('1s', start, close))), tails);
      for (const [start, close] of batch) model.set(start, close);
    }
    const expected = [...model].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}:${c}`);
    expect(closes(temp.repo.read('P', '1s', 0, 1e12, 10_000))).toEqual(expected);
    // Segments never overlap: each ends before the next begins.
    let previousEnd = -Infinity;
    for (const { value } of temp.storage.candles.getRange({ start: ['P', 0], end: ['P', 1] })) {
      const list = value as CandleRow[];
      expect(list[0]![1]!).toBeGreaterThan(previousEnd);
      previousEnd = list[list.length - 1]![1]!;
    }
  });
});

describe('CandlesRepo: candles of one trade', () => {
  /** A one-trade candle: open and close at (slot, sub), every track flat; with USD values when `usd`. */
  const one = (start: number, slot: number, sub: number, price: number, cap: number, volume: number, usd?: [number, number, number]): CandleRow => [
    0, start, slot, sub, slot, sub, price, price, price, price, cap, cap, cap, cap, volume, 0,
    ...(usd ? [usd[0], usd[0], usd[0], usd[0], usd[1], usd[1], usd[1], usd[1], usd[2], 0] : []),
  ];
  const cases: CandleRow[] = [
    one(1_000, 300_000_001, 1_048_577, 1.5e-8, 30.5, 0.25),
    one(2_000, 300_000_002, 0, 2e-8, 40, 17, [3e-6, 6000.5, 2550]),
    // Not of one trade, or not losslessly so: kept in full.
    [...one(3_000, 300_000_003, 0, 2e-8, 40, 17)].map((x, k) => (k === 4 ? 300_000_004 : x)), // close at another position
    [...one(4_000, 300_000_004, 0, 2e-8, 40, 17)].map((x, k) => (k === 7 ? 3e-8 : x)), // high above open
    [...one(5_000, 300_000_005, 0, 2e-8, 40, 17)].map((x, k) => (k === 15 ? 1e-18 : x)), // volume with a low part
    [...one(6_000, 300_000_006, 0, 2e-8, 40, 17, [3e-6, 6000.5, 2550])].map((x, k) => (k === 25 ? -1e-20 : x)), // USD volume with a low part
    [...one(7_000, 300_000_007, 0, 0, 40, 17)].map((x, k) => (k === 8 ? -0 : x)), // low -0 against open 0
    one(8_000, 300_000_008, 0, NaN, NaN, 0), // NaN tracks (Object.is equal): one trade
    [...one(9_000, 300_000_009, 0, 2e-8, 40, 17, [3e-6, 6000.5, 2550]), 300_000_010, 0, 300_000_010, 0], // USD open/close elsewhere
  ];

  it('stores them in 7 or 10 numbers and reads back every candle as it was written', async () => {
    await temp.repo.write('P', rows(cases));
    const [segment] = [...temp.storage.candles.getRange({ start: ['P', 0], end: ['P', 1] })];
    expect((segment!.value as CandleRow[]).map((r) => r.length)).toEqual([7, 10, 16, 16, 16, 26, 16, 7, 30]);
    const written = rows(cases);
    const expected = cases.map((_, i) => written.stored(i));
    expect(temp.repo.read('P', '1s', 0, 1e9, 100)).toEqual(expected);
    for (const c of expected) expect(temp.repo.get('P', '1s', c[1])).toEqual(c);
    // -0 stays -0 (toEqual treats it as 0).
    expect(Object.is(temp.repo.get('P', '1s', 7_000)![8], -0)).toBe(true);
  });

  it('merges a late update into a segment of one-trade candles, which keep their short form', async () => {
    await temp.repo.write('P', rows(cases.slice(0, 2)));
    const late = [...one(1_000, 300_000_001, 1_048_577, 1.5e-8, 30.5, 0.25)].map((x, k) => (k === 4 ? 300_000_002 : k === 9 ? 1.6e-8 : x));
    await temp.repo.write('P', rows([late]));
    const [segment] = [...temp.storage.candles.getRange({ start: ['P', 0], end: ['P', 1] })];
    expect((segment!.value as CandleRow[]).map((r) => r.length)).toEqual([16, 10]);
    expect(temp.repo.read('P', '1s', 0, 1e9, 100)).toEqual([rows([late]).stored(0), rows(cases).stored(1)]);
  });
});
