/**
 * Columns for the research read models (search-index.ts, search-feed.ts,
 * pool-directory.ts): a record per token or pool as a row number into typed arrays
 * and arrays of strings, instead of an object (and its Map entry, hidden class,
 * boxed doubles and nested arrays) per record. At 6,000 pools and tokens the
 * objects took ~3.7 KB of JS heap per pool and its token, most of it per-record
 * overhead (bench/research-memory.ts has the figures).
 */

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
      this.rows.set(address, row);
      this.addresses.push(address);
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
