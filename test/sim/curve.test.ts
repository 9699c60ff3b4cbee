import { describe, expect, it } from 'vitest';
import { ammBuy, ammSell, type AmmState } from '../../engine/sources/sim/amm.ts';
import { decodeBase58, encodeBase58, randomAddress, TxHashes } from '../../engine/sources/sim/base58.ts';
import {
  curveBuy,
  curveBuyCost,
  curveMarketCapSol,
  curvePriceSol,
  curveProgressPct,
  curveSell,
  newCurve,
  PUMP_INITIAL_REAL_BASE_RAW,
  PUMP_INITIAL_VIRTUAL_BASE_RAW,
  PUMP_INITIAL_VIRTUAL_QUOTE_RAW,
  PUMP_MIGRATION_BASE_RAW,
  PUMP_TOTAL_SUPPLY_RAW,
} from '../../engine/sources/sim/curve.ts';
import { Rng } from '../../engine/sources/sim/rng.ts';

const SOL = 1_000_000_000n;

describe('pump.fun bonding curve', () => {
  it('uses the published constants', () => {
    expect(PUMP_TOTAL_SUPPLY_RAW).toBe(1_000_000_000n * 10n ** 6n);
    expect(PUMP_INITIAL_VIRTUAL_QUOTE_RAW).toBe(30n * SOL);
    expect(PUMP_INITIAL_VIRTUAL_BASE_RAW).toBe(1_073_000_000n * 10n ** 6n);
    expect(PUMP_INITIAL_REAL_BASE_RAW).toBe(793_100_000n * 10n ** 6n);
    expect(PUMP_MIGRATION_BASE_RAW).toBe(206_900_000n * 10n ** 6n);
  });

  it('prices a fresh curve at 30 SOL / 1,073,000,000 tokens', () => {
    const curve = newCurve();
    expect(curvePriceSol(curve)).toBeCloseTo(30 / 1_073_000_000, 15);
    expect(curvePriceSol(curve)).toBeCloseTo(2.796e-8, 10);
    expect(curveMarketCapSol(curve)).toBeCloseTo(27.96, 2);
    expect(curveProgressPct(curve)).toBe(0);
    expect(curve.realQuote).toBe(0n);
  });

  it('moves virtual and real reserves by the amounts of a known buy', () => {
    const curve = newCurve();
    const fill = curveBuy(curve, 1n * SOL)!;
    // vB − (k / (vQ + 1 SOL) + 1), with k = 30e9 · 1.073e15.
    const k = PUMP_INITIAL_VIRTUAL_BASE_RAW * PUMP_INITIAL_VIRTUAL_QUOTE_RAW;
    const expected = PUMP_INITIAL_VIRTUAL_BASE_RAW - (k / (PUMP_INITIAL_VIRTUAL_QUOTE_RAW + SOL) + 1n);
    expect(fill).toEqual({ base: expected, quote: SOL });
    expect(expected).toBe(34_612_903_225_806n);
    expect(curve.virtualQuote).toBe(31n * SOL);
    expect(curve.realQuote).toBe(SOL);
    expect(curve.virtualBase).toBe(PUMP_INITIAL_VIRTUAL_BASE_RAW - expected);
    expect(curve.realBase).toBe(PUMP_INITIAL_REAL_BASE_RAW - expected);
    expect(curveProgressPct(curve)).toBeCloseTo(4.3642, 3);
  });

  it('reports progress after a series of buys', () => {
    const curve = newCurve();
    for (let i = 0; i < 10; i++) curveBuy(curve, 2n * SOL);
    // 20 SOL in: vB = k / 50 SOL (plus rounding) → sold = 1,073M − 643.8M tokens.
    expect(curve.realQuote).toBe(20n * SOL);
    expect(Number(curve.virtualBase) / 1e6).toBeCloseTo(643_800_000, -1);
    expect(curveProgressPct(curve)).toBeCloseTo((100 * (1_073_000_000 - 643_800_000)) / 793_100_000, 4);
    expect(curvePriceSol(curve)).toBeCloseTo(50 / 643_800_000, 14);
  });

  it('completes exactly when the real token reserve reaches 0', () => {
    const curve = newCurve();
    // Step up in 5 SOL buys: the last one is cut to the tokens left.
    let fills = 0;
    while (!curve.complete) {
      const before = curve.realBase;
      const fill = curveBuy(curve, 5n * SOL)!;
      fills++;
      if (curve.complete) {
        expect(fill.base).toBe(before);
        expect(fill.quote).toBeLessThanOrEqual(5n * SOL);
      } else {
        expect(curve.realBase).toBeGreaterThan(0n);
      }
    }
    expect(fills).toBe(18);
    expect(curve.realBase).toBe(0n);
    expect(curveProgressPct(curve)).toBe(100);
    expect(curve.virtualBase).toBe(PUMP_INITIAL_VIRTUAL_BASE_RAW - PUMP_INITIAL_REAL_BASE_RAW);
    // About 85 SOL raised.
    expect(Number(curve.realQuote) / 1e9).toBeGreaterThan(85);
    expect(Number(curve.realQuote) / 1e9).toBeLessThan(85.01);
    expect(curveBuy(curve, SOL)).toBeNull();
    expect(curveSell(curve, 1_000_000n)).toBeNull();
  });

  it('charges the last buy exactly the price of the tokens left', () => {
    const curve = newCurve();
    const cost = curveBuyCost(curve, PUMP_INITIAL_REAL_BASE_RAW);
    const fill = curveBuy(curve, 100n * SOL)!;
    expect(fill).toEqual({ base: PUMP_INITIAL_REAL_BASE_RAW, quote: cost });
    // ceil(30 SOL · 793.1M / 279.9M)
    expect(cost).toBe((30n * SOL * 793_100_000n + 279_900_000n - 1n) / 279_900_000n);
    expect(curve.complete).toBe(true);
  });

  it('gives a graduation market cap of ~410.9 SOL that the AMM pool carries over', () => {
    const curve = newCurve();
    curveBuy(curve, 100n * SOL);
    const finalPrice = curvePriceSol(curve);
    expect(curveMarketCapSol(curve)).toBeCloseTo(410.9, 0);
    expect(curveMarketCapSol(curve) * 150).toBeGreaterThan(61_000);
    const ammPrice = Number(curve.realQuote) / 1e9 / (Number(PUMP_MIGRATION_BASE_RAW) / 1e6);
    expect(Math.abs(ammPrice / finalPrice - 1)).toBeLessThan(0.001);
  });

  it('never lets k decrease and never pays out more SOL than it holds', () => {
    const rng = new Rng(11);
    const curve = newCurve();
    const held: bigint[] = [];
    let k = curve.virtualBase * curve.virtualQuote;
    for (let i = 0; i < 2_000 && !curve.complete; i++) {
      if (held.length === 0 || rng.chance(0.55)) {
        const fill = curveBuy(curve, BigInt(Math.floor(rng.range(0.01, 3) * 1e9)));
        if (fill) held.push(fill.base);
      } else {
        const base = held.splice(rng.int(held.length), 1)[0]!;
        const before = curve.realQuote;
        const fill = curveSell(curve, base)!;
        expect(fill.quote).toBeLessThanOrEqual(before);
      }
      const next = curve.virtualBase * curve.virtualQuote;
      expect(next).toBeGreaterThanOrEqual(k);
      k = next;
      expect(curve.virtualBase - curve.realBase).toBe(PUMP_INITIAL_VIRTUAL_BASE_RAW - PUMP_INITIAL_REAL_BASE_RAW);
      expect(curve.virtualQuote - curve.realQuote).toBe(PUMP_INITIAL_VIRTUAL_QUOTE_RAW);
    }
  });

  it('returns no more than was paid for a round trip', () => {
    const curve = newCurve();
    const bought = curveBuy(curve, 3n * SOL)!;
    const sold = curveSell(curve, bought.base)!;
    expect(sold.quote).toBeLessThanOrEqual(3n * SOL);
    expect(sold.quote).toBeGreaterThan(3n * SOL - 10n);
  });
});

