/** The actor kinds the engine runs by default. */
export { quotePriceBehavior } from './quote-price/quote-price.actor.ts';
export { latestQuotePrice, quotePriceAt, type QuotePriceState } from './quote-price/quote-price.logic.ts';
