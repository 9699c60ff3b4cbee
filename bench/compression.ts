import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { compress } from '../transport/http/compression.ts';
import { BASE58_ALPHABET } from '../engine/sources/sim/base58.ts';
import { Rng } from '../engine/sources/sim/rng.ts';

/**
 * Question: what does compressing a response cost the server, per response, against
 * sending it plain, and how many bytes does it save? (transport/http/compression.ts:
 * br at quality 4, gzip at level 6, for bodies of 1 KB or more; a cached route pays it
 * once per encoding and version, then serves the kept bytes.)
 * Shape: trade lists as the routes write them (SERVICE.md 2.8 records: 88-character
 * signatures, 500 wallets, one pool), 50 trades (the default page) and 500 (the
 * largest), in the envelope; each timed over ~1 s of repeats, median of 5.
 * Baseline: Buffer.from(body) (the UTF-8 encoding every response pays, cached ones once).
 * Run: node --import tsx bench/compression.ts
 */

const rng = new Rng(26);
const b58 = (n: number) => {
  let s = BASE58_ALPHABET[1 + Math.floor(rng.float() * 57)]!;
  for (let i = 1; i < n; i++) s += BASE58_ALPHABET[Math.floor(rng.float() * 58)];
  return s;
};
const [pool, token, quote] = [b58(44), b58(44), 'So11111111111111111111111111111111111111112'];
const wallets = Array.from({ length: 500 }, () => b58(44));

function tradeList(count: number): string {
  const data = Array.from({ length: count }, (_, i) => {
    const tx = b58(88);
    const price = 0.000_03 * (1 + rng.float() / 10);
    const amount = 1_000 + rng.float() * 1e6;
    return {
      trade_id: `${tx}:0`, tx_hash: tx, slot: 300_000_000 + i, tx_index: i % 40, event_index: 0, type: rng.float() < 0.5 ? 'buy' : 'sell',
      wallet_address: wallets[Math.floor(rng.float() * 500)], token_address: token, quote_address: quote, pool_address: pool, dex: 'pumpswap',
      token_amount: amount, quote_amount: amount * price, price_quote: price, price_usd: price * 150.25, amount_usd: amount * price * 150.25,
      market_cap_quote: price * 1e9, market_cap_usd: price * 1e9 * 150.25, labels: [], created_at: 1_767_225_600_000 + i * 400,
    };
  });
  return JSON.stringify({ code: 0, error: null, message: 'OK', data, pagination: { next_cursor: b58(120), has_more: true } });
}

function timeUs(fn: () => unknown): number {
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < 200) {
      fn();
      n++;
    }
    runs.push(((performance.now() - start) * 1000) / n);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

for (const count of [50, 500]) {
  const body = tradeList(count);
  const bytes = Buffer.byteLength(body);
  const plain = timeUs(() => Buffer.from(body, 'utf8'));
  const rows: Array<[string, number, number]> = [
    ['br q1 (served)', timeUs(() => compress(body, 'br')), compress(body, 'br').length],
    ['gzip 1 (served)', timeUs(() => compress(body, 'gzip')), compress(body, 'gzip').length],
    ...[2, 4, 11].map((q): [string, number, number] => {
      const options = { params: { [constants.BROTLI_PARAM_QUALITY]: q } };
      return [`br q${q} (not used)`, timeUs(() => brotliCompressSync(body, options)), brotliCompressSync(body, options).length];
    }),
    ['gzip 6 (not used)', timeUs(() => gzipSync(body)), gzipSync(body).length],
  ];
  console.log(`${count} trades, ${(bytes / 1024).toFixed(1)} KB plain; Buffer.from ${plain.toFixed(1)} µs`);
  for (const [name, us, size] of rows) {
    console.log(`  ${name}: ${us.toFixed(0)} µs per response (${(us / plain).toFixed(0)}x plain)${size ? `, ${(size / 1024).toFixed(1)} KB (${((100 * size) / bytes).toFixed(0)} %)` : ''}`);
  }
}
