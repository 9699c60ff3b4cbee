import { setup } from 'xstate';

/** A quote asset is unpriced until its first quote_price event. */
export const quotePriceMachine = setup({
  types: { events: {} as { type: 'quote.priced' } },
}).createMachine({
  id: 'quotePrice',
  initial: 'unpriced',
  states: {
    unpriced: { on: { 'quote.priced': 'priced' } },
    priced: {},
  },
});
