import type { SwapEvent } from './events.ts';

/**
 * Swap lines as columns, from the parse worker (parse-worker.ts) to the main thread,
 * so that the main thread builds a swap's event from a few numbers and string slices
 * of the log bytes instead of parsing its JSON line again (~0.5 µs against ~1.6 µs a
 * line measured alone; the parse was ~11 % of the engine's main thread).
 *
 * For each swap line it can vouch for, the worker records where each string value
 * lies in the chunk's bytes and the numbers as they parsed. It vouches only for lines
 * with no fields INGEST.md does not name, whose every string value follows its key
 * right after `":"`, once, without escapes: a line with whitespace around a colon, an
 * escape in a key or a value, a repeated key or unknown fields is parsed from its
 * JSON as before. The event built from columns has the same fields and values as
 * `JSON.parse` of its line (a missing real reserve is an undefined field).
 */

/** The string fields of a swap, in the order of their offsets. */
const STRING_FIELDS = [
  'tx_hash', 'pool_address', 'wallet_address',
  'base_amount_raw', 'quote_amount_raw', 'base_reserve_raw', 'quote_reserve_raw',
  'real_base_reserve_raw', 'real_quote_reserve_raw',
] as const;
/** Fields that may be null or missing (the real reserves). */
const OPTIONAL_FROM = 7;

/** Per row: a start and an end offset per string field. */
export const OFFSETS_PER_ROW = 2 * STRING_FIELDS.length;
/** Per row: slot, tx_index, event_index, at, side (1 buy, 0 sell). */
export const NUMBERS_PER_ROW = 5;

/** Offsets of a field that is missing (start = end = 0) or null (start 1, end 0). */
const NULL_START = 1;

const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;

/** What a chunk carries for its swap lines (ParsedChunk.swaps). */
export interface SwapColumns {
  /** Per line of the chunk: its row, or -1 (no columns: parse the line). */
  rows: Int32Array;
  /** OFFSETS_PER_ROW per row: offsets into the chunk's bytes. */
  offsets: Uint32Array;
  /** NUMBERS_PER_ROW per row. */
  numbers: Float64Array;
}

/** The worker's side: rows added as lines are kept. */
export class SwapColumnsBuilder {
  private rows: Int32Array;
  private offsets: Uint32Array;
  private numbers: Float64Array;
  private lines = 0;
  private count = 0;

  /** `capacity`: lines expected (the arrays double past it). */
  constructor(capacity = 1024) {
    this.rows = new Int32Array(capacity);
    this.offsets = new Uint32Array(capacity * OFFSETS_PER_ROW);
    this.numbers = new Float64Array(capacity * NUMBERS_PER_ROW);
  }

  /**
   * One kept line (`line`, at `start` in the chunk's output bytes): a row if it is a
   * swap it can vouch for, else -1.
   */
  add(line: Buffer, start: number, event: { type: string }, unknownFields: boolean): void {
    if (this.lines === this.rows.length) this.rows = grown(this.rows, this.rows.length * 2);
    if (event.type !== 'swap' || unknownFields) {
      this.rows[this.lines++] = -1;
      return;
    }
    if (this.count * OFFSETS_PER_ROW === this.offsets.length) {
      this.offsets = grown(this.offsets, this.offsets.length * 2);
      this.numbers = grown(this.numbers, this.numbers.length * 2);
    }
    const e = event as SwapEvent;
    if (!this.locate(line, start, e)) {
      this.rows[this.lines++] = -1;
      return;
    }
    const m = this.count * NUMBERS_PER_ROW;
    const numbers = this.numbers;
    numbers[m] = e.slot;
    numbers[m + 1] = e.tx_index;
    numbers[m + 2] = e.event_index;
    numbers[m + 3] = e.at;
    numbers[m + 4] = e.side === 'buy' ? 1 : 0;
    this.rows[this.lines++] = this.count++;
  }

  /** The columns, in arrays of their own (transferable), or undefined without a row. */
  finish(): SwapColumns | undefined {
    if (this.count === 0) return undefined;
    return {
      rows: this.rows.slice(0, this.lines),
      offsets: this.offsets.slice(0, this.count * OFFSETS_PER_ROW),
      numbers: this.numbers.slice(0, this.count * NUMBERS_PER_ROW),
    };
  }

