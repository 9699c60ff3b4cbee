/** The entry point of engine/supervisor/: what other folders may import from it (STYLE.md 3). */
export { type ActorBehavior, type ActorContext, type ActorEvent } from './behavior.ts';
export { ResidentBytes } from './budget.ts';
export { combineBehaviors, type CombinedPart } from './combine.ts';
export { Checkpointer, checkpointOf, evictOverBound, farOverBound, latestAtOf, type SliceOptions } from './checkpoint.ts';
export { StaleEpochs } from './epochs.ts';
export { ActorHost } from './host.ts';
export { Router } from './router.ts';
