import type { SearchWindow } from '../model/index.ts';
import { AddressRows, fitF64, fitU8, ownString } from './columns.ts';
import { WholeTexts, WordIndex } from './text-index.ts';

export { WholeTexts } from './text-index.ts';

/**
 * The token search index behind `GET /v1/tokens/search` (DECISIONS.md route 1). Token
 * actors call `upsert` on every change; the route calls `search` and turns the ids into
 * items (SERVICE.md 2.2) itself.
 *
 * Two halves, updated at different rates:
 * - text (name, symbol): a word index scoring as MiniSearch does (smart mode:
 *   `WordIndex`, text-index.ts) and the whole names and symbols in sorted order
 *   (exact and prefix modes: `WholeTexts`). Touched
 *   only when a name or a symbol changes, which is rare.
 * - numbers (sort keys): a column (Float64Array) per key, a token being a row
 *   (columns.ts), updated in place. This is what runs on every trade of a token, so it
 *   costs a Map lookup, two string comparisons and nine stores.
 *
 * Paging is keyset paging: a position is the sort key value and the address of the
 * last item returned, and the next page is every match strictly after it in the total
 * order (key in the requested direction, then token_address ascending). While nothing
 * changes, pages tile the result exactly: no duplicates, no gaps. When numbers (or, for
 * relevance, the set of documents) change between pages, tokens that did not move stay
 * correctly placed, but a token whose key crossed the position can be skipped (it moved
 * onto an earlier page) or seen twice (it moved onto a later page); a page never
 * repeats an item within itself and never fails.
 *
 * Deterministic: the order is a total order on (key, token_address), and relevance
 * scores are rounded to 1e-6 so that float noise from the order in which documents
 * were added cannot reorder near-equal scores.
 *
 * Cost of a search: linear in the size of its match set (every match is scored and
 * offered to a bounded top-k), not in the page size or depth; there is no sorted
 * structure per sort key, because keeping nine orders sorted would make the per-trade
 * numeric upsert the expensive operation. bench/search.ts has the figures.
 */

export type SearchMatch = 'smart' | 'exact' | 'prefix';
export type SearchSort = 'relevance' | 'market_cap_usd' | 'volume_usd' | 'liquidity_usd' | 'trader_count' | 'created_at';
export type SearchOrder = 'asc' | 'desc';

/**
 * What a token actor reports. Every number must be finite; the USD market cap,
 * liquidity and volumes may be null (unknown: no USD price for the quote):
 * the token is then left out of a sort by that key (it matches no USD sort it has
 * no value for, rather than sorting as 0).
 */
export interface TokenSearchDoc {
  token_address: string;
  name: string | null;
  symbol: string | null;
  /** Pool creation time, Unix ms. */
  created_at: number;
  market_cap_usd: number | null;
  volume_usd_by_window: { all: number | null; '5m': number | null; '1h': number | null; '6h': number | null; '24h': number | null };
  liquidity_usd: number | null;
  trader_count: number;
}

/** Where a page ended: the sort key of its last item and that item's address. */
export interface SearchPosition {
  key: number;
  token_address: string;
}

export interface SearchQuery {
  /** Trimmed by the index; '' matches every token. */
  q: string;
  match: SearchMatch;
  sort: SearchSort;
  order: SearchOrder;
  /** Window of `volume_usd`; all-time volume when absent. Ignored by other sorts. */
  window?: SearchWindow;
  /** Items per page, at least 1. */
  limit: number;
  /** The `next` of the previous page. */
  after?: SearchPosition;
}

export interface SearchPage {
  ids: string[];
  /** Position to pass as `after` for the next page; null on the last page. */
  next: SearchPosition | null;
}

/** SERVICE.md 2.1 addresses. */
const MINT = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * Relevance tiers sit above any text score: a score is at most a few hundred (BM25
 * with an idf of at most ln(documents) ≈ 12 per term and field, times the symbol
 * boost), so a tier of a million keeps tiers strictly ordered; scores are clamped
 * below it anyway.
 */
const TIER = 1_000_000;
/** Relevance keys are rounded to this many steps per unit (see the file comment). */
const SCORE_STEPS = 1_000_000;
/**
 * Shortest smart query run through the word index. One character would expand to
 * every word starting with it (a tenth of all tokens: ~30 ms at 100k tokens with
 * MiniSearch, which scored every match, as WordIndex does); it is answered as a prefix
 * query instead, which is also what a user typing the first letter of a symbol expects.
 */
const SMART_CHARS_MIN = 2;
/** Symbol hits count twice as much as name hits in smart mode. */
const SYMBOL_BOOST = 2;

