import type { ParsedChunk } from '../ingest/index.ts';

/**
 * The seam between the outside world and the ingest gate. A source turns its input
 * into INGEST.md events and hands them to the sink; it knows nothing of actors.
 */
export interface IngestSink {
  /**
   * Submit one event object. Validation failures go to dead letters, never throw.
   * `origin` names the source and `position` (a line number, an offset) where in it.
   */
  submit(event: unknown, origin: string, position?: number): void;
  /** Submit one NDJSON line as received (the cheapest path: the text is logged as is). */
  submitLine(line: string, origin: string, position?: number): void;
  /** Submit NDJSON lines already validated on the parse worker, in input order. */
  submitParsed(chunk: ParsedChunk, origin: string): void;
  /**
   * Whether the sink's events are applied (an engine's gate), so that parse workers
   * should send swap lines as columns too (engine/ingest/swap-columns.ts). Absent: no.
   */
  readonly swapColumns?: boolean;
  /**
   * Backpressure: a promise to await before submitting more when too many batches
   * are waiting for their commit, or null when the source may go on.
   */
  writable(): Promise<void> | null;
  /** Resolves once everything submitted so far is durable (acknowledged). */
  flush(): Promise<void>;
  /**
   * Records what a source could not turn into an event (a transaction it could not
   * fetch or decode) in the dead letters, with the reason. Absent: the source logs it.
   */
  deadLetter?(stage: string, reason: string, raw: unknown, source: string): unknown;
}

export interface Source {
  /** As named on the command line: `sim`, `ndjson:<path>`. */
  readonly name: string;
  /** A finite source ends (a file); /health reports `source_done` for it. */
  readonly finite: boolean;
  /** Feed the sink until done or until `signal` aborts; resolves when it stops. */
  run(sink: IngestSink, signal: AbortSignal): Promise<void>;
  /** A live source's state for /health (connected, reconnects, last slot...), in snake_case. */
  state?(): object;
}

/** A live source, whose state() is typed. */
export interface LiveSource<S extends object> extends Source {
  state(): S;
}
