import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';

/**
 * The response cache of /pools/{pool}, its candles and trades, and a token's trades
 * never serves a body older than the state: every read after a change sees the
 * change, the same URL read twice in a row is the same body, and passivated pools are
 * served too.
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

describe('response cache of trade pages', () => {
  const MINT2 = base58(r, 44);
  const POOL2 = base58(r, 44);
  const POOL3 = base58(r, 44);
  const WALLET = base58(r, 44);
  const onPool2 = swapMaker(POOL2, WALLET, 70000, 30000);
  const onPool3 = swapMaker(POOL3, WALLET, 80000, 40000);
  const T1 = T0 + 60_000;
  let s: ServedEngine;
  const page = async (path: string) => (await s.get(path)).body as { data: Array<{ created_at: number; pool_address: string; labels: string[] }>; pagination: { has_more: boolean } };
  /** The same URL read twice: the same body (the second from the cache when nothing changed). */
  const twice = async (path: string) => {
    const [a, b] = [await s.text(path), await s.text(path)];
    expect(b).toBe(a);
    return page(path);
  };

  beforeAll(async () => {
    s = await startServedEngine([
      { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T1 },
      { type: 'token', token_address: MINT2, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: T1 },
      { type: 'pool', pool_address: POOL2, base_address: MINT2, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T1, slot: 2 },
    ], { plan: 'pro' });
  });
  afterAll(() => s.stop());

  it('show every trade, label and pool of the token applied between two reads of the same URL', async () => {
    for (let i = 1; i <= 5; i++) {
      await s.engine.ingest(onPool2(T1 + i * 1_000));
      const pool = await twice(`/v1/pools/${POOL2}/trades`);
      expect(pool.data.map((t) => t.created_at)).toEqual(Array.from({ length: i }, (_, k) => T1 + (i - k) * 1_000));
      expect((await twice(`/v1/tokens/${MINT2}/trades?limit=3`)).data).toHaveLength(Math.min(i, 3));
    }
    // A label of the trades' wallet: no pool or token changed, the labels did.
    expect((await s.engine.ingest({ type: 'label', wallet_address: WALLET, label: 'smart_money', action: 'add', at: T1 + 5_500 })).status).toBe('applied');
    expect((await twice(`/v1/pools/${POOL2}/trades`)).data.every((t) => t.labels.includes('smart_money'))).toBe(true);
    // A second pool of the token, and a trade on it: the token's trades show it, the first pool's do not.
    await s.engine.ingest({ type: 'pool', pool_address: POOL3, base_address: MINT2, quote_address: WSOL, dex: 'meteora', pool_type: 'amm', created_at: T1 + 6_000, slot: 3 });
    await s.engine.ingest(onPool3(T1 + 7_000));
    expect((await twice(`/v1/tokens/${MINT2}/trades?limit=3`)).data.map((t) => t.pool_address)).toEqual([POOL3, POOL2, POOL2]);
    expect((await twice(`/v1/pools/${POOL2}/trades`)).data).toHaveLength(5);
  });

  it('move with the clock: trades leave the 24-hour window though nothing of the pool changed', async () => {
    expect((await twice(`/v1/pools/${POOL2}/trades`)).data).toHaveLength(5);
    // The event clock moves to a day later; only the SOL price changes.
    await s.engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T1 + 86_400_000 + 5_000 });
    const later = await twice(`/v1/pools/${POOL2}/trades`);
    expect(later.data.map((t) => t.created_at)).toEqual([T1 + 5_000]);
    expect(later.pagination.has_more).toBe(false);
  });
});
