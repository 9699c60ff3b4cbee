import { describe, expect, it } from 'vitest';
import type { PoolState } from '../../actors/pool/index.ts';
import { createEngine } from '../../engine/system.ts';
import { base58, rng, tempDir, testConfig, WSOL } from '../helpers/fixtures.ts';

/**
 * Issue 25: the resident byte bound (actors.residentBytesMax) is only as good as each
 * actor's estimate. A busy pool's rolling windows (rings of 36,000 bytes past 128 trades
 * in 24 h, each wallet of the last 24 h tracked) and its distinct-wallet counters are
 * counted at their size (PoolWindows.bytes, DistinctWallets.bytes), not as a quiet
 * pool's: a 10M-swap market held ~0.4-0.6 GB of ArrayBuffers past the bound when they were not.
 */
describe("a pool's resident estimate", () => {
  it('counts a busy pool its windows and counters: ring buffers and every wallet of the last 24 h', async () => {
    const dir = tempDir('pool-bytes');
    const r = rng(11);
    const engine = await createEngine({ config: testConfig(dir.path), wallets: false, signals: false, feeds: false });
    try {
      const T0 = 1_767_225_600_000;
      let slot = 10;
      const pool = (t: number) => {
        const token = base58(r, 44);
        const address = base58(r, 44);
        return {
          address,
          events: [
            { type: 'token', token_address: token, decimals: 6, supply_raw: '1000000000000000', symbol: 'T', name: 'T', slot: slot++, at: t },
            { type: 'pool', pool_address: address, base_address: token, quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: t, slot: slot++ },
          ] as Array<Record<string, unknown>>,
        };
      };
      const swap = (address: string, t: number) => ({
        type: 'swap', tx_hash: base58(r, 88), slot: slot++, tx_index: 0, event_index: 0, at: t, pool_address: address, wallet_address: base58(r, 44),
        side: r() < 0.5 ? 'buy' : 'sell', base_amount_raw: String(Math.floor(1e9 + r() * 1e9)), quote_amount_raw: String(Math.floor(1e8 + r() * 1e9)),
        base_reserve_raw: '800000000000000', quote_reserve_raw: '40000000000',
      });
      const ingest = async (events: Array<Record<string, unknown>>) => {
        for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
        await engine.gate.flush();
      };
      await ingest([{ type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 }]);
      const quiet = pool(T0 + 1_000);
      await ingest([...quiet.events, swap(quiet.address, T0 + 2_000), swap(quiet.address, T0 + 3_000)]);
      const base = engine.pools.bytes;
      // 300 trades, each by a wallet of its own, within an hour: ring mode, 300 wallets tracked.
      const busy = pool(T0 + 4_000);
      await ingest([...busy.events, ...Array.from({ length: 300 }, (_, i) => swap(busy.address, T0 + 5_000 + i * 10_000))]);
      expect(engine.pools.isResident(quiet.address) && engine.pools.isResident(busy.address)).toBe(true);
      // Less the trades it holds unsaved (counted at their encoded bytes, as before).
      const unsaved = (engine.pools.get(busy.address) as PoolState).unsaved.byteLength;
      const busyBytes = engine.pools.bytes - base - unsaved;
      expect(busyBytes).toBeGreaterThan(5 * 60 * (12 * 8 + 6 * 4) + 300 * 100);
      // The quiet one's estimate stays about a quiet pool's.
      expect(base).toBeLessThan(10_000);
    } finally {
      await engine.stop().catch(() => undefined);
      dir.cleanup();
    }
  });
});
