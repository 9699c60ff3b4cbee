import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IngestGate } from '../engine/ingest/gate.ts';
import { silentLogger } from '../engine/log.ts';
import { createMetrics } from '../engine/metrics.ts';
import { ndjsonSource } from '../engine/sources/ndjson.ts';
import { openStorage } from '../storage/lmdb.ts';
import { fileURLToPath } from 'node:url';
import { runChild } from './child.ts';
import type { GateChildResult } from './engine-child.ts';
import { summarize, type Benchmark } from './harness.ts';
import { writeSwaps } from './fixtures/swaps.ts';

/**
 * Question: how many events per second pass the ingest gate alone (read the NDJSON
 * file, split lines, JSON.parse, zod-validate, dedup by identity, stamp seq, append
 * the log in batched LMDB transactions, durable on disk)?
 * Estimate: parse ~2.3 µs + validate ~1 µs + dedup ~0.9 µs + batched append ~0.3 µs
 * ≈ 4.5 µs/event on one core, ~220k events/s. Target 250k events/s.
 */

export interface GateRun {
  seconds: number;
  ingested: number;
  deadLetters: number;
  /** Size of data.mdb once closed. */
  dbBytes: number;
}

/**
 * The ingest gate alone on an NDJSON file into a fresh data directory: timed from the
 * first read to the last batch durable on disk. Also the baseline of bench/engine.ts.
 */
export async function runGate(file: string, dataDir: string): Promise<GateRun> {
  const storage = openStorage(dataDir);
  // Nothing applies these events, so the gate asks the parse workers for no swap
  // columns (engine/ingest/swap-columns.ts), which an engine's gate does.
  const gate = new IngestGate({ storage, metrics: createMetrics(), log: silentLogger(), batchMax: 2_000, batchesInFlightMax: 8 });
  const source = ndjsonSource({ path: file, lineBytesMax: 1 << 20 });
  const started = performance.now();
  await source.run(gate, new AbortController().signal);
  await gate.flush();
  const seconds = (performance.now() - started) / 1000;
  const run = { seconds, ingested: gate.ingested, deadLetters: gate.deadLetters };
  await storage.close();
  return { ...run, dbBytes: statSync(join(dataDir, 'data.mdb')).size };
}

const CHILD = fileURLToPath(new URL('./engine-child.ts', import.meta.url));

const benchmark: Benchmark = {
  name: 'ingest-gate',
  question: 'How many swap events/s pass the ingest gate (parse, validate, dedup, durable batched log append)?',
  async run({ smoke, log }) {
    const count = smoke ? 20_000 : 1_000_000;
    const repeats = smoke ? 1 : 3;
    const dir = mkdtempSync(join(tmpdir(), 'mds-bench-gate-'));
    try {
      const file = join(dir, 'swaps.ndjson');
      await writeSwaps(file, count, smoke ? 100 : 10_000);
      // Each run in a fresh process with the flags of `npm start`: its heap and peak RSS
      // are its own, not those of the file generation (which cost the gate ~15 % in-process).
      const runs: GateChildResult[] = [];
      for (let r = 0; r < repeats; r++) {
        const run = await runChild<GateChildResult>(CHILD, ['gate', file, join(dir, `data-${r}`)]);
        rmSync(join(dir, `data-${r}`), { recursive: true, force: true });
        if (run.ingested !== count || run.deadLetters !== 0) throw new Error(`ingested ${run.ingested}/${count}, ${run.deadLetters} dead letters`);
        runs.push(run);
        log(`#${r + 1}: ${count} swaps in ${run.seconds.toFixed(2)} s: ${Math.round(count / run.seconds).toLocaleString('en-US')} events/s; peak RSS ${run.peakRssMiB.toFixed(0)} MiB; LMDB ${(run.dbBytes / count).toFixed(0)} B/event`);
      }
      const rate = summarize(runs.map((run) => count / run.seconds), 'events/s', 0, 'higher');
      log(`median ${rate.value.toLocaleString('en-US')} events/s; target 250,000 ${rate.value >= 250_000 ? 'met' : 'NOT met'}`);
      return {
        events_per_s: rate,
        seconds: summarize(runs.map((run) => run.seconds), 's', 3, 'lower'),
        peak_rss: summarize(runs.map((run) => run.peakRssMiB), 'MiB', 0, 'lower'),
        lmdb_bytes_per_event: summarize(runs.map((run) => run.dbBytes / count), 'B', 0, 'lower'),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
