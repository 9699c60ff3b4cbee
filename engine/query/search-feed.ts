import { SEARCH_WINDOWS, USDC, USDT, WINDOW_RESOLUTION_MS, WSOL, type SearchWindow } from '../model/index.ts';
import { AddressRows, fitF64, fitI32, fitU8 } from './columns.ts';
import type { TokenRecord } from './research-store.ts';
import { TokenSearchIndex, type SearchPage, type SearchQuery, type TokenSearchDoc } from './search-index.ts';

/**
 * The token search index kept in step with the token records of the research feed
 * (engine/query/search.ts), so that a search orders tokens by values that
 * follow from the events alone, whenever and in whatever order they were refreshed.
 * Two kinds of sort key are not a function of the events, and are brought up to date
 * when a search needs them rather than on every change:
 *
 * - USD market cap and liquidity = the quote value × the quote asset's USD price (a
 *   token quote's: its factor to a known mint, `usd_factor`, × that mint's price;
 *   unknown, and out of the sort, without one). The
 *   index holds them at one price vector (`usdPrices`); a search by either re-keys
 *   every token when it asks for other prices. Pages after the first ask for the
 *   prices their cursor carries, so a price tick between two pages does not move
 *   every position.
 * - USD volume over a window decays as time passes with no trade. A window's value
 *   depends on time only through the bucket `now` falls in (actors/pool/windows.ts:
 *   5 s for 5m, 1 min for 1h, 6 min for 6h, 24 min for 24h), so each record notes the
 *   bucket ("epoch") it was read in, and a search by that window re-reads the tokens
 *   whose value is not 0 and was read in another bucket. A 0 stays 0 until a trade,
 *   and a trade makes the token dirty anyway. A refresh leaves the windows unread
 *   (-1): the first search by a window reads them. The 24h window is thus re-read at
 *   most once per 24 minutes per untouched token; the 5m window once per 5 s, for the
 *   few tokens that traded in the last 5 minutes.
 */

/** USD prices of wSOL, USDC and USDT (null when unknown): the quote assets priced in USD. */
export type QuotePrices = [wsol: number | null, usdc: number | null, usdt: number | null];

export const priceIn = (prices: QuotePrices, quote: string): number | null =>
  quote === WSOL ? prices[0] : quote === USDC ? prices[1] : quote === USDT ? prices[2] : null;

/** A unit's USD value through a known mint (a record's usd_mint and usd_factor): factor × that mint's price; null without one. */
export function usdVia(prices: QuotePrices, mint: string, factor: number): number | null {
  const price = mint === '' ? null : priceIn(prices, mint);
  return price === null ? null : factor * price;
}

const samePrices = (a: QuotePrices, b: QuotePrices) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

/** The bucket of `now` in each search window, as `TokenRecord.window_epoch` holds it. */
export function windowEpochs(now: number): [number, number, number, number] {
  return [
    Math.floor(now / WINDOW_RESOLUTION_MS['5m']),
    Math.floor(now / WINDOW_RESOLUTION_MS['1h']),
    Math.floor(now / WINDOW_RESOLUTION_MS['6h']),
    Math.floor(now / WINDOW_RESOLUTION_MS['24h']),
  ];
}

/** The number columns of a token record's row. */
const enum F {
  CreatedAt = 0,
  MarketCapQuote = 1,
  LiquidityQuote = 2,
  UsdFactor = 3,
  OwnUsdFactor = 4,
  VolumeUsd = 5,
  TraderCount = 6,
}
const N = 7;

/** A record's window volume as a sort key: -1 (not read yet) as 0, NaN (unknown) as null. */
const windowKey = (usd: number): number | null => (usd !== usd ? null : Math.max(0, usd));

/** Flags of a token record's row. */
const PRESENT = 1;
const VOLUME_NULL = 2;
const MULTI_QUOTE = 4;

/**
 * The token records, as columns (columns.ts) by the index's row of the token: a
 * record is made as an object only when one is asked for (`get`, a checkpoint's
 * write, a window re-read), not kept as one.
 */
