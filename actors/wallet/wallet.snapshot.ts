import type { Position } from './wallet.logic.ts';

/**
 * A wallet's positions in its snapshot as columns: the token addresses as one array of
 * strings, every number of every position in one Float64Array written as its bytes (one
 * binary for msgpack, copied, where a record per position cost a write per field and
 * per element of its day rows and level arrays), and the few non-WSOL level quotes.
 *
 * Why: in a replay the wallets in use outgrow the resident byte bound, so a wallet is
 * packed whole at each eviction and unpacked at each activation; at 1M swaps over 10,000
 * pools, one swap in two wrote a wallet's snapshot and msgpackr's `pack` was the largest
 * self time of the run's last third (bench/README.md, market).
 *
 * Layout of `n`: POSITION_FIELDS numbers per position, in the order of `t`; then the day
 * rows of every position in that order (Position.days, `DAYS` of them each); then the
 * level arrays present (LEVEL_FIELDS each: lvBuy before lvSell, in position order). A
 * number is kept as it is, NaN and −0 included; what may be null or absent is said by
 * `FLAGS` bits, so no number stands for null.
 */

export interface PositionColumns {
  /** Token addresses, one per position. */
  t: string[];
  /** The numbers, as the bytes of a Float64Array (little-endian, as every platform mds runs on). */
  n: Uint8Array;
  /** Level quotes other than WSOL (Position.lvQuote not null): [position index, quote] flat. */
  q?: Array<number | string>;
}

const QTY = 0;
const COST = 1;
const REALIZED = 2;
const BUYS = 3;
const SELLS = 4;
const BUY_USD = 5;
const SELL_USD = 6;
const UNPRICED = 7;
const FIRST_BUY_AT = 8;
const ENTRY_MCAP = 9;
const LAST_TRADE_AT = 10;
const BALANCE_SLOT = 11;
const DECIMALS = 12;
const DAYS = 13;
const FLAGS = 14;
export const POSITION_FIELDS = 15;
/** Numbers of a level array (wallet.logic.ts LV). */
export const LEVEL_FIELDS = 10;

const FIRST_BUY_NULL = 1;
const ENTRY_NULL = 2;
/** entryMcapUsd absent (a position from a snapshot written before it). */
const ENTRY_ABSENT = 4;
const LAST_TRADE_NULL = 8;
const HAS_BUY_LEVELS = 16;
const HAS_SELL_LEVELS = 32;

/** The positions as columns (see the module comment). */
export function positionsToColumns(positions: ReadonlyMap<string, Position>): PositionColumns {
  const count = positions.size;
  let days = 0;
  let levels = 0;
  for (const p of positions.values()) {
    days += p.days.length;
    if (p.lvBuy !== null) levels++;
    if (p.lvSell !== null) levels++;
  }
  const n = new Float64Array(count * POSITION_FIELDS + days + levels * LEVEL_FIELDS);
  const t = new Array<string>(count);
  let q: Array<number | string> | undefined;
  let i = 0;
  let d = count * POSITION_FIELDS;
  let l = d + days;
  for (const [token, p] of positions) {
    t[i] = token;
    const o = i * POSITION_FIELDS;
    n[o + QTY] = p.qty;
    n[o + COST] = p.cost;
    n[o + REALIZED] = p.realized;
    n[o + BUYS] = p.buys;
    n[o + SELLS] = p.sells;
    n[o + BUY_USD] = p.buyUsd;
    n[o + SELL_USD] = p.sellUsd;
    n[o + UNPRICED] = p.unpriced;
    let flags = 0;
    if (p.firstBuyAt === null) flags |= FIRST_BUY_NULL;
    else n[o + FIRST_BUY_AT] = p.firstBuyAt;
    if (p.entryMcapUsd === undefined) flags |= ENTRY_ABSENT;
    else if (p.entryMcapUsd === null) flags |= ENTRY_NULL;
    else n[o + ENTRY_MCAP] = p.entryMcapUsd;
    if (p.lastTradeAt === null) flags |= LAST_TRADE_NULL;
    else n[o + LAST_TRADE_AT] = p.lastTradeAt;
    n[o + BALANCE_SLOT] = p.balanceSlot;
    n[o + DECIMALS] = p.decimals;
    n[o + DAYS] = p.days.length;
    for (let k = 0; k < p.days.length; k++) n[d++] = p.days[k]!;
    if (p.lvBuy !== null) {
      flags |= HAS_BUY_LEVELS;
      for (let k = 0; k < LEVEL_FIELDS; k++) n[l++] = p.lvBuy[k]!;
    }
    if (p.lvSell !== null) {
      flags |= HAS_SELL_LEVELS;
      for (let k = 0; k < LEVEL_FIELDS; k++) n[l++] = p.lvSell[k]!;
    }
    n[o + FLAGS] = flags;
    if (p.lvQuote !== null) (q ??= []).push(i, p.lvQuote);
    i++;
  }
  const columns: PositionColumns = { t, n: new Uint8Array(n.buffer) };
  if (q !== undefined) columns.q = q;
  return columns;
}

