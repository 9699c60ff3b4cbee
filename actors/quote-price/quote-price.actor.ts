import type { ActorBehavior } from '../../engine/supervisor/index.ts';
import { applyQuotePrice, initialQuotePrice, type QuotePriceState } from './quote-price.logic.ts';
import { quotePriceMachine } from './quote-price.machine.ts';

/** One actor per quote asset (wSOL, USDC...), keyed by its mint. */
export const quotePriceBehavior: ActorBehavior<QuotePriceState> = {
  kind: 'quote-price',
  takes: ['quote_price'],
  machine: quotePriceMachine,
  route: (event) => (event.type === 'quote_price' ? event.quote_address : undefined),
  initial: initialQuotePrice,
  apply(state, event) {
    if (event.type !== 'quote_price') return;
    const wasUnpriced = state.times.length === 0;
    applyQuotePrice(state, event);
    if (wasUnpriced) return { type: 'quote.priced' };
  },
};
