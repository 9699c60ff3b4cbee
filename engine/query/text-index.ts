import { fitI32 } from './columns.ts';

/**
 * The token search's text indexes (search-index.ts): whole names and symbols in
 * sorted order (`WholeTexts`), and the word index of smart mode (`WordIndex`), both
 * kept as arrays of strings and numbers rather than a tree of Maps.
 */

/**
 * Keys and the rows carrying them, in sorted order (the token search's folded whole
 * names and symbols, and the word index's terms):
 * an exact key is a binary search, a prefix a binary search and a walk of the keys
 * starting with it (they sort together). Keys added go to an unsorted tail, searched
 * linearly and merged into the sorted part once it holds MERGE_AT keys, so that a new
 * token costs no shift of the whole order (a replay adds thousands a second). Two
 * arrays of refs per key and token, where a radix tree of Maps took ~750 B per token.
 * @internal
 */
export class WholeTexts {
  private keys: string[] = [];
  private rows: number[] = [];
  private readonly tailKeys: string[] = [];
  private readonly tailRows: number[] = [];
  static readonly MERGE_AT = 1_024;

  add(key: string, row: number): void {
    this.tailKeys.push(key);
    this.tailRows.push(row);
    if (this.tailKeys.length >= WholeTexts.MERGE_AT) this.merge();
  }

  delete(key: string, row: number): void {
    for (let i = 0; i < this.tailKeys.length; i++) {
      if (this.tailKeys[i] === key && this.tailRows[i] === row) {
        this.tailKeys.splice(i, 1);
        this.tailRows.splice(i, 1);
        return;
      }
    }
    for (let i = this.lowerBound(key); i < this.keys.length && this.keys[i] === key; i++) {
      if (this.rows[i] === row) {
        this.keys.splice(i, 1);
        this.rows.splice(i, 1);
        return;
      }
    }
  }

  /** Calls `visit` with the row of every entry whose key is `key` (prefix false) or starts with it. */
  each(key: string, prefix: boolean, visit: (row: number) => void): void {
    const hit = prefix ? (k: string) => k.startsWith(key) : (k: string) => k === key;
    for (let i = this.lowerBound(key); i < this.keys.length && hit(this.keys[i]!); i++) visit(this.rows[i]!);
    for (let i = 0; i < this.tailKeys.length; i++) if (hit(this.tailKeys[i]!)) visit(this.tailRows[i]!);
  }

