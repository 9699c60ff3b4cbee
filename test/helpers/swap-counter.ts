import type { ActorBehavior } from '../../engine/supervisor/behavior.ts';

/** A test actor kind: swaps applied per pool (and their times). An event applied twice, or lost, shows here. */
export const swapCounter: ActorBehavior<{ swaps: number; ats: number[] }> = {
  kind: 'swap-counter',
  takes: ['swap'],
  route: (e) => (e.type === 'swap' ? e.pool_address : undefined),
  initial: () => ({ swaps: 0, ats: [] }),
  apply(state, e) {
    state.swaps++;
    state.ats.push(e.type === 'swap' ? e.at : -1);
  },
};
