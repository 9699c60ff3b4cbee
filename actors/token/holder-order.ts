import sortedBtree from 'sorted-btree';
import { bulkLoad } from 'sorted-btree/extended/bulkLoad.js';
import { HOLDER_LOG_MAX } from '../../engine/bounds.ts';

/**
 * A token's holders in list order (GET /tokens/{token}/holders: largest balance first,
 * ties by wallet address ascending), kept by the token's Holders while a read uses it,
 * and the log of recent balance changes that makes a walk over pages show each holder
 * at most once while balances change.
 *
 * The order is a B+ tree (sorted-btree) of the holdings (balance above 0), each placed
 * at its balance then, made on a token's first list read (a sort, then a bulk load:
 * O(holders × log holders)). A balance change costs the token a Map insertion and a
 * log entry; the next read moves the holdings changed since (a delete and an insert
 * each, O(log holders)), or makes the tree again when more than a quarter moved. So a
 * read costs O(min(changes since the last read, holders) × log holders) on top of its
 * page. The order is not in the snapshot: a passivated or restarted token makes it
 * again on its next read, and a token nobody lists pays nothing for it. Holders drops
 * an order no read used for as many changes as it has holders (and at least
 * HOLDER_LOG_MAX): its memory goes back, and the next read makes it again for about
 * what moving that many holdings would have cost.
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

type BTree<K, V> = InstanceType<typeof sortedBtree.default<K, V>>;
/** Keys per node: sorted-btree's own default. */
const NODE_SIZE = 32;

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

/** A holding where the order placed it: its balance then (the tree's key must not change while in it). */
interface Placed<H> {
  readonly balance: number;
  readonly wallet: string;
  readonly h: H;
}

export class HolderOrder<H extends Ranked> {
  private tree: BTree<Placed<H>, undefined>;
  /** Holdings changed since the tree was last brought up to date, with the balance each is placed at (0: not in it). */
  private readonly moved = new Map<H, number>();
  private readonly logWallets: string[] = [];
  private readonly logBefore = new Float64Array(HOLDER_LOG_MAX);
  /** The change count when the order was made: the log holds every change after it (up to HOLDER_LOG_MAX of them). */
  private readonly from: number;

  /**
   * `holdings()`: every holding with a balance above 0, in a new array (read again when
   * so many moved that making the tree again is cheaper); `changes`: the holders' change
   * count now.
   */
  constructor(private readonly holdings: () => H[], private changes: number) {
    this.tree = build(holdings());
    this.from = changes;
  }

  /** Holdings in the order, brought up to date. */
  get size(): number {
    this.settle();
    return this.tree.size;
  }

  /**
   * A holding's balance changed (it holds its new balance now; `before` is the old one,
   * `change` the change's number). Logged; the tree follows at the next read (settle).
   */
  changed(h: H, before: number, change: number): void {
    if (!this.moved.has(h)) this.moved.set(h, before);
    this.changes = change;
    const i = (change - this.from - 1) % HOLDER_LOG_MAX;
    this.logWallets[i] = h.wallet;
    this.logBefore[i] = before;
  }

  /**
   * Brings the tree up to date: each holding moved since the last read out of its old
   * place and into its new one (a delete and an insert, O(log n) each), or the tree
   * made again when more than a quarter of it moved. So a balance event costs a Map
   * insertion, and a read O(min(moved, n) × log n).
   */
  private settle(): void {
    const moved = this.moved;
    if (moved.size === 0) return;
    if (moved.size > this.tree.size / 4) {
      this.tree = build(this.holdings());
    } else {
      for (const [h, placed] of moved) {
        if (placed > 0) this.tree.delete({ balance: placed, wallet: h.wallet, h });
        if (h.balance > 0) this.tree.set({ balance: h.balance, wallet: h.wallet, h }, undefined);
      }
    }
    moved.clear();
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
    this.settle();
    // keys(low) starts at the first key >= low: the position itself, if a holding is still there, is skipped.
    const probe = after === undefined ? undefined : { balance: after.balance, wallet: after.wallet, h: undefined as unknown as H };
    for (const placed of this.tree.keys(probe)) {
      if (after === undefined || compareRanked(placed, after) > 0) yield placed.h;
    }
  }
}

/** A tree of `holdings` in list order: a sort, then a bulk load (O(n) past the sort). */
function build<H extends Ranked>(holdings: H[]): BTree<Placed<H>, undefined> {
  const placed = holdings.map((h): Placed<H> => ({ balance: h.balance, wallet: h.wallet, h })).sort(compareRanked);
  return bulkLoad<Placed<H>, undefined>(placed, new Array<undefined>(placed.length), NODE_SIZE, compareRanked);
}
