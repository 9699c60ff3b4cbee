import { createHash } from 'node:crypto';
import { simulate, SIM_FILE_START_AT, type SimOptions } from '../engine/sources/sim/index.ts';
import { peakRssMiB, type Benchmark } from './harness.ts';

/**
 * Question: how fast does the simulator generate events, as objects and as NDJSON?
 * It must outrun the engine (100k-250k events/s) by a wide margin to serve as its load
 * generator. Estimate: a swap costs a pool pick, a few BigInt multiplications and
 * divisions (~0.3 µs), six BigInt-to-string conversions (~0.4 µs) and two object
 * literals; with its balance event ~1.5 µs per pair, so ~1M events/s generated.
 * JSON.stringify of ~400-byte events at ~1 GB/s adds ~0.5 µs each: ~500k events/s
 * (~200 MB/s) of NDJSON.
 */

const DEFAULT_MARKET: SimOptions = { seed: 42, startAt: SIM_FILE_START_AT };
/** A busy launchpad day: about pump.fun's peak launch rate and 25× the default flow. */
const BUSY_MARKET: SimOptions = { seed: 42, startAt: SIM_FILE_START_AT, launchRate: 30, tradeRate: 1_000 };

function generate(options: SimOptions, count: number): { eventsPerS: number; swapShare: number } {
  const started = performance.now();
  let n = 0;
  let swaps = 0;
  for (const event of simulate(options)) {
    if (event.type === 'swap') swaps++;
    if (++n >= count) break;
  }
  return { eventsPerS: count / ((performance.now() - started) / 1000), swapShare: swaps / count };
}

interface NdjsonRun {
  eventsPerS: number;
  bytesPerS: number;
  bytes: number;
  hash: string;
}

/** Generates and stringifies `count` events into 1 MiB chunks; hashing is not timed. */
function ndjson(options: SimOptions, count: number): NdjsonRun {
  const hash = createHash('sha256');
  let hashMs = 0;
  let bytes = 0;
  let chunk = '';
  let n = 0;
  const started = performance.now();
  for (const event of simulate(options)) {
    chunk += JSON.stringify(event) + '\n';
    if (chunk.length >= 1 << 20 || ++n >= count) {
      const buffer = Buffer.from(chunk);
      bytes += buffer.length;
      chunk = '';
      const hashStarted = performance.now();
      hash.update(buffer);
      hashMs += performance.now() - hashStarted;
      if (n >= count) break;
    }
  }
  const seconds = (performance.now() - started - hashMs) / 1000;
  return { eventsPerS: count / seconds, bytesPerS: bytes / seconds, bytes, hash: hash.digest('hex').slice(0, 16) };
}

const benchmark: Benchmark = {
  name: 'sim',
  question: 'How fast does the simulator generate events?',
  async run({ smoke, log }) {
    const count = smoke ? 100_000 : 2_000_000;
    const plain = generate(DEFAULT_MARKET, count);
    log(`default market (10 launches/min, 40 swaps/s): ${count.toLocaleString('en-US')} events at ${Math.round(plain.eventsPerS).toLocaleString('en-US')} events/s (${(100 * plain.swapShare).toFixed(0)}% swaps)`);
    const busy = generate(BUSY_MARKET, count);
    log(`busy market (30 launches/min, 1000 swaps/s): ${Math.round(busy.eventsPerS).toLocaleString('en-US')} events/s (${(100 * busy.swapShare).toFixed(0)}% swaps)`);
    const file = ndjson(DEFAULT_MARKET, count);
    log(
      `NDJSON (JSON.stringify included): ${Math.round(file.eventsPerS).toLocaleString('en-US')} events/s, ${(file.bytesPerS / 1e6).toFixed(1)} MB/s, ` +
        `${(file.bytes / count).toFixed(0)} B/event; sha256 ${file.hash}; peak RSS ${peakRssMiB().toFixed(0)} MiB`,
    );
    return {
      events_per_s: { value: Math.round(plain.eventsPerS), unit: 'events/s' },
      events_per_s_busy: { value: Math.round(busy.eventsPerS), unit: 'events/s' },
      ndjson_events_per_s: { value: Math.round(file.eventsPerS), unit: 'events/s' },
      ndjson_mb_per_s: { value: Number((file.bytesPerS / 1e6).toFixed(1)), unit: 'MB/s' },
      bytes_per_event: { value: Math.round(file.bytes / count), unit: 'B' },
      peak_rss: { value: Math.round(peakRssMiB()), unit: 'MiB' },
    };
  },
};

export default benchmark;
