import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { CandleRows } from '../../engine/model/index.ts';
import { base58, rng, swapMaker, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

const r = rng(31);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const DAY = 86_400_000;
const T0 = 1_767_225_600_000;
const swap = swapMaker(POOL, MINT, 50000, 10000);

let dir: TempDir;
let engine: Engine;
beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path) });
  for (const e of [
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: T0 },
    { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 },
  ]) await engine.ingest(e);
  // The swaps' wallet (swapMaker's second argument) is labeled: its trades are also route 21's labeled trades.
  await engine.ingest({ type: 'label', wallet_address: MINT, label: 'kol', action: 'add', detail: null, at: T0 });
});
afterAll(async () => {
  await engine.stop();
  dir.cleanup();
});

const count = (db: any) => {
  let k = 0;
  for (const _ of db.getKeys({ start: [POOL], end: [POOL + '\u0000'] })) k++;
  return k;
};
const candleStarts = (interval: number) =>
  [...engine.storage.candles.getRange({ start: [POOL, interval], end: [POOL, interval + 1] })].flatMap(({ value }) => (value as Array<[string, number]>).map((c) => c[1]));

describe('retention', () => {
  it('deletes trades past 30 days and with them the 1s/15s candles folded from them, and 1s/15s segments stored before they were folded, on the engine clock', async () => {
    // Days 0, 10 and 31; each trade's block is written at a checkpoint.
    for (const day of [0, 10, 31]) {
      await engine.ingest(swap(T0 + day * DAY + 1_000));
      await engine.ingest(swap(T0 + day * DAY + 2_000));
      engine.flush();
      await engine.checkpoint();
    }
    expect(count(engine.storage.trades)).toBe(3);
    engine.pools.get(POOL)!.closed.write(); // closed candles are written in batches; write them now
    // A data directory written before 1s and 15s candles were folded from the trades holds segments of them.
    const old = (iv: number, start: number) => [iv, start, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0];
    await engine.candles.write(POOL, CandleRows.fromRows([old(0, T0 + 5_000), old(0, T0 + 31 * DAY + 5_000), old(1, T0 + 15_000)]));
    await engine.storage.meta.put('sync', 1);
    expect([candleStarts(0).length, candleStarts(1).length]).toEqual([2, 1]);
    const starts = (interval: '1s' | '15s') => engine.query.market!.candles.candles(POOL, { interval, mode: 'price', currency: 'quote', limit: 1_000 })!.map((c) => c.start_at);
    expect(starts('1s')).toEqual([1_000, 2_000, 10 * DAY + 1_000, 10 * DAY + 2_000, 31 * DAY + 1_000, 31 * DAY + 2_000].map((t) => T0 + t));
    const result = await engine.prune();
    expect(result.pools).toBe(1);
    expect(result.tradeBlocks).toBe(1); // day 0 is past 30 days at day 31; day 10 is not
    expect(count(engine.storage.trades)).toBe(2);
    // 1s and 15s candles as far back as the trades: day 0's are gone, day 10's are kept.
    expect(starts('1s')).toEqual([10 * DAY + 1_000, 10 * DAY + 2_000, 31 * DAY + 1_000, 31 * DAY + 2_000].map((t) => T0 + t));
    expect(starts('15s')).toEqual([T0 + 10 * DAY, T0 + 31 * DAY]);
    // The stored 1s and 15s segments are deleted whatever their age.
    expect(result.candles).toBe(3);
    await engine.storage.meta.put('sync', 2);
    expect([candleStarts(0), candleStarts(1)]).toEqual([[], []]);
    // Longer intervals are kept.
    expect(candleStarts(2)).toContain(T0);
    // Labeled trades (route 21) as the trades: day 0's two go, with their label's copies.
    expect(result.labeledTrades).toBe(2);
    const labeled = (first: number | string) => [...engine.storage.labeledTrades.getKeys({ start: [first], end: [first, Number.MAX_SAFE_INTEGER] })].length;
    expect([labeled(0), labeled('kol')]).toEqual([4, 4]);
  });
});
