import { describe, expect, it, vi } from 'vitest';
import { initialPool } from '../../actors/pool/pool.logic.ts';
import { TradeLog } from '../../actors/pool/trade-log.ts';
import { poolTrades, take } from '../../engine/query/trade-streams.ts';
import { compareKey, type StoredTrade, type TradeKey, type TradeSpan } from '../../engine/model/index.ts';
import { TradeBlock, windowed, type TradeRows } from '../../storage/trade-codec.ts';
import { TradesRepo } from '../../storage/trades.repo.ts';
import { base58, logOf, rng, useTempRepo } from '../helpers/fixtures.ts';

const r = rng(9_001);
const WALLET = base58(r, 44);
const TX = base58(r, 88);

const trade = (at: number, slot = 1, tx = 0, ev = 0): StoredTrade => [at, slot, tx, ev, 1, WALLET, 1.5, 0.25, 1 / 6, 150, 12_345.678, TX];
const ats = (list: Iterable<StoredTrade>) => [...list].map((t) => t[0]);

const temp = useTempRepo((storage) => new TradesRepo(storage));

describe('TradesRepo.read window edges with a cursor', () => {
  it('applies the near edge of the window after the cursor (asc: minAt, desc: maxAt)', async () => {
    await temp.repo.write('P', logOf([100, 200, 300, 400, 500].map((at) => trade(at))), null);
    // Ascending paging without start_time: the cursor is older than minAt (now - 24h moved on).
    expect(ats(temp.repo.read('P', { order: 'asc', minAt: 300, maxAt: 1_000, after: [100, 1, 0, 0] }))).toEqual([300, 400, 500]);
    expect(ats(temp.repo.read('P', { order: 'desc', minAt: 0, maxAt: 300, after: [500, 1, 0, 0] }))).toEqual([300, 200, 100]);
    // The cursor inside the window still decides where the page starts.
    expect(ats(temp.repo.read('P', { order: 'asc', minAt: 300, maxAt: 1_000, after: [400, 1, 0, 0] }))).toEqual([500]);
    expect(ats(temp.repo.read('P', { order: 'desc', minAt: 0, maxAt: 300, after: [200, 1, 0, 0] }))).toEqual([100]);
  });

  it('applies both edges and the cursor across many small blocks', async () => {
    const all = Array.from({ length: 100 }, (_, i) => trade(1_000 + 10 * i));
    await temp.repo.write('P', logOf(all), null, 7);
    const expected = (order: 'asc' | 'desc', minAt: number, maxAt: number, after: number) => {
      const list = all.map((t) => t[0]).filter((at) => at >= minAt && at <= maxAt && (order === 'asc' ? at > after : at < after));
      return order === 'asc' ? list : list.reverse();
    };
    for (const [minAt, maxAt, after] of [
      [1_300, 1_700, 1_100],
      [1_300, 1_700, 1_500],
      [1_300, 1_700, 1_900],
      [1_305, 1_695, 1_505],
      [0, 5_000, 1_000],
    ] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const got = ats(temp.repo.read('P', { order, minAt, maxAt, after: [after, 1, 0, 0] }));
        expect(got, `${order} [${minAt}, ${maxAt}] after ${after}`).toEqual(expected(order, minAt, maxAt, after));
      }
    }
  });
});

/** Counts the trades `rows` decodes (the rows themselves are real: a TradeLog or a TradeBlock). */
function counted(rows: TradeRows): TradeRows & { decoded: number } {
  const out = {
    decoded: 0,
    get length() {
      return rows.length;
    },
    atOf: (i: number) => rows.atOf(i),
    compareAt: (i: number, key: ArrayLike<unknown>) => rows.compareAt(i, key),
    decode: (i: number) => {
      out.decoded++;
      return rows.decode(i);
    },
  };
  return out;
}

/** The span's trades of a sorted list, by filtering every one. */
function reference(all: StoredTrade[], w: TradeSpan): StoredTrade[] {
  const inside = all.filter((t) => {
    if (t[0] < w.minAt || t[0] > w.maxAt) return false;
    if (!w.after) return true;
    const c = compareKey(t, w.after);
    return w.order === 'asc' ? c > 0 : c < 0;
  });
  return w.order === 'asc' ? inside : inside.reverse();
}

/** Sorted trades with runs at the same `at` (told apart by slot, tx index, event index). */
function sortedTrades(seed: number, count: number): StoredTrade[] {
  const random = rng(seed);
  const out: StoredTrade[] = [];
  let at = 1_000;
  for (let i = 0; i < count; i++) {
    if (random() < 0.6) at += 1 + Math.floor(random() * 20);
    out.push(trade(at, Math.floor(random() * 3), Math.floor(random() * 3), Math.floor(random() * 2)));
  }
  return out.sort(compareKey);
}

