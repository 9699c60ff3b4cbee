import { createReadStream, statSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';
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
  /** Writes a rejected line to dead letters; the gate's writer. */
  deadLetter: (reason: string, raw: string, position: number) => void;
}

const NEWLINE = 0x0a;

/**
 * NDJSON replay from a file or stdin: one event per line. Lines are split on bytes so
 * that a line with invalid UTF-8 or over the length limit is rejected whole to dead
 * letters (INGEST.md: a bad event never stops ingest), and the reader pauses while
 * the gate has too many uncommitted batches.
 */
export function ndjsonSource(options: NdjsonOptions): Source {
  const origin = `ndjson:${options.path}`;
  return {
    name: origin,
    finite: true,
    async run(sink: IngestSink, signal: AbortSignal): Promise<void> {
      const stream = options.stream ?? (options.path === '-' ? process.stdin : createReadStream(options.path, { highWaterMark: 1 << 20 }));
      const total = options.path !== '-' && !options.stream ? statSync(options.path).size : 0;
      const bar = options.progress && total > 0 ? new cliProgress.SingleBar({ format: 'ingest {bar} {percentage}% | {value}/{total} bytes | {eta}s', stream: process.stderr }, cliProgress.Presets.shades_classic) : null;
      bar?.start(total, 0);
      let carry: Buffer[] = [];
      let carryBytes = 0;
      let oversized = false;
      let lineNo = 0;
      let readBytes = 0;

      const emit = (line: Buffer) => {
        lineNo++;
        if (line.length && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
        if (line.length === 0) return;
        if (!isUtf8(line)) {
          options.deadLetter('line: invalid UTF-8', line.toString('latin1'), lineNo);
          return;
        }
        sink.submitLine(line.toString('utf8'), origin, lineNo);
      };

      const onChunk = (chunk: Buffer) => {
        readBytes += chunk.length;
        let start = 0;
        for (;;) {
          const nl = chunk.indexOf(NEWLINE, start);
          const end = nl === -1 ? chunk.length : nl;
          const piece = chunk.subarray(start, end);
          if (oversized) {
            // Skipping the rest of an over-long line.
          } else if (carryBytes + piece.length > options.lineBytesMax) {
            const head = Buffer.concat([...carry, piece]).subarray(0, 4096);
            options.deadLetter(`line: longer than ${options.lineBytesMax} bytes`, head.toString('latin1'), lineNo + 1);
            oversized = true;
            carry = [];
            carryBytes = 0;
          } else if (nl === -1) {
            if (piece.length) {
              carry.push(Buffer.from(piece));
              carryBytes += piece.length;
            }
          } else if (carryBytes) {
            carry.push(piece);
            emit(Buffer.concat(carry));
            carry = [];
            carryBytes = 0;
          } else emit(piece);
          if (nl === -1) break;
          if (oversized) {
            oversized = false;
            lineNo++;
          }
          start = nl + 1;
        }
      };

      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (signal.aborted) break;
          onChunk(chunk);
          bar?.update(readBytes);
          const wait = sink.writable();
          if (wait) await wait;
        }
        if (!signal.aborted && carryBytes && !oversized) emit(Buffer.concat(carry));
        else if (oversized) lineNo++;
        await sink.flush();
      } finally {
        bar?.update(readBytes);
        bar?.stop();
        if (options.stream === undefined && options.path !== '-') (stream as Readable).destroy();
      }
    },
  };
}
