import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import type { PoolState } from '../../../actors/pool/index.ts';
import { applyWindowOps, batchEvents, followWindow, holdSnapshot, snapshotEvent, type WindowEvent } from '../../../actors/feed/feed.events.ts';
import { FeedBook, longestIncreasing, type RankRow } from '../../../actors/feed/feed.logic.ts';
import { membershipMachine, membershipStep } from '../../../actors/feed/feed.machine.ts';
import { FEED_DEFAULTS, type RankInput } from '../../../actors/feed/feed.rules.ts';
import { createFeedBehavior, InputMemo, recompute, type FeedState } from '../../../actors/feed/feed.actor.ts';
import type { PoolTradeEvent } from '../../../engine/model/index.ts';

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;

function pool(pool_address: string, o: Partial<RankInput> = {}): RankInput {
  return {
    pool_address,
    created_at: T0 - HOUR * 48,
    migrated_from_pool_address: null,
    migrated_at: null,
    bonding_curve_progress_pct: null,
    complete: false,
    stock: false,
    volume_usd: 0,
    trader_count: 0,
    trade_count: 0,
    price_change_pct: null,
    liquidity_usd: null,
    ...o,
  };
}

const order = (rows: readonly RankRow[]) => rows.map((r) => r.pool_address);
const scores = (rows: readonly RankRow[]) => rows.map((r) => [r.pool_address, r.score]);

describe('membership machine', () => {
  it('is SERVICE.md 3.4: not in feed -> enter -> in feed -> exit -> not in feed, and again', () => {
    let s = membershipMachine.resolveState({ value: 'not_in_feed', context: {} });
    const [inFeed, joinActions] = transition(membershipMachine, s, { type: 'feed.join' });
    expect(inFeed.value).toBe('in_feed');
    expect(joinActions.map((a) => a.type)).toEqual(['announceEnter']);
    const [out, leaveActions] = transition(membershipMachine, inFeed, { type: 'feed.leave' });
    expect(out.value).toBe('not_in_feed');
    expect(leaveActions.map((a) => a.type)).toEqual(['announceExit']);
    s = transition(membershipMachine, out, { type: 'feed.join' })[0];
    expect(s.value).toBe('in_feed');
  });

  it('membershipStep answers as the machine does and refuses transitions it does not have', () => {
    expect(membershipStep('not_in_feed', 'feed.join')).toEqual({ next: 'in_feed', announce: 'enter' });
    expect(membershipStep('in_feed', 'feed.leave')).toEqual({ next: 'not_in_feed', announce: 'exit' });
    expect(() => membershipStep('not_in_feed', 'feed.leave')).toThrow(/no transition/);
    expect(() => membershipStep('in_feed', 'feed.join')).toThrow(/no transition/);
  });
});

