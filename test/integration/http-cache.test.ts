import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';

/**
 * The response cache of /pools/{pool} and its candles never serves a body older than
 * the state: every read after a change sees the change, the same URL read twice in a
 * row is the same body, and passivated pools are served too.
 */

const r = rng(606);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const T0 = 1_767_225_600_000;
const swap = swapMaker(POOL, MINT, 60000, 20000);

let srv: ServedEngine;
let engine: Engine;
const get = (path: string) => srv.text(path);
const json = async (path: string) => (await srv.get(path)).body;

beforeAll(async () => {
  srv = await startServedEngine([
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: T0 },
    { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 },
  ], { plan: 'pro' });
  engine = srv.engine;
});
afterAll(() => srv.stop());

describe('response cache', () => {
  it('serves every change made between two reads of the same URL', async () => {
    for (let i = 1; i <= 30; i++) {
      await engine.ingest(swap(T0 + 1_000 + i * 100)); // all in one 1m candle, some in the same second
      const [pool, again] = [(await json(`/v1/pools/${POOL}`)), (await json(`/v1/pools/${POOL}`))];
      expect(pool.data.totals.trade_count).toBe(i);
      expect(again).toEqual(pool);
      const candles = (await json(`/v1/pools/${POOL}/candles?currency=quote`)).data.candles;
      expect(candles).toEqual([{ start_at: T0, open: 1, high: 1, low: 1, close: 1, volume: i }]);
    }
    // A change of the quote price alone changes the USD values.
    await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 200, at: T0 + 5_000 });
    expect((await json(`/v1/pools/${POOL}`)).data.snapshot.price_usd).toBeCloseTo(0.2, 9);
  });

  it('serves a passivated pool from its snapshot, and the cache does not outlive a restart of its state', async () => {
    const before = await get(`/v1/pools/${POOL}/candles?currency=quote`);
    engine.passivateIdle(Number.POSITIVE_INFINITY);
    expect(engine.pools.isResident(POOL)).toBe(false);
    expect(await get(`/v1/pools/${POOL}/candles?currency=quote`)).toBe(before);
    await engine.ingest(swap(T0 + 9_000));
    expect((await json(`/v1/pools/${POOL}/candles?currency=quote`)).data.candles[0].volume).toBe(31);
  });
});
