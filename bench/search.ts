import { createHash } from 'node:crypto';
import { TokenSearchIndex, type SearchQuery, type TokenSearchDoc } from '../engine/query/search-index.ts';
import { median, peakRssMiB, type Benchmark, type Figure } from './harness.ts';
import { BASE58_ALPHABET } from '../engine/sources/sim/base58.ts';
import { Rng } from '../engine/sources/sim/rng.ts';

/**
 * Question: over 100,000 tokens, how many upserts per second does the token search
 * index take (numeric-only, the per-trade path; and name/symbol changes, which
 * re-index text), and how many searches per second does it answer, by kind?
 * Estimate: a numeric upsert is a Map lookup, two string compares and nine stores,
 * ~0.1 µs → millions/s. A text upsert is a MiniSearch remove + add (~10-30 µs at 100k
 * documents) → tens of thousands/s, far above the rate names change. A search costs
 * about 1 µs per match (MiniSearch scores every match; the top-k is ~one comparison
 * each): a mint or exact symbol, microseconds; a smart query of a common word or
 * 3-letter prefix matching ~1-2k tokens, 1-3 ms; an empty query sorted by a number
 * visits all 100k tokens, ~3 ms, so paging through everything costs that per page.
 */

const WORDS = (
  'pepe doge shiba inu moon rocket baby cat dog frog wif hat bonk based chad giga sigma ' +
  'trump elon grok ai agent meme coin token gold silver diamond hands ape monkey bull bear ' +
  'pump sol solana degen lucky dragon tiger panda bunny fox wolf lion king queen prince ' +
  'space mars galaxy star nova alpha beta gamma delta omega turbo hyper super mega ultra ' +
  'pixel retro neon cyber quantum laser ninja samurai pirate wizard magic fairy ghost ' +
  'zombie vampire robot alien cosmic happy sad angry crazy silly tiny giant fat slim ' +
  'pizza burger taco sushi coffee beer wine cookie candy honey banana apple cherry mango ' +
  'ocean river mountain forest desert island city village castle tower bridge garden'
).split(' ');

const B58 = BASE58_ALPHABET;

/** Uniform draws in [0, 1) from the project's one seeded generator (the simulator's Rng). */
export function random(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.float();
}

/** `count` tokens with meme-style names from WORDS, deterministic for a given `next`. */
export function makeTokens(count: number, next: () => number): TokenSearchDoc[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    // Built with join, not +=: a string grown by += is a rope of 44 pieces, and V8
    // compares ropes several times slower than the flat strings JSON.parse and
    // msgpack give the real engine.
    const chars = [B58[1 + Math.floor(next() * 57)]!];
    for (let j = 1; j < 44; j++) chars.push(B58[Math.floor(next() * 58)]!);
    const address = chars.join('');
    const words = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(WORDS));
    const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
    const symbol = words.length === 1 ? words[0]!.toUpperCase().slice(0, 6) : words.map((w) => w[0]!.toUpperCase()).join('') + (i % 10);
    return {
      token_address: address,
      name: next() < 0.02 ? null : name,
      symbol: next() < 0.02 ? null : symbol,
      created_at: 1_767_225_600_000 + i * 1_000,
      market_cap_usd: Math.round(next() * 1e7),
      volume_usd_by_window: { all: next() * 1e6, '5m': next() * 1e3, '1h': next() * 1e4, '6h': next() * 1e5, '24h': next() * 1e5 },
      liquidity_usd: next() * 1e5,
      trader_count: Math.floor(next() * 5_000),
    };
  });
}

const perSecond = (count: number, ms: number): Figure => ({ value: Math.round((count / ms) * 1000), unit: 'ops/s' });

