import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './harness.ts';
import { Rng } from '../engine/sources/sim/rng.ts';
import { BASE58_ALPHABET } from '../engine/sources/sim/base58.ts';

/**
 * Question (issue 25): what does the candles route's read cost for 300 candles of 1s,
 * now that they are folded from the pool's stored trades, against the stored series it
 * read before? Estimate: 300 candles of 1s are at most 300 s of trades (here ~250,
 * one stored block), each decoded (~1 µs: two base58 strings) and merged (~50 ns):
 * ~0.3 ms, against ~10 segments read and expanded for the series (~0.1-0.2 ms).
 *
 * One pool trading every ~1.2 s of event time for 5.5 hours (~16,500 swaps: 300
 * candles of 1m are stored segments in every tree), wSOL priced every 10 s, ingested
 * through a real engine of each source tree into its own temp dir, then checkpointed
 * (trades in LMDB blocks, closed candles written or buffered). Timed: the candles
 * query of the route (engine/query/candles.ts CandlesQuery.candles, what GET
 * /v1/pools/{pool}/candles calls on a miss of its response cache), price in USD, for
 * 1s × 300, 15s × 300, 15s × 1000 and, as the same-run baseline of a stored series in
 * both trees, 1m × 300; `rounds` calls each, interleaved, after a warm-up.
 */

const T0 = 1_767_225_600_000;
const WSOL = 'So11111111111111111111111111111111111111112';

export const ROUTE_CASES = [
  { interval: '1s', limit: 300 },
  { interval: '15s', limit: 300 },
  { interval: '15s', limit: 1000 },
  { interval: '1m', limit: 300 },
] as const;

export interface RouteTimes {
  /** Per case (`${interval}x${limit}`): median and mean µs a call, candles returned, and a hash of them. */
  cases: Record<string, { p50Us: number; meanUs: number; candles: number; hash: number }>;
  swaps: number;
}

function address(r: Rng): string {
  let s = '';
  for (let i = 0; i < 44; i++) s += BASE58_ALPHABET[Math.floor(r.float() * 58)];
  return s;
}

/** The market, seeded: the same events for every tree. */
function market(hours: number): { pool: string; events: unknown[]; swaps: number } {
  const r = new Rng(25);
  const mint = address(r);
  const pool = address(r);
  const wallets = Array.from({ length: 50 }, () => address(r));
  const events: unknown[] = [
    { type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'BNCH', name: 'Bench', slot: 1, at: T0 },
    { type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'raydium_cpmm', pool_type: 'cpmm', created_at: T0, slot: 2 },
  ];
  let swaps = 0;
  let nextPrice = T0;
  for (let at = T0 + 500, slot = 100; at < T0 + hours * 3_600_000; at += 200 + Math.floor(r.float() * 2_000), slot += 3) {
    while (nextPrice <= at) {
      events.push({ type: 'quote_price', quote_address: WSOL, price_usd: 150 + 10 * r.float(), at: nextPrice });
      nextPrice += 10_000;
    }
    const tokens = 1e9 + Math.floor(r.float() * 1e12);
    let hash = '';
    for (let i = 0; i < 88; i++) hash += BASE58_ALPHABET[Math.floor(r.float() * 58)];
    events.push({
      type: 'swap', tx_hash: hash, slot, tx_index: Math.floor(r.float() * 100), event_index: 0, at, pool_address: pool, wallet_address: wallets[Math.floor(r.float() * wallets.length)],
      side: r.float() < 0.5 ? 'buy' : 'sell', base_amount_raw: String(tokens), quote_amount_raw: String(Math.floor(tokens * (0.00002 + r.float() * 0.00001))),
      base_reserve_raw: '500000000000000', quote_reserve_raw: '40000000000',
    });
    swaps++;
  }
  return { pool, events, swaps };
}

/** Builds the market in an engine of `tree` (a source tree with its node_modules) and times the candles query there. */
export async function routeTimes(tree: string, opts: { hours: number; rounds: number }): Promise<RouteTimes> {
  const root = pathToFileURL(resolve(tree) + '/').href;
  const { createEngine } = (await import(new URL('engine/system.ts', root).href)) as typeof import('../engine/system.ts');
  const { loadConfig } = (await import(new URL('engine/config.ts', root).href)) as typeof import('../engine/config.ts');
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-candles-route-'));
  const engine = await createEngine({ config: loadConfig({ flags: { data: dir, source: 'none', clock: 'event', logLevel: 'silent', port: 0 } }) });
  try {
    const { pool, events, swaps } = market(opts.hours);
    for (let i = 0; i < events.length; i += 2_000) {
      const results = await Promise.all(events.slice(i, i + 2_000).map((e) => engine.ingest(e)));
      const bad = results.find((x) => x.status !== 'applied');
      if (bad) throw new Error(`ingest: ${JSON.stringify(bad)}`);
      engine.flush();
    }
    await engine.checkpoint();
    await engine.checkpoint();
    const query = engine.query.market!.candles;
    const call = (interval: string, limit: number) => query.candles(pool, { interval: interval as '1s', mode: 'price', currency: 'usd', limit })!;
    const samples = new Map<string, number[]>(ROUTE_CASES.map((c) => [`${c.interval}x${c.limit}`, []]));
    const cases: RouteTimes['cases'] = {};
    for (let round = -5; round < opts.rounds; round++) {
      for (const c of ROUTE_CASES) {
        const started = process.hrtime.bigint();
        const candles = call(c.interval, c.limit);
        const us = Number(process.hrtime.bigint() - started) / 1_000;
        const name = `${c.interval}x${c.limit}`;
        if (round >= 0) samples.get(name)!.push(us);
        let hash = 0;
        for (const x of candles) hash = (hash * 31 + Math.round((x.close ?? 0) * 1e9) + (x.volume ?? 0)) % 1e9;
        cases[name] = { p50Us: 0, meanUs: 0, candles: candles.length, hash };
      }
    }
    for (const [name, us] of samples) {
      cases[name]!.p50Us = median(us);
      cases[name]!.meanUs = us.reduce((a, b) => a + b, 0) / us.length;
    }
    return { cases, swaps };
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
