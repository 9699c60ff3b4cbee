import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IngestGate } from '../engine/ingest/gate.ts';
import { silentLogger } from '../engine/log.ts';
import { createMetrics } from '../engine/metrics.ts';
import { ndjsonSource } from '../engine/sources/ndjson.ts';
import { openStorage } from '../storage/lmdb.ts';
import { peakRssMiB, type Benchmark } from './harness.ts';
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

const benchmark: Benchmark = {
  name: 'ingest-gate',
  question: 'How many swap events/s pass the ingest gate (parse, validate, dedup, durable batched log append)?',
  async run({ smoke, log }) {
    const count = smoke ? 20_000 : 1_000_000;
    const dir = mkdtempSync(join(tmpdir(), 'mds-bench-gate-'));
    try {
      const file = join(dir, 'swaps.ndjson');
      await writeSwaps(file, count, smoke ? 100 : 10_000);
      const { seconds, ingested, deadLetters, dbBytes } = await runGate(file, join(dir, 'data'));
      if (ingested !== count || deadLetters !== 0) throw new Error(`ingested ${ingested}/${count}, ${deadLetters} dead letters`);
      const rate = count / seconds;
      log(`${count} swaps in ${seconds.toFixed(2)} s: ${Math.round(rate).toLocaleString('en-US')} events/s; peak RSS ${peakRssMiB().toFixed(0)} MiB; LMDB ${(dbBytes / count).toFixed(0)} B/event`);
      return {
        events_per_s: { value: Math.round(rate), unit: 'events/s' },
        seconds: { value: Number(seconds.toFixed(3)), unit: 's' },
        peak_rss: { value: Math.round(peakRssMiB()), unit: 'MiB' },
        lmdb_bytes_per_event: { value: Math.round(dbBytes / count), unit: 'B' },
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