describe('windowed', () => {
  it('takes the same trades as a filter over every trade, from a TradeLog and a TradeBlock, in both orders', async () => {
    const all = sortedTrades(5, 400);
    const log = logOf(all);
    await temp.repo.write('B', log, null, 10_000);
    const block = new TradeBlock(temp.storage.tradeBlocks.get(['B', ...(all[0]!.slice(0, 4) as TradeKey)])!);
    expect(block.length).toBe(400);
    const random = rng(6);
    const first = all[0]![0];
    const last = all[all.length - 1]![0];
    const pick = () => first - 5 + Math.floor(random() * (last - first + 10));
    for (let round = 0; round < 200; round++) {
      const [minAt, maxAt] = [pick(), pick()].sort((a, b) => a - b) as [number, number];
      // A cursor on a stored trade, between positions, or none.
      const kind = round % 3;
      const after: TradeKey | undefined =
        kind === 0 ? undefined : kind === 1 ? (all[Math.floor(random() * all.length)]!.slice(0, 4) as TradeKey) : [pick(), 1, 1, 0.5];
      for (const order of ['asc', 'desc'] as const) {
        const w: TradeSpan = { order, minAt, maxAt, after };
        const expected = reference(all, w);
        expect([...windowed(log, w)], JSON.stringify(w)).toEqual(expected);
        expect([...windowed(block, w)], JSON.stringify(w)).toEqual(expected);
      }
    }
  });

  it('returns whether it stopped past the far edge, and decodes only the trades taken', () => {
    const log = logOf([100, 200, 300, 400, 500].map((at) => trade(at)));
    const run = (w: TradeSpan) => {
      const rows = counted(log);
      const it = windowed(rows, w);
      const got: number[] = [];
      for (let n = it.next(); ; n = it.next()) {
        if (n.done) return { got, past: n.value, decoded: rows.decoded };
        got.push(n.value[0]);
      }
    };
    expect(run({ order: 'asc', minAt: 200, maxAt: 350 })).toEqual({ got: [200, 300], past: true, decoded: 2 });
    expect(run({ order: 'asc', minAt: 200, maxAt: 500 })).toEqual({ got: [200, 300, 400, 500], past: false, decoded: 4 });
    expect(run({ order: 'desc', minAt: 150, maxAt: 450 })).toEqual({ got: [400, 300, 200], past: true, decoded: 3 });
    expect(run({ order: 'desc', minAt: 100, maxAt: 450, after: [300, 1, 0, 0] })).toEqual({ got: [200, 100], past: false, decoded: 2 });
    // Empty: the whole log before the window (asc walks nothing), or after it.
    expect(run({ order: 'asc', minAt: 600, maxAt: 900 })).toEqual({ got: [], past: false, decoded: 0 });
    expect(run({ order: 'asc', minAt: 0, maxAt: 50 })).toEqual({ got: [], past: true, decoded: 0 });
    expect(run({ order: 'desc', minAt: 0, maxAt: 50 })).toEqual({ got: [], past: false, decoded: 0 });
    expect(run({ order: 'desc', minAt: 600, maxAt: 900 })).toEqual({ got: [], past: true, decoded: 0 });
    expect(run({ order: 'asc', minAt: 0, maxAt: 900, after: [500, 1, 0, 0] })).toEqual({ got: [], past: false, decoded: 0 });
    expect(run({ order: 'asc', minAt: 0, maxAt: 900 })).toEqual({ got: [100, 200, 300, 400, 500], past: false, decoded: 5 });
    expect([...windowed(new TradeLog(), { order: 'desc', minAt: 0, maxAt: 900 })]).toEqual([]);
    // Lazily: taking two of five decodes two.
    const rows = counted(log);
    expect(take(windowed(rows, { order: 'desc', minAt: 0, maxAt: 900 }), 2).items.map((t) => t[0])).toEqual([500, 400]);
    expect(rows.decoded).toBe(3);
  });
});

describe('poolTrades', () => {
  it('merges stored, unsaved and writing trades lazily: a page decodes about what it returns', async () => {
    const state = initialPool('P');
    const all = Array.from({ length: 3_000 }, (_, i) => trade(10_000 + i));
    await temp.repo.write('P', logOf(all.slice(0, 1_000)), null);
    state.persisted_up_to = [10_999, 1, 0, 0];
    state.writing = logOf(all.slice(900, 2_000)); // committed meanwhile for its first 100: listed twice
    state.unsaved = logOf(all.slice(2_000));
    const decodes = { writing: vi.spyOn(state.writing, 'decode'), unsaved: vi.spyOn(state.unsaved, 'decode') };
    const page = (w: Parameters<typeof poolTrades>[3], limit: number) => take(poolTrades(temp.repo, 'P', state, w), limit);
    // Newest first: the unsaved log alone, 50 (and the one that tells there are more).
    const newest = page({ order: 'desc', minAt: 0, maxAt: Infinity }, 50);
    expect(newest.items.map((t) => t[0])).toEqual(all.slice(-50).reverse().map((t) => t[0]));
    expect(newest.hasMore).toBe(true);
    expect(decodes.unsaved.mock.calls.length).toBeLessThanOrEqual(52);
    expect(decodes.writing.mock.calls.length).toBeLessThanOrEqual(1);
    // Across the stored, writing and unsaved trades, with the duplicates dropped.
    decodes.unsaved.mockClear();
    decodes.writing.mockClear();
    const across = page({ order: 'asc', minAt: 10_950, maxAt: Infinity, after: [10_960, 1, 0, 0] }, 2_000);
    expect(across.items.map((t) => t[0])).toEqual(all.filter((t) => t[0] > 10_960 && t[0] < 12_961).map((t) => t[0]));
    expect(across.hasMore).toBe(true);
    expect(decodes.writing.mock.calls.length).toBe(1_039); // 10,961..11,999: all of its trades in the page
    expect(decodes.unsaved.mock.calls.length).toBeLessThanOrEqual(963); // 12,000..12,960, and the next
    expect(decodes.unsaved.mock.calls.length).toBeGreaterThanOrEqual(961);
    // An unknown pool's state: the stored trades alone.
    expect(page({ order: 'asc', minAt: 10_995, maxAt: 11_002 }, 100).items.map((t) => t[0])).toEqual([10_995, 10_996, 10_997, 10_998, 10_999, 11_000, 11_001, 11_002]);
    expect(take(poolTrades(temp.repo, 'P', undefined, { order: 'desc', minAt: 0, maxAt: Infinity }), 3).items.map((t) => t[0])).toEqual([10_999, 10_998, 10_997]);
  });
});

