import { AddressRows, fitF64, fitI32 } from './columns.ts';
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

/** The first `size` rows offered, in order, keeping only those that beat the current last. @internal */
class Top {
  readonly keys: number[] = [];
  readonly rows: number[] = [];
  constructor(private readonly size: number, private readonly direction: 1 | -1, private readonly addressOf: (row: number) => string) {}

  get length(): number {
    return this.rows.length;
  }

  offer(key: number, row: number): void {
    const n = this.rows.length;
    const d = this.direction;
    const address = this.addressOf(row);
    if (n === this.size && compare(d, key, address, this.keys[n - 1]!, this.addressOf(this.rows[n - 1]!)) >= 0) return;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(d, this.keys[mid]!, this.addressOf(this.rows[mid]!), key, address) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.keys.splice(lo, 0, key);
    this.rows.splice(lo, 0, row);
    if (this.rows.length > this.size) {
      this.keys.pop();
      this.rows.pop();
    }
  }
}

/**
 * Pools by address, base, quote and creation order; see the file comment. A pool is a
 * row of columns (columns.ts); its base and quote are rows of `mints`, and the pools
 * of one base or one quote are a list threaded through the pool rows.
 */
export class PoolDirectory {
  private readonly ids = new AddressRows();
  /** Base and quote addresses (shared with the token search: each address held once). */
  private readonly mints: AddressRows;
  private baseOf: Int32Array = new Int32Array(0);
  private quoteOf: Int32Array = new Int32Array(0);
  private createdAtOf: Float64Array = new Float64Array(0);
  private liquidityOf: Float64Array = new Float64Array(0);
  private volumeOf: Float64Array = new Float64Array(0);
  /** Per pool row, the next pool of the same base (quote), -1 at the end; per mint row, the first, -1 for none. */
  private nextByBase: Int32Array = new Int32Array(0);
  private nextByQuote: Int32Array = new Int32Array(0);
  private firstByBase: Int32Array = new Int32Array(0);
  private firstByQuote: Int32Array = new Int32Array(0);
  /** Per mint row, the pools quoted in it. */
  private quoteCount: Int32Array = new Int32Array(0);
  /** Every pool row, ascending by (created_at, pool_address): `created` rows of `createdOrder`. */
  private createdOrder: Int32Array = new Int32Array(0);
  private created = 0;
  private readonly addressOf = (row: number): string => this.ids.address(row);

  constructor(mints = new AddressRows()) {
    this.mints = mints;
  }

  get size(): number {
    return this.ids.size;
  }

  /** This directory's copy of a pool's address (one string for every table that names the pool), or `pool` itself. */
  canonical(pool: string): string {
    const row = this.ids.find(pool);
    return row < 0 ? pool : this.ids.address(row);
  }

  get(pool: string): PoolRecord | undefined {
    const row = this.ids.find(pool);
    return row < 0 ? undefined : this.record(row);
  }

  /** The row as a record, with the key order of POOL_SHAPE (research-store.ts). */
  private record(row: number): PoolRecord {
    return {
      pool_address: this.ids.address(row),
      base_address: this.mints.address(this.baseOf[row]!),
      quote_address: this.mints.address(this.quoteOf[row]!),
      created_at: this.createdAtOf[row]!,
      liquidity_quote: this.liquidityOf[row]!,
      volume_usd: this.volumeOf[row]!,
    };
  }

  /**
   * Adds many pools at once (start-up): one sort instead of an insert each, since
   * they come in address order, and inserting those one by one into the creation
   * order would cost a splice each (quadratic: minutes at 100k pools).
   */
  load(records: Iterable<PoolRecord>): void {
    let fresh = 0;
    for (const r of records) {
      if (this.ids.find(r.pool_address) >= 0) this.upsert(r);
      else {
        this.add(r);
        fresh++;
      }
    }
    if (fresh === 0) return;
    const all = Array.from({ length: this.ids.size }, (_, row) => row);
    all.sort((a, b) => compare(1, this.createdAtOf[a]!, this.addressOf(a), this.createdAtOf[b]!, this.addressOf(b)));
    this.createdOrder = Int32Array.from(all) as Int32Array;
    this.created = all.length;
  }

