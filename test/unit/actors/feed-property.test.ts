import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyWindowOps } from '../../../actors/feed/feed.events.ts';
import { FeedBook, type RankOp, type RankRow } from '../../../actors/feed/feed.logic.ts';
import { FEED_DEFAULTS, FEED_NAMES, RANKING_WINDOWS, SCORE_RULES, type FeedName, type RankInput, type RankingWindow } from '../../../actors/feed/feed.rules.ts';

/**
 * Seeded random markets: pools created, traded, completed and graduated over random
 * times, fed to every (feed, window) book with a small depth (so the bench is busy),
 * flushed at random moments. After each flush:
 * - the ops of its batch applied to the previous snapshot give the new snapshot (order
 *   and the inserted rows exactly; kept rows keep their place);
 * - the snapshot is the top `depth` of a full sort of every pool's current inputs (the
 *   incremental order is the real order);
 * - seq is the previous seq + 1 for every batch; enter/exit are the membership changes.
 */

const T0 = Date.UTC(2026, 10, 27, 0, 0, 0);
const POOLS = 24;
const DEPTH = 5;

type Step =
  | { kind: 'update'; pool: number; dt: number; volume: number | null; traders: number; trades: number; change: number | null; liquidity: number | null; progress: number | null; complete: boolean; stock: boolean; graduated: boolean }
  | { kind: 'flush'; dt: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      pool: fc.nat(POOLS - 1),
      dt: fc.nat(90_000),
      // Few distinct values, so that ties happen.
      volume: fc.option(fc.constantFrom(0, 100, 250, 1_000, 40_000), { nil: null }),
      traders: fc.nat(6),
      trades: fc.nat(14),
      change: fc.option(fc.constantFrom(-20, 0, 5, 40, 40, 300), { nil: null }),
      liquidity: fc.option(fc.constantFrom(1_000, 5_000, 80_000), { nil: null }),
      progress: fc.option(fc.constantFrom(10, 69.9, 70, 85, 99), { nil: null }),
      complete: fc.constantFrom(false, false, false, true),
      stock: fc.boolean(),
      graduated: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('flush' as const), dt: fc.nat(20 * 60_000) }) },
);

/** Pool i's address: zero-padded so that string order is index order (ties by address). */
const addr = (i: number) => `pool${String(i).padStart(3, '0')}`;

function reference(feed: FeedName, window: RankingWindow, inputs: Map<string, RankInput>, now: number): { pool: string; score: number }[] {
  const all: { pool: string; score: number }[] = [];
  for (const p of inputs.values()) {
    const score = SCORE_RULES[feed](p, window, FEED_DEFAULTS, now);
    if (score !== null) all.push({ pool: p.pool_address, score });
  }
  all.sort((a, b) => b.score - a.score || (a.pool < b.pool ? -1 : 1));
  return all.slice(0, DEPTH);
}

const asWindowOps = (ops: RankOp[]) => ops.map((op) => (op.op === 'insert' ? { op: 'insert' as const, pool_address: op.pool_address, position: op.position, entry: op.row } : op));

describe('feed books over seeded random markets', () => {
  const batchesOf = new Map<FeedName, number>();
  it.each(FEED_NAMES)('%s: ops rebuild each snapshot, the order is a full sort, seq +1 per batch', (feed) => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 40, maxLength: 240 }), (steps) => {
        const settings = { ...FEED_DEFAULTS, depth: DEPTH, reconcileEvery: 3 };
        const books = RANKING_WINDOWS.map((w) => new FeedBook(feed, w, settings));
        const inputs = new Map<string, RankInput>();
        const held = books.map(() => [] as RankRow[]);
        const seqs = books.map(() => 0);
        let now = T0;
        let batches = 0;
        for (const s of steps) {
          now += s.dt;
          if (s.kind === 'update') {
            const pool_address = addr(s.pool);
            const before = inputs.get(pool_address);
            const p: RankInput = {
              pool_address,
              created_at: before?.created_at ?? now,
              migrated_from_pool_address: before?.migrated_from_pool_address ?? (s.graduated ? 'curve' + s.pool : null),
              migrated_at: before?.migrated_at ?? (s.graduated ? now : null),
              bonding_curve_progress_pct: s.progress,
              complete: s.complete,
              stock: before?.stock ?? s.stock,
              volume_usd: s.volume,
              trader_count: s.traders,
              trade_count: s.trades,
              price_change_pct: s.change,
              liquidity_usd: s.liquidity,
            };
            inputs.set(pool_address, p);
            for (const b of books) b.update(p, now);
            continue;
          }
          books.forEach((book, i) => {
            book.tick(now);
            const { batch } = book.flush(now);
            const snap = book.snapshot();
            expect(snap.map((r) => [r.pool_address, r.score])).toEqual(reference(feed, book.window, inputs, now).map((r) => [r.pool, r.score]));
            if (batch === null) {
              expect(held[i]!.map((r) => r.pool_address)).toEqual(snap.map((r) => r.pool_address));
              return;
            }
            batches++;
            expect(batch.seq).toBe(seqs[i]! + 1);
            seqs[i] = batch.seq;
            const applied = applyWindowOps(held[i]!, asWindowOps(batch.ops));
            expect(applied.map((r) => r.pool_address)).toEqual(snap.map((r) => r.pool_address));
            for (const op of batch.ops) if (op.op === 'insert') expect(applied[op.position]).toEqual(snap[op.position]);
            const before = new Set(held[i]!.map((r) => r.pool_address));
            const after = new Set(snap.map((r) => r.pool_address));
            expect(batch.entered.map((r) => r.pool_address).sort()).toEqual([...after].filter((p) => !before.has(p)).sort());
            expect([...batch.exited].sort()).toEqual([...before].filter((p) => !after.has(p)).sort());
            for (const r of batch.entered) expect(r.entered_at).toBe(now);
            if (batch.pool_addresses !== null) expect(batch.pool_addresses).toEqual(snap.map((r) => r.pool_address));
            held[i] = snap.slice();
          });
        }
        batchesOf.set(feed, (batchesOf.get(feed) ?? 0) + batches);
      }),
      { seed: 20261127, numRuns: 50 },
    );
    // The markets moved every feed: hundreds of batches were checked, not a few.
    expect(batchesOf.get(feed)).toBeGreaterThan(500);
  });
});
