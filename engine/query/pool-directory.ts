import type { PoolRecord } from './research-store.ts';

/**
 * The pool list behind GET /v1/pools (DECISIONS.md route 12): pools by base token,
 * by quote asset, by pair, or all, ordered by creation time, liquidity in USD or
 * all-time volume in USD.
 *
 * Order: the sort key in the requested direction, then pool_address in the same
 * direction (so that the creation order is one sorted array walked either way). A
 * page position is the key and address of the page's last pool; the next page is
 * every pool strictly after it. Creation times never change, so creation-ordered
 * pages tile the list exactly while pools are added: new pools are newer than any
 * position a client holds (desc) or land after it (asc), never twice, never lost.
 * Liquidity and volume move with trades: a pool whose key crosses the position
 * between two pages is skipped or seen twice; every other pool is seen exactly once.
 *
 * USD liquidity is liquidity_quote × the quote asset's USD price, computed when the
 * list is read, with the prices the caller passes: the first page uses the current
 * prices and its cursor carries them, so a SOL price tick between two pages does not
 * shift every position (the items still show current values). A pool quoted in a
 * token is valued at that token's USD price (its main pool's spot in a known mint, from
 * its search record, × that mint's price), as its snapshot is. A pool whose quote has
 * no USD price (a token without one, or before the first quote_price) sorts as 0.
 *
 * Cost: by base token, the token's pools (a handful); by creation time, a binary
 * search into the sorted array and a walk of about `limit` pools (more when a rare
 * quote filters it; a quote with few pools scans its own set instead); by liquidity
 * or volume, one pass over the candidates with a bounded top-k, ~1-3 ms per 100k.
 */

export type PoolSort = 'created_at' | 'liquidity_usd' | 'volume_usd';

/** USD price of a quote asset (wSOL, USDC, USDT, or a token), or null when unknown. */
export type PriceOf = (quote: string) => number | null;

export interface PoolPosition {
  key: number;
  pool_address: string;
}

export interface PoolListQuery {
  base?: string;
  quote?: string;
  sort: PoolSort;
  order: 'asc' | 'desc';
  limit: number;
  after?: PoolPosition;
}

export interface PoolListPage {
  pools: PoolRecord[];
  next: PoolPosition | null;
}

/** A quote's own set is scanned instead of walking the creation order when it holds less than this share of all pools. */
const QUOTE_SCAN_SHARE = 1 / 8;

/** Negative when (k1, a1) comes first in the order of `direction` (1 ascending, -1 descending). */
function compare(direction: 1 | -1, k1: number, a1: string, k2: number, a2: string): number {
  if (k1 !== k2) return k1 < k2 ? -direction : direction;
  return a1 === a2 ? 0 : a1 < a2 ? -direction : direction;
}

/** The first `size` items offered, in order, keeping only those that beat the current last. @internal */
class Top {
  readonly keys: number[] = [];
  readonly items: PoolRecord[] = [];
  constructor(private readonly size: number, private readonly direction: 1 | -1) {}

  offer(key: number, item: PoolRecord): void {
    const n = this.items.length;
    const d = this.direction;
    if (n === this.size && compare(d, key, item.pool_address, this.keys[n - 1]!, this.items[n - 1]!.pool_address) >= 0) return;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(d, this.keys[mid]!, this.items[mid]!.pool_address, key, item.pool_address) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.keys.splice(lo, 0, key);
    this.items.splice(lo, 0, item);
    if (this.items.length > this.size) {
      this.keys.pop();
      this.items.pop();
    }
  }
}

/** Pools by address, base, quote and creation order; see the file comment. */
export class PoolDirectory {
  private readonly records = new Map<string, PoolRecord>();
  private readonly byBase = new Map<string, Set<string>>();
  private readonly byQuote = new Map<string, Set<string>>();
  /** Every pool, ascending by (created_at, pool_address): parallel arrays. */
  private readonly createdAt: number[] = [];
  private readonly createdIds: string[] = [];

  get size(): number {
    return this.records.size;
  }

  get(pool: string): PoolRecord | undefined {
    return this.records.get(pool);
  }

  /**
   * Adds many pools at once (start-up): one sort instead of an insert each, since
   * they come in address order, and inserting those one by one into the creation
   * order would cost a splice each (quadratic: minutes at 100k pools).
   */
  load(records: Iterable<PoolRecord>): void {
    const fresh: PoolRecord[] = [];
    for (const r of records) {
      if (this.records.has(r.pool_address)) this.upsert(r);
      else {
        this.records.set(r.pool_address, r);
        this.link(this.byBase, r.base_address, r.pool_address);
        this.link(this.byQuote, r.quote_address, r.pool_address);
        fresh.push(r);
      }
    }
    if (fresh.length === 0) return;
    const all = this.createdIds.map((id) => this.records.get(id)!).concat(fresh);
    all.sort((a, b) => compare(1, a.created_at, a.pool_address, b.created_at, b.pool_address));
    this.createdAt.length = 0;
    this.createdIds.length = 0;
    for (const r of all) {
      this.createdAt.push(r.created_at);
      this.createdIds.push(r.pool_address);
    }
  }