describe('new_pair', () => {
  it('lists pools created within the window, newest first, without graduated pools, and lets them age out', () => {
    const book = new FeedBook('new_pair', '5m');
    book.update(pool('P_old', { created_at: T0 - 6 * MIN }), T0);
    book.update(pool('P_a', { created_at: T0 - 4 * MIN }), T0);
    book.update(pool('P_b', { created_at: T0 - MIN }), T0);
    book.update(pool('P_c', { created_at: T0 - 2 * MIN }), T0);
    book.update(pool('P_amm', { created_at: T0 - 30_000, migrated_from_pool_address: 'P_curve', migrated_at: T0 - 30_000 }), T0);
    const { batch } = book.flush(T0);
    expect(scores(book.snapshot())).toEqual([['P_b', T0 - MIN], ['P_c', T0 - 2 * MIN], ['P_a', T0 - 4 * MIN]]);
    expect(book.snapshot().map((r) => [r.rank, r.entered_at])).toEqual([[1, T0], [2, T0], [3, T0]]);
    expect(batch!.seq).toBe(1);
    expect(order(batch!.entered)).toEqual(['P_b', 'P_c', 'P_a']);
    expect(batch!.ops).toEqual(book.snapshot().map((row, position) => ({ op: 'insert', pool_address: row.pool_address, position, row })));

    // The same pools in the 1h window: the 6-minute-old one too.
    const hour = new FeedBook('new_pair', '1h');
    for (const p of ['P_old', 'P_a', 'P_b', 'P_c']) hour.update(pool(p, { created_at: T0 - { P_old: 6, P_a: 4, P_b: 1, P_c: 2 }[p]! * MIN }), T0);
    hour.flush(T0);
    expect(order(hour.snapshot())).toEqual(['P_b', 'P_c', 'P_a', 'P_old']);

    // 1 minute later P_a is past 5 minutes: it exits from the end.
    book.tick(T0 + MIN);
    const aged = book.flush(T0 + MIN).batch!;
    expect(aged.seq).toBe(2);
    expect(aged.exited).toEqual(['P_a']);
    expect(aged.entered).toEqual([]);
    expect(aged.ops).toEqual([{ op: 'remove', pool_address: 'P_a' }]);
    expect(order(book.snapshot())).toEqual(['P_b', 'P_c']);
  });

  it('a new pool pushes the oldest out of a full window (depth)', () => {
    const book = new FeedBook('new_pair', '1h', { ...FEED_DEFAULTS, depth: 2 });
    book.update(pool('P1', { created_at: T0 - 3 * MIN }), T0);
    book.update(pool('P2', { created_at: T0 - 2 * MIN }), T0);
    book.flush(T0);
    book.update(pool('P3', { created_at: T0 }), T0);
    const b = book.flush(T0).batch!;
    expect(b.exited).toEqual(['P1']);
    expect(order(b.entered)).toEqual(['P3']);
    expect(b.ops).toEqual([
      { op: 'remove', pool_address: 'P1' },
      { op: 'insert', pool_address: 'P3', position: 0, row: { pool_address: 'P3', rank: 1, score: T0, entered_at: T0 } },
    ]);
    expect(book.size).toBe(3); // P1 waits on the bench until it ages out
    book.tick(T0 + HOUR - 3 * MIN);
    expect(book.size).toBe(2);
    expect(book.flush(T0 + HOUR).batch).toBeNull();
  });
});

describe('popular', () => {
  it('ranks by volume_usd x sqrt(traders), ties by address, pools without USD volume left out', () => {
    const book = new FeedBook('popular', '1h');
    book.update(pool('PB', { volume_usd: 500, trader_count: 16 }), T0); // 2000
    book.update(pool('PA', { volume_usd: 1000, trader_count: 4 }), T0); // 2000
    book.update(pool('PC', { volume_usd: 3000, trader_count: 1 }), T0); // 3000
    book.update(pool('PD', { volume_usd: 0, trader_count: 9 }), T0);
    book.update(pool('PE', { volume_usd: null, trade_count: 4, trader_count: 3 }), T0);
    expect(book.flush(T0).changed).toBe(true);
    expect(scores(book.snapshot())).toEqual([['PC', 3000], ['PA', 2000], ['PB', 2000]]);
    // A trade moves PB up: one remove and one insert.
    book.update(pool('PB', { volume_usd: 1000, trader_count: 16 }), T0 + 1);
    const b = book.flush(T0 + 1).batch!;
    expect(b.ops.map((op) => [op.op, op.pool_address, op.op === 'insert' ? op.position : null])).toEqual([
      ['remove', 'PB', null],
      ['insert', 'PB', 0, ],
    ]);
    expect(b.entered).toEqual([]);
    expect(b.exited).toEqual([]);
    // A score change that moves no row: a change (a new snapshot), no batch.
    book.update(pool('PC', { volume_usd: 3100, trader_count: 1 }), T0 + 2);
    const f = book.flush(T0 + 2);
    expect(f).toEqual({ changed: true, batch: null });
    expect(scores(book.snapshot())).toEqual([['PB', 4000], ['PC', 3100], ['PA', 2000]]);
    expect(book.flush(T0 + 3)).toEqual({ changed: false, batch: null });
  });

  it('is not live: its batches make no stream events; a snapshot carries every row', () => {
    const book = new FeedBook('popular', '5m');
    book.update(pool('PA', { volume_usd: 10, trader_count: 1 }), T0);
    const b = book.flush(T0).batch!;
    expect(batchEvents(b, 100, (r) => r)).toEqual([]);
    expect(snapshotEvent('popular', '5m', book.snapshot(), T0, book.lastSeq, (r) => r.pool_address)).toEqual({
      event: 'snapshot', feed: 'popular', window: '5m', rankings: ['PA'], updated_at: T0, seq: 1,
    });
  });
});