  /**
   * Calls `visit` with the row and the edit distance (Levenshtein, in UTF-16 code units,
   * as MiniSearch's fuzzyGet) of every entry whose key is within `maxDistance` of
   * `query`. The sorted part is walked as the trie it is: a key reuses the rows of the
   * distance matrix of the prefix it shares with the previous key, and once every
   * cell of a row exceeds `maxDistance` the keys sharing that prefix are skipped.
   */
  fuzzy(query: string, maxDistance: number, visit: (row: number, distance: number) => void): void {
    const n = query.length + 1;
    // No key longer than the query by more than maxDistance matches: rows stop there.
    const depthMax = n + maxDistance;
    const matrix = new Int32Array((depthMax + 1) * n);
    for (let j = 0; j < n; j++) matrix[j] = j;
    /** Fills row `depth` (1-based) for character `char` from the row above; its minimum. */
    const fill = (depth: number, char: string): number => {
      const at = depth * n;
      const above = at - n;
      matrix[at] = depth;
      let min = depth;
      for (let j = 1; j < n; j++) {
        const dist = Math.min(matrix[above + j - 1]! + (char === query[j - 1] ? 0 : 1), matrix[above + j]! + 1, matrix[at + j - 1]! + 1);
        matrix[at + j] = dist;
        if (dist < min) min = dist;
      }
      return min;
    };
    /** Rows for `key` from row `from`; the depth of the first row past maxDistance, or -1. */
    const walk = (key: string, from: number): number => {
      for (let d = from; d < key.length; d++) {
        if (d + 1 > depthMax || fill(d + 1, key[d]!) > maxDistance) return d + 1;
      }
      return -1;
    };
    const keys = this.keys;
    let previous = '';
    // Rows 0..valid hold the matrix of previous.slice(0, valid).
    let valid = 0;
    for (let i = 0; i < keys.length; ) {
      const key = keys[i]!;
      let shared = 0;
      const limit = Math.min(valid, key.length, previous.length);
      while (shared < limit && key.charCodeAt(shared) === previous.charCodeAt(shared)) shared++;
      const pruned = walk(key, shared);
      previous = key;
      if (pruned < 0) {
        valid = key.length;
        const distance = matrix[key.length * n + n - 1]!;
        if (distance <= maxDistance) visit(this.rows[i]!, distance);
        i++;
        continue;
      }
      valid = pruned - 1;
      // Every key starting with key.slice(0, pruned) is past maxDistance: they follow this one.
      const prefix = key.slice(0, pruned);
      let lo = i + 1;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (keys[mid]!.startsWith(prefix)) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    for (let i = 0; i < this.tailKeys.length; i++) {
      const key = this.tailKeys[i]!;
      if (walk(key, 0) >= 0) continue;
      const distance = matrix[key.length * n + n - 1]!;
      if (distance <= maxDistance) visit(this.tailRows[i]!, distance);
    }
  }

  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private merge(): void {
    const order = this.tailKeys.map((_, i) => i).sort((a, b) => (this.tailKeys[a]! < this.tailKeys[b]! ? -1 : this.tailKeys[a]! > this.tailKeys[b]! ? 1 : 0));
    const keys: string[] = [];
    const rows: number[] = [];
    let i = 0;
    for (const t of order) {
      const key = this.tailKeys[t]!;
      while (i < this.keys.length && this.keys[i]! <= key) {
        keys.push(this.keys[i]!);
        rows.push(this.rows[i++]!);
      }
      keys.push(key);
      rows.push(this.tailRows[t]!);
    }
    for (; i < this.keys.length; i++) {
      keys.push(this.keys[i]!);
      rows.push(this.rows[i]!);
    }
    this.keys = keys;
    this.rows = rows;
    this.tailKeys.length = 0;
    this.tailRows.length = 0;
  }
}


/** BM25+ parameters, MiniSearch's defaults. */
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;
/** Weights of prefix and fuzzy matches, MiniSearch's defaults. */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** Documents of one term in one field: none, one row seen once, or [row, frequency, row, frequency, ...]. */
type Posting = undefined | number | number[];

export interface WordIndexOptions {
  /** Field names in order (a field's boost is `boost[field] ?? 1`). */
  fields: readonly string[];
  boost: Readonly<Record<string, number>>;
  /** Splits a field value or a query into words. */
  tokenize: (text: string) => string[];
  /** A word as indexed and searched; falsy: left out. */
  processTerm: (term: string) => string | null;
  /** The edit distance allowed for a query word, as a share of its length (MiniSearch's `fuzzy` option), or false. */
  fuzzy: (term: string) => number | false;
  /** Cap of any word's edit distance (MiniSearch's `maxFuzzy`). */
  maxFuzzy: number;
}

/**
 * A word index over a few text fields of documents numbered by row, answering as
 * MiniSearch 7 (the package the token search used, with the options it used:
 * every query word matched, `combineWith: 'AND'`, as itself, as a prefix of longer
 * words and within an edit distance; BM25+ scores per field with its boosts; a
 * document's score times the number of distinct query words) the same documents with
 * the same scores, up to the order in which a document's several prefix or fuzzy
 * matches are summed (last bits; the token search rounds scores to 1e-6 for that
 * reason). test/unit/query/text-index.test.ts checks it against MiniSearch itself.
 *
 * Why not MiniSearch: its radix tree keeps a Map per node and two Maps per term
 * (field → document → frequency), and most launchpad tokens bring words of their
 * own (a number, a ticker): ~1.5 KB of JS heap per token, most of what the research
 * read models kept per pool and token. Here a term is a string in a Map and a sorted
 * array and a number or a short array per field; a document two numbers of length.
 */
export class WordIndex {
  private readonly termIds = new Map<string, number>();
  /** By term id ('' for a free id). */
  private readonly terms: string[] = [];
  private readonly freeIds: number[] = [];
  private readonly sorted = new WholeTexts();
  /** postings[field][termId]. */
  private readonly postings: Posting[][];
  /** fieldLength[field][row]: distinct words of the field (as MiniSearch counts them: before processTerm). */
  private readonly fieldLength: Int32Array[];
  private readonly avgFieldLength: number[];
  private readonly boosts: number[];
  private documentCount = 0;

  constructor(private readonly options: WordIndexOptions) {
    const fields = options.fields.length;
    this.postings = Array.from({ length: fields }, () => []);
    this.fieldLength = Array.from({ length: fields }, () => new Int32Array(0));
    this.avgFieldLength = new Array<number>(fields).fill(0);
    this.boosts = options.fields.map((f) => options.boost[f] || 1);
  }

  /** Adds a document (row) with its field values (null: absent); a row must be removed before it is added again. */
  add(row: number, values: ReadonlyArray<string | null>): void {
    this.documentCount += 1;
    values.forEach((value, f) => {
      if (value == null) return;
      const words = this.options.tokenize(value);
      const count = this.documentCount - 1;
      let lengths = this.fieldLength[f]!;
      if (row >= lengths.length) this.fieldLength[f] = lengths = fitI32(lengths, row + 1);
      const length = new Set(words).size;
      lengths[row] = length;
      // MiniSearch's running average, step for step (its scores depend on it).
      this.avgFieldLength[f] = (this.avgFieldLength[f]! * count + length) / (count + 1);
      for (const word of words) {
        const term = this.options.processTerm(word);
        if (term) this.addTerm(f, row, term);
      }
    });
  }

  /** Removes a document with the values it was added with. */
  remove(row: number, values: ReadonlyArray<string | null>): void {
    values.forEach((value, f) => {
      if (value == null) return;
      const words = this.options.tokenize(value);
      const count = this.documentCount;
      const length = new Set(words).size;
      this.avgFieldLength[f] = count === 1 ? 0 : (this.avgFieldLength[f]! * count - length) / (count - 1);
      for (const word of words) {
        const term = this.options.processTerm(word);
        if (term) this.removeTerm(f, row, term);
      }
    });
    this.documentCount -= 1;
  }

