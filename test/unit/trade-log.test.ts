import { describe, expect, it } from 'vitest';
import { createPoolBehavior } from '../../actors/pool/pool.actor.ts';
import { applyPool, applySwap, curveProgress, initialPool, type PoolState } from '../../actors/pool/pool.logic.ts';
import { TradeLog } from '../../actors/pool/trade-log.ts';
import { poolTrades } from '../../engine/query/trade-streams.ts';
import { CandlesRepo } from '../../storage/candles.repo.ts';
import { compareKey, type StoredTrade, type TradeKey } from '../../engine/model/index.ts';
import { TradesRepo } from '../../storage/trades.repo.ts';
import { base58, logOf, rng, useTempRepo } from '../helpers/fixtures.ts';

const r = rng(4_242);
const WALLET = base58(r, 44);
const TX = base58(r, 88);

const trade = (at: number, slot = 1, tx = 0, ev = 0, extra: Partial<Record<number, unknown>> = {}): StoredTrade => {
  const t: unknown[] = [at, slot, tx, ev, 1, WALLET, 1.5, 0.25, 1 / 6, 150, 12_345.678, TX];
  for (const [k, v] of Object.entries(extra)) t[Number(k)] = v;
  return t as StoredTrade;
};
const bySign = (list: unknown[]) => list.map((v) => (typeof v === 'number' && Object.is(v, -0) ? '-0' : v));

/** Numbers around every msgpack boundary, and the ones only a float64 holds. */
const NUMBERS = [
  0, -0, 1, 31, 32, 63, 64, 100, 127, 128, 255, 256, 65_535, 65_536, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 1_767_225_600_000,
  2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e300, -1, -31, -32, -33, -128, -129, -32_768, -32_769, -(2 ** 31), -(2 ** 31) - 1,
  -(2 ** 53), 0.5, -0.5, 1 / 3, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, NaN, Infinity, -Infinity,
];
const STRINGS = ['', 'a', 'x'.repeat(31), 'x'.repeat(32), 'y'.repeat(255), 'y'.repeat(256), 'z'.repeat(65_535), 'z'.repeat(70_000), 'é', 'é'.repeat(15), 'é'.repeat(16), 'é'.repeat(20), 'é'.repeat(30), 'é'.repeat(127), 'é'.repeat(128), '日本語'.repeat(30), '🚀 emoji', 'a\u0000b', WALLET, TX];

/** Every edge value in some position of a trade, keys kept distinct and ascending. */
function edgeTrades(): StoredTrade[] {
  const out: StoredTrade[] = [];
  let at = 1_000;
  for (const x of NUMBERS) for (const k of [6, 7, 8, 9, 10]) out.push(trade(at++, 1, 0, 0, { [k]: x }));
  for (const s of STRINGS) {
    out.push(trade(at++, 1, 0, 0, { 5: s }));
    out.push(trade(at++, 1, 0, 0, { 11: s }));
  }
  out.push(trade(at++, 1, 0, 0, { 4: 0, 9: null }));
  // A curve's trades: a thirteenth value, its progress (StoredTrade.curvePct).
  for (const x of [0, 1, 64, 70, 1 / 3, 99.99999999999987, 100, null]) out.push(trade(at++, 1, 0, 0, { 12: x }));
  // Edge values in the key itself (ascending by at).
  for (const x of [-(2 ** 40), -5, -0, 0, 64, 2 ** 32, 2 ** 53 + 2]) out.push(trade(at++, x, x, x));
  return out;
}

// All tests but two (spread over every describe) read or write LMDB: one store per test, file-wide.
const temp = useTempRepo((storage) => new TradesRepo(storage));

