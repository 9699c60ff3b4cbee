import type { SearchWindow } from '../model/index.ts';
import MiniSearch from 'minisearch';
import SearchableMap from 'minisearch/SearchableMap';

/**
 * The token search index behind `GET /v1/tokens/search` (DECISIONS.md route 1). Token
 * actors call `upsert` on every change; the route calls `search` and turns the ids into
 * items (SERVICE.md 2.2) itself.
 *
 * Two halves, updated at different rates:
 * - text (name, symbol): a MiniSearch full-text index (smart mode) and a radix tree of
 *   whole names and symbols (exact and prefix modes). Touched only when a name or a
 *   symbol changes, which is rare.
 * - numbers (sort keys): a plain Map of small records, updated in place. This is what
 *   runs on every trade of a token, so it costs a Map lookup, two string comparisons
 *   and eight stores.
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
 * every word starting with it (a tenth of all tokens: ~30 ms at 100k tokens, since
 * MiniSearch scores every match); it is answered as a prefix query instead, which is
 * also what a user typing the first letter of a symbol expects.
 */
const SMART_CHARS_MIN = 2;
/** Symbol hits count twice as much as name hits in smart mode. */
const SYMBOL_BOOST = 2;

/** Sort keys of one token, updated in place by numeric upserts; NaN for an unknown USD value. @internal */
interface Numbers {
  created_at: number;
  market_cap_usd: number;
  volume_all: number;
  volume_5m: number;
  volume_1h: number;
  volume_6h: number;
  volume_24h: number;
  liquidity_usd: number;
  trader_count: number;
}

/** What the text indexes hold for one token: the raw values and their folded forms. @internal */
interface Text {
  name: string | null;
  symbol: string | null;
  /** fold(name), fold(symbol); null when absent or empty after folding. */
  nameKey: string | null;
  symbolKey: string | null;
}

/** The document MiniSearch indexes. @internal */
interface TextDoc {
  id: string;
  name: string | null;
  symbol: string | null;
}

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

type KeyOf = (numbers: Numbers) => number;