describe('TradesRepo.prune', () => {
  it('removes blocks ending before the cutoff by key, reading only the last block that starts before it', async () => {
    await temp.repo.write('P', logOf(Array.from({ length: 20 }, (_, i) => trade(100 + 10 * i))), null, 5); // blocks at 100, 150, 200, 250
    // A block as msgpackr wrote it before TradeLog, and one that is not a trade block at all:
    // neither is the last block before the cutoff, so neither is read.
    await temp.storage.trades.put(['P', 10, 1, 0, 0], [trade(10), trade(20)]);
    await temp.storage.tradeBlocks.put(['P', 50, 1, 0, 0], Buffer.of(0xc1));
    await temp.storage.trades.put(['Q', 10, 1, 0, 0], [trade(10)]);
    const get = vi.spyOn(temp.storage.tradeBlocks, 'get');
    // The block at 200 holds 200..240: it straddles 230 and stays.
    expect(temp.repo.prune('P', 230)).toBe(4);
    expect(get).toHaveBeenCalledTimes(1);
    await temp.storage.meta.put('sync', 1);
    const keys = () => [...temp.storage.trades.getKeys({ start: ['P'], end: ['P\u0000'] })].map((k) => (k as unknown[])[1]);
    expect(keys()).toEqual([200, 250]);
    expect(ats(temp.repo.read('P', { order: 'asc', minAt: 0, maxAt: Infinity }))).toEqual(Array.from({ length: 10 }, (_, i) => 200 + 10 * i));
    // Its last trade is 240: a cutoff after it removes it too; one at 200 removes nothing.
    expect(temp.repo.prune('P', 200)).toBe(0);
    expect(temp.repo.prune('P', 241)).toBe(1);
    await temp.storage.meta.put('sync', 2);
    expect(keys()).toEqual([250]);
    // An old-format block, last before the cutoff, is read as bytes the same; other pools are untouched.
    await temp.storage.trades.put(['P', 1, 1, 0, 0], [trade(1), trade(2)]);
    expect(temp.repo.prune('P', 2)).toBe(0);
    expect(temp.repo.prune('P', 3)).toBe(1);
    expect(temp.repo.prune('R', 1e9)).toBe(0);
    await temp.storage.meta.put('sync', 3);
    expect(keys()).toEqual([250]);
    expect([...temp.storage.trades.getKeys({ start: ['Q'], end: ['Q\u0000'] })]).toHaveLength(1);
  });
});

describe('TradesRepo late merges', () => {
  it('reads each covering block once for a run of late trades, and merges them all', async () => {
    await temp.repo.write('P', logOf(Array.from({ length: 20 }, (_, i) => trade(100 + 10 * i))), null, 5); // blocks at 100, 150, 200, 250
    const get = vi.spyOn(temp.storage.trades, 'get');
    const late = [50, 60, 105, 111, 112, 113, 145, 201, 202, 203, 204, 290, 295].map((at) => trade(at, 2));
    await temp.repo.write('P', logOf([...late, trade(400)]), [300, 1, 0, 0]);
    // 50 and 60 go to a new block in front; the others to the blocks at 100, 200 and 250.
    expect(get).toHaveBeenCalledTimes(3);
    const keys = [...temp.storage.trades.getKeys({ start: ['P'], end: ['P\u0000'] })].map((k) => (k as unknown[])[1]);
    expect(keys).toEqual([50, 100, 150, 200, 250, 400]);
    const expected = [...Array.from({ length: 20 }, (_, i) => trade(100 + 10 * i)), ...late, trade(400)].sort(compareKey);
    expect([...temp.repo.read('P', { order: 'asc', minAt: 0, maxAt: Infinity })]).toEqual(expected);
  });
});