describe('TradeLog encoding', () => {
  it('decodes through the trades database (msgpackr) to the trades encoded, edge values included', async () => {
    const input = edgeTrades();
    await temp.repo.write('P', logOf(input), null, 10_000);
    const stored = temp.storage.trades.get(['P', ...(input[0]!.slice(0, 4) as TradeKey)]) as StoredTrade[];
    expect(stored).toHaveLength(input.length);
    for (let i = 0; i < input.length; i++) {
      expect(stored[i]).toEqual(input[i]);
      expect(bySign(stored[i]!)).toEqual(bySign(input[i]!));
    }
    // And its own decoder agrees.
    expect([...logOf(input)].map(bySign)).toEqual(input.map(bySign));
  });

  it('writes the bytes msgpackr writes for the same trades (but for -0, which msgpackr turns into 0)', async () => {
    const input = edgeTrades().filter((t) => !t.some((v) => Object.is(v, -0)));
    await temp.storage.trades.put(['old'], input);
    await temp.repo.write('new', logOf(input), null, 10_000);
    const theirs = temp.storage.trades.getBinary(['old'])!;
    const ours = temp.storage.trades.getBinary(['new', ...(input[0]!.slice(0, 4) as TradeKey)])!;
    expect(Buffer.compare(Buffer.from(ours), Buffer.from(theirs))).toBe(0);
  });

  it('writes a lone surrogate (not valid Unicode) as U+FFFD, as Buffer does', async () => {
    await temp.repo.write('P', logOf([trade(1, 1, 0, 0, { 5: 'a\ud800b' })]), null);
    expect((temp.storage.trades.get(['P', 1, 1, 0, 0]) as StoredTrade[])[0]![5]).toBe('a\ufffdb');
  });

  it('rejects a trade it cannot encode and stays as it was', () => {
    const log = logOf([trade(1)]);
    expect(() => log.insert(trade(2, 1, 0, 0, { 6: 10n }))).toThrow(/value 6 is bigint/);
    expect(() => log.insert(trade(2, 1, 0, 0, { 9: undefined }))).toThrow(/value 9 is undefined/);
    expect(() => log.insert(trade(2, 1, 0, 0, { 0: '2' }))).toThrow(TypeError);
    expect(() => log.insert([1, 2, 3] as unknown as StoredTrade)).toThrow(/12 values/);
    log.insert(trade(3));
    expect([...log]).toEqual([trade(1), trade(3)]);
    expect(() => log.decode(2)).toThrow(RangeError);
  });
});

describe('TradeLog order', () => {
  it('keeps compareKey order for in-order and out-of-order inserts, equal positions in arrival order', async () => {
    const random = rng(77);
    const log = new TradeLog();
    const reference: StoredTrade[] = [];
    // 5,000 trades: the index's pages hold 2,048, so late trades move entries across pages.
    for (let i = 0; i < 5_000; i++) {
      // Mostly ascending, one in five late, some at the same position (told apart by wallet).
      const late = random() < 0.2;
      const at = late ? Math.floor(random() * i) : i;
      const t = trade(at, Math.floor(random() * 3), Math.floor(random() * 2), 0, { 5: `w${i}`, 11: i % 7 === 0 ? 'é'.repeat(i % 40) : `tx${i}` });
      log.insert(t);
      let j = reference.length;
      while (j > 0 && compareKey(reference[j - 1]!, t) > 0) j--;
      reference.splice(j, 0, t);
    }
    expect(log.length).toBe(5_000);
    expect([...log]).toEqual(reference);
    for (let i = 0; i < log.length; i++) expect(log.keyAt(i)).toEqual(reference[i]!.slice(0, 4));
    // Its bytes, written and snapshotted, follow the same order across chunks.
    expect([...TradeLog.fromSnapshot(log.toSnapshot())]).toEqual(reference);
    await temp.repo.write('R', log, null, 300);
    expect([...temp.repo.read('R', { order: 'asc', minAt: -1, maxAt: Infinity })]).toEqual(reference);
  });
});

describe('TradeLog memory', () => {
  it("reserves about a quiet pool's trades, not kilobytes, and counts every slice it takes as it grows", () => {
    const one = new TradeLog();
    one.insert(trade(1_000));
    // A 1 KiB chunk and an index of 4 entries (7 numbers each).
    expect(one.reservedBytes).toBe(1_024 + 4 * 7 * 8);
    expect(one.reservedBytes).toBeGreaterThanOrEqual(one.byteLength);
    const many = new TradeLog();
    let grown = 0;
    let last = many.reservedBytes;
    for (let i = 0; i < 5_000; i++) {
      many.insert(trade(1_000 + i));
      if (many.reservedBytes !== last) grown++;
      last = many.reservedBytes;
    }
    // Chunks double up to 64 KiB, the first index page fourfold up to 2,048 entries, then pages of 2,048.
    expect(many.reservedBytes).toBeGreaterThan(many.byteLength + 5_000 * 7 * 8);
    expect(many.reservedBytes).toBeLessThan(2 * many.byteLength + 3 * 2_048 * 7 * 8 * 2);
    expect(grown).toBeGreaterThan(10);
  });
});