export class TokenSearchFeed {
  private readonly index: TokenSearchIndex;
  private count = 0;
  private flags: Uint8Array = new Uint8Array(0);
  /** The main pool's address; quote_address, usd_mint and own_usd_mint as rows of `mints`. */
  private readonly poolOf: string[] = [];
  private quoteOf: Int32Array = new Int32Array(0);
  private usdMintOf: Int32Array = new Int32Array(0);
  private ownUsdMintOf: Int32Array = new Int32Array(0);
  /** created_at, market_cap_quote, liquidity_quote, usd_factor, own_usd_factor, volume_usd, trader_count (N columns). */
  private readonly numbers: Float64Array[] = Array.from({ length: N }, () => new Float64Array(0));
  /** window_usd[i] at windows[i], window_epoch[i] at windows[4 + i]. */
  private readonly windows: Float64Array[] = Array.from({ length: 8 }, () => new Float64Array(0));
  /** The prices the index's USD keys are computed with. */
  private usdPrices: QuotePrices = [null, null, null];
  /**
   * Per window, the bucket every non-zero value of that window was read in, or NaN
   * when they may differ.
   */
  private readonly windowSynced = [NaN, NaN, NaN, NaN];

  /**
   * `mints`: the rows of token and quote addresses, shared with the pool directory so
   * that each address is held once; `poolAddress`: the pool directory's own copy of a
   * main pool's address (the same string, held once).
   */
  constructor(
    private readonly mints = new AddressRows(),
    private readonly poolAddress: (pool: string) => string = (pool) => pool,
  ) {
    this.index = new TokenSearchIndex(mints);
  }

  get size(): number {
    return this.count;
  }

  private rowOf(token: string): number {
    const row = this.index.rowOf(token);
    return row >= 0 && row < this.flags.length && (this.flags[row]! & PRESENT) !== 0 ? row : -1;
  }

  get(token: string): TokenRecord | undefined {
    const row = this.rowOf(token);
    return row < 0 ? undefined : this.record(row);
  }

  *values(): IterableIterator<TokenRecord> {
    for (let row = 0; row < this.flags.length; row++) if ((this.flags[row]! & PRESENT) !== 0) yield this.record(row);
  }

  /** The token's USD value as a quote (own_usd_mint, own_usd_factor) at `prices`; null when unknown or not known. */
  ownUsd(token: string, prices: QuotePrices): number | null {
    const row = this.rowOf(token);
    return row < 0 ? null : usdVia(prices, this.mints.address(this.ownUsdMintOf[row]!), this.numbers[F.OwnUsdFactor]![row]!);
  }

  /** The row as a record, with the key order of TOKEN_SHAPE (research-store.ts). */
  private record(row: number): TokenRecord {
    const n = this.numbers;
    const w = this.windows;
    const flags = this.flags[row]!;
    return {
      token_address: this.index.addressAt(row),
      name: this.index.nameAt(row),
      symbol: this.index.symbolAt(row),
      pool_address: this.poolOf[row]!,
      quote_address: this.mints.address(this.quoteOf[row]!),
      created_at: n[F.CreatedAt]![row]!,
      market_cap_quote: n[F.MarketCapQuote]![row]!,
      liquidity_quote: n[F.LiquidityQuote]![row]!,
      usd_mint: this.mints.address(this.usdMintOf[row]!),
      usd_factor: n[F.UsdFactor]![row]!,
      own_usd_mint: this.mints.address(this.ownUsdMintOf[row]!),
      own_usd_factor: n[F.OwnUsdFactor]![row]!,
      volume_usd: (flags & VOLUME_NULL) !== 0 ? null : n[F.VolumeUsd]![row]!,
      trader_count: n[F.TraderCount]![row]!,
      window_usd: [w[0]![row]!, w[1]![row]!, w[2]![row]!, w[3]![row]!],
      window_epoch: [w[4]![row]!, w[5]![row]!, w[6]![row]!, w[7]![row]!],
      multi_quote: (flags & MULTI_QUOTE) !== 0,
    };
  }

