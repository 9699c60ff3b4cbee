import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IngestGate } from '../engine/ingest/gate.ts';
import { silentLogger } from '../engine/log.ts';
import { createMetrics } from '../engine/metrics.ts';
import { ndjsonSource } from '../engine/sources/ndjson.ts';
import { openStorage } from '../storage/lmdb.ts';
import { peakRssMiB, type Benchmark } from './harness.ts';
import { BASE58_ALPHABET } from '../engine/sources/sim/base58.ts';
import { Rng } from '../engine/sources/sim/rng.ts';

/**
 * Question: how many events per second pass the ingest gate alone (read the NDJSON
 * file, split lines, JSON.parse, zod-validate, dedup by identity, stamp seq, append
 * the log in batched LMDB transactions, durable on disk)?
 * Estimate: parse ~2.3 µs + validate ~1 µs + dedup ~0.9 µs + batched append ~0.3 µs
 * ≈ 4.5 µs/event on one core, ~220k events/s. Target 250k events/s.
 */

/** Base58 strings of a given length from a seeded Rng (not decodable addresses: the gate checks the pattern only). */
function addressMaker(seed: number) {
  const r = new Rng(seed);
  return (length: number) => {
    let out = BASE58_ALPHABET[1 + r.int(57)]!;
    for (let i = 1; i < length; i++) out += BASE58_ALPHABET[r.int(58)];
    return out;
  };
}

/** Writes `count` distinct swap events over `pools` pools as NDJSON (not timed). */
export async function writeSwaps(path: string, count: number, pools: number): Promise<void> {
  const make = addressMaker(42);
  const poolAddresses = Array.from({ length: pools }, () => make(44));
  const wallets = Array.from({ length: 5_000 }, () => make(44));
  const out = createWriteStream(path);
  let buffer = '';
  for (let i = 0; i < count; i++) {
    buffer += `{"type":"swap","tx_hash":"${make(88)}","slot":${300_000_000 + (i >> 3)},"tx_index":${i & 7},"event_index":0,"at":${1_767_225_600_000 + i * 4},"pool_address":"${poolAddresses[i % pools]}","wallet_address":"${wallets[(i * 7919) % wallets.length]}","side":"${i & 1 ? 'buy' : 'sell'}","base_amount_raw":"${1_000_000 + i}","quote_amount_raw":"${5_000_000 + i}","base_reserve_raw":"800000000000000","quote_reserve_raw":"40000000000","real_base_reserve_raw":"500000000000000","real_quote_reserve_raw":"10000000000"}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
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
      const storage = openStorage(join(dir, 'data'));
      const gate = new IngestGate({ storage, metrics: createMetrics(), log: silentLogger(), batchMax: 2_000, batchesInFlightMax: 8 });
      const source = ndjsonSource({ path: file, lineBytesMax: 1 << 20 });
      const started = performance.now();
      await source.run(gate, new AbortController().signal);
      const seconds = (performance.now() - started) / 1000;
      const ingested = gate.ingested;
      if (ingested !== count || gate.deadLetters !== 0) throw new Error(`ingested ${ingested}/${count}, ${gate.deadLetters} dead letters`);
      await storage.close();
      const dbBytes = statSync(join(dir, 'data', 'data.mdb')).size;
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
