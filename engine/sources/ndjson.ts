import { REJECTED_HEAD_BYTES } from '../bounds.ts';
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';
import { ChunkParser } from '../ingest/index.ts';
import type { ParsedChunk } from '../ingest/index.ts';
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
  /** Parse worker threads (default 2: with the main thread idle most of the time, this fills two cores). */
  workers?: number;
}

/** Pieces being validated at once: enough to keep the workers busy, bounded memory (~1 MiB each). */
const PIECES_IN_FLIGHT_MAX = 6;
const NEWLINE = 0x0a;

/**
 * Cuts a byte stream into pieces of whole lines for the parse workers. The part after
 * the last newline waits for the next chunk; a line that outgrows `lineBytesMax`
 * across chunks is rejected here, without being kept, and skipped to its newline.
 */
class PieceCutter {
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private skipping = false;
  /** A line rejected by the last `cut`: it comes after the piece that call returned. */
  rejected: { reason: string; head: Buffer } | null = null;

  constructor(private readonly lineBytesMax: number) {}

  /** The piece of whole lines this chunk completes, if any. */
  cut(chunk: Buffer): Buffer | null {
    this.rejected = null;
    let start = 0;
    if (this.skipping) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) return null;
      this.skipping = false;
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last < start) {
      this.hold(chunk.subarray(start));
      return null;
    }
    const whole = chunk.subarray(start, last + 1);
    const piece = this.carryBytes ? Buffer.concat([...this.carry, whole]) : whole;
    this.carry = [];
    this.carryBytes = 0;
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
    return piece;
  }

  /** The input ended: what is left is the last line. */
  end(): Buffer | null {
    const rest = this.carryBytes && !this.skipping ? Buffer.concat(this.carry) : null;
    this.carry = [];
    this.carryBytes = 0;
    return rest;
  }

  private hold(part: Buffer): void {
    if (this.carryBytes + part.length > this.lineBytesMax) {
      this.rejected = { reason: `line: longer than ${this.lineBytesMax} bytes`, head: Buffer.concat([...this.carry, part]).subarray(0, REJECTED_HEAD_BYTES) };
      this.carry = [];
      this.carryBytes = 0;
      this.skipping = true;
      return;
    }
    // Copied: the chunk's memory is transferred to a worker with the next piece.
    this.carry.push(Buffer.from(part));
    this.carryBytes += part.length;
  }
}

/** Bytes read from a file at a time. */
const FILE_READ_BYTES = 1 << 20;

/**
 * A file's bytes in chunks that end at a newline, each in its own ArrayBuffer: the
 * bytes after a chunk's last newline are copied to the head of the next one (a part
 * of one line), so the chunk itself is never copied again: it is transferred to a
 * parse worker, comes back, and is logged as it is. A read with no newline (a line
 * longer than a read) goes out as it is, for the cutter to hold or reject.
 */
async function* lineAlignedChunks(path: string, signal: AbortSignal): AsyncGenerator<Buffer> {
  const file = await open(path, 'r');
  try {
    let tail: Buffer | null = null;
    while (!signal.aborted) {
      const head: number = tail?.length ?? 0;
      // Not from Buffer's shared pool (it is transferred), and not zero-filled (it is read into).
      const buffer: Buffer = Buffer.allocUnsafeSlow(head + FILE_READ_BYTES);
      if (tail) tail.copy(buffer);
      const { bytesRead } = await file.read(buffer, head, FILE_READ_BYTES, null);
      const filled = head + bytesRead;
      if (bytesRead === 0) {
        if (tail) yield tail;
        return;
      }
      const last: number = buffer.lastIndexOf(NEWLINE, filled - 1);
      if (last === -1) {
        tail = null;
        yield buffer.subarray(0, filled);
        continue;
      }
      tail = last + 1 < filled ? Buffer.from(buffer.subarray(last + 1, filled)) : null;
      OWN_BUFFERS.add(buffer.buffer);
      yield buffer.subarray(0, last + 1);
    }
  } finally {
    await file.close();
  }
}

/** ArrayBuffers lineAlignedChunks allocated and no longer touches: safe to transfer. */
const OWN_BUFFERS = new WeakSet<ArrayBufferLike>();

/**
 * NDJSON replay from a file or stdin: one event per line. Pieces of whole lines go to
 * parse worker threads (line checks, JSON.parse, zod, identities) and come back
 * validated; they are handed to the gate in input order, which dedups them and
 * appends their bytes to the log. A line with invalid UTF-8 or over the length limit
 * is rejected whole to dead letters (INGEST.md: a bad event never stops ingest), and
 * reading pauses while the gate has too many uncommitted batches.
 */
