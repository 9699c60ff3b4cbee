import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WSOL } from '../../../engine/model/index.ts';
import { PYTH_SOL_USD_FEED, readPriceUpdate, solPriceEvent } from '../../../engine/sources/solana/pyth.ts';
import { priceUpdateV2 } from '../../helpers/solana.ts';

describe("SOL/USD from Pyth's PriceUpdateV2 account", () => {
  it('reads the price, exponent and publish time after either verification level', () => {
    for (const partial of [false, true]) {
      const data = priceUpdateV2({ feed: PYTH_SOL_USD_FEED, price: 14_523_456_789n, exponent: -8, publishTime: 1_767_225_600, partial });
      expect(readPriceUpdate(data)).toEqual({ feedId: PYTH_SOL_USD_FEED, price: 14_523_456_789n, conf: 1_000_000n, exponent: -8, publishTime: 1_767_225_600, postedSlot: 380_000_000n });
      expect(solPriceEvent(data)).toEqual({ type: 'quote_price', quote_address: WSOL, price_usd: 145.23456789, at: 1_767_225_600_000 });
    }
  });

  it('another feed, a price not above 0, another account: each a reason', () => {
    expect(solPriceEvent(priceUpdateV2({ feed: 'ab'.repeat(32), price: 1n, exponent: 0, publishTime: 1 }))).toEqual({ error: `Pyth feed ${'ab'.repeat(32)} is not SOL/USD` });
    expect(solPriceEvent(priceUpdateV2({ feed: PYTH_SOL_USD_FEED, price: -5n, exponent: -8, publishTime: 1 }))).toEqual({ error: 'Pyth SOL/USD price -5 is not positive' });
    expect(solPriceEvent(Buffer.alloc(200))).toEqual({ error: 'not a Pyth PriceUpdateV2 account' });
  });

  it('any truncation never throws: a price while the price message is whole, else the reason', () => {
    const data = priceUpdateV2({ feed: PYTH_SOL_USD_FEED, price: 14_523_456_789n, exponent: -8, publishTime: 1_767_225_600 });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: data.length }), (n) => {
        const event = solPriceEvent(data.subarray(0, n));
        if (n >= 8 + 32 + 1 + 32 + 28) expect(event).toMatchObject({ price_usd: 145.23456789 });
        else expect((event as { error: string }).error).toMatch(/PriceUpdateV2|not a Pyth/);
      }),
    );
  });
});
