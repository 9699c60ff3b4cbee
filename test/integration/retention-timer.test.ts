import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';

/**
 * The retention pass runs by itself (README "Retention": hourly, on the engine clock;
 * engine/system.ts starts it on a wall-time interval of `retention.everyMs`). Only the
 * intervals are faked, so the test moves an hour on; LMDB, setImmediate and promises
 * are real.
 */

const r = rng(8181);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const T0 = 1_767_225_600_000;
const swap = swapMaker(POOL, MINT, 81000, 81000);

// Registered before useTempEngine's hook: after hooks run last-registered first, so the
// engines are stopped (clearing their fake intervals) before the real timers come back.
afterEach(() => {
  vi.useRealTimers();
});
const temp = useTempEngine();

const tradeBlocks = (engine: Engine) => {
  let n = 0;
  for (const _ of engine.storage.trades.getKeys({ start: [POOL], end: [POOL + '\u0000'] })) n++;
  return n;
};

describe('retention timer', () => {
  it('prunes trades past 30 days an hour after start, without being called', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const engine = await temp.open();
    expect(engine.config.retention.everyMs).toBe(HOUR);
    for (const e of [
      { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
      { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: T0 },
      { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 },
    ]) expect((await engine.ingest(e)).status).toBe('applied');
    // Trades on days 0, 10 and 31 (now, on the event clock): one stored block each.
    for (const day of [0, 10, 31]) {
      expect((await engine.ingest(swap(T0 + day * DAY + 1_000))).status).toBe('applied');
      engine.flush();
      await engine.checkpoint();
    }
    expect(engine.clock.now()).toBe(T0 + 31 * DAY + 1_000);
    expect(tradeBlocks(engine)).toBe(3);
    expect(engine.storage.meta.get('retention:last')).toBeUndefined();

    // Just short of the hour: no pass yet. A pass would have put `retention:last` within
    // a turn (one pool); a put made after that turn commits after it.
    vi.advanceTimersByTime(HOUR - 1);
    await new Promise((resolve) => setImmediate(resolve));
    await engine.storage.meta.put('probe', 1);
    expect(engine.storage.meta.get('retention:last')).toBeUndefined();
    expect(tradeBlocks(engine)).toBe(3);

    // The hour: the pass runs on its own, measuring ages from the engine clock's now.
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(engine.storage.meta.get('retention:last')).toBe(T0 + 31 * DAY + 1_000), { timeout: 10_000, interval: 5 });
    expect(tradeBlocks(engine)).toBe(2); // day 0 is past 30 days; day 10 is not

    await engine.stop();
  });
});
