import { memoryTrades, murmur3, type PoolState } from '../../actors/index.ts';
import { TRADE, type StoredTrade, type TradeSpan } from '../model/index.ts';

/**
 * The streams trade lists are merged from (engine/query/trades.ts): a pool's stored
 * blocks and its trades still in memory, and which pools hold a wallet's trades in
 * memory only.
 */

/** Trade history served: the last 30 days (SERVICE.md 4.1). */
export const TRADE_HISTORY_MS = 30 * 86_400_000;
/** Without start_time, trade lists cover the last 24 hours (SERVICE.md 4.1). */
export const TRADE_DEFAULT_WINDOW_MS = 86_400_000;

/** Moved to actors/pool (the 1s and 15s candles read them too); named here for the trade lists. */
export { memoryTrades, poolTrades } from '../../actors/index.ts';

/**
 * At most `limit` items, and whether there are more. A source left with more is
 * returned (closed): its LMDB range iterators end their read transactions, which an
 * abandoned iterator holds for good (and with it every page freed since: the data file
 * grew ~5 GiB an hour under one client paging a pool's trades, bench/serve-memory.ts).
 */
export function take<T>(source: Iterator<T>, limit: number): { items: T[]; hasMore: boolean } {
  const items: T[] = [];
  for (;;) {
    const next = source.next();
    if (next.done) return { items, hasMore: false };
    if (items.length === limit) {
      source.return?.();
      return { items, hasMore: true };
    }
    items.push(next.value);
  }
}

/** Generations RecentWalletPools keeps (one a checkpoint). */
const GENERATIONS = 3;
/** Chains of a generation (a power of two): a wallet's pairs are found by a hash of its address. */
const CHAINS = 1 << 17;

/**
 * One generation of RecentWalletPools: (wallet, pool) pairs in typed arrays, each its
 * wallet's 32-bit hash, its pool's index in `pools` and the next pair of its chain
 * (-1: none). Keyed by the addresses, a map of every wallet that traded over three
 * checkpoints held 61 MiB of tables 3 minutes into `mds replay` of 1M swaps over 50,000
 * pools, and grew with history (a replay's checkpoints take longer as history grows,
 * and its generations with them; bench/README.md, market): here a pair is 12 bytes, a
 * pool traded in the generation its Map entry, the wallets' addresses are not kept.
 */
class Generation {
  readonly heads = new Int32Array(CHAINS).fill(-1);
  hash = new Int32Array(1024);
  pool = new Int32Array(1024);
  next = new Int32Array(1024);
  size = 0;
  readonly poolIds = new Map<string, number>();
  readonly pools: string[] = [];

  note(h: number, address: string): void {
    let id = this.poolIds.get(address);
    if (id === undefined) {
      id = this.pools.length;
      this.poolIds.set(address, id);
      this.pools.push(address);
    }
    const c = h & (CHAINS - 1);
    for (let i = this.heads[c]!; i >= 0; i = this.next[i]!) if (this.hash[i] === h && this.pool[i] === id) return;
    if (this.size === this.hash.length) {
      this.hash = grow(this.hash);
      this.pool = grow(this.pool);
      this.next = grow(this.next);
    }
    const i = this.size++;
    this.hash[i] = h;
    this.pool[i] = id;
    this.next[i] = this.heads[c]!;
    this.heads[c] = i;
  }

  into(h: number, out: Set<string>): void {
    for (let i = this.heads[h & (CHAINS - 1)]!; i >= 0; i = this.next[i]!) if (this.hash[i] === h) out.add(this.pools[this.pool[i]!]!);
  }
}

function grow(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * Which pools may hold a wallet's trades in memory only (a pool's unsaved log, or the
 * batch being written: pool.actor.ts), for GET /wallets/{wallet}/trades: the stored
 * ones are in the wallet index (storage/wallet-index.ts). Each trade notes its pool
 * under its wallet (by a hash of the address: Generation) in the current generation;
 * every checkpoint starts a new one and drops the oldest of GENERATIONS. A trade leaves
 * memory at the commit of its pool's first write after it was applied: at the next
 * checkpoint, or the one after when a write was still in flight at that one. Another
 * wallet of the same 32-bit hash would add its pools to `pools`: the reads filter each
 * pool's trades by wallet, so such a pool costs a read and gives nothing. Per trade: the
 * address's hash, a map lookup of the pool and a walk of a chain (pairs / 2^17 long).
 */
export class RecentWalletPools {
  private generations: Generation[] = [new Generation()];

  note(wallet: string, pool: string): void {
    this.generations[0]!.note(hashOf(wallet), pool);
  }

  /** A checkpoint starts. */
  rotate(): void {
    this.generations.unshift(new Generation());
    if (this.generations.length > GENERATIONS) this.generations.pop();
  }

  pools(wallet: string): Set<string> {
    const out = new Set<string>();
    const h = hashOf(wallet);
    for (const g of this.generations) g.into(h, out);
    return out;
  }
}

/** The address's 32-bit hash as the pairs hold it (signed, an Int32Array's). */
const hashOf = (address: string): number => murmur3(address) | 0;

/** The wallet's trades among a pool's trades in memory (unsaved, and being written), in the window's order. */
export function* walletTradesInMemory(state: PoolState, wallet: string, w: TradeSpan): Generator<StoredTrade> {
  for (const t of memoryTrades(state, w)) if (t[TRADE.wallet] === wallet) yield t;
}
