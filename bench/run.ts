import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type { Benchmark, Figure } from './harness.ts';

/**
 * `npm run bench [-- --smoke] [name ...]`: runs the benchmarks of bench/ in order and
 * prints their figures. A full run writes bench/results/latest.json (machine, Node,
 * commit, figures); a smoke run writes nothing, it only proves every benchmark runs.
 */
export const BENCHMARKS: Record<string, () => Promise<{ default: Benchmark }>> = {
  'ingest-gate': () => import('./ingest-gate.ts'),
  sim: () => import('./sim.ts'),
};

export async function runBenchmarks(names: string[], smoke: boolean, log: (line: string) => void = console.log) {
  const results: Record<string, { question: string; figures: Record<string, Figure> }> = {};
  for (const name of names) {
    const load = BENCHMARKS[name];
    if (!load) throw new Error(`unknown benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    const { default: bench } = await load();
    log(`# ${bench.name}${smoke ? ' (smoke)' : ''}: ${bench.question}`);
    results[name] = { question: bench.question, figures: await bench.run({ smoke, log: (line) => log(`  ${line}`) }) };
  }
  return results;
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { smoke: { type: 'boolean', default: false } }, allowPositionals: true });
  const names = positionals.length ? positionals : Object.keys(BENCHMARKS);
  const results = await runBenchmarks(names, values.smoke!);
  if (!values.smoke) {
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    const path = new URL('./results/latest.json', import.meta.url);
    // A run of some benchmarks keeps the others' last figures.
    const previous = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')).benchmarks : {};
    const stamp = { at: new Date().toISOString(), commit: commit(), node: process.version };
    const stamped = Object.fromEntries(Object.entries(results).map(([name, r]) => [name, { ...r, ...stamp }]));
    const report = {
      ...stamp,
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30) },
      benchmarks: { ...previous, ...stamped },
    };
    writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
    console.log('wrote bench/results/latest.json');
  }
}
