import { describe, expect, it } from 'vitest';
import { RecentWalletPools } from '../../../engine/query/trade-streams.ts';
import { base58, rng } from '../../helpers/fixtures.ts';

/** Which pools may hold a wallet's trades in memory only (engine/query/trade-streams.ts). */

const r = rng(4242);
const wallets = Array.from({ length: 20_000 }, () => base58(r, 44));
const pools = Array.from({ length: 2_000 }, () => base58(r, 44));

describe('RecentWalletPools', () => {
  it('gives the pools a wallet traded in over the last three checkpoints, and none older', () => {
    const recent = new RecentWalletPools();
    const noted = new Map<string, Set<string>>(wallets.map((w) => [w, new Set()]));
    // Three generations of 100,000 trades each (the pairs' arrays grow past their first size).
    for (let g = 0; g < 3; g++) {
      if (g > 0) recent.rotate();
      for (let i = 0; i < 100_000; i++) {
        const w = wallets[Math.floor(r() * wallets.length)]!;
        const p = pools[Math.floor(r() * pools.length)]!;
        recent.note(w, p);
        noted.get(w)!.add(p);
      }
    }
    // Exactly those (another wallet's pools would come only with a 32-bit hash collision).
    for (const [w, expected] of noted) expect([...recent.pools(w)].sort()).toEqual([...expected].sort());
    // The oldest generation goes at the next checkpoint; three checkpoints later nothing is left.
    recent.rotate();
    recent.rotate();
    recent.rotate();
    for (const w of wallets.slice(0, 1_000)) expect(recent.pools(w).size).toBe(0);
  });

  it('keeps a pool noted twice once, and only the last three generations', () => {
    const recent = new RecentWalletPools();
    const [w] = wallets;
    for (let i = 0; i < 5; i++) for (const p of pools.slice(0, 3)) recent.note(w!, p);
    expect([...recent.pools(w!)].sort()).toEqual(pools.slice(0, 3).sort());
    recent.rotate();
    recent.note(w!, pools[5]!);
    recent.rotate();
    recent.rotate();
    // The first generation is gone; the second's pool stays.
    expect([...recent.pools(w!)]).toEqual([pools[5]]);
  });
});
