import { describe, expect, it } from 'vitest';
import { createPoolBehavior } from '../../actors/pool/pool.actor.ts';
import type { PoolState } from '../../actors/pool/index.ts';
import { INTERVAL_COUNT } from '../../engine/model/index.ts';
import { createEngine } from '../../engine/system.ts';
import { base58, rng, swapMaker, tempDir, testConfig, WALLET, WSOL } from '../helpers/fixtures.ts';

/**
 * Issue 25: the resident byte bound (actors.residentBytesMax) is only as good as each
 * actor's estimate. A busy pool's rolling windows (rings of 36,000 bytes past 128 trades
 * in 24 h, each wallet of the last 24 h tracked) and its distinct-wallet counters are
 * counted at their size (PoolWindows.bytes, DistinctWallets.bytes), not as a quiet
 * pool's base (it was 7.7 KB for every pool, a busy one holding several times that);
 * so is what it holds off the JS heap (candle buffers, its unsaved trade log's slab),
 * which the measure of that base (the heap) did not see.
 */
const T0 = 1_767_225_600_000;

/** An engine of pools and tokens only (no wallets, signals or feeds) in a temp directory, and what closes both. */
async function open(name: string) {
  const dir = tempDir(name);
  const engine = await createEngine({ config: testConfig(dir.path), wallets: false, signals: false, feeds: false });
  const close = async () => {
    await engine.stop().catch(() => undefined);
    dir.cleanup();
  };
  return { engine, close };
}

describe("a pool's resident estimate", () => {
  it('counts a busy pool its windows and counters: ring buffers and every wallet of the last 24 h', async () => {
    const { engine, close } = await open('pool-bytes');
    const r = rng(11);
    try {
      // A pool of its own token, and its swaps, each by a wallet of its own (swapMaker's, the wallet replaced).
      const pool = (t: number, seed: number) => {
        const token = base58(r, 44);
        const address = base58(r, 44);
        const swap = swapMaker(address, WALLET, seed, 1_000);
        return {
          address,
          swap: (at: number) => swap(at, { wallet_address: base58(r, 44), side: r() < 0.5 ? 'buy' : 'sell' }),
          events: [
            { type: 'token', token_address: token, decimals: 6, supply_raw: '1000000000000000', symbol: 'T', name: 'T', slot: 10, at: t },
            { type: 'pool', pool_address: address, base_address: token, quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: t, slot: 10 },
          ] as Array<Record<string, unknown>>,
        };
      };
      const ingest = async (events: Array<Record<string, unknown>>) => {
        for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
        await engine.gate.flush();
      };
      await ingest([{ type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 }]);
      const quiet = pool(T0 + 1_000, 100);
      await ingest([...quiet.events, quiet.swap(T0 + 2_000), quiet.swap(T0 + 3_000)]);
      const base = engine.pools.bytes;
      // 300 trades, each by a wallet of its own, within an hour: ring mode, 300 wallets tracked.
      const busy = pool(T0 + 4_000, 200);
      await ingest([...busy.events, ...Array.from({ length: 300 }, (_, i) => busy.swap(T0 + 5_000 + i * 10_000))]);
      expect(engine.pools.isResident(quiet.address) && engine.pools.isResident(busy.address)).toBe(true);
      // Less the trades it holds unsaved (counted at the slab its log took).
      const unsaved = (engine.pools.get(busy.address) as PoolState).unsaved.reservedBytes;
      const busyBytes = engine.pools.bytes - base - unsaved;
      expect(busyBytes).toBeGreaterThan(5 * 60 * (12 * 8 + 6 * 4) + 300 * 100);
      // The quiet one's estimate stays about a quiet pool's.
      expect(base).toBeLessThan(12_000);
    } finally {
      await close();
    }
  });

  it('counts what a pool holds off the JS heap: its candle buffers and its unsaved log, until the log is written', async () => {
    const { engine, close } = await open('pool-bytes-external');
    const r = rng(12);
    try {
      const token = base58(r, 44);
      const address = base58(r, 44);
      const swap = swapMaker(address, WALLET, 300, 1_000);
      for (const e of [
        { type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 },
        { type: 'token', token_address: token, decimals: 6, supply_raw: '1000000000000000', symbol: 'T', name: 'T', slot: 10, at: T0 },
        { type: 'pool', pool_address: address, base_address: token, quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0, slot: 10 },
        swap(T0 + 1_000),
        swap(T0 + 2_000),
      ]) {
        expect((await engine.ingest(e)).status).toBe('applied');
      }
      await engine.gate.flush();
      const { sizeOf } = createPoolBehavior({ trades: null as never, candles: null as never });
      const state = engine.pools.get(address) as PoolState;
      const held = sizeOf!(state);
      // The base (5,500), its windows and counters, its live candles (a bucket of 31 doubles
      // per interval) and its log's first chunk (1 KiB) and index.
      expect(held).toBeGreaterThanOrEqual(5_500 + state.windows.bytes + state.distinct.bytes + INTERVAL_COUNT * 31 * 8 + 1_024);
      // Written and committed, the log leaves the estimate (the pool's next log is empty).
      await engine.checkpoint();
      await engine.storage.snapshots.committed;
      expect(state.unsaved.length).toBe(0);
      expect(state.writing).toBeNull();
      expect(sizeOf!(state)).toBeLessThanOrEqual(held - 1_024);
    } finally {
      await close();
    }
  });
});
