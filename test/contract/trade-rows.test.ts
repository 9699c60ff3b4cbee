import { describe, expect, it } from 'vitest';
import { initialPool } from '../../actors/pool/pool.logic.ts';
import { memoryTrades, poolTrades, take } from '../../engine/query/trade-streams.ts';
import { TRADE, compareKey, type StoredTrade, type TradeKey, type TradeSpan } from '../../engine/model/index.ts';
import { TradesRepo } from '../../storage/trades.repo.ts';
import { base58, logOf, rng, useTempRepo } from '../helpers/fixtures.ts';

/**
 * Contract: a pool's trade rows, read by span (TradeSpan: order, [minAt, maxAt],
 * `after` cursor), are the same rows whichever implementation holds them: stored
 * blocks (TradesRepo over real LMDB, TradeBlock), the pool's memory (TradeLog through
 * memoryTrades, with or without a batch being written), or both merged (poolTrades).
 * Every implementation gets the same trades in the same arrival order (late ones
 * included) and must answer every span like the reference: the trades sorted by
 * compareKey, filtered, reversed for desc.
 */

const POOL = 'P';
const temp = useTempRepo((storage) => new TradesRepo(storage), 'mds-contract-');

/** Reads of one implementation after it took `arrived` (in arrival order). */
type Reader = (span: TradeSpan) => Iterable<StoredTrade>;

interface Impl {
  name: string;
  load(arrived: StoredTrade[]): Promise<Reader>;
}

/** The key of the last trade of `trades` by compareKey. */
const lastKey = (trades: StoredTrade[]): TradeKey => {
  const t = [...trades].sort(compareKey).at(-1)!;
  return [t[TRADE.at], t[TRADE.slot], t[TRADE.txIndex], t[TRADE.eventIndex]];
};

const half = (arrived: StoredTrade[]) => Math.ceil(arrived.length / 2);

const IMPLS: Impl[] = [
  {
    name: 'stored blocks (TradesRepo, one write, blocks of 3)',
    async load(arrived) {
      await temp.repo.write(POOL, logOf(arrived), null, 3);
      return (span) => temp.repo.read(POOL, span);
    },
  },
  {
    name: 'stored blocks, late trades merged into written ones (TradesRepo, two writes)',
    async load(arrived) {
      const first = arrived.slice(0, half(arrived));
      await temp.repo.write(POOL, logOf(first), null, 2);
      await temp.repo.write(POOL, logOf(arrived.slice(first.length)), first.length ? lastKey(first) : null, 2);
      return (span) => temp.repo.read(POOL, span);
    },
  },
  {
    name: 'memory: the unsaved log (memoryTrades)',
    async load(arrived) {
      const state = initialPool(POOL);
      for (const t of arrived) state.unsaved.insert(t);
      return (span) => memoryTrades(state, span);
    },
  },
  {
    name: 'memory: the batch being written and the unsaved log (memoryTrades)',
    async load(arrived) {
      const state = initialPool(POOL);
      state.writing = logOf(arrived.slice(0, half(arrived)));
      for (const t of arrived.slice(half(arrived))) state.unsaved.insert(t);
      return (span) => memoryTrades(state, span);
    },
  },
  {
    name: 'stored and memory merged (poolTrades; a committed batch still listed as writing)',
    async load(arrived) {
      const first = arrived.slice(0, half(arrived));
      await temp.repo.write(POOL, logOf(first), null, 3);
      const state = initialPool(POOL);
      // Committed and still listed as writing: in both, listed once.
      state.writing = logOf(first);
      for (const t of arrived.slice(first.length)) state.unsaved.insert(t);
      return (span) => poolTrades(temp.repo, POOL, state, span);
    },
  },
];

const r = rng(21_021);
const WALLETS = [base58(r, 44), base58(r, 43), base58(r, 32)];

/** A trade with every field varied (fractions, null quoteUsd, both sides), so that decoding is checked too. */
function trade(at: number, slot: number, tx: number, ev: number): StoredTrade {
  const n = at + slot * 7 + tx * 3 + ev;
  return [at, slot, tx, ev, (n % 2) as 0 | 1, WALLETS[n % 3]!, 1.5 + n, 0.25 * n, 1 / (n + 3), n % 4 === 0 ? null : 150.25, 12_345.678 + n, base58(r, 88)];
}

/** The reference answer: the trades by compareKey, in the span, past the cursor, in order. */
function reference(arrived: StoredTrade[], span: TradeSpan): StoredTrade[] {
  const sorted = [...arrived].sort(compareKey);
  const inSpan = sorted.filter(
    (t) => t[TRADE.at] >= span.minAt && t[TRADE.at] <= span.maxAt && (span.after === undefined || (span.order === 'asc' ? compareKey(t, span.after) > 0 : compareKey(t, span.after) < 0)),
  );
  return span.order === 'asc' ? inSpan : inSpan.reverse();
}

