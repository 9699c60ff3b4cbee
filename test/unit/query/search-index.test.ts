import type { SearchWindow } from '../../../engine/model/index.ts';
import { createHash } from 'node:crypto';
import { WordIndex } from '../../../engine/query/text-index.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenSearchIndex, WholeTexts, type SearchOrder, type SearchQuery, type SearchSort, type TokenSearchDoc } from '../../../engine/query/search-index.ts';

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A 44-character base58 address, unrelated in order to `i`. */
function addr(i: number): string {
  const digest = createHash('sha256').update(`token-${i}`).digest();
  let out = '';
  for (let j = 0; j < 44; j++) out += B58[digest[j % 32]! % 58]!;
  return out;
}

function doc(i: number, over: Partial<TokenSearchDoc> = {}): TokenSearchDoc {
  return {
    token_address: addr(i),
    name: `Token ${i}`,
    symbol: `T${i}`,
    created_at: 1_700_000_000_000 + i * 1_000,
    market_cap_usd: 1_000 * ((i * 37) % 101),
    volume_usd_by_window: { all: (i * 13) % 17, '5m': (i * 7) % 5, '1h': (i * 11) % 9, '6h': (i * 3) % 23, '24h': (i * 5) % 29 },
    liquidity_usd: (i * 19) % 31,
    trader_count: i % 4,
    ...over,
  };
}

const query = (over: Partial<SearchQuery>): SearchQuery => ({ q: '', match: 'smart', sort: 'relevance', order: 'desc', limit: 20, ...over });

/** Every id of a query, page by page. */
function pageAll(index: TokenSearchIndex, q: SearchQuery): string[][] {
  const pages: string[][] = [];
  let after = q.after;
  for (;;) {
    const page = index.search({ ...q, after });
    pages.push(page.ids);
    if (page.next === null) return pages;
    expect(page.ids).toHaveLength(q.limit);
    after = page.next;
  }
}

function keyOf(d: TokenSearchDoc, sort: Exclude<SearchSort, 'relevance'>, window?: SearchWindow): number {
  // The random docs of this file always have USD values.
  if (sort === 'volume_usd') return d.volume_usd_by_window[window ?? 'all']!;
  return d[sort]!;
}

/** The order the index must give: key in the direction, then address ascending. */
function expected(docs: TokenSearchDoc[], sort: Exclude<SearchSort, 'relevance'>, order: SearchOrder, window?: SearchWindow): string[] {
  const dir = order === 'asc' ? 1 : -1;
  return [...docs]
    .sort((a, b) => {
      const ka = keyOf(a, sort, window);
      const kb = keyOf(b, sort, window);
      if (ka !== kb) return ka < kb ? -dir : dir;
      return a.token_address < b.token_address ? -1 : 1;
    })
    .map((d) => d.token_address);
}

