import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { canPin } from './child.ts';
import type { Benchmark, Figure } from './harness.ts';
import { renderMarkdown, renderSvg, type Report } from './report.ts';

/**
 * `npm run bench [-- --smoke] [--profile DIR] [name ...]`: runs the benchmarks of
 * bench/ in order and prints their figures. A full run writes
 * bench/results/latest.json (machine, Node, commit, figures; a run of some benchmarks
 * keeps the others' last figures) and renders it as latest.md and latest.svg; a smoke
 * run writes nothing, it only proves every benchmark runs. `--profile DIR` has the
 * benchmarks that measure a child process (engine, http) write its V8 CPU profile
 * there and print where its time went. A full run without names leaves NAMED_ONLY out.
 */
export const BENCHMARKS: Record<string, () => Promise<{ default: Benchmark }>> = {
  'ingest-gate': () => import('./ingest-gate.ts'),
  sim: () => import('./sim.ts'),
  engine: () => import('./engine.ts'),
  wallets: () => import('./wallets.ts'),
  signals: () => import('./signals.ts'),
  market: () => import('./market.ts'),
  http: () => import('./http.ts'),
  fanout: () => import('./fanout.ts'),
  'fanout-topics': () => import('./fanout-topics.ts'),
  pipe: () => import('./pipe.ts'),
  'solana-decode': () => import('./solana-decode.ts'),
  'serve-memory': () => import('./serve-memory.ts'),
};

/**
 * Benchmarks a full suite leaves out unless named, for their length: serve-memory runs
 * `mds serve` at real-time pace for 30 minutes. Their smoke runs with the others.
 */
export const NAMED_ONLY = new Set(['serve-memory']);

export interface BenchResult {
  question: string;
  figures: Record<string, Figure>;
  load_1m_before: number;
}

export async function runBenchmarks(names: string[], smoke: boolean, log: (line: string) => void = console.log, cpuProfDir?: string) {
  const results: Record<string, BenchResult> = {};
  for (const name of names) {
    const load = BENCHMARKS[name];
    if (!load) throw new Error(`unknown benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    const { default: bench } = await load();
    const load1m = Number(loadavg()[0]!.toFixed(2));
    log(`# ${bench.name}${smoke ? ' (smoke)' : ''}: ${bench.question}`);
    const started = performance.now();
    const figures = await bench.run({ smoke, log: (line) => log(`  ${line}`), cpuProfDir });
    log(`  (${((performance.now() - started) / 1000).toFixed(1)} s; machine load ${load1m} at start)`);
    results[name] = { question: bench.question, figures, load_1m_before: load1m };
  }
  return results;
}

/** The commit measured; `+dirty` when the working tree had changes (the figures are then of uncommitted code). */
function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch (err) {
    return `unknown (${(err as Error).message.split('\n')[0]})`;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    options: { smoke: { type: 'boolean', default: false }, profile: { type: 'string' } },
    allowPositionals: true,
  });
  const names = positionals.length ? positionals : Object.keys(BENCHMARKS).filter((name) => values.smoke || !NAMED_ONLY.has(name));
  const suiteStarted = performance.now();
  const results = await runBenchmarks(names, values.smoke!, console.log, values.profile);
  console.log(`suite: ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s`);
  if (!values.smoke) {
    const dir = new URL('./results/', import.meta.url);
    mkdirSync(dir, { recursive: true });
    const path = new URL('./latest.json', dir);
    const previous: Report['benchmarks'] = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')).benchmarks : {};
    const stamp = { at: new Date().toISOString(), commit: commit(), node: process.version };
    const stamped = Object.fromEntries(Object.entries(results).map(([name, r]) => [name, { ...r, ...stamp }]));
    const report: Report = {
      ...stamp,
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), taskset: canPin() },
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      benchmarks: { ...previous, ...stamped },
    };
    writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
    writeFileSync(new URL('./latest.md', dir), renderMarkdown(report));
    writeFileSync(new URL('./latest.svg', dir), renderSvg(report));
    console.log('wrote bench/results/latest.json, latest.md, latest.svg');
  }
}
