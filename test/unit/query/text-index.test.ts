import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { WholeTexts, WordIndex } from '../../../engine/query/text-index.ts';
import { Rng } from '../../../engine/sources/sim/rng.ts';

/** The token search's options (engine/query/search-index.ts), given to both indexes. */
const fold = (text: string): string => text.normalize('NFKC').trim().toLowerCase();
const tokenize = (text: string): string[] => text.split(/[^\p{L}\p{N}\p{M}]+/u).filter((word) => word !== '');
const processTerm = (term: string) => fold(term) || null;
const fuzzy = (term: string): number | false => (term.length >= 4 ? 0.25 : false);

const WORDS = ['pepe', 'pepecoin', 'pep', 'doge', 'dog', 'moon', 'mooon', 'rocket', 'rockets', 'cat', 'kat', 'wif', 'hat', 'baby', 'babe', 'ＰＥＰＥ', 'grok', 'groks', 'dragon', 'dragn', '2.0', 'AI'];

function levenshtein(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), row[j]! + 1, next[j - 1]! + 1);
    row = next;
  }
  return row[b.length]!;
}

describe('WordIndex answers as MiniSearch', () => {
  it('the same documents with the same scores, through adds, renames and removes', () => {
    const r = new Rng(11);
    const pick = () => WORDS[r.int(WORDS.length)]!;
    const text = (): string | null => {
      const u = r.float();
      if (u < 0.05) return null;
      if (u < 0.07) return '';
      // Words of their own too (a number, a ticker), and repeats within a field.
      return Array.from({ length: 1 + r.int(3) }, () => (r.float() < 0.3 ? `${pick()}${r.int(50)}` : pick())).join(r.float() < 0.5 ? ' ' : '-');
    };
    const options = { fields: ['name', 'symbol'], boost: { symbol: 2 }, tokenize, processTerm, fuzzy, maxFuzzy: 2 };
    const mini = new MiniSearch<{ id: number; name: string | null; symbol: string | null }>({ fields: options.fields, tokenize, processTerm });
    // More documents than WholeTexts.MERGE_AT: terms in the sorted part and in the tail.
    const words = new WordIndex(options);
    const docs = new Map<number, { name: string | null; symbol: string | null }>();
    const add = (id: number) => {
      const doc = { name: text(), symbol: text() };
      docs.set(id, doc);
      mini.add({ id, ...doc });
      words.add(id, [doc.name, doc.symbol]);
    };
    const remove = (id: number) => {
      const doc = docs.get(id)!;
      docs.delete(id);
      mini.remove({ id, ...doc });
      words.remove(id, [doc.name, doc.symbol]);
    };
    for (let id = 0; id < 2_500; id++) add(id);
    for (let i = 0; i < 400; i++) {
      const id = r.int(2_500);
      if (!docs.has(id)) add(id);
      else {
        remove(id);
        if (r.float() < 0.7) add(id);
      }
    }
    const queries = ['pepe', 'pep', 'pe', 'peppe', 'pepecoin', 'dog', 'doge', 'dgoe', 'mooon', 'moon', 'rockte', 'rocket', 'dragon', 'baby pepe', 'pepe pepe', 'cat hat', 'ai 2', 'ＰＥＰＥ', 'pepe7', 'grok1', 'wif-hat', 'zzz', '$$$', 'rockets moon'];
    let compared = 0;
    for (const q of queries) {
      const want = new Map(mini.search(q, { prefix: true, fuzzy, maxFuzzy: 2, boost: { symbol: 2 }, combineWith: 'AND' }).map((x) => [x.id as number, x.score]));
      const got = words.search(q);
      expect([...got.keys()].sort((a, b) => a - b), q).toEqual([...want.keys()].sort((a, b) => a - b));
      // Equal up to the order of summing one document's prefix and fuzzy matches.
      for (const [id, score] of got) expect(Math.abs(score - want.get(id)!), `${q} ${id}`).toBeLessThanOrEqual(Math.abs(score) * 1e-12);
      compared += got.size;
    }
    expect(compared).toBeGreaterThan(1_000);
  });
});

describe('WholeTexts.fuzzy', () => {
  it('finds every key within the distance, with its distance, in the sorted part and the tail', () => {
    const r = new Rng(5);
    const whole = new WholeTexts();
    const keys: string[] = [];
    for (let i = 0; i < WholeTexts.MERGE_AT + 700; i++) {
      const base = WORDS[r.int(WORDS.length)]!.toLowerCase();
      // Words, words with a tail, and short strings of few letters (a bushy trie: many prunes).
      const u = r.float();
      const key = u < 0.3 ? base : u < 0.6 ? `${base}${'abcdefgh'[r.int(8)]}${r.int(10)}` : Array.from({ length: 1 + r.int(7) }, () => 'pedgo'[r.int(5)]).join('');
      keys.push(key);
      whole.add(key, i);
    }
    for (const [query, max] of [['pepe', 1], ['peppe', 2], ['rocket', 2], ['dog', 1], ['moonb', 2], ['x', 1], ['', 2], ['pgdo', 1], ['geode', 2]] as const) {
      const got = new Map<number, number>();
      whole.fuzzy(query, max, (row, distance) => got.set(row, distance));
      const want = new Map<number, number>();
      keys.forEach((key, row) => {
        const d = levenshtein(query, key);
        if (d <= max) want.set(row, d);
      });
      expect([...got].sort((a, b) => a[0] - b[0]), `${query} ${max}`).toEqual([...want].sort((a, b) => a[0] - b[0]));
    }
  });
});
