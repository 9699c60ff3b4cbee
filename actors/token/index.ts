/** The entry point of actors/token/: what other folders may import from it (STYLE.md 3). */
export { type HolderPosition } from './holder-order.ts';
export { DEFAULT_SNIPER_SLOTS, type Holding } from './holders.ts';
export { createTokenBehavior, tokenBehavior } from './token.actor.ts';
export { decimalsOf, heldByHolders, holderStats, metadataRecord, notHolders, rawSupplyOf, supplyOf, STOCK_TAG, tagsOf, tokenName, tokenObject, type TokenState } from './token.logic.ts';