/** The sort-key columns of a token row; NaN for an unknown USD value. @internal */
const enum K {
  CreatedAt = 0,
  MarketCapUsd = 1,
  VolumeAll = 2,
  Volume5m = 3,
  Volume1h = 4,
  Volume6h = 5,
  Volume24h = 6,
  LiquidityUsd = 7,
  TraderCount = 8,
}
const KEYS = 9;

/** Case-insensitive, width-insensitive form used by every comparison: `ＰＥＰＥ` is `pepe`. */
const fold = (text: string): string => text.normalize('NFKC').trim().toLowerCase();
const folded = (text: string | null): string | null => {
  if (text === null) return null;
  const key = fold(text);
  return key === '' ? null : key;
};

/** Words are runs of letters, digits and combining marks: `$WIF` is `wif`, `PEPE2.0` is `pepe2 0`. */
const WORD_SEPARATOR = /[^\p{L}\p{N}\p{M}]+/u;
const tokenize = (text: string): string[] => text.split(WORD_SEPARATOR).filter((word) => word !== '');

/** Edit distance allowed for a query word: none under 4 characters, then 1 per 4, at most 2. */
const fuzziness = (term: string): number | false => (term.length >= 4 ? 0.25 : false);

const round = (score: number): number => Math.round(score * SCORE_STEPS) / SCORE_STEPS;

function assertFinite(doc: TokenSearchDoc): void {
  const v = doc.volume_usd_by_window;
  // Written out: this runs on every trade, and an array of the values would be garbage.
  const finite =
    Number.isFinite(doc.created_at) && (doc.market_cap_usd === null || Number.isFinite(doc.market_cap_usd)) &&
    (doc.liquidity_usd === null || Number.isFinite(doc.liquidity_usd)) &&
    Number.isFinite(doc.trader_count) && (v.all === null || Number.isFinite(v.all)) && (v['5m'] === null || Number.isFinite(v['5m'])) &&
    (v['1h'] === null || Number.isFinite(v['1h'])) && (v['6h'] === null || Number.isFinite(v['6h'])) && (v['24h'] === null || Number.isFinite(v['24h']));
  if (!finite) throw new TypeError(`token ${doc.token_address}: search sort keys must be finite numbers`);
}

/** The column a numeric sort reads. */
function numericKey(sort: Exclude<SearchSort, 'relevance'>, window: SearchWindow | undefined): K {
  switch (sort) {
    case 'market_cap_usd':
      return K.MarketCapUsd;
    case 'liquidity_usd':
      return K.LiquidityUsd;
    case 'trader_count':
      return K.TraderCount;
    case 'created_at':
      return K.CreatedAt;
    case 'volume_usd':
      switch (window) {
        case undefined:
          return K.VolumeAll;
        case '5m':
          return K.Volume5m;
        case '1h':
          return K.Volume1h;
        case '6h':
          return K.Volume6h;
        case '24h':
          return K.Volume24h;
      }
  }
}

/**
 * The `limit` best items after a position, kept sorted; an item is inserted only if it
 * beats the current worst, so a large match set costs about one comparison per item.
 * @internal
 */
class TopK {
  readonly keys: number[] = [];
  readonly ids: string[] = [];

  constructor(
    private readonly size: number,
    /** 1 ascending, -1 descending. */
    private readonly direction: 1 | -1,
  ) {}

  /** Negative when (k1, a1) comes before (k2, a2) in the page order. */
  compare(k1: number, a1: string, k2: number, a2: string): number {
    if (k1 !== k2) return k1 < k2 ? -this.direction : this.direction;
    return a1 < a2 ? -1 : a1 > a2 ? 1 : 0;
  }

  offer(key: number, id: string): void {
    const n = this.ids.length;
    if (n === this.size && this.compare(key, id, this.keys[n - 1]!, this.ids[n - 1]!) >= 0) return;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(this.keys[mid]!, this.ids[mid]!, key, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.keys.splice(lo, 0, key);
    this.ids.splice(lo, 0, id);
    if (this.ids.length > this.size) {
      this.keys.pop();
      this.ids.pop();
    }
  }
}

/** Tokens by mint, name and symbol, ordered by relevance or a market number; see the file comment. */
export class TokenSearchIndex {
  /**
   * Token rows (columns.ts); a removed token keeps its row, marked absent, for when it
   * comes back. Rows may be shared with other tables of addresses (the pool
   * directory's mints): rows of addresses never upserted here are absent too.
   */
  private readonly ids: AddressRows;
  private present: Uint8Array = new Uint8Array(0);
  private count = 0;
  /** The sort keys: column K of row r at numbers[K][r]. */
  private readonly numbers: Float64Array[] = Array.from({ length: KEYS }, () => new Float64Array(0));
  /** The raw name and symbol of each row, and their folded forms (fold; null when absent or empty after folding). */
  private readonly names: Array<string | null> = [];
  private readonly symbols: Array<string | null> = [];
  private readonly nameKeys: Array<string | null> = [];
  private readonly symbolKeys: Array<string | null> = [];
  /** Folded whole names and symbols → rows carrying them (exact and prefix modes). */
  private readonly wholeTexts = new WholeTexts();
  /** Word index over name and symbol (smart mode). */
  private readonly words = new WordIndex({
    fields: ['name', 'symbol'],
    boost: { symbol: SYMBOL_BOOST },
    tokenize,
    processTerm: (term) => fold(term) || null,
    fuzzy: fuzziness,
    maxFuzzy: 2,
  });

