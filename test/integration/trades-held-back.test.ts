import { describe, expect, it } from 'vitest';
import type { PoolState } from '../../actors/pool/pool.logic.ts';
import type { Engine } from '../../engine/system.ts';
import { whenFlushed } from '../../storage/lmdb.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';
import { useTempEngine } from '../helpers/engine-server.ts';

/**
 * A pool writes its trades to the trades store one write at a time: a snapshot taken
 * while its previous write is in flight holds the new trades back (they stay in the
 * snapshot). They must still reach the store at a later checkpoint, or after the
 * actor's passivation and activation, though the pool never trades again.
 */

const r = rng(9_417);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const OTHER_MINT = base58(r, 44);
const OTHER_POOL = base58(r, 44);
const WALLET = base58(r, 44);
const T0 = 1_767_225_600_000;
/**
 * No timer checkpoint or idle sweep during a test: the test takes them itself. Each
 * batch applied whole in the turn it is handed over (`applySliceMs` 0): in slices, a
 * batch that outlasted its first slice on a loaded machine (a CI run) went on in a later
 * turn, after the first checkpoint's write had committed, so holdBack found nothing in
 * flight to hold its trades back behind.
 */
const CONFIG = { ingest: { applySliceMs: 0 }, actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } };

const temp = useTempEngine('mds-held-back-');

async function declarePools(engine: Engine): Promise<void> {
  for (const e of [
    { type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'HLD', slot: 1, at: T0 },
    { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 1 },
    { type: 'token', token_address: OTHER_MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'OTH', slot: 1, at: T0 },
    { type: 'pool', pool_address: OTHER_POOL, base_address: OTHER_MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 1 },
  ]) await engine.ingest(e);
}

/** The pool's trades in the trades store itself (LMDB blocks, no memory merged), as positions. */
function stored(engine: Engine, pool = POOL): string[] {
  return [...engine.trades.read(pool, { order: 'asc', minAt: 0, maxAt: Number.MAX_SAFE_INTEGER })].map((t) => `${t[1]}:${t[2]}:${t[3]}`);
}

/** The pool's trade list as the API answers it (store and memory merged). */
function listed(engine: Engine): string[] {
  const page = engine.query.market!.trades.poolTrades(POOL, { order: 'asc', limit: 1_000, startTime: T0 });
  return page!.items.map((t) => `${t.slot}:${t.tx_index}:${t.event_index}`);
}

/**
 * Ingests 30 trades, takes a checkpoint (its trades write is in flight), ingests 10
 * more and, once the actors applied them and before that write commits, a second
 * checkpoint: the pool's snapshot then holds the 10 back. Returns the positions of
 * all 40, the pool's state and the promises of the checkpoints and ingests.
 */
async function holdBack(engine: Engine): Promise<{ all: string[]; pool: PoolState; writes: Promise<unknown>[] }> {
  const swap = swapMaker(POOL, WALLET, 9_500, 100);
  const all: string[] = [];
  const ingest = (at: number) => {
    const e = swap(at);
    all.push(`${e.slot}:${e.tx_index}:${e.event_index}`);
    return engine.ingest(e);
  };
  for (let i = 0; i < 30; i++) await ingest(T0 + 1_000 + i * 1_000);
  const first = engine.checkpoint();
  const pool = engine.pools.get(POOL) as PoolState;
  // The first snapshot wrote the 30 trades; LMDB shows them once this turn's transaction commits.
  expect(pool.writing?.length).toBe(30);
  // The gate releases a batch to the actors in the turn it is put, before its commit:
  // these are applied while the first write is still in flight.
  const applied = new Promise<void>((resolve) => {
    const off = engine.onApplied(() => {
      off();
      resolve();
    });
  });
  const more = Array.from({ length: 10 }, (_, i) => ingest(T0 + 40_000 + i * 1_000));
  await applied;
  // Still in flight (its commit is not even started: lmdb-js closes the batch in a
  // setImmediate), so the second snapshot holds the 10 new trades back.
  expect(pool.writing).not.toBeNull();
  expect(pool.unsaved.length).toBe(10);
  const second = engine.checkpoint();
  expect(pool.unsaved.length).toBe(10);
  return { all, pool, writes: [first, second, ...more] };
}

