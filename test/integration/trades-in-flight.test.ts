import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { whenFlushed } from '../../storage/lmdb.ts';
import { base58, rng, swapMaker, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * A checkpoint moves a pool's trades from memory to the trades store in an LMDB
 * transaction that commits later; reads in between must still see every trade, once.
 */

const r = rng(9_191);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const WALLET = base58(r, 44);
const T0 = 1_767_225_600_000;

let dir: TempDir;
let engine: Engine;

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path, { actors: { checkpointMs: 3_600_000 } }) });
  for (const e of [
    { type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'FLY', slot: 1, at: T0 },
    { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 1 },
  ]) await engine.ingest(e);
});

afterAll(async () => {
  await engine.stop();
  dir.cleanup();
});

const positions = () => {
  const page = engine.query.market!.trades.poolTrades(POOL, { order: 'asc', limit: 1_000, startTime: T0 });
  return page!.items.map((t) => `${t.slot}:${t.tx_index}:${t.event_index}`);
};

describe('trades around a checkpoint', () => {
  it('lists every trade exactly once before, during and after the commit that stores them', async () => {
    const swap = swapMaker(POOL, WALLET, 9_200, 100);
    for (let i = 0; i < 40; i++) await engine.ingest(swap(T0 + 1_000 + i * 1_000));
    const before = positions();
    expect(before).toHaveLength(40);
    // The checkpoint queues the puts; until they commit LMDB shows none of them.
    const committed = engine.checkpoint();
    expect(positions()).toEqual(before);
    await whenFlushed(committed as Promise<boolean>);
    expect(positions()).toEqual(before);
    // Late and new trades after the first checkpoint: merged into the stored block, and a new one.
    await engine.ingest(swap(T0 + 500, { slot: 99 }));
    await engine.ingest(swap(T0 + 60_000));
    const again = engine.checkpoint();
    const during = positions();
    await whenFlushed(again as Promise<boolean>);
    expect(during).toHaveLength(42);
    expect(positions()).toEqual(during);
    expect(new Set(during).size).toBe(42);
  });
});
