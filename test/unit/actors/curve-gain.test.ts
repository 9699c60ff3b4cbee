import { describe, expect, it } from 'vitest';
import { CurveGain } from '../../../actors/pool/curve-gain.ts';
import { applyMigrationToPool, applyPool, applySwap, curveGain5m, initialPool } from '../../../actors/pool/pool.logic.ts';
import type { PoolEvent, SwapEvent } from '../../../engine/ingest/events.ts';

const S = 1_000;

/** [at, slot, txIndex, eventIndex, reserve] */
type T = [number, number, number, number, number];

function gainOf(trades: T[]): CurveGain {
  const g = new CurveGain();
  for (const t of trades) g.add(...t);
  return g;
}

describe('CurveGain: the reserve at the start of the 5m window', () => {
  // A at 10 s, B at 200 s, C at 400 s: buckets 2, 40 and 80 of 5 s.
  const trades: T[] = [
    [10 * S, 100, 0, 0, 900],
    [200 * S, 200, 0, 0, 800],
    [400 * S, 300, 0, 0, 600],
  ];

  it('takes the last trade before the 60 buckets up to now, and null before any', () => {
    const g = gainOf(trades);
    // now 400 s: bucket 80, the window starts at bucket 21 (105 s): A is the last before it.
    expect(g.reserveAtWindowStart(400 * S)).toBe(900);
    // now 500 s: bucket 100, window from bucket 41 (205 s): B (bucket 40).
    expect(g.reserveAtWindowStart(500 * S)).toBe(800);
    // now 700 s: window from bucket 81 (405 s): C.
    expect(g.reserveAtWindowStart(700 * S)).toBe(600);
    // A `now` before the newest trade reads as of that trade.
    expect(g.reserveAtWindowStart(100 * S)).toBe(900);
    // Only A, and the window reaches back before it: no trade before the window.
    expect(gainOf([trades[0]!]).reserveAtWindowStart(60 * S)).toBeNull();
    expect(new CurveGain().reserveAtWindowStart(60 * S)).toBeNull();
  });

  it("counts its ring from the first trade, and a snapshot's bytes until they are decoded (the pool's estimate)", () => {
    expect(new CurveGain().bytes).toBe(0);
    const g = gainOf(trades);
    expect(g.bytes).toBeGreaterThan(60 * 8);
    const snapshot = g.toSnapshot()!;
    const restored = new CurveGain(snapshot);
    expect(restored.bytes).toBe(snapshot.byteLength);
    expect(restored.reserveAtWindowStart(500 * S)).toBe(800);
    expect(restored.bytes).toBe(g.bytes);
  });

  it('gives the same answers whatever the arrival order, duplicates included', () => {
    const ordered = gainOf(trades);
    for (const order of [[2, 1, 0], [1, 2, 0, 2], [0, 2, 1, 1]]) {
      const g = gainOf(order.map((i) => trades[i]!));
      for (const now of [60, 300, 400, 500, 700, 2_000]) expect(g.reserveAtWindowStart(now * S)).toBe(ordered.reserveAtWindowStart(now * S));
    }
  });

  it('keeps the later trade by chain position within a bucket, not the later arrival', () => {
    const g = gainOf([
      [11 * S, 100, 5, 0, 700], // later by position
      [12 * S, 100, 2, 0, 950], // arrives after, later in time, earlier in the chain
    ]);
    expect(g.reserveAtWindowStart(1_000 * S)).toBe(700);
  });

  it('remembers the newest trade that left the ring, and a very late trade only if it is later by position', () => {
    // A trade every 5 s for 30 minutes, reserve falling by 1 each time: 360 buckets, far more than the ring's 64.
    const g = new CurveGain();
    for (let i = 0; i < 360; i++) g.add(i * 5 * S, 1_000 + i, 0, 0, 10_000 - i);
    // now = the last trade (bucket 359): the window starts at bucket 300, the last trade before is bucket 299.
    expect(g.reserveAtWindowStart(359 * 5 * S)).toBe(10_000 - 299);
    // Ten minutes of silence later the window starts after every trade: the newest one.
    expect(g.reserveAtWindowStart(359 * 5 * S + 600 * S)).toBe(10_000 - 359);
    // Quiet curve: one trade, then one an hour later.
    const quiet = gainOf([[0, 1, 0, 0, 500], [3_600 * S, 2, 0, 0, 400]]);
    expect(quiet.reserveAtWindowStart(3_800 * S)).toBe(500);
    expect(quiet.reserveAtWindowStart(4_200 * S)).toBe(400);
    // The trade at 320 s takes the ring entry of the one at 0 s, which moves to the register.
    const evicted = gainOf([[0, 10, 0, 0, 500], [320 * S, 20, 0, 0, 450]]);
    expect(evicted.reserveAtWindowStart(320 * S)).toBe(500);
    // Trades arriving after their bucket left the ring: kept if later by position than the register's.
    evicted.add(1 * S, 15, 0, 0, 999);
    expect(evicted.reserveAtWindowStart(320 * S)).toBe(999);
    evicted.add(2 * S, 5, 0, 0, 111);
    expect(evicted.reserveAtWindowStart(320 * S)).toBe(999);
  });

  it('survives its snapshot', () => {
    const g = gainOf(trades);
    const copy = new CurveGain(Buffer.from(g.toSnapshot()!));
    for (const now of [60, 400, 500, 700]) expect(copy.reserveAtWindowStart(now * S)).toBe(g.reserveAtWindowStart(now * S));
    expect(new CurveGain().toSnapshot()).toBeNull();
  });

  it('writes only the buckets in use, the whole ring when all are, reads both and the dense snapshots of earlier versions, and decodes them at first use', () => {
    const few = gainOf(trades);
    // Register and newest time, then 32 bytes a bucket in use, not the ring's 2,088 bytes.
    const inUse = new Set(trades.map(([at]) => Math.floor(at / (5 * S)))).size;
    expect(few.toSnapshot()!.byteLength).toBe(40 + 32 * inUse);
    // A trade every 5 s for 30 minutes: every entry of the ring in use, the dense form.
    const full = new CurveGain();
    for (let i = 0; i < 360; i++) full.add(i * 5 * S, 1_000 + i, 0, 0, 10_000 - i);
    expect(full.toSnapshot()!.byteLength).toBe(2_088);
    // The dense form of the few buckets, as versions before this one wrote it: the ring, the register, the newest time.
    const d = (few as unknown as { d: Float64Array }).d;
    const dense = new Float64Array(261);
    dense.set(d);
    dense[260] = (few as unknown as { newestAt: number }).newestAt;
    for (const [g, bytes] of [[few, few.toSnapshot()!], [full, full.toSnapshot()!], [few, new Uint8Array(dense.buffer)]] as const) {
      const copy = new CurveGain(Buffer.from(bytes));
      for (let now = 0; now <= 2_400; now += 20) expect(copy.reserveAtWindowStart(now * S)).toBe(g.reserveAtWindowStart(now * S));
      expect(Buffer.from(copy.toSnapshot()!)).toEqual(Buffer.from(g.toSnapshot()!));
      // Not decoded until used: loaded and written again unread, the same bytes as they came.
      const unread = Buffer.from(bytes);
      expect(new CurveGain(unread).toSnapshot()).toBe(unread);
    }
  });
});

