import { activeLabels, type WalletLabelsState } from '../../actors/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { ActorReader } from './state.ts';

/**
 * The labeled wallets (route 19, GET /v1/wallets; the labeled activity and markers): the
 * labels actors are one per wallet, so this index keeps which wallets have a label in
 * force, in `labels` (LMDB) and in memory:
 *   [0, wallet]          → its labels in force (sorted): every labeled wallet
 *   [label, wallet]      → true: the wallets of one label
 * It follows every `label` event once the labels actor applied it (start-up replay
 * included), bringing the wallet's entries to its labels now: the same index whatever
 * the arrival order, and a restart reads it back. The in-memory map answers "is this
 * trader labeled" for every trade without touching the labels actors (a lookup in a
 * map of the labeled wallets, thousands, not one per trader).
 */

/** A route 19 item. */
export interface LabeledWalletItem {
  wallet_address: string;
  /** The labels in force, by name: `detail` as the label event gave it, `labeled_at` its time. */
  labels: Array<{ label: string; detail: unknown; labeled_at: number }>;
}

/** What a label event changed on its wallet. */
export interface LabelChange {
  wallet: string;
  added: string[];
  removed: string[];
}

const EVERY = 0;

export class LabeledWallets {
  /** wallet → labels in force (sorted); only wallets with one. */
  private readonly inForce = new Map<string, string[]>();

  constructor(
    private readonly storage: Pick<Storage, 'labels'>,
    private readonly actors: ActorReader<WalletLabelsState>,
  ) {
    for (const { key, value } of storage.labels.getRange({ start: [EVERY], end: [EVERY, '\uffff'] })) {
      this.inForce.set((key as [number, string])[1], value as string[]);
    }
  }

  /** The labels in force on a wallet (sorted), or undefined for an unlabeled one. */
  labelsOf(wallet: string): readonly string[] | undefined {
    return this.inForce.get(wallet);
  }

  /** Every label in force on a wallet, with its detail (the labels actor's). */
  labelDetails(wallet: string): Array<{ label: string; detail: unknown }> {
    const state = this.actors.get(wallet);
    const labels = this.inForce.get(wallet);
    if (!labels || !state) return [];
    return labels.map((label) => ({ label, detail: state.labels[label]?.detail ?? null }));
  }

  /** After the labels actor applied a label event of `wallet`: the index follows; returns what changed. */
  follow(wallet: string): LabelChange {
    const now = activeLabels(this.actors.get(wallet));
    const before = this.inForce.get(wallet) ?? [];
    const added = now.filter((l) => !before.includes(l));
    const removed = before.filter((l) => !now.includes(l));
    if (added.length === 0 && removed.length === 0) return { wallet, added, removed };
    const db = this.storage.labels;
    for (const label of removed) void db.remove([label, wallet]);
    for (const label of added) void db.put([label, wallet], true);
    if (now.length === 0) {
      this.inForce.delete(wallet);
      void db.remove([EVERY, wallet]);
    } else {
      this.inForce.set(wallet, now);
      void db.put([EVERY, wallet], now);
    }
    return { wallet, added, removed };
  }

  /** Route 19: labeled wallets (of `label`, or all), by address, after `after`. */
  list(label: string | undefined, limit: number, after: string | undefined): { items: LabeledWalletItem[]; next: string | null } {
    const prefix = label ?? EVERY;
    const items: LabeledWalletItem[] = [];
    let more = false;
    for (const key of this.storage.labels.getKeys({ start: [prefix, after ?? ''], end: [prefix, '\uffff'] })) {
      const wallet = (key as [unknown, string])[1];
      if (wallet === after) continue;
      if (items.length === limit) {
        more = true;
        break;
      }
      const state = this.actors.get(wallet);
      const labels = this.inForce.get(wallet) ?? [];
      items.push({
        wallet_address: wallet,
        labels: labels.map((l) => ({ label: l, detail: state?.labels[l]?.detail ?? null, labeled_at: state?.labels[l]?.at ?? 0 })),
      });
    }
    return { items, next: more ? items[items.length - 1]!.wallet_address : null };
  }
}
