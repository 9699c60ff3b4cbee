import { writeHeapSnapshot } from 'node:v8';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * One process of bench/research-memory.ts, fresh so that its heap is its own:
 *   research-memory-child.ts <tree> <ndjsonFile> <dataDir> [heapSnapshotFile]
 * replays the file through the engine of source tree `tree` (this one, or a baseline
 * tree for the same-run A/B), checkpoints, passivates every actor (as the idle sweep
 * does actors.idleMs later), checkpoints again and runs a full GC three times: what
 * stays is what the engine keeps outside its actors, the research read models the
 * largest part of it. Then it times the research routes' reads (the ResearchFeed
 * calls their handlers make, items included) and prints one JSON line.
 */

export interface ResearchMemoryResult {
  pools: number;
  tokens: number;
  ingestSeconds: number;
  heapUsed: number;
  arrayBuffers: number;
  external: number;
  rss: number;
  /** After the replay, before passivation: pool actors in memory, heap and ArrayBuffer bytes after a full GC. */
  resident: { pools: number; heapUsed: number; arrayBuffers: number };
  /** Milliseconds per read, by query name: the median of its repeats. */
  latencyMs: Record<string, number>;
  /** A digest of every answer (ids in order): the same file gives the same value in every tree. */
  answers: string;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function main(): Promise<void> {
  const [tree, file, dataDir, snapshotFile] = process.argv.slice(2);
  if (!tree || !file || !dataDir) throw new Error('usage: research-memory-child.ts <tree> <ndjsonFile> <dataDir> [heapSnapshotFile]');
  if (!gc) throw new Error('run with --expose-gc');
  const load = (path: string) => import(pathToFileURL(join(tree, path)).href);
  const [{ loadConfig }, { createEngine }, { ndjsonSource }] = await Promise.all([load('engine/config.ts'), load('engine/system.ts'), load('engine/sources/ndjson.ts')]);
  const config = loadConfig({ flags: { data: dataDir, source: 'none', clock: 'event', logLevel: 'silent', port: 0 } });
  const engine = await createEngine({ config });
  const started = performance.now();
  await engine.runSource(ndjsonSource({ path: file, lineBytesMax: config.ingest.lineBytesMax }));
  await engine.checkpoint();
  const ingestSeconds = (performance.now() - started) / 1000;
  const research = engine.query.research;
  research.refresh();
  // Before passivation: what resident actors add (their typed arrays are ArrayBuffer memory).
  await collect();
  const resident = { pools: engine.pools.size as number, heapUsed: process.memoryUsage().heapUsed, arrayBuffers: process.memoryUsage().arrayBuffers };
  await engine.passivateIdle(performance.now() + config.actors.idleMs + 1);
  await engine.checkpoint();
  await collect();
  const memory = process.memoryUsage();
  if (snapshotFile) writeHeapSnapshot(snapshotFile);

  // The reads of GET /v1/tokens/search and GET /v1/pools, as their handlers call them.
  type Page = { items: Array<{ token_address?: string; pool_address: string }>; next: unknown };
  const reads: Record<string, () => Page> = {
    search_all_by_market_cap: () => research.searchTokens({ q: '', match: 'smart', sort: 'market_cap_usd', order: 'desc', limit: 50 }),
    search_all_by_volume_1h: () => research.searchTokens({ q: '', match: 'smart', sort: 'volume_usd', window: '1h', order: 'desc', limit: 50 }),
    search_smart_word: () => research.searchTokens({ q: 'market', match: 'smart', sort: 'relevance', order: 'desc', limit: 20 }),
    search_prefix_symbol: () => research.searchTokens({ q: 'M1', match: 'prefix', sort: 'trader_count', order: 'desc', limit: 20 }),
    search_exact_symbol: () => research.searchTokens({ q: 'M2A', match: 'exact', sort: 'relevance', order: 'desc', limit: 20 }),
    pools_by_created: () => research.listPools({ sort: 'created_at', order: 'desc', limit: 50 }),
    pools_by_liquidity: () => research.listPools({ sort: 'liquidity_usd', order: 'desc', limit: 50 }),
    pools_by_volume: () => research.listPools({ sort: 'volume_usd', order: 'desc', limit: 50 }),
  };
  const latencyMs: Record<string, number> = {};
  const answers: string[] = [];
  for (const [name, read] of Object.entries(reads)) {
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      const page = read();
      times.push(performance.now() - t);
      if (i === 0) answers.push(`${name}:${page.items.map((x) => x.token_address ?? x.pool_address).join(',')}`);
    }
    times.sort((a, b) => a - b);
    latencyMs[name] = times[times.length >> 1]!;
  }
  const { createHash } = await import('node:crypto');
  const result: ResearchMemoryResult = {
    pools: research.pools.size,
    tokens: research.tokens.size,
    ingestSeconds,
    heapUsed: memory.heapUsed,
    arrayBuffers: memory.arrayBuffers,
    external: memory.external,
    rss: memory.rss,
    resident,
    latencyMs,
    answers: createHash('sha256').update(answers.join('\n')).digest('hex').slice(0, 16),
  };
  await engine.stop();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