describe('TradesRepo.write with a TradeLog', () => {
  it("splits blocks at blockMax, keyed by each block's first trade", async () => {
    const input = Array.from({ length: 1_200 }, (_, i) => trade(10_000 + i));
    await temp.repo.write('P', logOf(input), null);
    const keys = [...temp.storage.trades.getKeys({ start: ['P'], end: ['P\u0000'] })];
    expect(keys).toEqual([['P', 10_000, 1, 0, 0], ['P', 10_512, 1, 0, 0], ['P', 11_024, 1, 0, 0]]);
    expect((temp.storage.trades.get(keys[2] as never) as StoredTrade[]).length).toBe(176);
    expect([...temp.repo.read('P', { order: 'asc', minAt: 0, maxAt: Infinity })]).toEqual(input);
    expect([...temp.repo.read('P', { order: 'desc', minAt: 0, maxAt: Infinity })]).toEqual(input.slice().reverse());
    // Small blocks (fixarray header) and one past 65,535 trades (array32 header).
    await temp.repo.write('S', logOf(input.slice(0, 12)), null, 5);
    expect([...temp.storage.trades.getKeys({ start: ['S'], end: ['S\u0000'] })]).toHaveLength(3);
    expect([...temp.repo.read('S', { order: 'asc', minAt: 0, maxAt: Infinity })]).toEqual(input.slice(0, 12));
    const many = Array.from({ length: 70_000 }, (_, i) => [i, 0, 0, 0, 0, 'w', i, 0, 0, null, 0, 't'] as StoredTrade);
    await temp.repo.write('L', logOf(many), null, 100_000);
    expect(temp.storage.trades.get(['L', 0, 0, 0, 0]) as StoredTrade[]).toEqual(many);
    expect(() => temp.repo.write('P', logOf(input), null, 0)).toThrow(RangeError);
  });

  it('merges every late trade of one write into the block that covers it, old-format blocks included', async () => {
    // A block as the code before TradeLog wrote it: msgpackr's own encoding.
    await temp.storage.trades.put(['P', 10, 1, 0, 0], [trade(10), trade(20), trade(30)]);
    await temp.repo.write('P', logOf([trade(40), trade(50)]), [30, 1, 0, 0]);
    const late = logOf([trade(5), trade(7), trade(15), trade(25), trade(45), trade(60)]);
    await temp.repo.write('P', late, [50, 1, 0, 0]);
    const ats = [...temp.repo.read('P', { order: 'asc', minAt: 0, maxAt: Infinity })].map((t) => t[0]);
    expect(ats).toEqual([5, 7, 10, 15, 20, 25, 30, 40, 45, 50, 60]);
    expect([...temp.storage.trades.getKeys({ start: ['P'], end: ['P\u0000'] })]).toEqual([
      ['P', 5, 1, 0, 0],
      ['P', 10, 1, 0, 0],
      ['P', 40, 1, 0, 0],
      ['P', 60, 1, 0, 0],
    ]);
  });
});

describe('trades of 12 values (stored before curvePct) beside curve trades of 13', () => {
  it('reads blocks, merged blocks, logs and snapshot bytes that mix them, each trade as it was stored', async () => {
    const curve = (at: number, pct: number | null) => trade(at, 1, 0, 0, { 12: pct });
    // A pool's old block (msgpackr's own encoding, as older code wrote it) and one of TradeLog's bytes, both of 12 values.
    await temp.storage.trades.put(['P', 10, 1, 0, 0], [trade(10), trade(20)]);
    await temp.repo.write('P', logOf([trade(30), trade(40)]), [20, 1, 0, 0]);
    // Then curve trades, new and late ones merged into the old blocks.
    await temp.repo.write('P', logOf([curve(15, 71.5), curve(35, null), curve(50, 100), curve(60, 0)]), [40, 1, 0, 0]);
    const expected = [trade(10), curve(15, 71.5), trade(20), trade(30), curve(35, null), trade(40), curve(50, 100), curve(60, 0)];
    expect([...temp.repo.read('P', { order: 'asc', minAt: 0, maxAt: Infinity })]).toEqual(expected);
    expect([...temp.repo.read('P', { order: 'desc', minAt: 0, maxAt: Infinity })]).toEqual(expected.slice().reverse());
    expect(temp.repo.find('P', [20, 1, 0, 0])).toHaveLength(12);
    expect(temp.repo.find('P', [15, 1, 0, 0])).toEqual(curve(15, 71.5));
    expect(temp.repo.find('P', [50, 1, 0, 0])?.[12]).toBe(100);
    // A log and its snapshot bytes holding both.
    const log = logOf(expected);
    expect([...log]).toEqual(expected);
    expect([...TradeLog.fromSnapshot(log.toSnapshot())]).toEqual(expected);
    // Numbers only (TradeSpan.numbersOnly) keeps the progress.
    expect(log.decode(1, true)).toEqual(curve(15, 71.5).map((v) => (typeof v === 'string' ? null : v)));
    // 14 values is no trade.
    expect(() => log.insert([...curve(70, 1), 1] as unknown as StoredTrade)).toThrow(/12 values \(13 with curvePct\), not 14/);
    expect(() => TradeLog.fromSnapshot(Uint8Array.of(0x9e, 1, 1, 0, 0, 1, 0xa1, 0x61, 0, 0, 0, 0xc0, 0, 0xa1, 0x61, 0, 0))).toThrow(/byte 0x9e at 0 is not a trade/);
  });
});

