import type { SwapColumns } from './swap-columns.ts';

/**
 * NDJSON lines validated off the main thread (parse-worker.ts), in input order. The
 * valid lines travel as one transferred buffer, so the main thread neither parses nor
 * re-encodes them: it dedups by identity and appends the bytes to the log as they are.
 */
export interface ParsedChunk {
  /** The valid lines, each followed by '\n'. */
  bytes: Uint8Array;
  /** Start of line i is ends[i-1] (0 for the first); its end (before '\n') is ends[i] - 1. */
  ends: Uint32Array;
  /**
   * Identity of line i: its bucket and member (see identityParts). Consecutive lines
   * mostly share a bucket (a slot), so buckets come run-length encoded: bucket
   * `buckets[r]` holds lines up to `bucketEnds[r]` (exclusive).
   */
  buckets: string[];
  bucketEnds: Uint32Array;
  members: string[];
  /** Event type of line i, as an index into EVENT_TYPES. */
  types: Uint8Array;
  /** 1 where line i carries fields INGEST.md does not name. */
  unknownFields: Uint8Array;
  /** 1-based line number of line i in the input (in its chunk, until the source rebases it). */
  positions: Uint32Array;
  /** Lines the chunk held, blank and rejected ones included. */
  lines: number;
  /** Token events: their mint, and decimals when the event carries both decimals and supply_raw. */
  tokens: Array<{ index: number; token: string; decimals: number | null }>;
  /** Swap lines as columns (swap-columns.ts); absent when the chunk has none. */
  swaps?: SwapColumns;
  /** Lines that failed, for dead letters or (unknown types) the ignored count. */
  rejects: Array<{ position: number; reason: string; raw: string; type?: string; unknownType?: boolean }>;
}
