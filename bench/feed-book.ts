import { FeedBook } from '../actors/feed/feed.logic.ts';
import type { RankInput } from '../actors/feed/feed.rules.ts';

/**
 * Question: what does one FeedBook.update cost in steady state, with the window full and
 * the rest of the pools on the bench? Estimate: a B+ tree delete and insert (~log2 n
 * compares each) or a binary search and two splices of ≤ 100 references: ~1 µs.
 * Shape: n pools with random popular scores, then 1,000,000 updates of a random pool
 * whose volume grows a little (scores drift, rows cross the window's edge).
 * Run: node --import tsx bench/feed-book.ts [pools...]   (default 1000 10000)
 */

const sizes = process.argv.slice(2).map(Number);
for (const n of sizes.length > 0 ? sizes : [1_000, 10_000]) {
  const inputs: RankInput[] = Array.from({ length: n }, (_, i) => ({
    pool_address: `pool${i}`, created_at: 0, migrated_from_pool_address: null, migrated_at: null, bonding_curve_progress_pct: null,
    complete: false, stock: false, volume_usd: 0, trader_count: 1, trade_count: 0, price_change_pct: null, liquidity_usd: null,
  }));
  const book = new FeedBook('popular', '24h');
  let x = 1;
  const rnd = () => (x = (x * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  for (const p of inputs) {
    p.volume_usd = rnd() * 1e5;
    book.update(p, 0);
  }
  const updates = 1_000_000;
  const t0 = performance.now();
  for (let i = 0; i < updates; i++) {
    const p = inputs[(rnd() * n) | 0]!;
    p.volume_usd! += rnd() * 100;
    book.update(p, 0);
  }
  const us = ((performance.now() - t0) * 1_000) / updates;
  console.log(`${n} pools: ${us.toFixed(3)} µs per update (top: ${book.order()[0]})`);
}