function build(docs: TokenSearchDoc[]): TokenSearchIndex {
  const index = new TokenSearchIndex();
  for (const d of docs) index.upsert(d);
  return index;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('TokenSearchIndex: matching', () => {
  const docs = [
    doc(1, { name: 'Pepe', symbol: 'PEPE' }),
    doc(2, { name: 'Pepe Coin', symbol: 'PEPECOIN' }),
    doc(3, { name: 'Frog Pepe', symbol: 'FROG' }),
    doc(4, { name: 'Dog Wif Hat', symbol: '$WIF' }),
    doc(5, { name: 'pepe', symbol: 'PEPE' }),
    doc(6, { name: null, symbol: null }),
    doc(7, { name: 'ＰＥＰＥ Fullwidth', symbol: 'FW' }),
    doc(8, { name: 'Money Bag', symbol: '$$$' }),
    doc(9, { name: 'Doge', symbol: 'DOG' }),
  ];
  const index = build(docs);
  const a = (i: number) => addr(i);
  const ids = (q: Partial<SearchQuery>) => index.search(query({ limit: 100, ...q })).ids;

  it('a known mint matches exactly that token, whatever the mode', () => {
    for (const match of ['smart', 'exact', 'prefix'] as const) {
      expect(ids({ q: a(6), match })).toEqual([a(6)]);
      expect(ids({ q: ` ${a(3)} `, match, sort: 'market_cap_usd' })).toEqual([a(3)]);
    }
  });

  it('an unknown mint is searched as text and finds nothing', () => {
    expect(ids({ q: addr(999) })).toEqual([]);
    expect(ids({ q: addr(999), match: 'prefix' })).toEqual([]);
  });

  it('exact: case-insensitive equality with symbol or name, symbol equality first', () => {
    expect(ids({ q: 'pepe', match: 'exact' })).toEqual([a(1), a(5)].sort());
    expect(ids({ q: 'PEPE COIN', match: 'exact' })).toEqual([a(2)]);
    expect(ids({ q: 'pepecoin', match: 'exact' })).toEqual([a(2)]);
    expect(ids({ q: 'pep', match: 'exact' })).toEqual([]);
    expect(ids({ q: 'wif', match: 'exact' })).toEqual([]);
    expect(ids({ q: '$wif', match: 'exact' })).toEqual([a(4)]);
    // NFKC: fullwidth letters equal their ASCII forms.
    expect(ids({ q: 'pepe fullwidth', match: 'exact' })).toEqual([a(7)]);
  });

  it('prefix: symbol or name starts with q; equal first, then the shortest completion', () => {
    expect(ids({ q: 'pep', match: 'prefix' })).toEqual([...[a(1), a(5)].sort(), a(2), a(7)]);
    expect(ids({ q: 'PEPE C', match: 'prefix' })).toEqual([a(2)]);
    // "Frog Pepe" contains pepe but does not start with it.
    expect(ids({ q: 'pepe', match: 'prefix' })).not.toContain(a(3));
    expect(ids({ q: 'fro', match: 'prefix' })).toEqual([a(3)]);
  });

  it('smart: words by prefix and fuzzily, over name and symbol, exact symbol first', () => {
    const pepe = ids({ q: 'pepe' });
    expect(pepe.slice(0, 2)).toEqual([a(1), a(5)].sort());
    expect(new Set(pepe)).toEqual(new Set([a(1), a(2), a(3), a(5), a(7)]));
    expect(ids({ q: 'wif' })).toEqual([a(4)]);
    expect(ids({ q: 'dog wif' })).toEqual([a(4)]);
    // Fuzzy: one edit allowed from 4 characters.
    expect(ids({ q: 'peppe' })).toContain(a(1));
    expect(ids({ q: 'frug' })).toEqual([a(3)]);
    // No fuzziness under 4 characters: "dig" is not "dog".
    expect(ids({ q: 'dig' })).toEqual([]);
    // Symbol equality beats a name word: DOG (symbol) before "Dog Wif Hat".
    expect(ids({ q: 'dog' })[0]).toBe(a(9));
    // A symbol without letters is found whole.
    expect(ids({ q: '$$$' })).toEqual([a(8)]);
  });

  it('smart with one character is a prefix query of whole names and symbols', () => {
    expect(ids({ q: 'f' })).toEqual(ids({ q: 'f', match: 'prefix' }));
    expect(ids({ q: 'f' })).toEqual([a(7), a(3)]);
  });

  it('symbol hits outrank name hits of the same word', () => {
    const index2 = build([doc(1, { name: 'Moon Shot', symbol: 'MS' }), doc(2, { name: 'Rocket', symbol: 'MOONR' })]);
    expect(index2.search(query({ q: 'moo' })).ids).toEqual([addr(2), addr(1)]);
  });

  it('an empty q matches every token', () => {
    expect(ids({ q: '   ' })).toHaveLength(docs.length);
    expect(ids({ q: '', match: 'exact', sort: 'created_at', order: 'asc' })).toEqual(docs.map((d) => d.token_address));
  });

  it('rejects a limit below 1', () => {
    expect(() => index.search(query({ limit: 0 }))).toThrow(RangeError);
  });

  it('rejects non-finite sort keys', () => {
    expect(() => new TokenSearchIndex().upsert(doc(1, { market_cap_usd: Number.NaN }))).toThrow(TypeError);
  });
});

describe('TokenSearchIndex: sorting and paging', () => {
  const docs = Array.from({ length: 250 }, (_, i) => doc(i));
  const index = build(docs);
  const sorts = ['market_cap_usd', 'volume_usd', 'liquidity_usd', 'trader_count', 'created_at'] as const;

  for (const sort of sorts) {
    for (const order of ['asc', 'desc'] as const) {
      it(`${sort} ${order}: pages of 20 give every token once, in order`, () => {
        const pages = pageAll(index, query({ sort, order }));
        expect(pages).toHaveLength(13);
        expect(pages.flat()).toEqual(expected(docs, sort, order));
      });
    }
  }

  for (const window of ['5m', '1h', '6h', '24h'] as const) {
    it(`volume_usd uses the ${window} window`, () => {
      expect(pageAll(index, query({ sort: 'volume_usd', order: 'desc', window, limit: 17 })).flat()).toEqual(
        expected(docs, 'volume_usd', 'desc', window),
      );
    });
  }

  it('a window does not change other sorts', () => {
    expect(index.search(query({ sort: 'market_cap_usd', window: '5m' }))).toEqual(index.search(query({ sort: 'market_cap_usd' })));
  });

  it('relevance pages through ties by address, both orders', () => {
    // "token" matches every name equally well up to length normalisation: many ties.
    for (const order of ['asc', 'desc'] as const) {
      const all = pageAll(index, query({ q: 'token', order })).flat();
      expect(all).toHaveLength(250);
      expect(new Set(all).size).toBe(250);
      expect(all).toEqual(index.search(query({ q: 'token', order, limit: 1_000 })).ids);
    }
  });

  it('the last page has next null; an exact fit does not announce an empty page', () => {
    const page = index.search(query({ limit: 250 }));
    expect(page.ids).toHaveLength(250);
    expect(page.next).toBeNull();
  });

  it('the same documents in another insertion order give the same results', () => {
    const shuffled = build([...docs].reverse());
    for (const q of ['token', 'toke', 'tokne 1', 't1', '']) {
      for (const sort of ['relevance', ...sorts] as const) {
        const request = query({ q, sort, limit: 30 });
        expect(shuffled.search(request)).toEqual(index.search(request));
      }
    }
  });

  it('when numbers change between pages, tokens that did not move are neither lost nor repeated', () => {
    const changing = build(docs);
    const q = query({ sort: 'market_cap_usd', order: 'desc' });
    const first = changing.search(q);
    const order = expected(docs, 'market_cap_usd', 'desc');
    const mover = order[100]!;
    // The mover jumps above everything already shown; it is skipped (it now belongs to page 1).
    changing.upsert({ ...docs.find((d) => d.token_address === mover)!, market_cap_usd: 1e12 });
    const rest = pageAll(changing, { ...q, after: first.next! }).flat();
    expect(new Set([...first.ids, ...rest]).size).toBe(first.ids.length + rest.length);
    expect([...first.ids, ...rest]).toEqual(order.filter((id) => id !== mover));
  });
});

describe('TokenSearchIndex: unknown USD values', () => {
  it('a token without a USD market cap, liquidity or volume is in no sort by it, in either order, and still found by text', () => {
    const index = new TokenSearchIndex();
    const priced = [doc(1), doc(2), doc(3)];
    const unpriced = doc(4, { market_cap_usd: null, liquidity_usd: null, volume_usd_by_window: { all: null, '5m': 0, '1h': 0, '6h': 0, '24h': 0 } });
    for (const d of [...priced, unpriced]) index.upsert(d);
    for (const sort of ['market_cap_usd', 'liquidity_usd', 'volume_usd'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        expect(pageAll(index, query({ sort, order, limit: 2 })).flat(), `${sort} ${order}`).toEqual(expected(priced, sort, order));
      }
    }
    expect(index.search(query({ q: 'T4' })).ids).toEqual([unpriced.token_address]);
    expect(index.search(query({ sort: 'trader_count', limit: 10 })).ids).toHaveLength(4);
    // Once known, it sorts like any other.
    index.upsert(doc(4));
    expect(index.search(query({ sort: 'market_cap_usd', limit: 10 })).ids).toEqual(expected([...priced, doc(4)], 'market_cap_usd', 'desc'));
  });
});

describe('TokenSearchIndex: updates', () => {
  it('numeric updates reorder without touching the text indexes', () => {
    const index = build(Array.from({ length: 10 }, (_, i) => doc(i, { market_cap_usd: i })));
    const add = vi.spyOn(WordIndex.prototype, 'add');
    const remove = vi.spyOn(WordIndex.prototype, 'remove');
    expect(index.search(query({ sort: 'market_cap_usd', limit: 1 })).ids).toEqual([addr(9)]);
    index.upsert(doc(3, { market_cap_usd: 100 }));
    expect(index.search(query({ sort: 'market_cap_usd', limit: 1 })).ids).toEqual([addr(3)]);
    index.upsert(doc(3, { market_cap_usd: -1, volume_usd_by_window: { all: 9e9, '5m': 1, '1h': 1, '6h': 1, '24h': 1 } }));
    expect(index.search(query({ sort: 'market_cap_usd', order: 'asc', limit: 1 })).ids).toEqual([addr(3)]);
    expect(index.search(query({ sort: 'volume_usd', limit: 1 })).ids).toEqual([addr(3)]);
    expect(add).not.toHaveBeenCalled();
    expect(remove).not.toHaveBeenCalled();
  });

  it('a name or symbol change re-indexes that token', () => {
    const index = build([doc(1, { name: 'Alpha', symbol: 'ALP' }), doc(2, { name: 'Beta', symbol: 'BET' })]);
    const add = vi.spyOn(WordIndex.prototype, 'add');
    const remove = vi.spyOn(WordIndex.prototype, 'remove');
    index.upsert(doc(1, { name: 'Gamma', symbol: 'ALP' }));
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledTimes(1);
    for (const match of ['smart', 'exact', 'prefix'] as const) {
      expect(index.search(query({ q: 'alpha', match })).ids).toEqual([]);
      expect(index.search(query({ q: 'gamma', match })).ids).toEqual([addr(1)]);
      expect(index.search(query({ q: 'alp', match })).ids).toEqual([addr(1)]);
    }
    // Symbol cleared: the token keeps its name, loses its symbol.
    index.upsert(doc(1, { name: 'Gamma', symbol: null }));
    expect(index.search(query({ q: 'alp', match: 'prefix' })).ids).toEqual([]);
    expect(index.search(query({ q: 'gam', match: 'prefix' })).ids).toEqual([addr(1)]);
    // Metadata added to a token that had none.
    index.upsert(doc(3, { name: null, symbol: null }));
    expect(index.search(query({ q: 'delta' })).ids).toEqual([]);
    index.upsert(doc(3, { name: 'Delta', symbol: null }));
    expect(index.search(query({ q: 'delta' })).ids).toEqual([addr(3)]);
  });

  it('two tokens sharing a symbol stay findable when one renames', () => {
    const index = build([doc(1, { symbol: 'SAME' }), doc(2, { symbol: 'SAME' })]);
    index.upsert(doc(1, { symbol: 'OTHER' }));
    expect(index.search(query({ q: 'same', match: 'exact' })).ids).toEqual([addr(2)]);
  });

  it('remove forgets a token everywhere', () => {
    const index = build([doc(1, { name: 'Alpha', symbol: 'ALP' }), doc(2)]);
    expect(index.remove(addr(1))).toBe(true);
    expect(index.remove(addr(1))).toBe(false);
    expect(index.size).toBe(1);
    expect(index.has(addr(1))).toBe(false);
    for (const match of ['smart', 'exact', 'prefix'] as const) {
      expect(index.search(query({ q: 'alp', match })).ids).toEqual([]);
      expect(index.search(query({ q: addr(1), match })).ids).toEqual([]);
    }
    index.upsert(doc(1, { name: 'Alpha', symbol: 'ALP' }));
    expect(index.search(query({ q: 'alpha' })).ids).toEqual([addr(1)]);
  });
});

describe('TokenSearchIndex: whole names and symbols past the unsorted tail', () => {
  // More tokens than WholeTexts.MERGE_AT, so that most keys are in the sorted part, some
  // in the tail, and renames move keys out of both.
  const count = 2 * WholeTexts.MERGE_AT + 300;
  const words = ['pepe', 'pep', 'dog', 'doge', 'moon', 'mo', 'cat'];
  const make = (i: number) => doc(i, { name: `${words[i % 7]} ${words[(i * 3) % 7]} ${i % 13}`, symbol: `${words[(i * 5) % 7]!.toUpperCase()}${i % 11}` });
  const docs = Array.from({ length: count }, (_, i) => make(i));
  const index = build(docs);
  // Renamed after the merges: the old keys leave the sorted part or the tail.
  for (let i = 0; i < count; i += 97) {
    docs[i] = { ...docs[i]!, name: `renamed ${i}`, symbol: i % 2 ? null : `RN${i}` };
    index.upsert(docs[i]!);
  }
  const fold = (s: string | null) => (s === null ? null : s.toLowerCase());

  it('exact and prefix find what a pass over every token finds', () => {
    for (const q of ['pepe', 'pep', 'pepe dog', 'dog', 'doge', 'mo', 'moon moon 3', 'cat1', 'renamed', 'renamed 97', 'rn', 'rn194', 'zzz']) {
      for (const match of ['exact', 'prefix'] as const) {
        const hit = (key: string | null) => key !== null && (match === 'exact' ? key === q : key.startsWith(q));
        const want = docs.filter((d) => hit(fold(d.name)) || hit(fold(d.symbol))).map((d) => d.token_address).sort();
        const got = pageAll(index, query({ q, match, sort: 'created_at', order: 'asc', limit: 100 })).flat();
        expect([...got].sort(), `${match} ${q}`).toEqual(want);
      }
    }
  });
});
