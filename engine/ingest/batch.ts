import type { IngestEvent } from './events.ts';

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
 * are kept; the others (validated on the parse worker) are parsed from the log bytes
 * on first access, so a consumer that needs no events costs nothing.
 */
export class CommittedBatch {
  private parsed: IngestEvent[] | null = null;

  constructor(
    readonly firstSeq: number,
    readonly bytes: Buffer,
    private readonly known: Array<IngestEvent | undefined>,
  ) {}

  get count(): number {
    return this.known.length;
  }

  /**
   * Calls `fn` with each event in seq order. Lines with no object are parsed as they
   * come and kept nowhere: an event applied this way is garbage before the next
   * young-generation GC in most cases, where the parsed `events` of a whole batch lived
   * through it, got copied, and often promoted (most of what the engine's scavenges
   * copied). Uses `events` once something has parsed them.
   */
  each(fn: (event: IngestEvent, i: number) => void): void {
    const known = this.known;
    const events = this.parsed ?? (known.every(isKnown) ? (known as IngestEvent[]) : null);
    if (events) {
      for (let i = 0; i < events.length; i++) fn(events[i]!, i);
      return;
    }
    let i = 0;
    for (const line of logLines(this.bytes)) {
      const event = known[i];
      fn(event === undefined ? (JSON.parse(line) as IngestEvent) : event, i++);
    }
  }

  /** Every event, parsed once and kept (for consumers that need them all at once). */
  get events(): IngestEvent[] {
    if (!this.parsed) {
      const known = this.known;
      this.each((event, i) => {
        known[i] = event;
      });
      this.parsed = known as IngestEvent[];
    }
    return this.parsed;
  }
}

const isKnown = (e: IngestEvent | undefined) => e !== undefined;
