import type { IngestEvent } from './events.ts';
import type { ParsedChunk } from './parsed-chunk.ts';
import { swapFromColumns } from './swap-columns.ts';

const NEWLINE = 0x0a;

/** The lines of a log batch (NDJSON bytes, each line ending in '\n'), as strings. */
export function* logLines(bytes: Uint8Array): Generator<string> {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let start = 0;
  for (;;) {
    const nl = buffer.indexOf(NEWLINE, start);
    if (nl === -1) {
      if (start < buffer.length) yield buffer.toString('utf8', start);
      return;
    }
    yield buffer.toString('utf8', start, nl);
    start = nl + 1;
  }
}

/** Number of events in a log batch. */
export function logLineCount(bytes: Uint8Array): number {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let i = buffer.indexOf(NEWLINE); i !== -1; i = buffer.indexOf(NEWLINE, i + 1)) count++;
  if (buffer.length && buffer[buffer.length - 1] !== NEWLINE) count++;
  return count;
}

/**
 * Events that passed the gate and are committed in one ingest-log transaction, in
 * seq order: event i has seq firstSeq + i. Events that reached the gate as objects
 * are kept; the others (validated on the parse worker) are built from their swap
 * columns (swap-columns.ts) or parsed from the log bytes on first access, so a
 * consumer that needs no events costs nothing.
 */
export class CommittedBatch {
  private parsed: IngestEvent[] | null = null;

  constructor(
    readonly firstSeq: number,
    readonly bytes: Buffer,
    private readonly known: Array<IngestEvent | undefined>,
    /** Per event: the parsed chunk holding its swap columns, or null; absent: none has. */
    private readonly columns: ReadonlyArray<ParsedChunk | null> | null = null,
    /** Per event: its row in those columns. */
    private readonly rows: readonly number[] | null = null,
  ) {}

  get count(): number {
    return this.known.length;
  }

  /** Events handed out so far by `eachUntil` (the next one's index). */
  private next = 0;
  /** Byte offset of that event's line. */
  private nextByte = 0;

  /** Whether `eachUntil` has handed out every event. */
  get done(): boolean {
    return this.next >= this.known.length;
  }

  /**
   * Calls `fn` with each event in seq order. Events not kept are built (from columns)
   * or parsed as they come and kept nowhere: an event applied this way is garbage
   * before the next young-generation GC in most cases, where the parsed `events` of a
   * whole batch lived through it, got copied, and often promoted (most of what the
   * engine's scavenges copied). Uses `events` once something has parsed them.
   */
  each(fn: (event: IngestEvent, i: number) => void): void {
    this.walk(fn, 0, 0, Infinity, false, 1);
  }

  /**
   * As `each`, from where the previous call stopped, until the end (true) or, checked
   * after each event once `atLeast` were handed out, `deadline` (performance.now()) has
   * passed (false: call again for the rest). An event that throws out of `fn` is not
   * handed out again.
   */
  eachUntil(fn: (event: IngestEvent, i: number) => boolean | void, deadline: number, atLeast = 1): boolean {
    return this.walk(fn, this.next, this.nextByte, deadline, true, atLeast);
  }

  /** `fn` returning false: that event was not taken (it waits: engine/apply.ts), the walk stops before it and the next call hands it out again. */
  private walk(fn: (event: IngestEvent, i: number) => boolean | void, from: number, fromByte: number, deadline: number, resumable: boolean, atLeast: number): boolean {
    const known = this.known;
    const count = known.length;
    const events = this.parsed ?? (known.every(isKnown) ? (known as IngestEvent[]) : null);
    const { bytes, columns, rows } = this;
    let i = from;
    let start = fromByte;
    try {
      while (i < count) {
        const index = i;
        const lineStart = start;
        i++;
        let taken: boolean | void;
        if (events) taken = fn(events[index]!, index);
        else {
          const nl = bytes.indexOf(NEWLINE, start);
          const end = nl === -1 ? bytes.length : nl;
          start = end + 1;
          const event = known[index];
          const chunk = columns === null ? null : columns[index]!;
          if (event !== undefined) taken = fn(event, index);
          else if (chunk !== null) taken = fn(swapFromColumns(chunk.bytes as Buffer, chunk.swaps!, rows![index]!), index);
          else taken = fn(JSON.parse(bytes.toString('utf8', lineStart, end)) as IngestEvent, index);
        }
        if (taken === false) {
          i = index;
          start = lineStart;
          return false;
        }
        // After `atLeast` events, then after each (~42 ns a look): one event of a backlog
        // may take milliseconds (actors read back from their snapshots, a GC step).
        if (deadline !== Infinity && i - from >= atLeast && i < count && performance.now() >= deadline) return false;
      }
      return true;
    } finally {
      if (resumable) {
        this.next = i;
        this.nextByte = start;
      }
    }
  }

  /**
   * Every event, parsed once and kept (for consumers that need them all at once): as
   * `JSON.parse` of its line gives it, unknown fields and key order included.
   */
  get events(): IngestEvent[] {
    if (!this.parsed) {
      const known = this.known;
      let i = 0;
      for (const line of logLines(this.bytes)) {
        if (known[i] === undefined) known[i] = JSON.parse(line) as IngestEvent;
        i++;
      }
      this.parsed = known as IngestEvent[];
    }
    return this.parsed;
  }
}

const isKnown = (e: IngestEvent | undefined) => e !== undefined;
