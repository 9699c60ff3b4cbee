import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { topics, type TopicSink } from '../../engine/topics/index.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * The live flush in slices (MarketPublisher.flushPass, 64 pools a step): a pass over the
 * pools touched since the last one may stop after its time budget and go on later, so
 * that a pass over thousands of pools does not hold the event loop. Each touched pool
 * is flushed exactly once per pass, and a pool touched during a pass is flushed again
 * in the next. pool_metrics frames show which pools a slice flushed (one per pool with
 * a subscriber).
 */

const r = rng(811);
const MINT = base58(r, 44);
const POOLS = Array.from({ length: 150 }, () => base58(r, 44));
const W = base58(r, 44);
const T0 = 1_767_225_600_000;
let n = 0;
const swap = (pool: string) => ({
  type: 'swap', tx_hash: base58(rng(70_000 + ++n), 88), slot: 5_000 + n, tx_index: 0, event_index: 0, at: T0 + n * 1_000, pool_address: pool, wallet_address: W, side: 'buy',
  base_amount_raw: '1000000', quote_amount_raw: '1000000000', base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000000',
});

/** Every pool's pool_metrics topic is listened on; the pools of the frames, in order. */
const published: string[] = [];
const sink: TopicSink = {
  has: (topic) => topic.startsWith('pool_metrics:'),
  publish(topic, frame) {
    published.push(JSON.parse(frame).data.pool_address);
    expect(topic).toBe(topics.poolMetrics(published.at(-1)!));
  },
};
const take = () => published.splice(0);
/**
 * One slice of no time at all, as the engine runs them (runUntil with a deadline already
 * past): one step of the pass under way or of a new one; true when the pass is done.
 */
const slice = (): boolean => {
  const pass = engine.publisher.flushPass();
  return pass === null || pass.next().done === true;
};
/** A few event-loop turns: slices left for the check phase have run. */
const settled = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** The SOL price, the mint and its 150 pools, each applied. */
async function declareMarket(e: Engine): Promise<void> {
  const events = [
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'M', slot: 1, at: T0 },
    ...POOLS.map((pool) => ({ type: 'pool', pool_address: pool, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 })),
  ];
  for (const event of events) expect((await e.ingest(event)).status).toBe('applied');
}

let dir: TempDir;
let engine: Engine;

beforeAll(async () => {
  dir = tempDir();
  // No pass begins but the test's own (the periodic one is a day away); a pass under
  // way goes on after each batch and in the next turn, 64 pools a slice.
  engine = await createEngine({ config: testConfig(dir.path), flushMs: 86_400_000, flushSliceMs: 0 });
  engine.attachTopics(sink);
  await declareMarket(engine);
  engine.flush();
  take();
});

afterAll(async () => {
  await engine.stop();
  dir.cleanup();
});

/**
 * Batches applied whole, each in the turn it is committed in (`ingest.applySliceMs` 0):
 * these count the live flush's slices after one batch (on a loaded machine, applying 150
 * swaps can outlast the default apply slice); apply-slices.test.ts covers batches
 * applied in slices.
 */
const WHOLE_BATCHES = { ingest: { applySliceMs: 0 } };