describe('a feed actor`s snapshot', () => {
  it('holds a book`s scores and `traded`s times as binaries, and reads the entries snapshots written before held', () => {
    const behavior = createFeedBehavior();
    const book = behavior.initial('popular:1h') as FeedState & { book: FeedBook };
    // More pools than the window's 100 rows: the bench goes in the snapshot too.
    for (let i = 0; i < 130; i++) book.book.update(pool(`P${i}`, { volume_usd: 100 + ((i * 37) % 130) * 1.5, trader_count: 1 + (i % 9) }), T0);
    book.book.flush(T0);
    const traded = behavior.initial('traded') as FeedState & { traded: Map<string, { at: number; seq: number }> };
    for (let i = 0; i < 5; i++) traded.traded.set(`P${i}`, { at: T0 + i * 1_000.5, seq: 2 ** 40 + i });
    const through = (data: unknown) => behavior.fromSnapshot!(unpack(pack(data)));
    const bookData = behavior.toSnapshot!(book) as { book: { scores?: unknown; pools?: unknown; poolAddresses?: string[] } };
    const tradedData = behavior.toSnapshot!(traded) as { times?: unknown; traded?: unknown; pools?: string[] };
    expect(bookData.book.scores).toBeInstanceOf(Uint8Array);
    expect(bookData.book.pools).toBeUndefined();
    expect(tradedData.times).toBeInstanceOf(Uint8Array);
    expect(tradedData.traded).toBeUndefined();
    // The same book: every pool, the same order, and the same next batch after one more update.
    const orderOf = (s: unknown) => (s as { book: FeedBook }).book.order();
    const next = (s: unknown) => {
      const b = (s as { book: FeedBook }).book;
      b.update(pool('P7', { volume_usd: 10_000, trader_count: 9 }), T0 + 1);
      return b.flush(T0 + 1);
    };
    expect(orderOf(through(bookData))).toEqual(book.book.order());
    expect((through(bookData) as { book: FeedBook }).book.size).toBe(130);
    expect((through(tradedData) as { traded: unknown }).traded).toEqual(traded.traded);
    // As snapshots written before held them: [pool, score] and [pool, at, seq] entries.
    const scoresOf = new Float64Array(new Uint8Array(bookData.book.scores as Uint8Array).buffer);
    const timesOf = new Float64Array(new Uint8Array(tradedData.times as Uint8Array).buffer);
    const oldBook = { ...bookData, book: { ...bookData.book, scores: undefined, poolAddresses: undefined, pools: bookData.book.poolAddresses!.map((p, i) => [p, scoresOf[i]]) } };
    const oldTraded = { role: 'traded', traded: tradedData.pools!.map((p, i) => [p, timesOf[2 * i], timesOf[2 * i + 1]]) };
    expect(orderOf(through(oldBook))).toEqual(book.book.order());
    expect((through(oldTraded) as { traded: unknown }).traded).toEqual(traded.traded);
    expect(next(through(oldBook))).toEqual(next(through(bookData)));
  });
});

describe('top_gainers', () => {
  it('ranks gainers with enough liquidity and trades in the window by price change', () => {
    const book = new FeedBook('top_gainers', '1h');
    book.update(pool('PA', { price_change_pct: 50, liquidity_usd: 10_000, trade_count: 12 }), T0);
    book.update(pool('PB', { price_change_pct: 80, liquidity_usd: 4_999, trade_count: 50 }), T0);
    book.update(pool('PC', { price_change_pct: 120, liquidity_usd: 6_000, trade_count: 9 }), T0);
    book.update(pool('PD', { price_change_pct: -10, liquidity_usd: 50_000, trade_count: 50 }), T0);
    book.update(pool('PE', { price_change_pct: 20, liquidity_usd: 5_000, trade_count: 10 }), T0);
    book.update(pool('PF', { price_change_pct: null, liquidity_usd: 50_000, trade_count: 50 }), T0);
    book.flush(T0);
    expect(scores(book.snapshot())).toEqual([['PA', 50], ['PE', 20]]);
    // PC's tenth trade in the window admits it, first.
    book.update(pool('PC', { price_change_pct: 120, liquidity_usd: 6_000, trade_count: 10 }), T0 + 1);
    book.flush(T0 + 1);
    expect(order(book.snapshot())).toEqual(['PC', 'PA', 'PE']);
  });
});

