/** The actor kinds the engine runs by default. */
export { quotePriceBehavior } from './quote-price/quote-price.actor.ts';
export { latestQuotePrice, quotePriceAt, type QuotePriceState } from './quote-price/quote-price.logic.ts';
export { createPoolBehavior } from './pool/pool.actor.ts';
export { createTokenBehavior, tokenBehavior } from './token/token.actor.ts';
export type { PoolState } from './pool/pool.logic.ts';
export type { TokenState } from './token/token.logic.ts';