describe('the live flush in slices', () => {
  it('flushes each touched pool once per pass, 64 pools a step; pools touched meanwhile go to the next pass', async () => {
    for (const pool of POOLS) await engine.ingest(swap(pool));
    const publisher = engine.publisher;
    // A spent budget still flushes the pools up to its first check.
    expect(slice()).toBe(false);
    expect(publisher.flushing).toBe(true);
    const first = take();
    expect(first).toEqual(POOLS.slice(0, 64));

    // Trades during the pass, in one batch: one pool it has flushed, one it has not
    // reached. The batch goes on with the pass (a slice), the next turn finishes it.
    await Promise.all([engine.ingest(swap(POOLS[0]!)), engine.ingest(swap(POOLS[149]!))]);
    await settled();
    expect(publisher.flushing).toBe(false);
    expect(take()).toEqual(POOLS.slice(64));

    // The next pass: the two pools touched during the last, each once.
    expect(slice()).toBe(true);
    expect(take()).toEqual([POOLS[0], POOLS[149]]);
    expect(slice()).toBe(true);
    expect(take()).toEqual([]);
  });

  it('a whole flush finishes the pass under way, then flushes what was touched since', async () => {
    for (const pool of POOLS) await engine.ingest(swap(pool));
    expect(slice()).toBe(false);
    expect(take()).toHaveLength(64);
    engine.flush();
    expect(engine.publisher.flushing).toBe(false);
    expect(take()).toEqual(POOLS.slice(64));
    // Touched pools, no pass under way: a whole flush is one pass over them all.
    for (const pool of POOLS) await engine.ingest(swap(pool));
    engine.flush();
    expect(take()).toEqual(POOLS);
  });

  it("the engine's own flush goes on in later event-loop turns, each touched pool once", async () => {
    const d = tempDir();
    const frames: string[] = [];
    // Slices of no time at all: 64 pools each, the rest in the following turns.
    const e = await createEngine({ config: testConfig(d.path, WHOLE_BATCHES), flushMs: 0, flushSliceMs: 0 });
    try {
      e.attachTopics({ has: (topic) => topic.startsWith('pool_metrics:'), publish: (_topic, frame) => void frames.push(JSON.parse(frame).data.pool_address) });
      await declareMarket(e);
      // Whatever the declarations left to flush, flushed now (a whole flush), before counting.
      e.flush();
      frames.length = 0;
      // Frames published by the end of the turn that applied a batch (its first slice).
      const afterApply: number[] = [];
      e.onApplied(() => queueMicrotask(() => afterApply.push(frames.length)));
      // Submitted in one turn: one batch.
      const results = await Promise.all(POOLS.map((pool) => e.ingest(swap(pool))));
      expect(results.every((x) => x.status === 'applied')).toBe(true);
      expect(afterApply).toEqual([64]);
      for (let i = 0; i < 100 && e.publisher.flushing; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(e.publisher.flushing).toBe(false);
      expect(frames).toEqual(POOLS);
    } finally {
      await e.stop();
      d.cleanup();
    }
  });

  it("a batch's trade frames are handed on (the sink's flush) as it goes and before the live flush slice that follows it", async () => {
    const d = tempDir();
    const calls: string[] = [];
    const e = await createEngine({ config: testConfig(d.path, WHOLE_BATCHES), flushMs: 0, flushSliceMs: 0 });
    try {
      e.attachTopics({
        has: (topic) => topic.startsWith('pool_metrics:') || topic.startsWith('pool_trades:'),
        publish: (topic) => void calls.push(topic.slice(0, topic.indexOf(':'))),
        flush: () => void calls.push('flush'),
      });
      await declareMarket(e);
      await settled();
      calls.length = 0;
      await Promise.all(POOLS.map((pool) => e.ingest(swap(pool))));
      // One batch: its 150 trade frames, handed on after every 64 and at its end; then
      // the first slice of the live flush (64 pools).
      const trades = (n: number) => Array.from({ length: n }, () => 'pool_trades');
      expect(calls.slice(0, 153)).toEqual([...trades(64), 'flush', ...trades(64), 'flush', ...trades(22), 'flush']);
      expect(calls.slice(153, 153 + 64)).toEqual(Array.from({ length: 64 }, () => 'pool_metrics'));
    } finally {
      await e.stop();
      d.cleanup();
    }
  });

  it('a stop during a pass finishes it: every touched pool flushed once, none left', async () => {
    const d = tempDir();
    const frames: string[] = [];
    const e = await createEngine({ config: testConfig(d.path, WHOLE_BATCHES), flushMs: 0, flushSliceMs: 0 });
    e.attachTopics({ has: (topic) => topic.startsWith('pool_metrics:'), publish: (_topic, frame) => void frames.push(JSON.parse(frame).data.pool_address) });
    await declareMarket(e);
    await settled();
    frames.length = 0;
    let flushingAtStop = false;
    let stopped: Promise<void> | null = null;
    e.onApplied(() =>
      queueMicrotask(() => {
        // Right after the batch's first slice: the rest of the pass is still to come.
        flushingAtStop = e.publisher.flushing;
        stopped = e.stop();
      }),
    );
    await Promise.all(POOLS.map((pool) => e.ingest(swap(pool))));
    await stopped;
    expect(flushingAtStop).toBe(true);
    expect(e.publisher.flushing).toBe(false);
    expect(frames).toEqual(POOLS);
    d.cleanup();
  });
});