  /** Adds or replaces a token's record and its index entry. */
  put(record: TokenRecord): void {
    this.index.upsert(this.doc(record));
    const row = this.index.rowOf(record.token_address);
    const size = row + 1;
    if (size > this.flags.length) {
      this.flags = fitU8(this.flags, size);
      this.quoteOf = fitI32(this.quoteOf, size);
      this.usdMintOf = fitI32(this.usdMintOf, size);
      this.ownUsdMintOf = fitI32(this.ownUsdMintOf, size);
      for (let k = 0; k < N; k++) this.numbers[k] = fitF64(this.numbers[k]!, size);
      for (let k = 0; k < 8; k++) this.windows[k] = fitF64(this.windows[k]!, size);
    }
    if ((this.flags[row]! & PRESENT) === 0) this.count++;
    this.flags[row] = PRESENT | (record.volume_usd === null ? VOLUME_NULL : 0) | (record.multi_quote ? MULTI_QUOTE : 0);
    this.poolOf[row] = this.poolAddress(record.pool_address);
    this.quoteOf[row] = this.mints.row(record.quote_address);
    this.usdMintOf[row] = this.mints.row(record.usd_mint);
    this.ownUsdMintOf[row] = this.mints.row(record.own_usd_mint);
    const n = this.numbers;
    n[F.CreatedAt]![row] = record.created_at;
    n[F.MarketCapQuote]![row] = record.market_cap_quote;
    n[F.LiquidityQuote]![row] = record.liquidity_quote;
    n[F.UsdFactor]![row] = record.usd_factor;
    n[F.OwnUsdFactor]![row] = record.own_usd_factor;
    n[F.VolumeUsd]![row] = record.volume_usd ?? 0;
    n[F.TraderCount]![row] = record.trader_count;
    for (let i = 0; i < 4; i++) {
      this.windows[i]![row] = record.window_usd[i]!;
      this.windows[4 + i]![row] = record.window_epoch[i]!;
    }
    for (let i = 0; i < SEARCH_WINDOWS.length; i++) {
      if (record.window_usd[i] !== 0 && record.window_epoch[i] !== this.windowSynced[i]) this.windowSynced[i] = NaN;
    }
  }

  private doc(r: TokenRecord): TokenSearchDoc {
    // As snapshotOf values the main pool: quote units × the quote's USD price (null: out of USD sorts).
    const usd = usdVia(this.usdPrices, r.usd_mint, r.usd_factor);
    return {
      token_address: r.token_address,
      name: r.name,
      symbol: r.symbol,
      created_at: r.created_at,
      market_cap_usd: usd === null ? null : r.market_cap_quote * usd,
      liquidity_usd: usd === null ? null : r.liquidity_quote * usd,
      // -1 (not read yet) keys as 0: a search by that window reads it first (syncWindow).
      // Unknown (NaN): out of a sort by that window, as the item shows null.
      volume_usd_by_window: { all: r.volume_usd, '5m': windowKey(r.window_usd[0]), '1h': windowKey(r.window_usd[1]), '6h': windowKey(r.window_usd[2]), '24h': windowKey(r.window_usd[3]) },
      trader_count: r.trader_count,
    };
  }

  /** Re-keys every token at `prices` unless the index already holds them. */
  syncUsd(prices: QuotePrices): void {
    if (samePrices(prices, this.usdPrices)) return;
    this.usdPrices = [prices[0], prices[1], prices[2]];
    for (const r of this.values()) this.index.upsert(this.doc(r));
  }

  /**
   * Brings one window's values to the bucket `epoch`: every record whose value is not
   * 0 (-1, not read, included) and was read in another bucket is re-read by `reread`
   * (null keeps the old one).
   */
  syncWindow(window: SearchWindow, epoch: number, reread: (record: TokenRecord) => TokenRecord | null): void {
    const i = SEARCH_WINDOWS.indexOf(window);
    if (this.windowSynced[i] === epoch) return;
    // A wall clock can cross a bucket during the pass: then the values are mixed and
    // the next search passes again.
    let mixed = false;
    const usd = this.windows[i]!;
    const read = this.windows[4 + i]!;
    for (let row = 0; row < this.flags.length; row++) {
      if ((this.flags[row]! & PRESENT) === 0 || usd[row] === 0 || read[row] === epoch) continue;
      const fresh = reread(this.record(row));
      if (!fresh) {
        mixed = true;
        continue;
      }
      this.put(fresh);
      if (fresh.window_usd[i] !== 0 && fresh.window_epoch[i] !== epoch) mixed = true;
    }
    this.windowSynced[i] = mixed ? NaN : epoch;
  }

  search(query: SearchQuery): SearchPage {
    return this.index.search(query);
  }
}
