import { SPARSE_MAX } from '../../../engine/bounds.ts';
import { describe, expect, it } from 'vitest';
import { DISTINCT_STANDARD_ERROR, DistinctCounter, DistinctWallets, murmur3 } from '../../../actors/pool/distinct.ts';
import { base58, rng } from '../../helpers/fixtures.ts';

describe('DistinctWallets (HyperLogLog)', () => {
  it('hashes with MurmurHash3 x86-32 (reference vectors)', () => {
    expect(murmur3('', 0)).toBe(0);
    expect(murmur3('hello', 0)).toBe(0x248bfa47);
    expect(murmur3('The quick brown fox jumps over the lazy dog', 0)).toBe(0x2e4ff723);
  });

  it('counts exactly up to SPARSE_MAX wallets, and repeats not at all', () => {
    const d = new DistinctWallets();
    const r = rng(1);
    const wallets = Array.from({ length: SPARSE_MAX }, () => base58(r, 44));
    for (let k = 0; k < 3; k++) wallets.forEach((w, i) => d.add(w, i % 4 === 0));
    expect([d.traders.count, d.buyers.count, d.sellers.count]).toEqual([SPARSE_MAX, SPARSE_MAX / 4, (3 * SPARSE_MAX) / 4]);
  });

  it('goes on counting after a snapshot of no wallets (a pool\'s sellers before its first sale)', () => {
    const r = rng(3);
    const [a, b, c] = [base58(r, 44), base58(r, 44), base58(r, 44)];
    const first = new DistinctWallets();
    first.add(a, true);
    const restored = new DistinctWallets(first.toSnapshot());
    for (const w of [b, c, b, c, a]) restored.add(w, false);
    expect([restored.traders.count, restored.buyers.count, restored.sellers.count]).toEqual([3, 1, 3]);
    // And it snapshots again, to the same counts.
    const again = new DistinctWallets(restored.toSnapshot());
    expect([again.traders.count, again.buyers.count, again.sellers.count]).toEqual([3, 1, 3]);
  });

  it('stays within three standard errors at 1,000 and 50,000 wallets', () => {
    const r = rng(2);
    for (const n of [1_000, 50_000]) {
      const d = new DistinctWallets();
      for (let i = 0; i < n; i++) d.add(base58(r, 44), i % 2 === 0);
      expect(Math.abs(d.traders.count - n) / n).toBeLessThan(3 * DISTINCT_STANDARD_ERROR);
      expect(Math.abs(d.buyers.count - n / 2) / (n / 2)).toBeLessThan(3 * DISTINCT_STANDARD_ERROR);
    }
  });

  it('counts the union of several counters: exactly while all are sparse, else as one counter fed them all would', () => {
    const r = rng(4);
    const wallets = Array.from({ length: 3_000 }, () => base58(r, 44));
    const fed = (list: string[]) => {
      const d = new DistinctWallets();
      for (const w of list) d.add(w, true);
      return d.traders;
    };
    // Sparse: 300 and 300 sharing 100 → 500 exactly (past SPARSE_MAX together is still exact).
    expect(DistinctCounter.unionCount([fed(wallets.slice(0, 300)), fed(wallets.slice(200, 500))])).toBe(500);
    expect(DistinctCounter.unionCount([fed(wallets.slice(0, 400)), fed(wallets.slice(200, 600))])).toBe(600);
    expect(DistinctCounter.unionCount([fed(wallets.slice(0, 10))])).toBe(10);
    // Dense with dense, and dense with sparse: the merged registers are those of one counter of all.
    const whole = fed(wallets.slice(0, 2_500)).count;
    expect(DistinctCounter.unionCount([fed(wallets.slice(0, 1_500)), fed(wallets.slice(1_000, 2_500))])).toBe(whole);
    expect(DistinctCounter.unionCount([fed(wallets.slice(0, 2_200)), fed(wallets.slice(2_100, 2_500))])).toBe(whole);
    expect(Math.abs(whole - 2_500) / 2_500).toBeLessThan(3 * DISTINCT_STANDARD_ERROR);
  });

  it('round-trips through its registers', () => {
    const d = new DistinctWallets();
    const r = rng(3);
    for (let i = 0; i < 700; i++) d.add(base58(r, 44), i < 100);
    const copy = new DistinctWallets(d.toSnapshot());
    const counts = (x: DistinctWallets) => [x.traders.count, x.buyers.count, x.sellers.count];
    expect(counts(copy)).toEqual(counts(d));
    expect(counts(copy)[1]).toBe(100); // still sparse: exact
  });
});

describe('DistinctWallets.bytes (the pool actor counts it in its resident estimate)', () => {
  it('grows with the sparse hashes up to the dense registers, and reads a snapshot not yet decoded at its size', () => {
    const r = rng(7);
    const d = new DistinctWallets();
    const first = d.bytes;
    for (let i = 0; i < 64; i++) d.add(base58(r, 44), i % 2 === 0);
    const sparse = d.bytes;
    expect(sparse).toBeGreaterThan(first);
    for (let i = 0; i < 4 * SPARSE_MAX; i++) d.add(base58(r, 44), i % 2 === 0);
    // Three dense counters: 2,048 one-byte registers each.
    expect(d.bytes).toBe(3 * 2_048);
    const restored = new DistinctWallets(d.toSnapshot());
    expect(restored.bytes).toBe(d.bytes);
  });
});
