import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import cliProgress from 'cli-progress';
import { Market } from './market.ts';
import { SIM_FILE_START_AT } from './options.ts';

export interface WriteSimFileOptions {
  /** Path of the NDJSON file (created or truncated). */
  out: string;
  /** Simulated time to write: events with time < startAt + durationMs. */
  durationMs: number;
  seed: number;
  /** Unix ms of the first event; default SIM_FILE_START_AT (2026-01-01T00:00:00Z). */
  startAt?: number;
  launchRate?: number;
  tradeRate?: number;
  solPriceUsd?: number;
  /** Show a progress bar on stderr. */
  progress?: boolean;
}

/** Characters of NDJSON collected before one write to the stream. */
const CHUNK_CHARS = 1 << 20;

/**
 * Writes the simulated market as NDJSON (one JSON.stringify(event) per line) as fast
 * as it can, waiting for `drain` when the stream's buffer is full. The same seed and
 * options give a byte-identical file.
 */
export async function writeSimFile(options: WriteSimFileOptions): Promise<{ events: number; bytes: number }> {
  const { out, durationMs, progress = false } = options;
  if (!Number.isFinite(durationMs) || durationMs < 0) throw new Error(`durationMs must be a non-negative number, got ${durationMs}`);
  const startAt = options.startAt ?? SIM_FILE_START_AT;
  const market = new Market({ seed: options.seed, startAt, launchRate: options.launchRate, tradeRate: options.tradeRate, solPriceUsd: options.solPriceUsd });
  const end = startAt + durationMs;
  const stream = createWriteStream(out, { highWaterMark: 1 << 20 });
  let failure: Error | null = null;
  stream.on('error', (err) => {
    failure = err;
  });
  const bar = progress
    ? new cliProgress.SingleBar(
        { format: 'sim {bar} {percentage}% | {value}/{total} simulated s | {events} events | ETA {eta_formatted}', stream: process.stderr, fps: 5 },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(Math.ceil(durationMs / 1000), 0, { events: 0 });
  let events = 0;
  let bytes = 0;
  let chunk = '';
  const flush = async (): Promise<void> => {
    bytes += Buffer.byteLength(chunk);
    const ok = stream.write(chunk);
    chunk = '';
    if (failure !== null) throw failure;
    if (!ok) await once(stream, 'drain');
  };
  try {
    // Every event of a slot carries the slot's time, so a slot is written whole or not at all.
    while (market.nextAt < end) {
      const slotEvents = market.nextSlot();
      for (let i = 0; i < slotEvents.length; i++) chunk += JSON.stringify(slotEvents[i]) + '\n';
      events += slotEvents.length;
      if (chunk.length >= CHUNK_CHARS) {
        await flush();
        bar?.update(Math.floor((market.nextAt - startAt) / 1000), { events });
      }
    }
    if (chunk.length > 0) await flush();
    await new Promise<void>((resolve, reject) => {
      stream.end((err?: Error | null) => (err ? reject(err) : resolve()));
    });
    if (failure !== null) throw failure;
    bar?.update(Math.ceil(durationMs / 1000), { events });
    return { events, bytes };
  } catch (err) {
    stream.destroy();
    throw err;
  } finally {
    bar?.stop();
  }
}