describe('trades held back by a trades write in flight', () => {
  it('reach the trades store at a later checkpoint though the pool never trades again, and list once after a restart', async () => {
    let engine = await temp.open(CONFIG);
    await declarePools(engine);
    const { all, writes } = await holdBack(engine);
    for (const write of writes) await whenFlushed(write as Promise<boolean>);
    expect(engine.pools.get(POOL)!.writing).toBeNull();
    expect(stored(engine)).toEqual(all.slice(0, 30));
    // Nothing more for POOL; another pool trades, so the checkpoints below have other work.
    const other = swapMaker(OTHER_POOL, WALLET, 9_600, 500);
    await engine.ingest(other(T0 + 100_000));
    // A sliced checkpoint (the timer's kind) and a plain one: each ends, and the first writes the 10.
    await whenFlushed(engine.checkpoint({ sliceMs: 1 }) as Promise<boolean>);
    await engine.ingest(other(T0 + 101_000));
    await whenFlushed(engine.checkpoint() as Promise<boolean>);
    expect(stored(engine)).toEqual(all);
    expect(engine.pools.get(POOL)!.unsaved.length).toBe(0);
    expect(engine.pools.get(POOL)!.writing).toBeNull();
    expect(stored(engine, OTHER_POOL)).toHaveLength(2);
    expect(listed(engine)).toEqual(all);

    await engine.stop();
    engine = await temp.open(CONFIG);
    expect(stored(engine)).toEqual(all);
    expect(engine.pools.get(POOL)!.unsaved.length).toBe(0);
    const rows = listed(engine);
    expect(rows).toEqual(all);
    expect(new Set(rows).size).toBe(40);
  });

  it('keep the pool in memory through an idle sweep until a checkpoint has written them', async () => {
    const engine = await temp.open(CONFIG);
    await declarePools(engine);
    const { all, pool, writes } = await holdBack(engine);
    // An idle sweep before the first write commits, once this turn's promise jobs ran
    // (the checkpoint refreshes research records, reading the pool): lmdb-js started the
    // commit in a setImmediate queued earlier, and a commit is seen in a later loop phase.
    // The pool's snapshot would hold the 10 trades back: it stays, so that they do not
    // wait in a snapshot nothing may load again (the wallet order reads only the store).
    const sweep = await new Promise<{ inFlight: boolean; passivated: Promise<number> }>((resolve) =>
      setImmediate(() => resolve({ inFlight: pool.writing !== null, passivated: engine.passivateIdle(Infinity) })),
    );
    expect(sweep.inFlight).toBe(true);
    await sweep.passivated;
    expect(engine.pools.isResident(POOL)).toBe(true);
    for (const write of writes) await whenFlushed(write as Promise<boolean>);
    await whenFlushed(engine.checkpoint() as Promise<boolean>);
    expect(stored(engine)).toEqual(all);
    expect(engine.pools.get(POOL)!.unsaved.length).toBe(0);
    // Written: the next sweep takes it.
    expect(await engine.passivateIdle(Infinity)).toBeGreaterThan(0);
    expect(engine.pools.isResident(POOL)).toBe(false);
    expect(listed(engine)).toEqual(all);
  });

  it('reach the trades store when the engine stops while holding them back', async () => {
    let engine = await temp.open(CONFIG);
    await declarePools(engine);
    const { all, pool } = await holdBack(engine);
    expect(pool.writing).not.toBeNull();
    await engine.stop();
    engine = await temp.open(CONFIG);
    // In the store itself, not only in the pool's snapshot (which nothing may ever load again).
    expect(stored(engine)).toEqual(all);
    expect(listed(engine)).toEqual(all);
  });
});