describe('pool snapshot and checkpoint', () => {
  const behavior = () => createPoolBehavior({ trades: temp.repo, candles: new CandlesRepo(temp.storage) });
  const through = async (data: unknown) => {
    await temp.storage.snapshots.put('pool:P', { seq: 1, state: data });
    return (temp.storage.snapshots.get('pool:P') as { state: unknown }).state;
  };

  it('round-trips the unsaved trades as one binary field, and reads an old snapshot holding an array', async () => {
    const b = behavior();
    const state = initialPool('P', new CandlesRepo(temp.storage));
    const input = edgeTrades().slice(0, 60);
    for (const t of input.slice().reverse()) state.unsaved.insert(t);
    const snap = b.toSnapshot!(state) as Record<string, unknown>;
    expect(snap.unsaved).toBeInstanceOf(Uint8Array);
    expect(snap).not.toHaveProperty('writing');
    const back = b.fromSnapshot!(await through(snap)) as PoolState;
    expect([...back.unsaved].map(bySign)).toEqual(input.map(bySign));
    expect(back.writing).toBeNull();
    back.unsaved.insert(trade(0));
    expect(back.unsaved.decode(0)).toEqual(trade(0));

    // msgpackr wrote the old snapshot's -0 as 0.
    const old = b.fromSnapshot!(await through({ ...snap, unsaved: input })) as PoolState;
    expect([...old.unsaved]).toEqual(input.map((t) => t.map((v) => (Object.is(v, -0) ? 0 : v))));
    const empty = b.fromSnapshot!(await through(b.toSnapshot!(initialPool('P')))) as PoolState;
    expect(empty.unsaved.length).toBe(0);
  });

  it('refuses snapshot bytes that are not encoded trades with a clear error', () => {
    expect(() => TradeLog.fromSnapshot(Uint8Array.of(0x9c, 0x01))).toThrow(/trade log: truncated/);
    expect(() => TradeLog.fromSnapshot(Uint8Array.of(0x93, 1, 2, 3))).toThrow(/not a trade/);
    const bytes = logOf([trade(1)]).toSnapshot();
    expect(() => TradeLog.fromSnapshot(Buffer.concat([bytes, Uint8Array.of(0xc1)]))).toThrow(/not a trade/);
    const twoSwapped = Buffer.concat([logOf([trade(2)]).toSnapshot(), bytes]);
    expect(() => TradeLog.fromSnapshot(twoSwapped)).toThrow(/out of order/);
    expect(() => TradeLog.fromSnapshot('x' as never)).toThrow(TypeError);
  });

  it('rebuilds a log from snapshot bytes in one walk: small trades past the index guess, a view into a larger buffer, errors at any trade', () => {
    // ~30-byte trades: four times as many as the index is first sized for.
    const small = Array.from({ length: 10_000 }, (_, i) => [1_000 + (i >> 2), i & 3, 0, 0, 1, 'w', i, 0, 0, null, 0, 't'] as StoredTrade);
    const bytes = logOf(small).toSnapshot();
    expect(bytes.length / small.length).toBeLessThan(40);
    const log = TradeLog.fromSnapshot(bytes);
    expect(log.length).toBe(10_000);
    expect(log.byteLength).toBe(bytes.length);
    expect([...log]).toEqual(small);
    expect(log.keyAt(9_999)).toEqual([3_499, 3, 0, 0]);
    log.insert(small[5]!);
    expect(log.decode(6)).toEqual(small[5]);
    // A view with an offset into a larger buffer, as a snapshot read from LMDB may be.
    const framed = Buffer.concat([Buffer.from('xyz'), bytes, Buffer.from('!')]);
    expect([...TradeLog.fromSnapshot(framed.subarray(3, 3 + bytes.length))]).toEqual(small);
    // The last trade cut short: truncated, even though the log's chunk is longer than the bytes.
    expect(() => TradeLog.fromSnapshot(bytes.subarray(0, bytes.length - 1))).toThrow(/trade log: truncated/);
    // Out of order far into the log, and a key that is not a number.
    const late = Buffer.concat([bytes, logOf([small[100]!]).toSnapshot()]);
    expect(() => TradeLog.fromSnapshot(late)).toThrow('pool snapshot: unsaved trade 10000 is out of order');
    expect(() => TradeLog.fromSnapshot(Uint8Array.of(0x9c, 0xa1, 0x61))).toThrow(/a trade position holds string/);
  });

  it('beforeSnapshot writes the log, keeps it readable until its commit, and moves persisted_up_to', async () => {
    const b = behavior();
    const state = initialPool('P', new CandlesRepo(temp.storage));
    for (let i = 0; i < 40; i++) state.unsaved.insert(trade(1_000 + i));
    const window = { order: 'asc' as const, minAt: 0, maxAt: Infinity };
    const list = () => [...poolTrades(temp.repo, 'P', state, window)].map((t) => t[0]);
    b.beforeSnapshot!(state, 'P');
    expect(state.unsaved.length).toBe(0);
    expect(state.writing?.length).toBe(40);
    expect(state.persisted_up_to).toEqual([1_039, 1, 0, 0]);
    // Not committed yet: only memory has them.
    expect([...temp.repo.read('P', window)]).toEqual([]);
    expect(list()).toHaveLength(40);
    await temp.storage.trades.committed;
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.writing).toBeNull();
    expect(list()).toHaveLength(40);
    // A late trade and a new one: merged into the stored block, and a block of its own.
    state.unsaved.insert(trade(2_000));
    state.unsaved.insert(trade(999));
    expect(list()).toEqual([999, ...Array.from({ length: 40 }, (_, i) => 1_000 + i), 2_000]);
    b.beforeSnapshot!(state, 'P');
    expect(state.persisted_up_to).toEqual([2_000, 1, 0, 0]);
    const during = list();
    await temp.storage.trades.committed;
    expect(list()).toEqual(during);
    expect(during).toHaveLength(42);
    expect(new Set(during).size).toBe(42);
    // Nothing to write: nothing changes.
    b.beforeSnapshot!(state, 'P');
    expect(state.persisted_up_to).toEqual([2_000, 1, 0, 0]);
  });

  it('poolTrades filters the in-memory logs by window and position, in both orders, once each', async () => {
    const state = initialPool('P');
    const all = Array.from({ length: 30 }, (_, i) => trade(100 + i * 10));
    await temp.repo.write('P', logOf(all.slice(0, 10)), null);
    state.persisted_up_to = [190, 1, 0, 0];
    // One written log in flight that also committed (listed twice), and unsaved ones.
    const inFlight = logOf(all.slice(5, 20));
    state.writing = inFlight;
    for (const t of all.slice(20)) state.unsaved.insert(t);
    const ats = (w: Parameters<typeof poolTrades>[3]) => [...poolTrades(temp.repo, 'P', state, w)].map((t) => t[0]);
    expect(ats({ order: 'asc', minAt: 0, maxAt: Infinity })).toEqual(all.map((t) => t[0]));
    expect(ats({ order: 'desc', minAt: 150, maxAt: 250 })).toEqual(all.map((t) => t[0]).filter((at) => at >= 150 && at <= 250).reverse());
    expect(ats({ order: 'asc', minAt: 0, maxAt: Infinity, after: [195, 0, 0, 0] })).toEqual(all.map((t) => t[0]).filter((at) => at >= 200));
    expect(ats({ order: 'desc', minAt: 0, maxAt: Infinity, after: [200, 1, 0, 0] })).toEqual(all.map((t) => t[0]).filter((at) => at < 200).reverse());
  });
});

