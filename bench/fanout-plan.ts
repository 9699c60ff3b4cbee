import { addressMaker } from './fixtures/swaps.ts';

/**
 * What the processes of the fan-out benchmark (bench/fanout.ts) agree on: the two
 * shapes of subscription, which pool each driver event trades in, which pools each
 * connection watches, and so how many frames a connection must have received after
 * the first K events. The server child, the client children and the parent all
 * compute these from the same numbers, so that no list of pools or counts crosses a
 * process boundary and every frame can be accounted for.
 *
 * Driver events are numbered k = 0, 1, 2, ... over the whole life of one server
 * child (warm-up, saturation and the latency phase continue the same numbering).
 */

/** `one-topic`: every connection on pool_trades of pool 0. `ten-pools`: connection j on its own 10 pools. */
export type Shape = 'one-topic' | 'ten-pools';

/** Which server the clients talk to. */
export type ServerKind = 'mds' | 'ws' | 'uws';

/** Pools one connection of the `ten-pools` shape watches. */
export const POOLS_PER_CONNECTION = 10;

export interface ShapeParams {
  shape: Shape;
  /** Pools of the market: driver events of `ten-pools` go round-robin over all of them. */
  pools: number;
}

/** Pool index of driver event k. */
export function poolOfEvent(p: ShapeParams, k: number): number {
  return p.shape === 'one-topic' ? 0 : k % p.pools;
}

/**
 * First pool of connection j (`ten-pools`): 10 consecutive pools, so that with as many
 * connections as pools / 10 every pool has one watcher, and with more, several.
 */
function firstPool(p: ShapeParams, j: number): number {
  return (j * POOLS_PER_CONNECTION) % p.pools;
}

/** Pool indices connection j subscribes to. */
export function poolsOfConnection(p: ShapeParams, j: number): number[] {
  if (p.shape === 'one-topic') return [0];
  const first = firstPool(p, j);
  return Array.from({ length: POOLS_PER_CONNECTION }, (_, i) => first + i);
}

/** Frames connection j must have received once events [0, events) are all delivered. */
export function expectedFrames(p: ShapeParams, j: number, events: number): number {
  if (p.shape === 'one-topic') return events;
  const rounds = Math.floor(events / p.pools);
  const rest = events % p.pools;
  const first = firstPool(p, j);
  return rounds * POOLS_PER_CONNECTION + Math.min(POOLS_PER_CONNECTION, Math.max(0, rest - first));
}

/**
 * Given that connection j counted `frames` frames, the index of the next driver event
 * it waits for: every event before it that was meant for j has reached j. The minimum
 * over connections is how far delivery has come (the driver's credit is counted from it).
 */
export function deliveredThrough(p: ShapeParams, j: number, frames: number): number {
  if (p.shape === 'one-topic') return frames;
  const rounds = Math.floor(frames / POOLS_PER_CONNECTION);
  return rounds * p.pools + firstPool(p, j) + (frames % POOLS_PER_CONNECTION);
}

/** Client process → parent. */
export type ClientReport =
  | { type: 'ready'; connections: number; connectMs: number }
  | { type: 'progress'; through: number }
  | { type: 'mark'; atMs: number; frames: number; bytes: number; cpuUs: number; closed: number }
  | { type: 'latency'; samples: number[] }
  | { type: 'final'; frames: number; mismatched: number; missing: number; extra: number; closed: number; closeCodes: Record<string, number>; wrong: number }
  | { type: 'error'; message: string };

/** Parent → client process. */
export type ClientCommand =
  | { type: 'count' }
  | { type: 'mark' }
  | { type: 'sample'; every: number }
  | { type: 'latency' }
  | { type: 'final'; events: number }
  | { type: 'exit' };

/** Server child → parent. */
export type ServerReport =
  | { type: 'ready'; port: number; key: string; rssBytes: number; setupMs: number }
  | { type: 'market'; setupMs: number }
  | { type: 'rss'; rssBytes: number; heapBytes: number; heapPhysicalBytes: number }
  | { type: 'mark'; atMs: number; events: number; cpuUs: number; rssBytes: number }
  | { type: 'driven'; events: number; seconds: number; creditWaits: number; gateWaits: number }
  /** Ingest to publish (the engine's share of the latency), in ms, sampled. */
  | { type: 'latency'; samples: number[]; stages?: string[] }
  | { type: 'error'; message: string };

/** Parent → server child. */
export type ServerCommand =
  | { type: 'rss' }
  /** Declares the market (tokens and pools), answered with `market` once applied and checkpointed. */
  | { type: 'market' }
  /** Drives until `halt`, or `ms` at most; `rate` events/s, or null: as fast as the credit lets it. */
  | { type: 'drive'; rate: number | null; ms: number }
  | { type: 'credit'; through: number }
  | { type: 'mark' }
  /** Ends the drive now (it is answered with `driven`). */
  | { type: 'halt' }
  /** Samples one published frame in `every` from now on (ingest to publish). */
  | { type: 'sample'; every: number }
  | { type: 'latency' }
  | { type: 'exit' };

/** CLOCK_MONOTONIC in ms: one clock for every process of the machine. */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;
/**
 * The wall clock's offset from CLOCK_MONOTONIC, taken once by the first process that
 * loads this module (the benchmark's parent) and inherited by the processes it forks.
 * Each process's `performance.timeOrigin` is its own reading, taken at its start: a
 * start descheduled under load skews it by milliseconds (a smoke run under `npm test`
 * once read p50 latencies of -3.5 ms).
 */
const WALL_OFFSET_MS = Number((process.env.MDS_BENCH_WALL_OFFSET_MS ??= String(Date.now() - monotonicMs())));

/** Wall-clock milliseconds with sub-millisecond precision, the same clock in every process of a run. */
export function wallMs(): number {
  return WALL_OFFSET_MS + monotonicMs();
}

/**
 * The market's pool addresses (and their base mints), the same in every process: 44
 * base58 characters from a seeded generator (bench/fixtures/swaps.ts).
 */
export function marketAddresses(pools: number): { pools: string[]; mints: string[] } {
  const makePool = addressMaker(5_001);
  const makeMint = addressMaker(5_002);
  return { pools: Array.from({ length: pools }, () => makePool(44)), mints: Array.from({ length: pools }, () => makeMint(44)) };
}
