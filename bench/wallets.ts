import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS, TSX, runChild } from './child.ts';
import type { EngineChildResult } from './engine-child.ts';
import { writeSwaps } from './fixtures/swaps.ts';
import { compare, fmt, summarize, type Benchmark, type Figure } from './harness.ts';
import type { IdleChildResult, ServeChildMessage } from './wallets-child.ts';

/**
 * Question: what does wallet accounting (actors/wallet: a wallet actor per trading
 * wallet, top traders per token, the leaderboard, fed every priced trade) cost the
 * whole engine, what do a million wallets that traded once and went idle leave in
 * memory, and how many requests a second do /wallets/{w}/positions and
 * /wallets/leaderboard answer?
 *
 * - swaps/s: bench/engine-child.ts on one file (bench/fixtures/swaps.ts: swaps
 *   round-robin over the pools, 5,000 wallets), wallet accounting on (the engine as it
 *   ships) against off (MDS_BENCH_WALLETS=off: EngineOptions.wallets false), fresh
 *   processes alternated. Budget (issue 22): on ≥ 0.85 × off.
 * - idle: a fresh process per run (wallets-child.ts idle): N distinct wallets trade
 *   once over 1,000 pools, checkpoint, every idle actor passivated, full GC: heap used
 *   and RSS, on against off. Wallets passivate, so on should stay near off.
 * - req/s: one server (wallets-child.ts serve) over the same file, autocannon in this
 *   process (10 connections, no pipelining), /v1/market/sol-price (the cheapest /v1
 *   route: the transport's own cost) as the baseline of positions and leaderboard.
 */

const CHILD = fileURLToPath(new URL('./wallets-child.ts', import.meta.url));
const ENGINE_CHILD = fileURLToPath(new URL('./engine-child.ts', import.meta.url));

async function load(url: string, key: string, seconds: number): Promise<number> {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers: { authorization: `Bearer ${key}` }, connections: 10, duration: seconds, sampleInt: seconds < 1 ? 100 : 1000 } as autocannon.Options, (err, result) => {
      if (err) return reject(err);
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve(result.requests.total / result.duration);
    });
  });
}

const benchmark: Benchmark = {
  name: 'wallets',
  question: 'What does wallet accounting cost per swap, what do 1M idle wallets leave in memory, and how many req/s do positions and the leaderboard answer?',
  async run({ smoke, log }) {
    const swaps = smoke ? 5_000 : 200_000;
    const pools = smoke ? 50 : 2_000;
    const repeats = smoke ? 1 : 3;
    const idleWallets = smoke ? 5_000 : 1_000_000;
    const loadSeconds = smoke ? 0.5 : 5;
    const dir = mkdtempSync(join(tmpdir(), 'mds-bench-wallets-'));
    try {
      const file = join(dir, 'swaps.ndjson');
      const written = await writeSwaps(file, swaps, pools, { declare: true });
      const poolsFile = join(dir, 'pools.json');
      writeFileSync(poolsFile, JSON.stringify(written.pools));
      log(`input: ${fmt(swaps)} swaps over ${fmt(pools)} pools and 5,000 wallets`);

      const on: number[] = [];
      const off: number[] = [];
      for (let r = 0; r < repeats; r++) {
        for (const mode of ['off', 'on'] as const) {
          const data = join(dir, `engine-${mode}-${r}`);
          const e = await runChild<EngineChildResult>(ENGINE_CHILD, ['engine', file, data, poolsFile], { env: { MDS_BENCH_WALLETS: mode } });
          rmSync(data, { recursive: true, force: true });
          if (e.trades !== swaps || e.deadLetters) throw new Error(`engine (wallets ${mode}) counted ${e.trades}/${swaps} trades, ${e.deadLetters} dead letters`);
          (mode === 'on' ? on : off).push(swaps / e.seconds);
          log(`whole engine, wallets ${mode.padEnd(3)} #${r + 1}: ${fmt(swaps / e.seconds)} swaps/s, peak RSS ${fmt(e.peakRssMiB)} MiB`);
        }
      }
      const offRate = summarize(off, 'swaps/s', 0, 'higher');
      const onRate = compare(summarize(on, 'swaps/s', 0, 'higher'), 'wallet accounting off', offRate);
      log(`median: on ${fmt(onRate.value)} swaps/s = ${onRate.ratio}x off (${fmt(offRate.value)}); budget 0.85x ${onRate.ratio! >= 0.85 ? 'met' : 'NOT met'}`);

      const idle: Record<'on' | 'off', IdleChildResult> = {} as never;
      for (const mode of ['off', 'on'] as const) {
        const data = join(dir, `idle-${mode}`);
        const result = await runChild<IdleChildResult>(CHILD, ['idle', data, String(idleWallets), mode], { nodeFlags: ['--expose-gc'] });
        rmSync(data, { recursive: true, force: true });
        if (result.walletActorsResident !== 0) throw new Error(`${result.walletActorsResident} wallet actors still in memory after the sweep`);
        idle[mode] = result;
        log(
          `${fmt(idleWallets)} wallets traded once, all idle, wallets ${mode}: heap ${result.heapUsedMiB.toFixed(1)} MiB, RSS ${fmt(result.rssMiB)} MiB ` +
            `(peak ${fmt(result.peakRssMiB)}), ${fmt(result.passivated)} actors passivated, ingest ${fmt(idleWallets / result.ingestSeconds)} swaps/s`,
        );
      }
      const mib = (v: number) => summarize([v], 'MiB', 1, 'lower');

      const child = fork(CHILD, ['serve', file, join(dir, 'serve')], { execArgv: ['--import', TSX, ...NODE_FLAGS], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      let served: ServeChildMessage;
      try {
        served = await new Promise<ServeChildMessage>((resolve, reject) => {
          child.once('message', (m) => resolve(m as ServeChildMessage));
          child.once('exit', (code) => reject(new Error(`serve child exited with ${code}`)));
        });
      } catch (err) {
        child.kill();
        throw err;
      }
      const base = `http://127.0.0.1:${served.port}`;
      const routes = {
        sol_price: '/v1/market/sol-price',
        positions: `/v1/wallets/${served.wallet}/positions`,
        leaderboard: '/v1/wallets/leaderboard?window=7d&sort=pnl_usd',
      };
      const rps: Record<string, number> = {};
      try {
        for (const [name, path] of Object.entries(routes)) {
          await load(base + path, served.key, Math.min(1, loadSeconds)); // warm-up
          rps[name] = await load(base + path, served.key, loadSeconds);
          log(`${name.padEnd(12)} ${fmt(rps[name]!)} req/s (${path.replace(served.wallet, '{w}')}${name === 'positions' ? `, ${served.positions} open positions` : ''})`);
        }
      } finally {
        child.send('stop');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      const solPrice = summarize([rps.sol_price!], 'req/s', 0, 'higher');
      const figures: Record<string, Figure> = {
        swaps_per_s_wallets_on: onRate,
        swaps_per_s_wallets_off: offRate,
        idle_heap_used: compare(mib(idle.on.heapUsedMiB), 'wallet accounting off', mib(idle.off.heapUsedMiB)),
        idle_rss: compare(mib(idle.on.rssMiB), 'wallet accounting off', mib(idle.off.rssMiB)),
        positions_rps: compare(summarize([rps.positions!], 'req/s', 0, 'higher'), '/v1/market/sol-price', solPrice),
        leaderboard_rps: compare(summarize([rps.leaderboard!], 'req/s', 0, 'higher'), '/v1/market/sol-price', solPrice),
      };
      return figures;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