  constructor(ids = new AddressRows()) {
    this.ids = ids;
  }

  /** Number of tokens known. */
  get size(): number {
    return this.count;
  }

  has(tokenAddress: string): boolean {
    return this.rowOf(tokenAddress) >= 0;
  }

  /** The token's row while it is known, else -1: search-feed.ts keeps its record's columns by it. */
  rowOf(tokenAddress: string): number {
    const row = this.ids.find(tokenAddress);
    return row >= 0 && row < this.present.length && this.present[row] === 1 ? row : -1;
  }

  /** Address, name and symbol of a known token's row, as last upserted. */
  addressAt(row: number): string {
    return this.ids.address(row);
  }

  nameAt(row: number): string | null {
    return this.names[row]!;
  }

  symbolAt(row: number): string | null {
    return this.symbols[row]!;
  }

  /**
   * Add a token or update it. The text indexes are touched only when name or symbol
   * differ from what is indexed; otherwise this only overwrites the sort keys.
   * Throws a TypeError on a non-finite number (a caller bug: the order would be undefined).
   */
  upsert(doc: TokenSearchDoc): void {
    assertFinite(doc);
    const id = doc.token_address;
    const v = doc.volume_usd_by_window;
    const row = this.ids.row(id);
    const known = row < this.present.length && this.present[row] === 1;
    if (!known) {
      const n = this.ids.size;
      this.present = fitU8(this.present, n);
      for (let k = 0; k < KEYS; k++) this.numbers[k] = fitF64(this.numbers[k]!, n);
      this.present[row] = 1;
      this.count++;
    }
    const c = this.numbers;
    c[K.CreatedAt]![row] = doc.created_at;
    c[K.MarketCapUsd]![row] = doc.market_cap_usd ?? NaN;
    c[K.VolumeAll]![row] = v.all ?? NaN;
    c[K.Volume5m]![row] = v['5m'] ?? NaN;
    c[K.Volume1h]![row] = v['1h'] ?? NaN;
    c[K.Volume6h]![row] = v['6h'] ?? NaN;
    c[K.Volume24h]![row] = v['24h'] ?? NaN;
    c[K.LiquidityUsd]![row] = doc.liquidity_usd ?? NaN;
    c[K.TraderCount]![row] = doc.trader_count;
    if (!known) this.indexText(row, doc.name, doc.symbol);
    else if (this.names[row] !== doc.name || this.symbols[row] !== doc.symbol) {
      this.unindexText(row);
      this.indexText(row, doc.name, doc.symbol);
    }
  }

  /** Forget a token; false if it was not known. */
  remove(tokenAddress: string): boolean {
    const row = this.rowOf(tokenAddress);
    if (row < 0) return false;
    this.unindexText(row);
    this.names[row] = this.symbols[row] = this.nameKeys[row] = this.symbolKeys[row] = null;
    this.present[row] = 0;
    this.count--;
    return true;
  }

  /**
   * One page of the tokens matching `q`, in the requested order. A `q` that is the
   * address of a known token matches exactly that token whatever `match` says; an
   * address-shaped `q` that is not known is searched as text like any other. An empty
   * `q` matches every token, and a one-character smart `q` is a prefix query (see
   * SMART_CHARS_MIN). Throws a RangeError on a limit that is not a positive integer.
   */
  search(query: SearchQuery): SearchPage {
    if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError(`limit must be a positive integer, got ${query.limit}`);
    const q = query.q.trim();
    const matched = this.match(q, query.match);
    const top = new TopK(query.limit + 1, query.order === 'asc' ? 1 : -1);
    const after = query.after;
    const visit = (id: string, key: number): void => {
      // An unknown USD value (NaN) is in no USD sort: neither first nor last.
      if (key !== key) return;
      if (after !== undefined && top.compare(key, id, after.key, after.token_address) <= 0) return;
      top.offer(key, id);
    };
    const column = query.sort === 'relevance' ? null : this.numbers[numericKey(query.sort, query.window)]!;
    if (matched === null) {
      // Every token; relevance is the same (0) for all of them.
      for (let row = 0; row < this.present.length; row++) if (this.present[row] === 1) visit(this.ids.address(row), column === null ? 0 : column[row]!);
    } else if (column === null) {
      for (const [id, relevance] of matched) visit(id, relevance);
    } else {
      for (const id of matched.keys()) visit(id, column[this.ids.find(id)]!);
    }
    if (top.ids.length <= query.limit) return { ids: top.ids, next: null };
    const last = query.limit - 1;
    return { ids: top.ids.slice(0, query.limit), next: { key: top.keys[last]!, token_address: top.ids[last]! } };
  }

