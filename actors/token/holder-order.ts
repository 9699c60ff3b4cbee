import sortedBtree from 'sorted-btree';
import { HOLDER_LOG_MAX } from '../../engine/bounds.ts';

/**
 * A token's holders in list order (GET /tokens/{token}/holders: largest balance first,
 * ties by wallet address ascending), kept by the token's Holders while a read uses it,
 * and the log of recent balance changes that makes a walk over pages show each holder
 * at most once while balances change.
 *
 * The order is a B+ tree (sorted-btree) of the holdings themselves (balance above 0),
 * made on the first list read of a token, O(holders × log holders) once, and kept up
 * to date from then on: a balance change is one delete and one insert, O(log holders).
 * It is not in the snapshot: a passivated or restarted token makes it again on its
 * next read, and a token nobody lists pays nothing for it.
 *
 * A walk: the first page is read at the holders' change count S0 (every balance change
 * counts one); a page ends at a position P (balance, wallet: the last holding it looked
 * at), and the next page takes the holdings after P in list order now, leaving out any
 * holding that may have been shown already. A holding shown on an earlier page was at or
 * before that page's end, so at or before P, at the time of that read, after S0: either
 * it has not changed since S0 (it is still at or before P, so not after it) or one of
 * the balances it had since S0 was at or before P. The log keeps, for each of the last
 * HOLDER_LOG_MAX changes, the wallet and its balance before the change; a holding is
 * left out when one of those balances since S0 sorts at or before P. When the log does
 * not reach back to S0 (too many changes since, or the order was made after S0: a
 * restart, a passivation), every holding changed since S0 is left out (Holding.changed).
 * Either way a holder is shown at most once per walk; one whose balance changed during
 * the walk may be left out of it.
 */

type BTreeClass = typeof sortedBtree.default;
// Node's ESM loader gives a CommonJS module's exports object as its default import,
// vite (vitest) that object's `default`: the class either way.
const BTree: BTreeClass = (sortedBtree as { default?: BTreeClass }).default ?? (sortedBtree as unknown as BTreeClass);

/** What the order sorts: a holding, by balance (raw units) then wallet. */
export interface Ranked {
  readonly wallet: string;
  readonly balance: number;
}

/** Largest balance first; ties by wallet address ascending (code unit order: base58 is ASCII). */
export function compareRanked(a: Ranked, b: Ranked): number {
  return b.balance - a.balance || (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0);
}

/** Where a page ended: a position in list order. */
export interface HolderPosition {
  balance: number;
  wallet: string;
}

export class HolderOrder<H extends Ranked> {
  private readonly tree;
  private readonly logWallets: string[] = [];
  private readonly logBefore = new Float64Array(HOLDER_LOG_MAX);

  /** `holdings`: every holding with a balance above 0; `changes`: the holders' change count now. */
  constructor(holdings: Iterable<H>, private changes: number) {
    this.tree = new BTree<H, undefined>(undefined, compareRanked);
    for (const h of holdings) this.tree.set(h, undefined);
    this.from = changes;
  }

  /** The change count when the order was made: the log holds every change after it (up to HOLDER_LOG_MAX of them). */
  private readonly from: number;

  get size(): number {
    return this.tree.size;
  }

  /** Before a holding's balance changes (it must still have its old balance). */
  remove(h: H): void {
    if (h.balance > 0) this.tree.delete(h);
  }

  /** After the change: the holding with its new balance, its balance before, and the change's number. */
  add(h: H, before: number, change: number): void {
    if (h.balance > 0) this.tree.set(h, undefined);
    this.changes = change;
    const i = (change - this.from - 1) % HOLDER_LOG_MAX;
    this.logWallets[i] = h.wallet;
    this.logBefore[i] = before;
  }

  /**
   * The wallets to leave out of a page after `after` of a walk begun at change `since`
   * (see the file comment), or null when the log does not reach back to `since`: then
   * every holding changed after `since` is left out.
   */
  shownBefore(since: number, after: HolderPosition): Set<string> | null {
    if (since < this.from || this.changes - since > HOLDER_LOG_MAX) return null;
    const out = new Set<string>();
    for (let n = since + 1; n <= this.changes; n++) {
      const i = (n - this.from - 1) % HOLDER_LOG_MAX;
      const before = this.logBefore[i]!;
      const wallet = this.logWallets[i]!;
      if (before > 0 && compareRanked({ balance: before, wallet }, after) <= 0) out.add(wallet);
    }
    return out;
  }

  /** The holdings in list order, strictly after `after` (from the first without it). */
  *after(after: HolderPosition | undefined): Generator<H> {
    if (after === undefined) {
      yield* this.tree.keys();
      return;
    }
    // entries(low) starts at the first key >= low: the position's own holding, if it is still there, is skipped.
    const probe = after as unknown as H;
    for (const h of this.tree.keys(probe)) {
      if (compareRanked(h, after) > 0) yield h;
    }
  }
}