  /**
   * Writes the row's offsets when every string value is where it should be. One walk
   * over the line, key to key: a key's string value is skipped by the validated
   * value's length (the byte after it must be its closing quote), other values up to
   * the next key's quote. The line has no unknown fields, so its keys are the swap's
   * own, told apart by length (a key with an escape, whose bytes are longer than its
   * name, gives no row). Validated values are ASCII (base58, digits) without quotes,
   * and an escape only makes a value's bytes longer: a closing quote right after the
   * value's length means the bytes are the value. Anything else (whitespace between
   * tokens, a key seen twice, which JSON.parse takes the last of): no row.
   */
  private locate(line: Buffer, start: number, e: SwapEvent): boolean {
    const found = this.found;
    found.fill(-1);
    const length = line.length;
    let p = line[0] === OPEN ? 1 : length;
    while (p < length) {
      if (line[p] !== QUOTE) return false;
      // The key: up to its closing quote. A key with an escape is not read by its length.
      const keyFrom = p + 1;
      let keyTo = keyFrom;
      while (keyTo < length && line[keyTo] !== QUOTE) {
        if (line[keyTo] === BACKSLASH) return false;
        keyTo++;
      }
      if (line[keyTo + 1] !== COLON) return false;
      p = keyTo + 2;
      if (line[p] !== QUOTE) {
        // A number or null: on to the next key (after a comma) or the end.
        while (p < length && line[p] !== COMMA && line[p] !== CLOSE) p++;
        p++;
        continue;
      }
      const from = p + 1;
      const k = fieldOfKey(line, keyFrom, keyTo);
      let to: number;
      if (k === -1) {
        // type, side: short values.
        to = from;
        while (to < length && line[to] !== QUOTE) to++;
      } else {
        const value = e[STRING_FIELDS[k]!];
        if (typeof value !== 'string' || found[2 * k] !== -1) return false;
        to = from + value.length;
        if (line[to] !== QUOTE) return false;
        found[2 * k] = from;
        found[2 * k + 1] = to;
      }
      // Past the closing quote and the comma (or the closing brace).
      p = to + 2;
    }
    if (line[length - 1] !== CLOSE) return false;
    const o = this.count * OFFSETS_PER_ROW;
    const offsets = this.offsets;
    for (let k = 0; k < STRING_FIELDS.length; k++) {
      const from = found[2 * k]!;
      if (from === -1) {
        // Missing or null: no string for it in the line.
        const value = e[STRING_FIELDS[k]!];
        if (k < OPTIONAL_FROM || (value !== undefined && value !== null)) return false;
        offsets[o + 2 * k] = value === null ? NULL_START : 0;
        offsets[o + 2 * k + 1] = 0;
      } else {
        offsets[o + 2 * k] = start + from;
        offsets[o + 2 * k + 1] = start + found[2 * k + 1]!;
      }
    }
    return true;
  }

  private readonly found = new Int32Array(2 * STRING_FIELDS.length);
}

/**
 * Which of STRING_FIELDS the key bytes [from, to) name, by length (and first letter
 * where two share one), -1 for the swap's other string keys (type, side).
 */
function fieldOfKey(line: Buffer, from: number, to: number): number {
  switch (to - from) {
    case 7: return 0; // tx_hash
    case 12: return 1; // pool_address
    case 14: return 2; // wallet_address
    case 15: return 3; // base_amount_raw
    case 16: return line[from] === 0x71 /* q */ ? 4 : 5; // quote_amount_raw, base_reserve_raw
    case 17: return 6; // quote_reserve_raw
    case 21: return 7; // real_base_reserve_raw
    case 22: return 8; // real_quote_reserve_raw
    default: return -1;
  }
}

function grown<T extends Int32Array | Uint32Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}

/** The main thread's side: the swap of row `row`, read from the chunk's bytes. */
export function swapFromColumns(bytes: Buffer, columns: SwapColumns, row: number): SwapEvent {
  const o = columns.offsets;
  const n = columns.numbers;
  const j = row * OFFSETS_PER_ROW;
  const m = row * NUMBERS_PER_ROW;
  return {
    type: 'swap',
    tx_hash: bytes.toString('latin1', o[j]!, o[j + 1]!),
    slot: n[m]!,
    tx_index: n[m + 1]!,
    event_index: n[m + 2]!,
    at: n[m + 3]!,
    pool_address: bytes.toString('latin1', o[j + 2]!, o[j + 3]!),
    wallet_address: bytes.toString('latin1', o[j + 4]!, o[j + 5]!),
    side: n[m + 4] === 1 ? 'buy' : 'sell',
    base_amount_raw: bytes.toString('latin1', o[j + 6]!, o[j + 7]!),
    quote_amount_raw: bytes.toString('latin1', o[j + 8]!, o[j + 9]!),
    base_reserve_raw: bytes.toString('latin1', o[j + 10]!, o[j + 11]!),
    quote_reserve_raw: bytes.toString('latin1', o[j + 12]!, o[j + 13]!),
    real_base_reserve_raw: optional(bytes, o[j + 14]!, o[j + 15]!),
    real_quote_reserve_raw: optional(bytes, o[j + 16]!, o[j + 17]!),
  };
}

function optional(bytes: Buffer, start: number, end: number): string | null | undefined {
  if (end !== 0) return bytes.toString('latin1', start, end);
  return start === NULL_START ? null : undefined;
}