describe('constant-product pool', () => {
  it('keeps the LP fee in the pool', () => {
    const pool: AmmState = { base: 206_900_000_000_000n, quote: 85n * SOL, lpFeeBps: 20n };
    const k0 = pool.base * pool.quote;
    const fill = ammBuy(pool, SOL)!;
    const noFee = (206_900_000_000_000n * SOL) / (86n * SOL);
    expect(fill.base).toBeLessThan(noFee);
    expect(pool.quote).toBe(86n * SOL);
    expect(pool.base * pool.quote).toBeGreaterThan(k0);
    const back = ammSell(pool, fill.base)!;
    expect(back.quote).toBeLessThan(SOL);
    expect(pool.base).toBe(206_900_000_000_000n);
  });
});

describe('addresses and signatures', () => {
  it('makes 32-byte base58 addresses of 43-44 characters', () => {
    const rng = new Rng(3);
    const lengths = new Set<number>();
    for (let i = 0; i < 3_000; i++) {
      const address = randomAddress(rng, i % 3 === 0 ? 'pump' : '');
      lengths.add(address.length);
      const bytes = decodeBase58(address);
      expect(bytes.length).toBe(32);
      expect(encodeBase58(bytes)).toBe(address);
      if (i % 3 === 0) expect(address.endsWith('pump')).toBe(true);
    }
    expect([...lengths].sort()).toEqual([43, 44]);
    const stock = randomAddress(rng, '', 'Xs');
    expect(stock.startsWith('Xs')).toBe(true);
    expect(decodeBase58(stock).length).toBe(32);
  });

  it('makes unique 64-byte signatures of 87-88 characters, unique in their first 24', () => {
    const hashes = new TxHashes(new Rng(5));
    const prefixes = new Set<string>();
    const lengths = new Set<number>();
    for (let i = 0; i < 100_000; i++) {
      const hash = hashes.next();
      // The engine's dedup index keeps a signature's first 24 characters.
      prefixes.add(hash.slice(0, 24));
      lengths.add(hash.length);
      if (i % 100 === 0 && decodeBase58(hash).length !== 64) throw new Error(`${hash} is not 64 bytes`);
    }
    expect(prefixes.size).toBe(100_000);
    expect([...lengths].sort()).toEqual([87, 88]);
  });
});

describe('rng', () => {
  it('is deterministic per seed and uniform enough', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const xs = Array.from({ length: 1_000 }, () => a.u32());
    expect(Array.from({ length: 1_000 }, () => b.u32())).toEqual(xs);
    expect(Array.from({ length: 1_000 }, () => c.u32())).not.toEqual(xs);
    const rng = new Rng(1);
    let sum = 0;
    let poisson = 0;
    let min = 1;
    let max = 0;
    for (let i = 0; i < 20_000; i++) {
      const x = rng.float();
      min = Math.min(min, x);
      max = Math.max(max, x);
      sum += x;
      poisson += rng.poisson(4);
    }
    expect(min).toBeGreaterThanOrEqual(0);
    expect(max).toBeLessThan(1);
    expect(sum / 20_000).toBeCloseTo(0.5, 1);
    expect(poisson / 20_000).toBeCloseTo(4, 0);
  });
});