  /** Adds or replaces a pool's record. Pools are created in time order, so the insert is usually an append. */
  upsert(record: PoolRecord): void {
    const id = record.pool_address;
    const current = this.records.get(id);
    if (current) {
      if (current.base_address !== record.base_address) this.unlink(this.byBase, current.base_address, id);
      if (current.quote_address !== record.quote_address) this.unlink(this.byQuote, current.quote_address, id);
      if (current.created_at !== record.created_at) this.removeCreated(current);
    }
    this.records.set(id, record);
    this.link(this.byBase, record.base_address, id);
    this.link(this.byQuote, record.quote_address, id);
    if (!current || current.created_at !== record.created_at) this.insertCreated(record);
  }

  private link(map: Map<string, Set<string>>, key: string, id: string): void {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(id);
  }

  private unlink(map: Map<string, Set<string>>, key: string, id: string): void {
    const set = map.get(key);
    set?.delete(id);
    if (set?.size === 0) map.delete(key);
  }

  /** First index whose (created_at, id) is not before (at, id). */
  private lowerBound(at: number, id: string): number {
    let lo = 0;
    let hi = this.createdIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(1, this.createdAt[mid]!, this.createdIds[mid]!, at, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private insertCreated(r: PoolRecord): void {
    const n = this.createdIds.length;
    if (n === 0 || compare(1, this.createdAt[n - 1]!, this.createdIds[n - 1]!, r.created_at, r.pool_address) < 0) {
      this.createdAt.push(r.created_at);
      this.createdIds.push(r.pool_address);
      return;
    }
    const i = this.lowerBound(r.created_at, r.pool_address);
    this.createdAt.splice(i, 0, r.created_at);
    this.createdIds.splice(i, 0, r.pool_address);
  }

  private removeCreated(r: PoolRecord): void {
    const i = this.lowerBound(r.created_at, r.pool_address);
    if (this.createdIds[i] === r.pool_address) {
      this.createdAt.splice(i, 1);
      this.createdIds.splice(i, 1);
    }
  }

  /** One page of pools in the query's order, with the position of its last pool when more follow. */
  list(query: PoolListQuery, priceOf: PriceOf): PoolListPage {
    if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError(`limit must be a positive integer, got ${query.limit}`);
    const direction = query.order === 'asc' ? 1 : -1;
    const top = new Top(query.limit + 1, direction);
    const { base, quote, after } = query;
    const keyOf = this.keyOf(query.sort, priceOf);
    const visit = (r: PoolRecord): void => {
      if (quote !== undefined && r.quote_address !== quote) return;
      const key = keyOf(r);
      if (after !== undefined && compare(direction, key, r.pool_address, after.key, after.pool_address) <= 0) return;
      top.offer(key, r);
    };
    const quoteSet = quote === undefined ? undefined : this.byQuote.get(quote);
    if (base !== undefined) {
      for (const id of this.byBase.get(base) ?? []) visit(this.records.get(id)!);
    } else if (quote !== undefined && (quoteSet === undefined || query.sort !== 'created_at' || quoteSet.size < this.records.size * QUOTE_SCAN_SHARE)) {
      for (const id of quoteSet ?? []) visit(this.records.get(id)!);
    } else if (query.sort === 'created_at') {
      this.walkCreated(direction, after, query.limit + 1, quote, top);
    } else {
      for (const r of this.records.values()) visit(r);
    }
    const pools = top.items;
    if (pools.length <= query.limit) return { pools, next: null };
    const last = pools[query.limit - 1]!;
    return { pools: pools.slice(0, query.limit), next: { key: top.keys[query.limit - 1]!, pool_address: last.pool_address } };
  }

  /** Creation order from just after `after`, filtered by quote, until `count` pools are taken. */
  private walkCreated(direction: 1 | -1, after: PoolPosition | undefined, count: number, quote: string | undefined, top: Top): void {
    const ids = this.createdIds;
    const take = (i: number): boolean => {
      const r = this.records.get(ids[i]!)!;
      if (quote === undefined || r.quote_address === quote) top.offer(r.created_at, r);
      return top.items.length < count;
    };
    if (direction === 1) {
      let i = after === undefined ? 0 : this.lowerBound(after.key, after.pool_address);
      if (after !== undefined && ids[i] === after.pool_address && this.createdAt[i] === after.key) i++;
      for (; i < ids.length && take(i); i++);
    } else {
      // lowerBound is the first not before the position: everything below it is after it, descending.
      let i = (after === undefined ? ids.length : this.lowerBound(after.key, after.pool_address)) - 1;
      for (; i >= 0 && take(i); i--);
    }
  }

  private keyOf(sort: PoolSort, priceOf: PriceOf): (r: PoolRecord) => number {
    switch (sort) {
      case 'created_at':
        return (r) => r.created_at;
      case 'volume_usd':
        return (r) => r.volume_usd;
      case 'liquidity_usd':
        return (r) => {
          const price = priceOf(r.quote_address);
          return price === null ? 0 : r.liquidity_quote * price;
        };
    }
  }
}
