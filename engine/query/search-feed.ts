import { SEARCH_WINDOWS, USDC, USDT, WINDOW_RESOLUTION_MS, WSOL, type SearchWindow } from '../model/index.ts';
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

/** A record's window volume as a sort key: -1 (not read yet) as 0, NaN (unknown) as null. */
const windowKey = (usd: number): number | null => (usd !== usd ? null : Math.max(0, usd));

export class TokenSearchFeed {
  private readonly index = new TokenSearchIndex();
  private readonly records = new Map<string, TokenRecord>();
  /** The prices the index's USD keys are computed with. */
  private usdPrices: QuotePrices = [null, null, null];
  /**
   * Per window, the bucket every non-zero value of that window was read in, or NaN
   * when they may differ.
   */
  private readonly windowSynced = [NaN, NaN, NaN, NaN];

  get size(): number {
    return this.records.size;
  }

  get(token: string): TokenRecord | undefined {
    return this.records.get(token);
  }

  values(): IterableIterator<TokenRecord> {
    return this.records.values();
  }

  /** Adds or replaces a token's record and its index entry. */
  put(record: TokenRecord): void {
    this.records.set(record.token_address, record);
    this.index.upsert(this.doc(record));
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
    for (const r of this.records.values()) this.index.upsert(this.doc(r));
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
    // Setting an existing key while iterating a Map visits nothing twice.
    for (const r of this.records.values()) {
      if (r.window_usd[i] === 0 || r.window_epoch[i] === epoch) continue;
      const fresh = reread(r);
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
