import { describe, expect, it } from 'vitest';
import { DISTINCT_STANDARD_ERROR, DistinctWallets, SPARSE_MAX, murmur3 } from '../../../actors/pool/distinct.ts';
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

  it('stays within three standard errors at 1,000 and 50,000 wallets', () => {
    const r = rng(2);
    for (const n of [1_000, 50_000]) {
      const d = new DistinctWallets();
      for (let i = 0; i < n; i++) d.add(base58(r, 44), i % 2 === 0);
      expect(Math.abs(d.traders.count - n) / n).toBeLessThan(3 * DISTINCT_STANDARD_ERROR);
      expect(Math.abs(d.buyers.count - n / 2) / (n / 2)).toBeLessThan(3 * DISTINCT_STANDARD_ERROR);
    }
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
