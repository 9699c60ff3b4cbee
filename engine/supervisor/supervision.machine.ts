import { assign, setup } from 'xstate';

/**
 * The supervisor's view of one actor: one-for-one restarts with a cap per window.
 * Advanced with xstate's pure `transition()` on crashes and restores only, never per
 * event; residents share the initial snapshot until their first crash.
 */
export const supervisionMachine = setup({
  types: {
    context: {} as { restarts: number[]; restartsMax: number; windowMs: number },
    input: {} as { restartsMax: number; windowMs: number },
    events: {} as { type: 'actor.crash'; at: number } | { type: 'actor.restored' },
  },
  guards: {
    tooManyRestarts: ({ context, event }) =>
      event.type === 'actor.crash' &&
      context.restarts.filter((t) => t > event.at - context.windowMs).length + 1 > context.restartsMax,
  },
  actions: {
    recordRestart: assign({
      restarts: ({ context, event }) =>
        event.type === 'actor.crash' ? [...context.restarts.filter((t) => t > event.at - context.windowMs), event.at] : context.restarts,
    }),
  },
}).createMachine({
  id: 'supervision',
  context: ({ input }) => ({ restarts: [], restartsMax: input.restartsMax, windowMs: input.windowMs }),
  initial: 'active',
  states: {
    active: {
      on: {
        'actor.crash': [
          { guard: 'tooManyRestarts', target: 'stopped' },
          { target: 'restarting', actions: 'recordRestart' },
        ],
      },
    },
    restarting: {
      on: {
        'actor.restored': 'active',
        'actor.crash': [{ guard: 'tooManyRestarts', target: 'stopped' }, { target: 'restarting', actions: 'recordRestart' }],
      },
    },
    /** Too many restarts in the window: events to it go to dead letters. */
    stopped: { type: 'final' },
  },
});