  /** Adds or replaces a pool's record. Pools are created in time order, so the insert is usually an append. */
  upsert(record: PoolRecord): void {
    const row = this.ids.find(record.pool_address);
    if (row < 0) {
      this.insertCreated(this.add(record));
      return;
    }
    const base = this.mints.row(record.base_address);
    const quote = this.mints.row(record.quote_address);
    this.fitMints();
    if (this.baseOf[row] !== base) {
      this.unlink(this.firstByBase, this.nextByBase, this.baseOf[row]!, row);
      this.link(this.firstByBase, this.nextByBase, (this.baseOf[row] = base), row);
    }
    if (this.quoteOf[row] !== quote) {
      this.unlink(this.firstByQuote, this.nextByQuote, this.quoteOf[row]!, row);
      this.quoteCount[this.quoteOf[row]!]!--;
      this.link(this.firstByQuote, this.nextByQuote, (this.quoteOf[row] = quote), row);
      this.quoteCount[quote]!++;
    }
    this.liquidityOf[row] = record.liquidity_quote;
    this.volumeOf[row] = record.volume_usd;
    if (this.createdAtOf[row] !== record.created_at) {
      this.removeCreated(row);
      this.createdAtOf[row] = record.created_at;
      this.insertCreated(row);
    }
  }

  /** A new pool's row, linked to its base and quote but not in the creation order yet. */
  private add(record: PoolRecord): number {
    const row = this.ids.row(record.pool_address);
    const n = row + 1;
    this.baseOf = fitI32(this.baseOf, n);
    this.quoteOf = fitI32(this.quoteOf, n);
    this.createdAtOf = fitF64(this.createdAtOf, n);
    this.liquidityOf = fitF64(this.liquidityOf, n);
    this.volumeOf = fitF64(this.volumeOf, n);
    this.nextByBase = fitI32(this.nextByBase, n, -1);
    this.nextByQuote = fitI32(this.nextByQuote, n, -1);
    const base = this.mints.row(record.base_address);
    const quote = this.mints.row(record.quote_address);
    this.fitMints();
    this.baseOf[row] = base;
    this.quoteOf[row] = quote;
    this.createdAtOf[row] = record.created_at;
    this.liquidityOf[row] = record.liquidity_quote;
    this.volumeOf[row] = record.volume_usd;
    this.link(this.firstByBase, this.nextByBase, base, row);
    this.link(this.firstByQuote, this.nextByQuote, quote, row);
    this.quoteCount[quote]!++;
    return row;
  }

  private fitMints(): void {
    const n = this.mints.size;
    this.firstByBase = fitI32(this.firstByBase, n, -1);
    this.firstByQuote = fitI32(this.firstByQuote, n, -1);
    this.quoteCount = fitI32(this.quoteCount, n);
  }

  private link(first: Int32Array, next: Int32Array, mint: number, row: number): void {
    next[row] = first[mint]!;
    first[mint] = row;
  }

  private unlink(first: Int32Array, next: Int32Array, mint: number, row: number): void {
    if (first[mint] === row) {
      first[mint] = next[row]!;
      return;
    }
    for (let r = first[mint]!; r >= 0; r = next[r]!) {
      if (next[r] === row) {
        next[r] = next[row]!;
        return;
      }
    }
  }

