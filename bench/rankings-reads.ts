/**
 * How many pools the ranking recompute reads during a backlog, and how many of them were
 * passivated (each such read unpacks the pool's whole snapshot: ActorHost.peek), in this
 * tree and, with `--other TREE`, in another commit's tree on the same market file. Counts,
 * not times: deterministic, so one run of each tree is enough on a loaded machine.
 *
 * `node --import tsx bench/rankings-reads.ts [--swaps 100000] [--pools 5000] [--resident-max 1000] [--rate 330] [--other TREE] [--other-first]`
 *
 * `--rate`: event-time swaps a second (bench/fixtures/market.ts's default 330: 100,000
 * swaps are 5 minutes, so only the 5m window's trades leave it; 20 makes them 83).
 *
 * The engine runs in process (bench/fixtures/market.ts's market, its events applied in
 * batches of 500, event clock), with `actors.residentMax` small so that most pools are
 * passivated as in a backlog past the resident bounds; `FeedMarket.pool` is counted
 * and each read is asked `ActorHost.isResident` first.
 */
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { writeMarket } from './fixtures/market.ts';

interface Counts {
  tree: string;
  reads: number;
  passivated: number;
  /** Time within the recomputes (RankingStreams' recompute jobs, step by step), and in all. */
  recomputeMs: number;
  ms: number;
}

async function count(tree: string, file: string, residentMax: number): Promise<Counts> {
  const { createEngine } = (await import(join(tree, 'engine/system.ts'))) as typeof import('../engine/system.ts');
  const { loadConfig } = (await import(join(tree, 'engine/config.ts'))) as typeof import('../engine/config.ts');
  const dir = mkdtempSync(join(tmpdir(), 'rankings-reads-'));
  const flags = { data: dir, source: 'none', clock: 'event', logLevel: 'silent', port: 0, 'actors.residentMax': residentMax };
  const engine = await createEngine({ config: loadConfig({ flags }) });
  try {
    const market = engine.query.rankings!;
    const read = market.pool.bind(market);
    const counts: Counts = { tree, reads: 0, passivated: 0, recomputeMs: 0, ms: 0 };
    // Each step of a recompute job timed (the jobs run in steps between the events they hold).
    const streams = engine.rankings as unknown as { recomputeJob(window: string, at: number): Generator<void> };
    const job = streams.recomputeJob.bind(streams);
    streams.recomputeJob = function* (window: string, at: number): Generator<void> {
      const steps = job(window, at);
      for (;;) {
        const t0 = performance.now();
        const r = steps.next();
        counts.recomputeMs += performance.now() - t0;
        if (r.done) return;
        yield;
      }
    };
    market.pool = (address: string) => {
      counts.reads++;
      if (!engine.pools.isResident(address)) counts.passivated++;
      return read(address);
    };
    const started = performance.now();
    let batch: Array<Promise<unknown>> = [];
    for await (const line of createInterface({ input: createReadStream(file) })) {
      if (!line) continue;
      batch.push(engine.ingest(JSON.parse(line) as Record<string, unknown>));
      if (batch.length === 500) {
        await Promise.all(batch);
        batch = [];
      }
    }
    await Promise.all(batch);
    await engine.gate.flush();
    counts.ms = performance.now() - started;
    return counts;
  } finally {
    await engine.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { swaps: { type: 'string', default: '100000' }, pools: { type: 'string', default: '5000' }, 'resident-max': { type: 'string', default: '1000' }, rate: { type: 'string', default: '330' }, 'other-first': { type: 'boolean' }, other: { type: 'string' } } });
  const dir = mkdtempSync(join(tmpdir(), 'rankings-reads-market-'));
  try {
    const file = join(dir, 'market.ndjson');
    const m = await writeMarket(file, { swaps: Number(values.swaps), pools: Number(values.pools), swapsPerSecond: Number(values.rate) });
    const residentMax = Number(values['resident-max']);
    const trees = [resolve(new URL('..', import.meta.url).pathname), ...(values.other ? [resolve(values.other)] : [])];
    // `--other-first`: the other tree runs first (the first run in the process also warms what both share).
    if (values['other-first'] && trees.length === 2) trees.reverse();
    const results: Counts[] = [];
    for (const tree of trees) {
      const c = await count(tree, file, residentMax);
      results.push(c);
      console.log(`${c.tree}: ${m.events} events, residentMax ${residentMax}: the recompute read ${c.reads} pools, ${c.passivated} of them passivated; ${c.recomputeMs.toFixed(0)} ms in the recomputes (${(c.ms / 1000).toFixed(1)} s in all)`);
    }
    if (results.length === 2) {
      const [a, b] = (values['other-first'] ? results.reverse() : results) as [Counts, Counts];
      console.log(`this tree against other: reads ${(a.reads / b.reads).toFixed(3)}x, passivated reads ${(a.passivated / b.passivated).toFixed(3)}x, time in the recomputes ${(a.recomputeMs / b.recomputeMs).toFixed(3)}x`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