  private addTerm(f: number, row: number, term: string): void {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.terms.length;
      this.terms[id] = term;
      this.termIds.set(term, id);
      this.sorted.add(term, id);
      for (const p of this.postings) p[id] = undefined;
    }
    const postings = this.postings[f]!;
    const p = postings[id];
    if (p === undefined) postings[id] = row;
    else if (typeof p === 'number') postings[id] = p === row ? [row, 2] : [p, 1, row, 1];
    // A document's words are added together: a repeat of this row is the last entry.
    else if (p[p.length - 2] === row) p[p.length - 1]!++;
    else p.push(row, 1);
  }

  private removeTerm(f: number, row: number, term: string): void {
    const id = this.termIds.get(term);
    if (id === undefined) return;
    const postings = this.postings[f]!;
    const p = postings[id];
    if (p === row) postings[id] = undefined;
    else if (Array.isArray(p)) {
      for (let i = 0; i < p.length; i += 2) {
        if (p[i] !== row) continue;
        if (p[i + 1]! > 1) p[i + 1]!--;
        else p.splice(i, 2);
        break;
      }
      if (p.length === 0) postings[id] = undefined;
      else if (p.length === 2 && p[1] === 1) postings[id] = p[0]!;
    }
    if (this.postings.every((q) => q[id] === undefined)) {
      this.termIds.delete(term);
      this.sorted.delete(term, id);
      this.terms[id] = '';
      this.freeIds.push(id);
    }
  }

  /** Rows matching every word of `query`, with their scores (see the class comment); empty for a query without words. */
  search(query: string): Map<number, number> {
    const words: string[] = [];
    for (const word of this.options.tokenize(query)) {
      const term = this.options.processTerm(word);
      if (term) words.push(term);
    }
    let combined: Map<number, number> | null = null;
    for (const word of words) {
      const results = this.wordResults(word);
      if (combined === null) combined = results;
      else {
        const and = new Map<number, number>();
        for (const [row, score] of results) {
          const existing = combined.get(row);
          if (existing !== undefined) and.set(row, existing + score);
        }
        combined = and;
      }
    }
    if (combined === null) return new Map();
    const quality = new Set(words).size;
    for (const [row, score] of combined) combined.set(row, score * quality);
    return combined;
  }

  /** One query word's matches: itself, longer words it begins, words within its edit distance (MiniSearch executeQuerySpec). */
  private wordResults(word: string): Map<number, number> {
    const results = new Map<number, number>();
    const exact = this.termIds.get(word);
    if (exact !== undefined) this.termResults(exact, 1, results);
    const prefixed = new Set<number>();
    this.sorted.each(word, true, (id) => {
      const term = this.terms[id]!;
      const distance = term.length - word.length;
      if (!distance) return;
      prefixed.add(id);
      this.termResults(id, (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), results);
    });
    const fuzzy = this.options.fuzzy(word);
    if (fuzzy === false) return results;
    const maxDistance = fuzzy < 1 ? Math.min(this.options.maxFuzzy, Math.round(word.length * fuzzy)) : fuzzy;
    if (!maxDistance) return results;
    this.sorted.fuzzy(word, maxDistance, (id, distance) => {
      if (!distance || prefixed.has(id)) return;
      const term = this.terms[id]!;
      this.termResults(id, (FUZZY_WEIGHT * term.length) / (term.length + distance), results);
    });
    return results;
  }

  /** Adds a term's BM25+ scores, per field, to `results` (MiniSearch termResults). */
  private termResults(id: number, weight: number, results: Map<number, number>): void {
    for (let f = 0; f < this.postings.length; f++) {
      const p = this.postings[f]![id];
      if (p === undefined) continue;
      const boost = this.boosts[f]!;
      const avg = this.avgFieldLength[f]!;
      const lengths = this.fieldLength[f]!;
      if (typeof p === 'number') {
        this.score(results, p, weight * boost * this.bm25(1, 1, lengths[p]!, avg));
        continue;
      }
      const matching = p.length / 2;
      for (let i = 0; i < p.length; i += 2) this.score(results, p[i]!, weight * boost * this.bm25(p[i + 1]!, matching, lengths[p[i]!]!, avg));
    }
  }

  private score(results: Map<number, number>, row: number, score: number): void {
    const existing = results.get(row);
    results.set(row, existing === undefined ? score : existing + score);
  }

  /** MiniSearch's calcBM25Score, written as it is (the same operations in the same order). */
  private bm25(termFreq: number, matchingCount: number, fieldLength: number, avgFieldLength: number): number {
    const invDocFreq = Math.log(1 + (this.documentCount - matchingCount + 0.5) / (matchingCount + 0.5));
    return invDocFreq * (BM25_D + (termFreq * (BM25_K + 1)) / (termFreq + BM25_K * (1 - BM25_B + (BM25_B * fieldLength) / avgFieldLength)));
  }
}
