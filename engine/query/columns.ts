/**
 * Columns for the research read models (search-index.ts, search-feed.ts,
 * pool-directory.ts): a record per token or pool as a row number into typed arrays
 * and arrays of strings, instead of an object (and its Map entry, hidden class,
 * boxed doubles and nested arrays) per record. At 6,000 pools and tokens the
 * objects took ~3.7 KB of JS heap per pool and its token, most of it per-record
 * overhead (bench/research-memory.ts has the figures).
 */

/** V8 makes a slice of 13 characters or more a view of its parent string, not a copy. */
const SLICE_MIN = 13;

/**
 * `s` as a string of its own, for a structure that keeps it for good. A string read
 * from LMDB (msgpackr's unpack) or cut from a longer one can be a slice that keeps the
 * whole parent alive: msgpackr decodes a value's strings as one latin1 string and slices
 * each out of it, so a token name read from a token's snapshot kept that snapshot's
 * ~380 bytes of decoded text in the token search for as long as the engine ran
 * (bench/market.ts heap diff, issue 25). JSON.stringify then JSON.parse gives a flat
 * copy of any string, lone surrogates included; under 13 characters V8 copies anyway.
 */
export function ownString<T extends string | null>(s: T): T {
  return s === null || s.length < SLICE_MIN ? s : (JSON.parse(JSON.stringify(s)) as T);
}

/** Addresses and their row numbers: rows are dense from 0, never reused for another address. */
export class AddressRows {
  private readonly rows = new Map<string, number>();
  private readonly addresses: string[] = [];

  get size(): number {
    return this.addresses.length;
  }

  /** The address's row, or -1. */
  find(address: string): number {
    return this.rows.get(address) ?? -1;
  }

  /** The address's row, made when it has none. */
  row(address: string): number {
    let row = this.rows.get(address);
    if (row === undefined) {
      row = this.addresses.length;
      // Kept for good: its own copy, not a slice of a snapshot's text (ownString).
      const own = ownString(address);
      this.rows.set(own, row);
      this.addresses.push(own);
    }
    return row;
  }

  address(row: number): string {
    return this.addresses[row]!;
  }
}

/** A Float64Array of at least `size` elements: `column` itself, or a copy twice as long. */
export function fitF64(column: Float64Array, size: number): Float64Array {
  if (size <= column.length) return column;
  const grown = new Float64Array(Math.max(size, column.length * 2, 64));
  grown.set(column);
  return grown;
}

/** As fitF64, for Int32Array (new elements `fill`). */
export function fitI32(column: Int32Array, size: number, fill = 0): Int32Array {
  if (size <= column.length) return column;
  const grown = new Int32Array(Math.max(size, column.length * 2, 64));
  grown.set(column);
  if (fill !== 0) grown.fill(fill, column.length);
  return grown;
}

/** As fitF64, for Uint8Array. */
export function fitU8(column: Uint8Array, size: number): Uint8Array {
  if (size <= column.length) return column;
  const grown = new Uint8Array(Math.max(size, column.length * 2, 64));
  grown.set(column);
  return grown;
}
