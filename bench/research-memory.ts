import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NODE_FLAGS, TSX } from './child.ts';
import { writeMarket } from './fixtures/market.ts';
import type { ResearchMemoryResult } from './research-memory-child.ts';

/**
 * Question (issue 25): how much JS heap does the engine keep per pool and its token
 * once every actor is passivated (the research read models: the pool list and the
 * token search, engine/query/search.ts), and how fast do GET /v1/tokens/search and
 * GET /v1/pools read, against another source tree in the same run?
 *
 * Two market files (bench/fixtures/market.ts, seeded) of `--pools` and twice as many
 * pools, `--swaps-per-pool` swaps each on average; each replayed in a fresh process
 * per tree (research-memory-child.ts: replay, checkpoint, passivate every actor, full
 * GC; then the reads). Heap per pool is the slope between the two sizes, so what does
 * not grow with pools (code, buffers, bounded caches) cancels out. The answers' digest
 * must be the same in both trees. ArrayBuffer memory is printed too.
 *
 * `node --import tsx bench/research-memory.ts [--pools 3000] [--swaps-per-pool 5]
 * [--rounds 1] [--other TREE]` (`--other`: e.g. `git archive 6dc95a3 | tar -x -C
 * /tmp/base && ln -s $PWD/node_modules /tmp/base/`)
 */

const CHILD = fileURLToPath(new URL('./research-memory-child.ts', import.meta.url));
const HERE = fileURLToPath(new URL('..', import.meta.url));
const MiB = 2 ** 20;

function replay(tree: string, file: string): ResearchMemoryResult {
  const dir = mkdtempSync(join(tmpdir(), 'mds-research-memory-'));
  try {
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '--expose-gc', '--import', TSX, CHILD, tree, file, join(dir, 'data')], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (run.status !== 0) throw new Error(`child failed (${run.status}): ${run.stderr}`);
    return JSON.parse(run.stdout.trim().split('\n').pop()!) as ResearchMemoryResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { pools: { type: 'string', default: '3000' }, 'swaps-per-pool': { type: 'string', default: '5' }, rounds: { type: 'string', default: '1' }, other: { type: 'string' } } });
  const pools = Number(values.pools);
  const perPool = Number(values['swaps-per-pool']);
  const dir = mkdtempSync(join(tmpdir(), 'mds-research-files-'));
  const sizes = [pools, 2 * pools];
  const files = await Promise.all(sizes.map(async (n) => {
    const path = join(dir, `market-${n}.ndjson`);
    await writeMarket(path, { pools: n, swaps: n * perPool });
    return path;
  }));
  const trees: Array<[string, string]> = [['this', HERE]];
  if (values.other) trees.push(['other', values.other]);
  try {
    for (let round = 1; round <= Number(values.rounds); round++) {
      const slope: Record<string, number> = {};
      const latency: Record<string, Record<string, number>> = {};
      for (const [name, tree] of trees) {
        const [small, large] = files.map((file) => replay(tree, file)) as [ResearchMemoryResult, ResearchMemoryResult];
        slope[name] = (large.heapUsed - small.heapUsed) / (large.pools - small.pools);
        latency[name] = large.latencyMs;
        console.log(
          `round ${round} ${name}: ${small.pools} pools heap ${(small.heapUsed / MiB).toFixed(1)} MiB, arrayBuffers ${(small.arrayBuffers / MiB).toFixed(1)}; ` +
            `${large.pools} pools heap ${(large.heapUsed / MiB).toFixed(1)} MiB, arrayBuffers ${(large.arrayBuffers / MiB).toFixed(1)}; ` +
            `${Math.round(slope[name]!)} B per pool and token; answers ${small.answers} ${large.answers}; ` +
            `before passivation: ${small.resident.pools} and ${large.resident.pools} pools resident, arrayBuffers ${(small.resident.arrayBuffers / MiB).toFixed(1)} and ${(large.resident.arrayBuffers / MiB).toFixed(1)} MiB`,
        );
      }
      if (!values.other) continue;
      console.log(`round ${round}: heap per pool and token this/other ${(slope.this! / slope.other!).toFixed(3)}`);
      for (const read of Object.keys(latency.this!)) {
        const a = latency.this![read]!;
        const b = latency.other![read]!;
        console.log(`  ${read.padEnd(26)} ${a.toFixed(3)} ms against ${b.toFixed(3)} ms: ${(a / b).toFixed(2)}x`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