describe('almost_bonded', () => {
  it('a curve enters when it crosses 70 %, moves with its progress, and exits on graduation', () => {
    const book = new FeedBook('almost_bonded', '1h');
    book.update(pool('PX', { bonding_curve_progress_pct: 95 }), T0);
    book.update(pool('PAMM', { bonding_curve_progress_pct: null, liquidity_usd: 1e6 }), T0);
    book.update(pool('PY', { bonding_curve_progress_pct: 65 }), T0);
    expect(order(book.flush(T0).batch!.entered)).toEqual(['PX']);

    book.update(pool('PY', { bonding_curve_progress_pct: 69.99 }), T0 + 1);
    expect(book.flush(T0 + 1).batch).toBeNull();

    book.update(pool('PY', { bonding_curve_progress_pct: 70 }), T0 + 2);
    const enter = book.flush(T0 + 2).batch!;
    expect(enter.seq).toBe(2);
    expect(enter.entered).toEqual([{ pool_address: 'PY', rank: 2, score: 70, entered_at: T0 + 2 }]);
    const events = batchEvents(enter, 100, (r) => ({ pool_address: r.pool_address, rank: r.rank }));
    expect(events).toEqual([
      { event: 'enter', feed: 'almost_bonded', window: '1h', pool_address: 'PY', at: T0 + 2, entry: { pool_address: 'PY', rank: 2 } },
      {
        event: 'window', feed: 'almost_bonded', window: '1h', sort: 'bonding_curve_progress_pct', seq: 2, depth: 100,
        ops: [{ op: 'insert', pool_address: 'PY', position: 1, entry: { pool_address: 'PY', rank: 2 } }], pool_addresses: null,
      },
    ]);

    // PY passes PX: of two rows swapped, one moves (here PX, one place down).
    book.update(pool('PY', { bonding_curve_progress_pct: 99 }), T0 + 3);
    const pass = book.flush(T0 + 3).batch!;
    expect(pass.ops.map((o) => [o.op, o.pool_address, o.op === 'insert' ? o.position : null])).toEqual([['remove', 'PX', null], ['insert', 'PX', 1]]);
    expect(pass.entered).toEqual([]);
    expect(book.snapshot().map((r) => [r.pool_address, r.entered_at])).toEqual([['PY', T0 + 2], ['PX', T0]]);

    // Graduation: the curve is complete.
    book.update(pool('PY', { bonding_curve_progress_pct: 100, complete: true }), T0 + 4);
    const grad = book.flush(T0 + 4).batch!;
    expect(grad.exited).toEqual(['PY']);
    expect(batchEvents(grad, 100, (r) => r)[0]).toEqual({ event: 'exit', feed: 'almost_bonded', window: '1h', pool_address: 'PY', at: T0 + 4, entry: null });
    expect(order(book.snapshot())).toEqual(['PX']);

    // Sold back under 70 %: exits too; over it again: enters again, a new entered_at.
    book.update(pool('PX', { bonding_curve_progress_pct: 60 }), T0 + 5);
    expect(book.flush(T0 + 5).batch!.exited).toEqual(['PX']);
    book.update(pool('PX', { bonding_curve_progress_pct: 75 }), T0 + 6);
    expect(book.flush(T0 + 6).batch!.entered).toEqual([{ pool_address: 'PX', rank: 1, score: 75, entered_at: T0 + 6 }]);
  });
});

describe('which trades reach almost_bonded', () => {
  it('a curve at or past the threshold before or after the trade, or not known (derived again); never a pool without a curve', () => {
    const route = createFeedBehavior({ settings: { ...FEED_DEFAULTS, almostBondedPct: 70 } }).route;
    const trade = (curve_pct?: number | null): PoolTradeEvent => ({ type: 'pool.trade', pool_address: 'P', base_address: 'B', quote_address: 'Q', trade: [] as never, curve_pct });
    const bonding = ['traded', 'almost_bonded:5m', 'almost_bonded:1h', 'almost_bonded:6h', 'almost_bonded:24h'];
    expect(route(trade(69.99))).toBe('traded');
    expect(route(trade(null))).toBe('traded');
    expect(route(trade(70))).toEqual(bonding);
    expect(route(trade(99))).toEqual(bonding);
    expect(route(trade(undefined))).toEqual(bonding);
  });
});

