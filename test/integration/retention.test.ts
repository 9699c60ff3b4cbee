import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
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
  it('deletes trades past 30 days and 1s/15s candles past 3/14 days, on the engine clock', async () => {
    // Days 0, 10 and 31; each trade's block is written at a checkpoint.
    for (const day of [0, 10, 31]) {
      await engine.ingest(swap(T0 + day * DAY + 1_000));
      await engine.ingest(swap(T0 + day * DAY + 2_000));
      engine.flush();
      await engine.checkpoint();
    }
    expect(count(engine.storage.trades)).toBe(3);
    engine.pools.get(POOL)!.closed.write(); // closed candles are written in batches; write them now
    await engine.storage.meta.put('sync', 1);
    expect(candleStarts(0).length).toBeGreaterThanOrEqual(4); // 1s candles of days 0 and 10 are closed
    const result = await engine.prune();
    expect(result.pools).toBe(1);
    expect(result.tradeBlocks).toBe(1); // day 0 is past 30 days at day 31; day 10 is not
    expect(count(engine.storage.trades)).toBe(2);
    // 1s candles: only day 31's remain (3-day limit); 15s: day 0's are gone (14 days), day 10's too (21 days).
    await engine.storage.meta.put('sync', 2);
    for (const interval of [0, 1]) expect(candleStarts(interval).every((s) => s >= T0 + 31 * DAY)).toBe(true);
    // Longer intervals are kept.
    expect(candleStarts(2)).toContain(T0);
    // Labeled trades (route 21) as the trades: day 0's two go, with their label's copies.
    expect(result.labeledTrades).toBe(2);
    const labeled = (first: number | string) => [...engine.storage.labeledTrades.getKeys({ start: [first], end: [first, Number.MAX_SAFE_INTEGER] })].length;
    expect([labeled(0), labeled('kol')]).toEqual([4, 4]);
  });
});
