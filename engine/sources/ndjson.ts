import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';
import { ChunkParser } from '../ingest/parse-pool.ts';
import type { ParsedChunk } from '../ingest/parsed-chunk.ts';
import type { IngestSink, Source } from './source.ts';

export interface NdjsonOptions {
  /** A file path, or `-` for stdin. */
  path: string;
  /** Longer lines go to dead letters (their first bytes), never into memory whole. */
  lineBytesMax: number;
  /** Show a progress bar on stderr (a file on a terminal). */
  progress?: boolean;
  /** For tests: read from this stream instead of the path. */
  stream?: Readable;
}

/** Chunks being validated on the worker at once: enough to keep it busy, bounded memory. */
const CHUNKS_IN_FLIGHT_MAX = 4;

/**
 * NDJSON replay from a file or stdin: one event per line. The bytes go to a parse
 * worker thread (line splitting, JSON.parse, zod, identities) and come back as
 * validated chunks in order; the gate dedups them and appends their bytes to the log.
 * A line with invalid UTF-8 or over the length limit is rejected whole to dead letters
 * (INGEST.md: a bad event never stops ingest), and reading pauses while the gate has
 * too many uncommitted batches.
 */
export function ndjsonSource(options: NdjsonOptions): Source {
  const origin = `ndjson:${options.path}`;
  return {
    name: origin,
    finite: true,
    async run(sink: IngestSink, signal: AbortSignal): Promise<void> {
      const stream = options.stream ?? (options.path === '-' ? process.stdin : createReadStream(options.path, { highWaterMark: 1 << 20 }));
      const total = options.path !== '-' && !options.stream ? statSync(options.path).size : 0;
      const bar = options.progress && total > 0
        ? new cliProgress.SingleBar({ format: 'ingest {bar} {percentage}% | {value}/{total} bytes | {eta}s', stream: process.stderr }, cliProgress.Presets.shades_classic)
        : null;
      bar?.start(total, 0);
      const parser = new ChunkParser(options.lineBytesMax);
      const inFlight: Array<Promise<ParsedChunk>> = [];
      let readBytes = 0;
      const submitOldest = async () => {
        sink.submitParsed(await inFlight.shift()!, origin);
        const wait = sink.writable();
        if (wait) await wait;
      };
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (signal.aborted) break;
          readBytes += chunk.length;
          inFlight.push(parser.parse(chunk));
          if (inFlight.length >= CHUNKS_IN_FLIGHT_MAX) await submitOldest();
          bar?.update(readBytes);
        }
        if (!signal.aborted) inFlight.push(parser.end());
        while (inFlight.length) await submitOldest();
        await sink.flush();
      } finally {
        // Settle what is still with the worker before it goes (an abort, a failure).
        await Promise.allSettled(inFlight);
        await parser.close();
        bar?.update(readBytes);
        bar?.stop();
        if (options.stream === undefined && options.path !== '-') (stream as Readable).destroy();
      }
    },
  };
}
