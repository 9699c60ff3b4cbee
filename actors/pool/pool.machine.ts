import { setup } from 'xstate';

/**
 * A pool's lifecycle (SERVICE.md 3.1): a bonding curve trades until its real base
 * reserve reaches 0 (complete), then graduates when its migration names the AMM pool
 * that replaces it; other pools just trade.
 */
export const poolMachine = setup({
  types: {
    events: {} as
      | { type: 'pool.created'; curve: boolean }
      | { type: 'pool.completed' }
      | { type: 'pool.graduated' },
  },
}).createMachine({
  id: 'pool',
  initial: 'unknown',
  states: {
    /** Swaps seen before the pool event. */
    unknown: {
      on: {
        'pool.created': [{ guard: ({ event }) => event.curve, target: 'curve' }, { target: 'trading' }],
        'pool.graduated': 'graduated',
      },
    },
    curve: { on: { 'pool.completed': 'complete', 'pool.graduated': 'graduated' } },
    complete: { on: { 'pool.graduated': 'graduated' } },
    graduated: { type: 'final' },
    trading: {},
  },
});
