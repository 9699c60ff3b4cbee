import { WSOL } from '../../../engine/model/index.ts';
import { describe, expect, it } from 'vitest';
import { QUOTE_PRICE_RETENTION_MS, applyQuotePrice, initialQuotePrice, latestQuotePrice, quotePriceAt } from '../../../actors/quote-price/quote-price.logic.ts';

const price = (at: number, price_usd: number) => ({ type: 'quote_price' as const, quote_address: WSOL, price_usd, at });

describe('quote price logic', () => {
  it('keeps points in time order whatever the arrival order, and answers the price at a time', () => {
    const s = initialQuotePrice(WSOL);
    expect(latestQuotePrice(s)).toBeNull();
    for (const [at, p] of [[3_000, 3], [1_000, 1], [2_000, 2], [2_000, 2.5]] as const) applyQuotePrice(s, price(at, p));
    expect(s.times).toEqual([1_000, 2_000, 3_000]);
    expect(s.prices).toEqual([1, 2.5, 3]);
    expect(latestQuotePrice(s)).toEqual({ price_usd: 3, at: 3_000 });
    expect(quotePriceAt(s, 999)).toBeNull();
    expect(quotePriceAt(s, 1_000)).toBe(1);
    expect(quotePriceAt(s, 2_999)).toBe(2.5);
    expect(quotePriceAt(s, 10_000)).toBe(3);
  });

  it('drops points older than the retention before the newest', () => {
    const s = initialQuotePrice(WSOL);
    applyQuotePrice(s, price(0, 1));
    applyQuotePrice(s, price(1_000, 2));
    applyQuotePrice(s, price(QUOTE_PRICE_RETENTION_MS + 500, 3));
    expect(s.times).toEqual([1_000, QUOTE_PRICE_RETENTION_MS + 500]);
  });
});
