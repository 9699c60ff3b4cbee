import { describe, expect, it } from 'vitest';
import type { PoolState } from '../../../actors/pool/pool.logic.ts';
import { tradeJson, tradeRecord } from '../../../engine/model/index.ts';
import type { StoredTrade } from '../../../engine/model/index.ts';
import { base58, rng } from '../../helpers/fixtures.ts';

const random = rng(4_242);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const NUMBERS = [0, -0, 1, 0.1, 1 / 3, 123_456_789.123, 1e21, 1e-7, 2 ** 53 + 2, Number.NaN, Infinity, -Infinity, 5e-324, 1.7976931348623157e308];
const number = () => (random() < 0.5 ? pick(NUMBERS) : (random() - 0.2) * 10 ** Math.floor(random() * 30 - 10));

function pool(dex: string): PoolState {
  const info = { pool_address: base58(random, 44), base_address: base58(random, 44), quote_address: base58(random, 43), dex };
  return { info } as unknown as PoolState;
}

function trade(): StoredTrade {
  return [
    Math.floor(random() * 2e12), Math.floor(random() * 4e8), Math.floor(random() * 5_000), Math.floor(random() * 30), random() < 0.5 ? 1 : 0,
    base58(random, 44), number(), number(), number(), random() < 0.3 ? null : number(), number(), base58(random, 88),
  ];
}

describe('tradeJson', () => {
  it('writes the bytes of JSON.stringify(tradeRecord) from either side, for odd numbers, dex names and labels', () => {
    const dexes = ['pumpfun', 'raydium "cpmm"', 'méteora\\dlmm', 'line\nbreak\u0001', '🚀'];
    const labelSets = [[], ['kol'], ['smart_money', 'sniper'], ['"quoted"', 'back\\slash', 'ünï']];
    for (let i = 0; i < 2_000; i++) {
      const p = pool(pick(dexes));
      const t = trade();
      const token = random() < 0.5 ? p.info!.base_address : p.info!.quote_address;
      const supply = random() < 0.5 ? null : number();
      const labels = pick(labelSets);
      expect(tradeJson(t, p, token, supply, labels)).toBe(JSON.stringify(tradeRecord(t, p, token, supply, labels)));
    }
  });
});