describe('one trades write per pool at a time', () => {
  it('a snapshot while a write is in flight writes no trades, keeps them in the snapshot, and no blocks overlap', async () => {
    const b = createPoolBehavior({ trades: temp.repo, candles: new CandlesRepo(temp.storage) });
    const state = initialPool('P', new CandlesRepo(temp.storage));
    const window = { order: 'asc' as const, minAt: 0, maxAt: Infinity };
    const positions = (list: Iterable<StoredTrade>) => [...list].map((t) => `${t[0]}:${t[1]}`);
    const listed = () => positions(poolTrades(temp.repo, 'P', state, window));
    const settled = async () => {
      await temp.storage.trades.committed;
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (let i = 0; i < 40; i++) state.unsaved.insert(trade(1_000 + i));
    b.beforeSnapshot!(state, 'P');
    const first = state.writing;
    expect(first?.length).toBe(40);
    // Before that write commits: a late trade inside its range, and a new one.
    state.unsaved.insert(trade(1_020, 2));
    state.unsaved.insert(trade(1_050));
    const expected = [...Array.from({ length: 21 }, (_, i) => `${1_000 + i}:1`), '1020:2', ...Array.from({ length: 19 }, (_, i) => `${1_021 + i}:1`), '1050:1'];
    b.beforeSnapshot!(state, 'P');
    expect(state.writing).toBe(first);
    expect(positions(state.unsaved)).toEqual(['1020:2', '1050:1']);
    expect(state.persisted_up_to).toEqual([1_039, 1, 0, 0]);
    expect(listed()).toEqual(expected);
    // The snapshot taken with it holds them: nothing is lost if the process stops here.
    const snap = b.toSnapshot!(state);
    await temp.storage.snapshots.put('pool:P', { seq: 1, state: snap });
    const back = b.fromSnapshot!((temp.storage.snapshots.get('pool:P') as { state: unknown }).state) as PoolState;
    expect([...back.unsaved]).toEqual([trade(1_020, 2), trade(1_050)]);
    expect(back.persisted_up_to).toEqual([1_039, 1, 0, 0]);
    await settled();
    expect(state.writing).toBeNull();
    expect(listed()).toEqual(expected);
    // The first snapshot after the commit writes them, merged into the block LMDB now shows.
    b.beforeSnapshot!(state, 'P');
    expect(state.unsaved.length).toBe(0);
    expect(state.writing?.length).toBe(2);
    expect(state.persisted_up_to).toEqual([1_050, 1, 0, 0]);
    expect(listed()).toEqual(expected);
    await settled();
    expect(state.writing).toBeNull();
    expect(positions(temp.repo.read('P', window))).toEqual(expected);
    expect(listed()).toEqual(expected);
    expect([...temp.storage.trades.getKeys({ start: ['P'], end: ['P\u0000'] })]).toEqual([['P', 1_000, 1, 0, 0], ['P', 1_050, 1, 0, 0]]);
  });
});

describe('applySwap', () => {
  it('returns the trade as stored, the one it puts in unsaved, and sets the real reserve the curve progress reads', () => {
    const state = initialPool('P');
    applyPool(state, {
      type: 'pool', pool_address: 'P', base_address: 'B', quote_address: 'Q', dex: 'pumpfun', pool_type: 'bonding_curve', created_at: 0,
      curve_initial_real_base_raw: '800000000000000', slot: 1,
    }, 6);
    const stored = applySwap(state, {
      type: 'swap', tx_hash: TX, slot: 7, tx_index: 2, event_index: 1, at: 5_000, pool_address: 'P', wallet_address: WALLET, side: 'sell',
      base_amount_raw: '2000000', quote_amount_raw: '500000000', base_reserve_raw: '1000000000', quote_reserve_raw: '30000000000',
      real_base_reserve_raw: '720000000000000', real_quote_reserve_raw: '1000000000',
    }, { baseDecimals: 6, quoteDecimals: 9, supply: 1_000, quoteUsd: 150 });
    // Market cap: the trade's price (0.5 / 2) × supply 1,000 (DECISIONS.md), not the spot's 30.
    // A curve's trade carries the curve's progress after it (StoredTrade.curvePct).
    expect(stored).toEqual([5_000, 7, 2, 1, 0, WALLET, 2, 0.5, 0.25, 150, 0.25 * 1_000, TX, curveProgress(state)]);
    expect(state.unsaved.decode(0)).toEqual(stored);
    expect(state.real_base_reserve).toBe(720_000_000);
    expect(curveProgress(state)).toBeCloseTo(10, 9);
  });
});