describe('curveGain5m (bonding_curve_gain_5m_pct)', () => {
  const POOL = 'P'.repeat(44);
  const pricing = { baseDecimals: 6, quoteDecimals: 9, supply: 1_000_000_000, quoteUsd: null };
  const poolEvent = (type: 'bonding_curve' | 'amm'): PoolEvent => ({
    type: 'pool', pool_address: POOL, base_address: 'B'.repeat(44), quote_address: 'So11111111111111111111111111111111111111112', dex: 'pumpfun',
    pool_type: type, created_at: 0, curve_initial_real_base_raw: type === 'bonding_curve' ? '800000000000000' : null, slot: 1,
  });
  const swap = (at: number, slot: number, realBase: number): SwapEvent => ({
    type: 'swap', tx_hash: 'T'.repeat(88), slot, tx_index: 0, event_index: 0, at, pool_address: POOL, wallet_address: 'W'.repeat(44), side: 'buy',
    base_amount_raw: '1000000', quote_amount_raw: '1000000', base_reserve_raw: '1000000000000000', quote_reserve_raw: '30000000000',
    real_base_reserve_raw: String(realBase * 1e6), real_quote_reserve_raw: '1000000000',
  });

  it('is progress now minus progress at the window start, in points', () => {
    const s = initialPool(POOL);
    applyPool(s, poolEvent('bonding_curve'), 6);
    // Initial real base 800M: 720M left is 10 %, 600M is 25 %, 400M is 50 %.
    applySwap(s, swap(10 * S, 10, 720_000_000), pricing);
    expect(curveGain5m(s, 10 * S)).toBeCloseTo(10, 9); // nothing before the window: from 0
    applySwap(s, swap(200 * S, 20, 600_000_000), pricing);
    applySwap(s, swap(400 * S, 30, 400_000_000), pricing);
    expect(curveGain5m(s, 400 * S)).toBeCloseTo(40, 9); // 50 − 10
    expect(curveGain5m(s, 500 * S)).toBeCloseTo(25, 9); // 50 − 25
    expect(curveGain5m(s, 700 * S)).toBeCloseTo(0, 9); // no trade in the last 5 minutes
    applyMigrationToPool(s, { type: 'migration', token_address: 'B'.repeat(44), from_pool_address: POOL, to_pool_address: 'A'.repeat(44), slot: 40, at: 800 * S });
    expect(curveGain5m(s, 800 * S)).toBeNull();
  });

  it('is null for a pool without a curve', () => {
    const s = initialPool(POOL);
    applyPool(s, poolEvent('amm'), 6);
    applySwap(s, swap(10 * S, 10, 720_000_000), pricing);
    expect(curveGain5m(s, 10 * S)).toBeNull();
  });
});
