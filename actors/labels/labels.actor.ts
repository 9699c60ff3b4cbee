import type { LabelEvent } from '../../engine/ingest/index.ts';
import type { ActorBehavior } from '../../engine/supervisor/index.ts';

/**
 * The labels of one wallet (kol, smart_money, whale, ...), from `label` events: one
 * actor per labeled wallet. Each label keeps its latest add or remove by `at` (ties:
 * remove wins), so any arrival order gives the same labels. Trade records carry the
 * wallet's labels (SERVICE.md 2.8) as they are when the record is built.
 */
export interface WalletLabelsState {
  wallet_address: string;
  labels: Record<string, { on: boolean; at: number; detail: unknown }>;
}

export function applyLabel(state: WalletLabelsState, e: LabelEvent): void {
  const current = state.labels[e.label];
  const on = e.action === 'add';
  if (current && (current.at > e.at || (current.at === e.at && !current.on))) return;
  state.labels[e.label] = { on, at: e.at, detail: e.detail ?? null };
}

/** The wallet's labels in force, sorted; [] for none. */
export function activeLabels(state: Readonly<WalletLabelsState> | undefined): string[] {
  if (!state) return [];
  const out: string[] = [];
  for (const [label, value] of Object.entries(state.labels)) if (value.on) out.push(label);
  return out.sort();
}

export const walletLabelsBehavior: ActorBehavior<WalletLabelsState> = {
  kind: 'wallet-labels',
  takes: ['label'],
  route: (e) => (e.type === 'label' ? e.wallet_address : undefined),
  initial: (wallet_address) => ({ wallet_address, labels: {} }),
  apply(state, e) {
    if (e.type === 'label') applyLabel(state, e);
  },
};