  /** First index of the creation order whose (created_at, address) is not before (at, id). */
  private lowerBound(at: number, id: string): number {
    let lo = 0;
    let hi = this.created;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const row = this.createdOrder[mid]!;
      if (compare(1, this.createdAtOf[row]!, this.addressOf(row), at, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private insertCreated(row: number): void {
    const n = this.created;
    this.createdOrder = fitI32(this.createdOrder, n + 1);
    const order = this.createdOrder;
    const at = this.createdAtOf[row]!;
    const id = this.addressOf(row);
    const i = n === 0 || compare(1, this.createdAtOf[order[n - 1]!]!, this.addressOf(order[n - 1]!), at, id) < 0 ? n : this.lowerBound(at, id);
    order.copyWithin(i + 1, i, n);
    order[i] = row;
    this.created = n + 1;
  }

  /** Takes the row out of the creation order, found by its current created_at. */
  private removeCreated(row: number): void {
    const i = this.lowerBound(this.createdAtOf[row]!, this.addressOf(row));
    if (i < this.created && this.createdOrder[i] === row) {
      this.createdOrder.copyWithin(i, i + 1, this.created);
      this.created--;
    }
  }

  /** One page of pools in the query's order, with the position of its last pool when more follow. */
  list(query: PoolListQuery, priceOf: PriceOf): PoolListPage {
    if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError(`limit must be a positive integer, got ${query.limit}`);
    const direction = query.order === 'asc' ? 1 : -1;
    const top = new Top(query.limit + 1, direction, this.addressOf);
    const { base, quote, after } = query;
    // -2: a quote no pool has (no row matches it).
    const quoteRow = quote === undefined ? -1 : this.mints.find(quote) === -1 ? -2 : this.mints.find(quote);
    const keyOf = this.keyOf(query.sort, priceOf);
    const visit = (row: number): void => {
      if (quoteRow !== -1 && this.quoteOf[row] !== quoteRow) return;
      const key = keyOf(row);
      if (after !== undefined && compare(direction, key, this.addressOf(row), after.key, after.pool_address) <= 0) return;
      top.offer(key, row);
    };
    const quotePools = quoteRow < 0 ? 0 : this.quoteCount[quoteRow]!;
    if (base !== undefined) {
      const baseRow = this.mints.find(base);
      for (let row = baseRow < 0 ? -1 : this.firstByBase[baseRow]!; row >= 0; row = this.nextByBase[row]!) visit(row);
    } else if (quote !== undefined && (quotePools === 0 || query.sort !== 'created_at' || quotePools < this.size * QUOTE_SCAN_SHARE)) {
      for (let row = quotePools === 0 ? -1 : this.firstByQuote[quoteRow]!; row >= 0; row = this.nextByQuote[row]!) visit(row);
    } else if (query.sort === 'created_at') {
      this.walkCreated(direction, after, query.limit + 1, quoteRow, top);
    } else {
      for (let row = 0; row < this.size; row++) visit(row);
    }
    const rows = top.rows;
    const pools = rows.slice(0, query.limit).map((row) => this.record(row));
    if (rows.length <= query.limit) return { pools, next: null };
    return { pools, next: { key: top.keys[query.limit - 1]!, pool_address: pools[query.limit - 1]!.pool_address } };
  }

  /** Creation order from just after `after`, filtered by quote row (-1: any), until `count` pools are taken. */
  private walkCreated(direction: 1 | -1, after: PoolPosition | undefined, count: number, quoteRow: number, top: Top): void {
    const order = this.createdOrder;
    const take = (i: number): boolean => {
      const row = order[i]!;
      if (quoteRow === -1 || this.quoteOf[row] === quoteRow) top.offer(this.createdAtOf[row]!, row);
      return top.length < count;
    };
    if (direction === 1) {
      let i = after === undefined ? 0 : this.lowerBound(after.key, after.pool_address);
      if (after !== undefined && i < this.created && this.addressOf(order[i]!) === after.pool_address && this.createdAtOf[order[i]!] === after.key) i++;
      for (; i < this.created && take(i); i++);
    } else {
      // lowerBound is the first not before the position: everything below it is after it, descending.
      let i = (after === undefined ? this.created : this.lowerBound(after.key, after.pool_address)) - 1;
      for (; i >= 0 && take(i); i--);
    }
  }

  private keyOf(sort: PoolSort, priceOf: PriceOf): (row: number) => number {
    switch (sort) {
      case 'created_at':
        return (row) => this.createdAtOf[row]!;
      case 'volume_usd':
        return (row) => this.volumeOf[row]!;
      case 'liquidity_usd':
        return (row) => {
          const price = priceOf(this.mints.address(this.quoteOf[row]!));
          return price === null ? 0 : this.liquidityOf[row]! * price;
        };
    }
  }
}