  /** Matching tokens with their relevance keys (higher is more relevant); null for every token. @internal */
  private match(q: string, mode: SearchMatch): Map<string, number> | null {
    if (MINT.test(q) && this.has(q)) return new Map([[q, 4 * TIER]]);
    const key = fold(q);
    if (key === '') return null;
    if (mode === 'smart' && key.length >= SMART_CHARS_MIN) return this.smart(q, key);
    const out = new Map<string, number>();
    this.wholeTexts.each(key, mode !== 'exact', (row) => out.set(this.ids.address(row), this.wholeRelevance(row, key)));
    return out;
  }

  /**
   * Relevance in exact and prefix modes, best first: symbol equal (4), name equal (3),
   * symbol starts with q (1 + the share of the symbol q covers, so `PEPE` beats
   * `PEPECOIN` for `pep`), name starts with q (the share of the name covered).
   */
  private wholeRelevance(row: number, key: string): number {
    const symbolKey = this.symbolKeys[row]!;
    const nameKey = this.nameKeys[row]!;
    let best = 0;
    if (symbolKey !== null) {
      if (symbolKey === key) return 4;
      if (symbolKey.startsWith(key)) best = 1 + key.length / symbolKey.length;
    }
    if (nameKey !== null) {
      if (nameKey === key) return 3;
      if (nameKey.startsWith(key)) best = Math.max(best, key.length / nameKey.length);
    }
    return round(best);
  }

  /**
   * Word relevance (MiniSearch's, WordIndex): every word of q must match a word of name or symbol, as a
   * prefix or within the edit distance of `fuzziness`; symbol hits are boosted. Exact
   * symbol equality ranks above everything, exact name equality next; both are taken
   * from the whole-text index too, so `$$$` finds a token whose symbol is `$$$` even
   * though it has no words.
   */
  private smart(q: string, key: string): Map<string, number> {
    const out = new Map<string, number>();
    const bonus = (row: number): number => (this.symbolKeys[row] === key ? 2 * TIER : this.nameKeys[row] === key ? TIER : 0);
    for (const [row, score] of this.words.search(q)) out.set(this.ids.address(row), round(bonus(row) + Math.min(score, TIER - 1)));
    this.wholeTexts.each(key, false, (row) => {
      const id = this.ids.address(row);
      if (!out.has(id)) out.set(id, bonus(row));
    });
    return out;
  }

  private indexText(row: number, rawName: string | null, rawSymbol: string | null): void {
    // Own copies, and what is cut from them: a name read from a token's snapshot is a
    // slice of that snapshot's whole text, and so would be its folded key and words.
    const name = ownString(rawName);
    const symbol = ownString(rawSymbol);
    const nameKey = folded(name);
    const symbolKey = folded(symbol);
    this.names[row] = name;
    this.symbols[row] = symbol;
    this.nameKeys[row] = nameKey;
    this.symbolKeys[row] = symbolKey;
    // A name and symbol folding to one key are one entry, as they were one set member.
    if (nameKey !== null) this.wholeTexts.add(nameKey, row);
    if (symbolKey !== null && symbolKey !== nameKey) this.wholeTexts.add(symbolKey, row);
    if (nameKey !== null || symbolKey !== null) this.words.add(row, [name, symbol]);
  }

  private unindexText(row: number): void {
    const nameKey = this.nameKeys[row]!;
    const symbolKey = this.symbolKeys[row]!;
    if (nameKey !== null) this.wholeTexts.delete(nameKey, row);
    if (symbolKey !== null && symbolKey !== nameKey) this.wholeTexts.delete(symbolKey, row);
    // remove() needs the exact field values that were added; it is eager, so document
    // statistics (and thus scores) depend only on the current documents.
    if (nameKey !== null || symbolKey !== null) this.words.remove(row, [this.names[row]!, this.symbols[row]!]);
  }
}
