import type { FeedBatch, RankRow } from './feed.logic.ts';
import { FEED_SORT, LIVE_FEEDS, type FeedName, type RankingWindow } from './feed.rules.ts';

/**
 * The `rankings` stream's events (SERVICE.md 6.2, DECISIONS.md "Rankings") built from a
 * feed book's rows and batches. `E` is the ranking entry (SERVICE.md 2.11): the wiring
 * builds it from the pool's and token's views around a RankRow (rank, score, entered_at).
 * Every event also names its `window` (a field SERVICE.md does not show; clients ignore
 * fields they do not know), since one connection may follow several windows of a feed.
 */

export interface SnapshotEvent<E> {
  event: 'snapshot';
  feed: FeedName;
  window: RankingWindow;
  rankings: E[];
  updated_at: number;
  /** The seq of the last `window` batch the snapshot includes (0: none yet): the next batch a client applies is seq + 1. */
  seq: number;
}
export interface EnterEvent<E> {
  event: 'enter';
  feed: FeedName;
  window: RankingWindow;
  pool_address: string;
  at: number;
  entry: E;
}
export interface ExitEvent {
  event: 'exit';
  feed: FeedName;
  window: RankingWindow;
  pool_address: string;
  at: number;
  entry: null;
}
export type WindowOp<E> = { op: 'insert'; pool_address: string; position: number; entry: E } | { op: 'remove'; pool_address: string };
export interface WindowEvent<E> {
  event: 'window';
  feed: FeedName;
  window: RankingWindow;
  /** The field the window is ordered by (feed.rules.ts FEED_SORT). */
  sort: string;
  seq: number;
  /** Rows the window holds at most (the feed's depth). */
  depth: number;
  ops: WindowOp<E>[];
  /** The full order after the ops on reconcile batches (every `reconcileEvery`), else null. */
  pool_addresses: string[] | null;
}
export type RankingEvent<E> = SnapshotEvent<E> | EnterEvent<E> | ExitEvent | WindowEvent<E>;

export function snapshotEvent<E>(feed: FeedName, window: RankingWindow, rows: readonly RankRow[], updatedAt: number, seq: number, entryOf: (row: RankRow) => E): SnapshotEvent<E> {
  return { event: 'snapshot', feed, window, rankings: rows.map(entryOf), updated_at: updatedAt, seq };
}

/**
 * The live events of one batch, in sending order: `exit`s, `enter`s, then the `window`
 * batch. A feed that is not live (popular, top_gainers, stocks) sends none: its
 * recomputes go out as snapshots.
 */
export function batchEvents<E>(batch: FeedBatch, depth: number, entryOf: (row: RankRow) => E): RankingEvent<E>[] {
  const { feed, window, at } = batch;
  if (!LIVE_FEEDS.has(feed)) return [];
  const out: RankingEvent<E>[] = [];
  for (const pool_address of batch.exited) out.push({ event: 'exit', feed, window, pool_address, at, entry: null });
  // An entering row is also inserted by the batch: its entry is built once.
  const built = new Map<string, E>();
  for (const row of batch.entered) {
    const entry = entryOf(row);
    built.set(row.pool_address, entry);
    out.push({ event: 'enter', feed, window, pool_address: row.pool_address, at, entry });
  }
  const ops: WindowOp<E>[] = batch.ops.map((op) =>
    op.op === 'remove' ? op : { op: 'insert', pool_address: op.pool_address, position: op.position, entry: built.get(op.pool_address) ?? entryOf(op.row) },
  );
  out.push({ event: 'window', feed, window, sort: FEED_SORT[feed], seq: batch.seq, depth, ops, pool_addresses: batch.pool_addresses });
  return out;
}

/**
 * A client's side of a `window` batch: applies its ops in order to the rows it holds and
 * returns the new rows (a new array). Throws on an op that does not fit (a remove of a
 * pool not held, an insert past the end): the client missed a batch and reloads.
 */
export function applyWindowOps<T extends { pool_address: string }>(rows: readonly T[], ops: readonly WindowOp<T>[]): T[] {
  const out = rows.slice();
  for (const op of ops) {
    if (op.op === 'remove') {
      const i = out.findIndex((r) => r.pool_address === op.pool_address);
      if (i < 0) throw new Error(`window op: remove of ${op.pool_address}, not held`);
      out.splice(i, 1);
    } else {
      if (op.position < 0 || op.position > out.length) throw new Error(`window op: insert at ${op.position} of ${out.length} rows`);
      out.splice(op.position, 0, op.entry);
    }
  }
  return out;
}

/** A client's copy of one (feed, window): its rows and the seq of the last batch applied. */
export interface HeldWindow<T> {
  seq: number;
  rows: T[];
}

/** A client's copy from a snapshot. */
export const holdSnapshot = <T>(e: SnapshotEvent<T>): HeldWindow<T> => ({ seq: e.seq, rows: e.rankings.slice() });

/**
 * A client's side of a `window` event (SERVICE.md 6.2: "a gap means a batch was missed
 * and the client reloads"): the next copy, or 'reload' when the event is not the batch
 * after the last one applied or its ops do not fit the rows held. A batch already
 * applied (seq at or below the held one) is skipped.
 */
export function followWindow<T extends { pool_address: string }>(held: HeldWindow<T>, e: WindowEvent<T>): HeldWindow<T> | 'reload' {
  if (e.seq <= held.seq) return held;
  if (e.seq !== held.seq + 1) return 'reload';
  try {
    return { seq: e.seq, rows: applyWindowOps(held.rows, e.ops) };
  } catch {
    // applyWindowOps throws only on ops that do not fit: the rows held are not the server's.
    return 'reload';
  }
}