describe('migrated', () => {
  it('a graduated pool enters, newest graduation first, and leaves 24 h after it in every window', () => {
    const book = new FeedBook('migrated', '5m');
    book.update(pool('PAMM1', { migrated_from_pool_address: 'C1', migrated_at: T0 - 2 * HOUR }), T0);
    book.update(pool('PAMM0', { migrated_from_pool_address: 'C0', migrated_at: T0 - 25 * HOUR }), T0);
    book.update(pool('PCURVE', { bonding_curve_progress_pct: 40 }), T0);
    book.flush(T0);
    expect(scores(book.snapshot())).toEqual([['PAMM1', T0 - 2 * HOUR]]);
    // Graduation of C2 into PAMM2.
    book.update(pool('PAMM2', { migrated_from_pool_address: 'C2', migrated_at: T0 + MIN }), T0 + MIN);
    const b = book.flush(T0 + MIN).batch!;
    expect(order(b.entered)).toEqual(['PAMM2']);
    expect(b.ops).toEqual([{ op: 'insert', pool_address: 'PAMM2', position: 0, row: { pool_address: 'PAMM2', rank: 1, score: T0 + MIN, entered_at: T0 + MIN } }]);
    book.tick(T0 + 22 * HOUR);
    const out = book.flush(T0 + 22 * HOUR).batch!;
    expect(out.exited).toEqual(['PAMM1']);
    expect(order(book.snapshot())).toEqual(['PAMM2']);
  });
});

describe('stocks', () => {
  it('lists every stock pool by USD volume in the window, 0 without volume', () => {
    const book = new FeedBook('stocks', '24h');
    book.update(pool('S_tsla', { stock: true, volume_usd: 90_000 }), T0);
    book.update(pool('S_aapl', { stock: true, volume_usd: 120_000 }), T0);
    book.update(pool('S_meta', { stock: true, volume_usd: null }), T0);
    book.update(pool('P_meme', { volume_usd: 1e7 }), T0);
    book.flush(T0);
    expect(scores(book.snapshot())).toEqual([['S_aapl', 120_000], ['S_tsla', 90_000], ['S_meta', 0]]);
  });
});

describe('bad inputs', () => {
  it('a score that is not a finite number makes no member and takes a member out', () => {
    const book = new FeedBook('almost_bonded', '1h');
    book.update(pool('PA', { bonding_curve_progress_pct: 80 }), T0);
    book.update(pool('PB', { bonding_curve_progress_pct: Number.NaN }), T0);
    book.update(pool('PC', { bonding_curve_progress_pct: Number.POSITIVE_INFINITY }), T0);
    book.flush(T0);
    expect(order(book.snapshot())).toEqual(['PA']);
    book.update(pool('PA', { bonding_curve_progress_pct: Number.NaN }), T0 + 1);
    expect(book.flush(T0 + 1).batch!.exited).toEqual(['PA']);
    expect(book.size).toBe(0);
  });
});

describe('the bench', () => {
  it('promotes the best waiting pool when a row leaves, without sorting every pool', () => {
    const book = new FeedBook('popular', '1h', { ...FEED_DEFAULTS, depth: 2 });
    for (const [p, v] of [['PA', 5], ['PB', 4], ['PC', 3], ['PD', 2], ['PE', 1]] as const) book.update(pool(p, { volume_usd: v, trader_count: 1 }), T0);
    book.flush(T0);
    expect(order(book.snapshot())).toEqual(['PA', 'PB']);
    book.update(pool('PA', { volume_usd: 0 }), T0 + 1);
    book.update(pool('PD', { volume_usd: 10, trader_count: 1 }), T0 + 1);
    const b = book.flush(T0 + 1).batch!;
    expect(order(book.snapshot())).toEqual(['PD', 'PB']);
    expect(b.exited).toEqual(['PA']);
    expect(book.size).toBe(4);
    book.remove('PD');
    book.remove('PB');
    book.flush(T0 + 2);
    expect(order(book.snapshot())).toEqual(['PC', 'PE']);
  });

  it('a reconcile batch carries the whole order', () => {
    const book = new FeedBook('new_pair', '24h', { ...FEED_DEFAULTS, reconcileEvery: 2 });
    book.update(pool('P1', { created_at: T0 }), T0);
    expect(book.flush(T0).batch!.pool_addresses).toBeNull();
    book.update(pool('P2', { created_at: T0 + 1 }), T0 + 1);
    expect(book.flush(T0 + 1).batch!.pool_addresses).toEqual(['P2', 'P1']);
  });
});