function numericKey(sort: Exclude<SearchSort, 'relevance'>, window: SearchWindow | undefined): KeyOf {
  switch (sort) {
    case 'market_cap_usd':
      return (n) => n.market_cap_usd;
    case 'liquidity_usd':
      return (n) => n.liquidity_usd;
    case 'trader_count':
      return (n) => n.trader_count;
    case 'created_at':
      return (n) => n.created_at;
    case 'volume_usd':
      switch (window) {
        case undefined:
          return (n) => n.volume_all;
        case '5m':
          return (n) => n.volume_5m;
        case '1h':
          return (n) => n.volume_1h;
        case '6h':
          return (n) => n.volume_6h;
        case '24h':
          return (n) => n.volume_24h;
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
  private readonly numbers = new Map<string, Numbers>();
  private readonly texts = new Map<string, Text>();
  /** Folded whole names and symbols → tokens carrying them (exact and prefix modes). */
  private readonly wholeTexts = new SearchableMap<Set<string>>();
  /** Word index over name and symbol (smart mode). */
  private readonly words = new MiniSearch<TextDoc>({
    fields: ['name', 'symbol'],
    tokenize,
    processTerm: (term) => fold(term) || null,
  });

  /** Number of tokens known. */
  get size(): number {
    return this.numbers.size;
  }

  has(tokenAddress: string): boolean {
    return this.numbers.has(tokenAddress);
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
    const current = this.numbers.get(id);
    if (current === undefined) {
      this.numbers.set(id, {
        created_at: doc.created_at,
        market_cap_usd: doc.market_cap_usd ?? NaN,
        volume_all: v.all ?? NaN,
        volume_5m: v['5m'] ?? NaN,
        volume_1h: v['1h'] ?? NaN,
        volume_6h: v['6h'] ?? NaN,
        volume_24h: v['24h'] ?? NaN,
        liquidity_usd: doc.liquidity_usd ?? NaN,
        trader_count: doc.trader_count,
      });
      this.indexText(id, doc.name, doc.symbol);
      return;
    }
    current.created_at = doc.created_at;
    current.market_cap_usd = doc.market_cap_usd ?? NaN;
    current.volume_all = v.all ?? NaN;
    current.volume_5m = v['5m'] ?? NaN;
    current.volume_1h = v['1h'] ?? NaN;
    current.volume_6h = v['6h'] ?? NaN;
    current.volume_24h = v['24h'] ?? NaN;
    current.liquidity_usd = doc.liquidity_usd ?? NaN;
    current.trader_count = doc.trader_count;
    const text = this.texts.get(id)!;
    if (text.name !== doc.name || text.symbol !== doc.symbol) {
      this.unindexText(id, text);
      this.indexText(id, doc.name, doc.symbol);
    }
  }

  /** Forget a token; false if it was not known. */
  remove(tokenAddress: string): boolean {
    const text = this.texts.get(tokenAddress);
    if (text === undefined) return false;
    this.unindexText(tokenAddress, text);
    this.texts.delete(tokenAddress);
    this.numbers.delete(tokenAddress);
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
    const keyOf = query.sort === 'relevance' ? null : numericKey(query.sort, query.window);
    if (matched === null) {
      // Every token; relevance is the same (0) for all of them.
      for (const [id, numbers] of this.numbers) visit(id, keyOf === null ? 0 : keyOf(numbers));
    } else if (keyOf === null) {
      for (const [id, relevance] of matched) visit(id, relevance);
    } else {
      for (const id of matched.keys()) visit(id, keyOf(this.numbers.get(id)!));
    }
    if (top.ids.length <= query.limit) return { ids: top.ids, next: null };
    const last = query.limit - 1;
    return { ids: top.ids.slice(0, query.limit), next: { key: top.keys[last]!, token_address: top.ids[last]! } };
  }

  /** Matching tokens with their relevance keys (higher is more relevant); null for every token. @internal */
  private match(q: string, mode: SearchMatch): Map<string, number> | null {
    if (MINT.test(q) && this.numbers.has(q)) return new Map([[q, 4 * TIER]]);
    const key = fold(q);
    if (key === '') return null;
    if (mode === 'smart' && key.length >= SMART_CHARS_MIN) return this.smart(q, key);
    const out = new Map<string, number>();
    const groups = mode === 'exact' ? [this.wholeTexts.get(key) ?? new Set<string>()] : this.wholeTexts.atPrefix(key).values();
    for (const ids of groups) {
      for (const id of ids) out.set(id, this.wholeRelevance(id, key));
    }
    return out;
  }

  /**
   * Relevance in exact and prefix modes, best first: symbol equal (4), name equal (3),
   * symbol starts with q (1 + the share of the symbol q covers, so `PEPE` beats
   * `PEPECOIN` for `pep`), name starts with q (the share of the name covered).
   */
  private wholeRelevance(id: string, key: string): number {
    const text = this.texts.get(id)!;
    let best = 0;
    if (text.symbolKey !== null) {
      if (text.symbolKey === key) return 4;
      if (text.symbolKey.startsWith(key)) best = 1 + key.length / text.symbolKey.length;
    }
    if (text.nameKey !== null) {
      if (text.nameKey === key) return 3;
      if (text.nameKey.startsWith(key)) best = Math.max(best, key.length / text.nameKey.length);
    }
    return round(best);
  }

  /**
   * MiniSearch relevance: every word of q must match a word of name or symbol, as a
   * prefix or within the edit distance of `fuzziness`; symbol hits are boosted. Exact
   * symbol equality ranks above everything, exact name equality next; both are taken
   * from the whole-text index too, so `$$$` finds a token whose symbol is `$$$` even
   * though it has no words.
   */
  private smart(q: string, key: string): Map<string, number> {
    const out = new Map<string, number>();
    const bonus = (id: string): number => {
      const text = this.texts.get(id)!;
      return text.symbolKey === key ? 2 * TIER : text.nameKey === key ? TIER : 0;
    };
    const results = this.words.search(q, {
      prefix: true,
      fuzzy: fuzziness,
      maxFuzzy: 2,
      boost: { symbol: SYMBOL_BOOST },
      combineWith: 'AND',
    });
    for (const result of results) {
      const id = result.id as string;
      out.set(id, round(bonus(id) + Math.min(result.score, TIER - 1)));
    }
    for (const id of this.wholeTexts.get(key) ?? []) {
      if (!out.has(id)) out.set(id, bonus(id));
    }
    return out;
  }

  private indexText(id: string, name: string | null, symbol: string | null): void {
    const text: Text = { name, symbol, nameKey: folded(name), symbolKey: folded(symbol) };
    this.texts.set(id, text);
    for (const key of [text.nameKey, text.symbolKey]) {
      if (key !== null) this.wholeTexts.fetch(key, () => new Set()).add(id);
    }
    if (text.nameKey !== null || text.symbolKey !== null) this.words.add({ id, name, symbol });
  }

  private unindexText(id: string, text: Text): void {
    for (const key of [text.nameKey, text.symbolKey]) {
      if (key === null) continue;
      const ids = this.wholeTexts.get(key);
      if (ids === undefined) continue;
      ids.delete(id);
      if (ids.size === 0) this.wholeTexts.delete(key);
    }
    // remove() needs the exact field values that were added; it is eager, so document
    // statistics (and thus scores) depend only on the current documents.
    if (text.nameKey !== null || text.symbolKey !== null) this.words.remove({ id, name: text.name, symbol: text.symbol });
  }
}