/** The positions back from their columns, as positionsToColumns had them. */
export function positionsFromColumns(c: PositionColumns): Map<string, Position> {
  // A copy: the decoder's bytes may sit in a buffer it reuses, at any alignment.
  const n = new Float64Array(Uint8Array.prototype.slice.call(c.n).buffer);
  const count = c.t.length;
  const quotes = new Map<number, string>();
  if (c.q !== undefined) for (let k = 0; k < c.q.length; k += 2) quotes.set(c.q[k] as number, c.q[k + 1] as string);
  const positions = new Map<string, Position>();
  let d = count * POSITION_FIELDS;
  let days = 0;
  for (let i = 0; i < count; i++) days += n[i * POSITION_FIELDS + DAYS]!;
  let l = d + days;
  for (let i = 0; i < count; i++) {
    const o = i * POSITION_FIELDS;
    const flags = n[o + FLAGS]!;
    const dayCount = n[o + DAYS]!;
    // Pushed, not preallocated: packed arrays (of unboxed doubles once one is not an integer), as the actor builds them.
    const dayRows: number[] = [];
    for (let k = 0; k < dayCount; k++) dayRows.push(n[d++]!);
    let lvBuy: number[] | null = null;
    let lvSell: number[] | null = null;
    if (flags & HAS_BUY_LEVELS) {
      lvBuy = levelsAt(n, l);
      l += LEVEL_FIELDS;
    }
    if (flags & HAS_SELL_LEVELS) {
      lvSell = levelsAt(n, l);
      l += LEVEL_FIELDS;
    }
    const p: Position = {
      qty: n[o + QTY]!,
      cost: n[o + COST]!,
      realized: n[o + REALIZED]!,
      buys: n[o + BUYS]!,
      sells: n[o + SELLS]!,
      buyUsd: n[o + BUY_USD]!,
      sellUsd: n[o + SELL_USD]!,
      unpriced: n[o + UNPRICED]!,
      firstBuyAt: flags & FIRST_BUY_NULL ? null : n[o + FIRST_BUY_AT]!,
      // Absent (older snapshots) reads as undefined, which every reader takes as null: the object keeps one shape.
      entryMcapUsd: flags & ENTRY_ABSENT ? undefined : flags & ENTRY_NULL ? null : n[o + ENTRY_MCAP]!,
      lastTradeAt: flags & LAST_TRADE_NULL ? null : n[o + LAST_TRADE_AT]!,
      balanceSlot: n[o + BALANCE_SLOT]!,
      decimals: n[o + DECIMALS]!,
      days: dayRows,
      lvQuote: quotes.get(i) ?? null,
      lvBuy,
      lvSell,
    };
    positions.set(c.t[i]!, p);
  }
  return positions;
}

/** A level array (LEVEL_FIELDS numbers from `at`) as the actor makes them: a literal of doubles. */
function levelsAt(n: Float64Array, at: number): number[] {
  return [n[at]!, n[at + 1]!, n[at + 2]!, n[at + 3]!, n[at + 4]!, n[at + 5]!, n[at + 6]!, n[at + 7]!, n[at + 8]!, n[at + 9]!];
}