/** Deterministic shuffle (a trade arriving after later ones is a late trade). */
function shuffled<T>(items: T[], seed: number): T[] {
  const random = rng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Trades at a few times, many tied on `at` and differing only in slot, tx_index or event_index. */
function tiedTrades(): StoredTrade[] {
  const out: StoredTrade[] = [];
  for (const at of [1_000, 2_000, 2_000_500, 3_000]) {
    for (const slot of [5, 6]) for (const tx of [0, 1]) for (const ev of [0, 2]) out.push(trade(at, slot, tx, ev));
  }
  return out;
}

const SETS: Array<[string, () => StoredTrade[]]> = [
  ['in order', () => Array.from({ length: 20 }, (_, i) => trade(1_000 + 100 * i, 10 + i, 0, 0))],
  ['late trades (arrived shuffled)', () => shuffled(Array.from({ length: 20 }, (_, i) => trade(1_000 + 100 * i, 10 + i, i % 3, 0)), 7)],
  ['ties on at, decided by slot, tx_index, event_index (in order)', () => [...tiedTrades()].sort(compareKey)],
  ['ties on at, arrived in reverse order', () => [...tiedTrades()].sort(compareKey).reverse()],
  ['ties on at, arrived shuffled', () => shuffled(tiedTrades(), 11)],
  ['a single trade', () => [trade(5_000, 1, 0, 0)]],
];

/** Spans over the trades: whole, edges inclusive, narrow, empty, and cursors at, between, before, after the trades and outside the window. */
function spans(arrived: StoredTrade[]): TradeSpan[] {
  const sorted = [...arrived].sort(compareKey);
  const first = sorted[0]!;
  const mid = sorted[Math.floor(sorted.length / 2)]!;
  const last = sorted.at(-1)!;
  const key = (t: StoredTrade): TradeKey => [t[0], t[1], t[2], t[3]];
  const windows: Array<[number, number]> = [
    [0, Number.MAX_SAFE_INTEGER],
    [first[0], last[0]],
    [mid[0], mid[0]],
    [first[0] + 1, last[0] - 1],
    [last[0] + 1, last[0] + 10],
    [0, first[0] - 1],
  ];
  const cursors: Array<TradeKey | undefined> = [
    undefined,
    key(first),
    key(mid),
    key(last),
    [mid[0], mid[1], mid[2], mid[3] + 1],
    [mid[0], mid[1] - 1, 99, 99],
    [0, 0, 0, 0],
    [Number.MAX_SAFE_INTEGER, 0, 0, 0],
  ];
  const out: TradeSpan[] = [];
  for (const order of ['asc', 'desc'] as const) {
    for (const [minAt, maxAt] of windows) for (const after of cursors) out.push(after ? { order, minAt, maxAt, after } : { order, minAt, maxAt });
  }
  return out;
}

describe.each(IMPLS)('trade rows contract: $name', (impl) => {
  it.each(SETS)('answers every span like the reference: %s', async (_name, make) => {
    const arrived = make();
    const read = await impl.load(arrived);
    for (const span of spans(arrived)) {
      expect([...read(span)], JSON.stringify(span)).toEqual(reference(arrived, span));
    }
  });

  it.each(SETS)('with numbersOnly, answers every span with the same rows, wallet and tx hash null: %s', async (_name, make) => {
    const arrived = make();
    const read = await impl.load(arrived);
    for (const span of spans(arrived)) {
      const numbers = reference(arrived, span).map((t) => t.map((v) => (typeof v === 'string' ? null : v)));
      expect([...read({ ...span, numbersOnly: true })], JSON.stringify(span)).toEqual(numbers);
    }
  });

  it.each(SETS)('pages of 3 continued by the last row as `after` list every row once: %s', async (_name, make) => {
    const arrived = make();
    const read = await impl.load(arrived);
    for (const order of ['asc', 'desc'] as const) {
      const listed: StoredTrade[] = [];
      let after: TradeKey | undefined;
      for (let pages = 0; pages <= arrived.length; pages++) {
        const span: TradeSpan = after ? { order, minAt: 0, maxAt: Number.MAX_SAFE_INTEGER, after } : { order, minAt: 0, maxAt: Number.MAX_SAFE_INTEGER };
        const { items, hasMore } = take(read(span)[Symbol.iterator](), 3);
        listed.push(...items);
        if (!hasMore) break;
        const t = items.at(-1)!;
        after = [t[0], t[1], t[2], t[3]];
      }
      expect(listed, order).toEqual(reference(arrived, { order, minAt: 0, maxAt: Number.MAX_SAFE_INTEGER }));
    }
  });
});
