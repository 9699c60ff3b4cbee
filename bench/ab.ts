import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runChild } from './child.ts';
import type { EngineChildResult, GateChildResult } from './engine-child.ts';
import { median } from './harness.ts';
import { writeSwaps } from './fixtures/swaps.ts';

/**
 * A same-run A/B of a benchmark's timed run between two source trees, alternated on one
 * swap file (A B, B A, A B, ...), so that both see the same machine over the same
 * minutes: `--mode gate` the ingest-gate benchmark's (bench/ingest-gate.ts; a fresh
 * child per run, `engine-child.ts gate`, 10,000 pools), `--mode engine` the engine
 * benchmark's (`engine-child.ts engine`: the whole engine, flushed and checkpointed, on
 * swaps over `--pools` pools each declared before its first swap). A tree is a checkout
 * of mds with node_modules (or a link to one), e.g. an older commit's:
 * `git archive <commit> | tar -x -C /tmp/a && ln -s $PWD/node_modules /tmp/a/`.
 * It writes no results file.
 *
 *   node --import tsx bench/ab.ts --a /tmp/a --b . [--mode gate|engine] [--swaps 500000] [--pools 2000] [--rounds 8] [--a-env K=V] [--b-env K=V]
 *
 * `--a-env`/`--b-env` set environment variables (KEY=VALUE, comma-separated) of one side's children, so one tree
 * can be compared with itself under a switch: the ranking feeds off and on,
 * `--a . --b . --mode engine --a-env MDS_BENCH_FEEDS=off`.
 *
 * Prints every run, then each side's median and best, and the median of the rounds'
 * B/A ratios (a round's two runs are next to each other in time); in engine mode the
 * same per CPU second of the child too (its user + system time over the timed run),
 * which other tenants of a shared machine move less than wall time.
 */

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: '.' },
    mode: { type: 'string', default: 'gate' },
    swaps: { type: 'string', default: '500000' },
    pools: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '8' },
    'a-env': { type: 'string' },
    'b-env': { type: 'string' },
  },
});
if (!values.a) throw new Error('--a <tree> is required');
const mode = values.mode;
if (mode !== 'gate' && mode !== 'engine') throw new Error('--mode is gate or engine');
const trees = { A: resolve(values.a), B: resolve(values.b!) };
/** `KEY=VALUE`, or several joined by commas (`MDS_BENCH_FEEDS=off,MDS_BENCH_WALLETS=off`). */
const envOf = (kvs: string | undefined): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const kv of kvs === undefined ? [] : kvs.split(',')) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new Error(`--a-env/--b-env take KEY=VALUE[,KEY=VALUE...], not ${kvs}`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
};
const envs = { A: envOf(values['a-env']), B: envOf(values['b-env']) };
const count = Number(values.swaps);
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(tmpdir(), `mds-ab-${mode}-`));
try {
  const file = join(dir, 'swaps.ndjson');
  const poolsFile = join(dir, 'pools.json');
  if (mode === 'gate') await writeSwaps(file, count, 10_000);
  else writeFileSync(poolsFile, JSON.stringify((await writeSwaps(file, count, Number(values.pools), { declare: true })).pools));
  const rates: Record<'A' | 'B', number[]> = { A: [], B: [] };
  /** Engine mode: swaps per CPU second of the child (every thread), less moved by other tenants of the machine than wall time. */
  const cpuRates: Record<'A' | 'B', number[]> = { A: [], B: [] };
  for (let r = 0; r < rounds; r++) {
    for (const side of (r % 2 ? ['B', 'A'] : ['A', 'B']) as Array<'A' | 'B'>) {
      const data = join(dir, `data-${side}-${r}`);
      const child = join(trees[side], 'bench/engine-child.ts');
      const run =
        mode === 'gate'
          ? await runChild<GateChildResult>(child, ['gate', file, data], { env: envs[side] })
          : await runChild<EngineChildResult>(child, ['engine', file, data, poolsFile], { env: envs[side] });
      rmSync(data, { recursive: true, force: true });
      if (run.deadLetters !== 0) throw new Error(`${side}: ${run.deadLetters} dead letters`);
      if (mode === 'gate' ? run.ingested !== count : (run as EngineChildResult).trades !== count) throw new Error(`${side}: not every swap was applied`);
      rates[side].push(count / run.seconds);
      const cpu = mode === 'engine' ? (run as EngineChildResult).cpuSeconds : null;
      if (cpu !== null) cpuRates[side].push(count / cpu);
      console.log(
        `round ${r + 1} ${side}: ${Math.round(count / run.seconds).toLocaleString('en-US')} ${mode === 'gate' ? 'events' : 'swaps'}/s (${run.seconds.toFixed(2)} s, ` +
          `${cpu === null ? '' : `${cpu.toFixed(2)} CPU s, `}peak RSS ${run.peakRssMiB.toFixed(0)} MiB)`,
      );
    }
  }
  const f = (v: number) => Math.round(v).toLocaleString('en-US');
  const [a, b] = [median(rates.A), median(rates.B)];
  const [bestA, bestB] = [Math.max(...rates.A), Math.max(...rates.B)];
  const unit = mode === 'gate' ? 'events/s' : 'swaps/s';
  console.log(`A ${trees.A}: median ${f(a)} ${unit}, best ${f(bestA)}`);
  console.log(`B ${trees.B}: median ${f(b)} ${unit}, best ${f(bestB)}`);
  console.log(`B/A: medians ${(b / a).toFixed(3)}, bests ${(bestB / bestA).toFixed(3)}, median of the rounds' ratios ${median(rates.B.map((v, i) => v / rates.A[i]!)).toFixed(3)}`);
  if (cpuRates.A.length > 0) {
    const [ca, cb] = [median(cpuRates.A), median(cpuRates.B)];
    console.log(`per CPU second: A median ${f(ca)}, B median ${f(cb)} swaps; B/A medians ${(cb / ca).toFixed(3)}, median of the rounds' ratios ${median(cpuRates.B.map((v, i) => v / cpuRates.A[i]!)).toFixed(3)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