describe('a client following a live feed', () => {
  it('applies batch after batch from a snapshot, and reloads on a seq gap (a missed batch)', () => {
    const book = new FeedBook('new_pair', '1h');
    const row = (r: RankRow) => r;
    book.update(pool('P1', { created_at: T0 }), T0);
    book.flush(T0);
    let held = holdSnapshot(snapshotEvent('new_pair', '1h', book.snapshot(), T0, book.lastSeq, row));
    expect(held.seq).toBe(1);
    const windows: WindowEvent<RankRow>[] = [];
    for (let i = 2; i <= 4; i++) {
      book.update(pool(`P${i}`, { created_at: T0 + i }), T0 + i);
      windows.push(batchEvents(book.flush(T0 + i).batch!, 100, row).at(-1) as WindowEvent<RankRow>);
    }
    expect(windows.map((w) => w.seq)).toEqual([2, 3, 4]);
    const next = followWindow(held, windows[0]!);
    expect(next).not.toBe('reload');
    held = next as typeof held;
    expect(followWindow(held, windows[0]!)).toBe(held); // seen already
    // Batch 3 lost: batch 4 is a gap.
    expect(followWindow(held, windows[2]!)).toBe('reload');
    held = followWindow(held, windows[1]!) as typeof held;
    held = followWindow(held, windows[2]!) as typeof held;
    // The same rows in the same order (a kept row's rank is as of its insert: positions give ranks).
    expect(order(held.rows)).toEqual(order(book.snapshot()));
    // Rows that are not the server's: the ops do not fit.
    book.update(pool('P1', { created_at: T0 }), T0 + 5);
    book.remove('P4');
    const w5 = batchEvents(book.flush(T0 + 5).batch!, 100, row).at(-1) as WindowEvent<RankRow>;
    expect(followWindow({ seq: 4, rows: [] }, w5)).toBe('reload');
  });
});

describe('applyWindowOps and longestIncreasing', () => {
  it('applies inserts and removes in order and refuses ops that do not fit', () => {
    const rows = [{ pool_address: 'A' }, { pool_address: 'B' }];
    expect(applyWindowOps(rows, [{ op: 'remove', pool_address: 'A' }, { op: 'insert', pool_address: 'C', position: 1, entry: { pool_address: 'C' } }])).toEqual([
      { pool_address: 'B' }, { pool_address: 'C' },
    ]);
    expect(() => applyWindowOps(rows, [{ op: 'remove', pool_address: 'Z' }])).toThrow(/not held/);
    expect(() => applyWindowOps(rows, [{ op: 'insert', pool_address: 'Z', position: 3, entry: { pool_address: 'Z' } }])).toThrow(/insert at 3/);
  });

  it('keeps a longest increasing run', () => {
    expect([...longestIncreasing([3, 0, 1, 4, 2, 5])].sort()).toEqual([0, 1, 2, 5]);
    expect(longestIncreasing([]).size).toBe(0);
    expect(longestIncreasing([2, 1, 0]).size).toBe(1);
  });
});

describe('the recompute memo across a book actor passivated or rebuilt (InputMemo.hold)', () => {
  it('holds while the books are as the recomputes left them, read back from a snapshot too; empties for a book back to an older snapshot', () => {
    const behavior = createFeedBehavior();
    const roundTrip = (state: FeedState): FeedState => behavior.fromSnapshot!(structuredClone(behavior.toSnapshot!(state)));
    const memo = new InputMemo();
    let book = behavior.initial('popular:5m');
    memo.hold([book]);
    memo.entry('P1');
    const input = pool('P1', { created_at: T0, volume_usd: 20_000, trade_count: 40, trader_count: 12, liquidity_usd: 9_000 });
    const step = (state: FeedState, at: number): void => {
      const before = state.role === 'book' ? state.revision : NaN;
      recompute(state, at, new Map([['P1', input]]));
      memo.given(0, before, state.role === 'book' ? state.revision : NaN);
    };
    step(book, T0 + 60_000);
    memo.hold([book]);
    expect(memo.size).toBe(1);
    // Passivated and activated: another object, the same book (its snapshot written at passivation).
    const older = behavior.toSnapshot!(book);
    step(book, T0 + 120_000);
    book = roundTrip(book);
    memo.hold([book]);
    expect(memo.size).toBe(1);
    // Rebuilt from the snapshot before the last recompute: the memo cannot vouch for it.
    memo.hold([behavior.fromSnapshot!(structuredClone(older))]);
    expect(memo.size).toBe(0);
    memo.hold([book]);
    memo.entry('P1');
    // Rebuilt so, and recomputed before the next hold (as many recomputes as the book the memo vouches for): still not it.
    const rebuilt = behavior.fromSnapshot!(structuredClone(older));
    step(rebuilt, T0 + 180_000);
    memo.hold([rebuilt]);
    expect(memo.size).toBe(0);
  });
});
