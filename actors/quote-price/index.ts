/** The entry point of actors/quote-price/: what other folders may import from it (STYLE.md 3). */
export { quotePriceBehavior } from './quote-price.actor.ts';
export { latestQuotePrice, quotePriceAt, type QuotePriceState } from './quote-price.logic.ts';
