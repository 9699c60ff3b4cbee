/** The entry point of actors/labels/: what other folders may import from it (STYLE.md 3). */
export { activeLabels, walletLabelsBehavior, type WalletLabelsState } from './labels.actor.ts';
