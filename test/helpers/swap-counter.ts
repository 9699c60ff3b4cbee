import type { ActorBehavior } from '../../engine/supervisor/behavior.ts';

/** A test actor kind: swaps applied per pool. An event applied twice shows here. */
export const swapCounter: ActorBehavior<{ swaps: number }> = {
  kind: 'swap-counter',
  route: (e) => (e.type === 'swap' ? e.pool_address : undefined),
  initial: () => ({ swaps: 0 }),
  apply(state) {
    state.swaps++;
  },
};