const benchmark: Benchmark = {
  name: 'search',
  question: 'Token search index over 100k tokens: upserts/s (numeric-only, text) and searches/s by kind',
  async run({ smoke, log }) {
    const count = smoke ? 2_000 : 100_000;
    const next = random(7);
    const tokens = makeTokens(count, next);
    const index = new TokenSearchIndex();
    const figures: Record<string, Figure> = {};

    let started = performance.now();
    for (const token of tokens) index.upsert(token);
    const insertMs = performance.now() - started;
    figures.insert_per_s = perSecond(count, insertMs);

    // The per-trade path: same name and symbol, new numbers.
    const numericCount = count * 20;
    const picks = Array.from({ length: numericCount }, () => Math.floor(next() * count));
    started = performance.now();
    for (let i = 0; i < numericCount; i++) {
      const token = tokens[picks[i]!]!;
      index.upsert({ ...token, market_cap_usd: i, trader_count: token.trader_count + 1 });
    }
    figures.numeric_upsert_per_s = perSecond(numericCount, performance.now() - started);

    // Name/symbol changes: each re-indexes one token (remove + add).
    const renameCount = Math.min(count, 20_000);
    started = performance.now();
    for (let i = 0; i < renameCount; i++) {
      const token = tokens[picks[i]!]!;
      const renamed = { ...token, name: `${WORDS[i % WORDS.length]} ${token.name ?? 'x'}`.slice(0, 40), symbol: `R${i}` };
      index.upsert(renamed);
      tokens[picks[i]!] = renamed;
    }
    figures.text_upsert_per_s = perSecond(renameCount, performance.now() - started);

    const mint = tokens[Math.floor(count / 2)]!.token_address;
    const kinds: Record<string, SearchQuery[]> = {
      mint: [{ q: mint, match: 'smart', sort: 'relevance', order: 'desc', limit: 20 }],
      exact_symbol: ['PEPE', 'DOGE', 'MOON', 'SOL'].map((q) => ({ q, match: 'exact', sort: 'relevance', order: 'desc', limit: 20 })),
      prefix_3: ['pep', 'dog', 'moo', 'sol'].map((q) => ({ q, match: 'prefix', sort: 'market_cap_usd', order: 'desc', limit: 20 })),
      smart_1: ['p', 'd', 'm'].map((q) => ({ q, match: 'smart', sort: 'relevance', order: 'desc', limit: 20 })),
      smart_3: ['pep', 'dog', 'moo', 'gal'].map((q) => ({ q, match: 'smart', sort: 'relevance', order: 'desc', limit: 20 })),
      smart_words: ['baby pepe', 'moon rocket', 'giga chad'].map((q) => ({ q, match: 'smart', sort: 'relevance', order: 'desc', limit: 20 })),
      smart_fuzzy: ['rockte', 'dragn', 'wizzard'].map((q) => ({ q, match: 'smart', sort: 'relevance', order: 'desc', limit: 20 })),
      smart_by_volume: ['pepe', 'moon'].map((q) => ({ q, match: 'smart', sort: 'volume_usd', window: '1h', order: 'desc', limit: 20 })),
      all_by_market_cap: [{ q: '', match: 'smart', sort: 'market_cap_usd', order: 'desc', limit: 50 }],
    };

    const hash = createHash('sha256');
    const budgetMs = smoke ? 50 : 1_000;
    for (const [kind, queries] of Object.entries(kinds)) {
      const latencies: number[] = [];
      let ran = 0;
      const kindStarted = performance.now();
      while (performance.now() - kindStarted < budgetMs || ran < queries.length) {
        const t = performance.now();
        const page = index.search(queries[ran % queries.length]!);
        latencies.push(performance.now() - t);
        if (ran < queries.length) hash.update(page.ids.join(','));
        ran++;
      }
      const totalMs = latencies.reduce((a, b) => a + b, 0);
      const p99 = [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length * 0.99)]!;
      figures[`${kind}_per_s`] = perSecond(ran, totalMs);
      figures[`${kind}_p50`] = { value: Number(median(latencies).toFixed(4)), unit: 'ms' };
      figures[`${kind}_p99`] = { value: Number(p99.toFixed(4)), unit: 'ms' };
    }

    // Paging: every token once, through pages of 100, sorted by market cap.
    started = performance.now();
    let seen = 0;
    let after: SearchQuery['after'];
    let pages = 0;
    for (;;) {
      const page = index.search({ q: '', match: 'smart', sort: 'market_cap_usd', order: 'desc', limit: 100, after });
      seen += page.ids.length;
      pages++;
      if (page.next === null) break;
      after = page.next;
    }
    if (seen !== count) throw new Error(`paging saw ${seen} of ${count} tokens`);
    figures.page_through_all_ms = { value: Math.round(performance.now() - started), unit: 'ms' };

    const f = (name: string) => figures[name]!.value.toLocaleString('en-US');
    log(`${count.toLocaleString('en-US')} tokens inserted in ${insertMs.toFixed(0)} ms (${f('insert_per_s')}/s); numeric upserts ${f('numeric_upsert_per_s')}/s; text upserts ${f('text_upsert_per_s')}/s`);
    for (const kind of Object.keys(kinds)) {
      log(`${kind.padEnd(18)} ${f(`${kind}_per_s`).padStart(10)} queries/s  p50 ${f(`${kind}_p50`)} ms  p99 ${f(`${kind}_p99`)} ms`);
    }
    log(`paging all ${count.toLocaleString('en-US')} by market cap in ${pages} pages of 100: ${f('page_through_all_ms')} ms; peak RSS ${peakRssMiB().toFixed(0)} MiB`);
    log(`result hash ${hash.digest('hex').slice(0, 16)}`);
    figures.peak_rss = { value: Math.round(peakRssMiB()), unit: 'MiB' };
    return figures;
  },
};

export default benchmark;