export function ndjsonSource(options: NdjsonOptions): Source {
  const origin = `ndjson:${options.path}`;
  return {
    name: origin,
    finite: true,
    async run(sink: IngestSink, signal: AbortSignal): Promise<void> {
      const stream: AsyncIterable<Buffer> = options.stream ?? (options.path === '-' ? process.stdin : lineAlignedChunks(options.path, signal));
      const total = options.path !== '-' && !options.stream ? statSync(options.path).size : 0;
      const bar = options.progress && total > 0
        ? new cliProgress.SingleBar({ format: 'ingest {bar} {percentage}% | {value}/{total} bytes | {eta}s', stream: process.stderr }, cliProgress.Presets.shades_classic)
        : null;
      bar?.start(total, 0);
      const parser = new ChunkParser(options.lineBytesMax, options.workers ?? 2);
      // In input order: a piece being parsed, or a line the cutter rejected (one line).
      type Pending = { kind: 'piece'; parsed: Promise<ParsedChunk> } | { kind: 'rejected'; reason: string; head: Buffer };
      const pending: Pending[] = [];
      const cutter = new PieceCutter(options.lineBytesMax);
      let linesBefore = 0;
      let readBytes = 0;
      const submitOldest = async () => {
        const next = pending.shift()!;
        if (next.kind === 'rejected') {
          linesBefore++;
          const rejected: ParsedChunk = {
            bytes: Buffer.alloc(0), ends: new Uint32Array(0), buckets: [], bucketEnds: new Uint32Array(0), members: [], types: new Uint8Array(0), unknownFields: new Uint8Array(0), positions: new Uint32Array(0),
            lines: 1, tokens: [], rejects: [{ position: 1, reason: next.reason, raw: next.head.toString('latin1') }],
          };
          rebase(rejected, linesBefore - 1);
          sink.submitParsed(rejected, origin);
          return;
        }
        const chunk = await next.parsed;
        rebase(chunk, linesBefore);
        linesBefore += chunk.lines;
        sink.submitParsed(chunk, origin);
        const wait = sink.writable();
        if (wait) await wait;
      };
      // The submitter: hands each piece to the gate as soon as it is parsed (in input
      // order), while reading goes on. A live pipe's line is applied within a worker's
      // round trip of its arrival, not once PIECES_IN_FLIGHT_MAX pieces or the end of the
      // input have come (issue 20, item 7); a file's reads still run ahead of it.
      let submitting: Promise<void> | null = null;
      /** Pieces (and rejected lines) read and not yet handed on: pending, and the one being submitted. */
      let held = 0;
      let failure: { err: unknown } | null = null;
      let progressed: (() => void) | null = null;
      const submitAll = async () => {
        try {
          while (pending.length && !signal.aborted && !failure) {
            await submitOldest();
            held--;
            progressed?.();
          }
        } catch (err) {
          failure = { err };
        } finally {
          submitting = null;
          progressed?.();
        }
      };
      // Not once stopped (or failed): submitAll would return at once, its finally clearing
      // `submitting` before this assignment set it, and `while (submitting) await
      // submitting` below spun in microtasks for ever: engine.stop() hung while a pipe still
      // had input (test/contract/sources.test.ts).
      const startSubmitting = () => {
        if (!submitting && pending.length && !signal.aborted && !failure) submitting = submitAll();
      };
      const throwIfFailed = () => {
        if (failure) throw failure.err;
      };
      /** Resolves once the submitter has handed a piece on (or stopped). */
      const progress = () =>
        new Promise<void>((resolve) => {
          progressed = () => {
            progressed = null;
            resolve();
          };
        });
      const send = (piece: Buffer | null) => {
        if (!piece) return;
        pending.push({ kind: 'piece', parsed: parser.parse(piece, OWN_BUFFERS.has(piece.buffer), sink.swapColumns === true) });
        held++;
      };
      try {
        for await (const chunk of abortable(stream, signal)) {
          readBytes += chunk.length;
          send(cutter.cut(chunk));
          if (cutter.rejected) {
            pending.push({ kind: 'rejected', ...cutter.rejected });
            held++;
          }
          startSubmitting();
          while (held >= PIECES_IN_FLIGHT_MAX && submitting && !failure) await progress();
          throwIfFailed();
          bar?.update(readBytes);
        }
        if (!signal.aborted) send(cutter.end());
        startSubmitting();
        while (submitting) await submitting;
        throwIfFailed();
        await sink.flush();
      } finally {
        // Settle what is still with the workers before they go (an abort, a failure).
        await submitting;
        await Promise.allSettled(pending.map((p) => (p.kind === 'piece' ? p.parsed : null)));
        await parser.close();
        bar?.update(readBytes);
        bar?.stop();
      }
    },
  };
}

/**
 * The stream's chunks until it ends or `signal` aborts: an abort ends the iteration at
 * once, even while the stream has nothing to read (a live pipe that stays open), so
 * that stopping the engine does not wait for the writer's next line or its end.
 */
async function* abortable(stream: AsyncIterable<Buffer>, signal: AbortSignal): AsyncGenerator<Buffer> {
  if (signal.aborted) return;
  const iterator = stream[Symbol.asyncIterator]();
  let onAbort!: () => void;
  const aborted = new Promise<IteratorResult<Buffer>>((resolve) => {
    onAbort = () => resolve({ done: true, value: undefined });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) return;
      yield next.value;
      if (signal.aborted) return;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Ends the stream's iteration (a Readable is destroyed: stdin stops being read).
    void iterator.return?.()?.catch?.(() => undefined);
  }
}

/** Turns a piece's 1-based positions into line numbers of the whole input. */
function rebase(chunk: ParsedChunk, linesBefore: number): void {
  if (linesBefore === 0) return;
  for (let i = 0; i < chunk.positions.length; i++) chunk.positions[i]! += linesBefore;
  for (const r of chunk.rejects) r.position += linesBefore;
}
