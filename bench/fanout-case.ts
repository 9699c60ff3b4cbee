import { fileURLToPath } from 'node:url';
import { fmt, percentile } from './harness.ts';
import type { ClientPlan } from './fanout-client.ts';
import type { Feed, ServerPlan } from './fanout-server.ts';
// Loaded here, in the parent, so that the children it forks inherit its wall-clock offset (wallMs).
import './fanout-plan.ts';
import type { ClientCommand, ClientReport, ServerCommand, ServerKind, ServerReport, Shape } from './fanout-plan.ts';
import { Peer } from './fanout-procs.ts';

/**
 * One case of the fan-out benchmark (bench/fanout.ts): a fresh server child
 * (bench/fanout-server.ts) and client children (bench/fanout-client.ts), taken
 * through every phase, and every child stopped at the end, also on failure.
 *
 * 1. Idle memory: the server's resident memory, settled and GC'd, before the clients
 *    connect (but after 10 warm-up connections have come, subscribed and gone) and after
 *    every connection has subscribed and answered a ping; then the
 *    market (tokens, pools) is declared, so its garbage hides nothing. Two figures:
 *    live memory (resident memory outside the V8 heap plus the JS heap in use) and
 *    the whole RSS growth, which also holds the V8 heap pages the GC keeps after the
 *    connections' burst of allocation (0 to ~100 MB from run to run).
 * 2. Full load: the driver as fast as delivery allows. Credit = the slowest
 *    connection's progress (reported by the clients every 10 ms) + a window, so
 *    server buffers stay bounded and no connection is ever closed as a slow consumer;
 *    measured between two marks after a warm-up.
 * 3. Latency: the driver at a fixed event rate (half the full-load rate, and, if
 *    asked, a given rate: the baseline's half, so that both servers are compared at
 *    the same load), one frame in N timed from ingest to arrival at a client, and
 *    one published frame in N timed from ingest to the engine's publish call.
 * 4. Accounting: every connection must have received exactly the frames meant for it.
 */

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SERVER = here('./fanout-server.ts');
const CLIENT = here('./fanout-client.ts');

/** Connections that connect, subscribe and leave before the idle baseline (their one-time costs are in it). */
const WARM_CONNECTIONS = 10;
/** A pool_trades frame of the benchmark's swaps is ~800 bytes with its header; the windows are sized with it. */
const FRAME_BYTES = 800;
/** Bytes the driver may have in flight over all connections (server buffers, kernel, unread). */
const IN_FLIGHT_BYTES = 256 * 2 ** 20;
/** Per connection: well under the 1 MiB past which mds closes a slow consumer (4008). */
const PER_CONNECTION_BYTES = 640 * 1024;
/** Latency samples per second wanted, over all clients (and, separately, on the server). */
const SAMPLES_PER_S = 4_000;
/**
 * Events a measured phase drives at least. On a busy machine the engine can stall for
 * longer than a smoke run's 200-250 ms window (one LMDB commit waiting for a slow
 * fsync); such a phase is measured on until it has moved (10 s at most) instead of
 * giving a rate of 0 and no latency sample. Full-size phases drive far more anyway.
 */
const PHASE_EVENTS_MIN = 50;
const PHASE_STRETCH_MS = 10_000;

export interface Sizes {
  pools: number;
  connections: number[];
  clients: number;
  warmMs: number;
  fullMs: number;
  latencyMs: number;
  /** Memory readings until two agree (1: one reading, for smoke runs). */
  settleReadings: number;
}

export interface LoadPhase {
  /** Event rate the driver was asked for. */
  rate: number;
  framesPerS: number;
  serverCpuPct: number;
  clientCpuPct: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  samples: number;
  /** Ingest to the engine's publish call: the engine's share (NaN for bare uWS: no engine). */
  publishP50Ms: number;
  publishP99Ms: number;
}

export interface CaseResult {
  kind: ServerKind;
  serverPid: number;
  shape: Shape;
  connections: number;
  framesPerS: number;
  eventsPerS: number;
  bytesPerFrame: number;
  serverCpuPct: number;
  clientCpuPct: number;
  /** Times the driver stopped for credit (delivery behind by the whole window). */
  creditWaits: number;
  /** Times the driver stopped for the ingest gate (its maximum of batches waiting to be durable). */
  gateWaits: number;
  /** Server resident memory (RssAnon) per idle subscribed connection. */
  rssPerConnectionBytes: number;
  /**
   * Live memory per idle subscribed connection: resident memory outside the V8 heap
   * (uWS or `ws` sockets, buffers, native allocations) plus the JS heap in use after a
   * GC. RSS less the V8 heap's free pages, which the GC keeps after the connections'
   * burst of allocation and which are most of the RSS growth's run-to-run noise.
   */
  livePerConnectionBytes: number;
  /** The V8 heap's share of it (live objects after a GC). */
  heapPerConnectionBytes: number;
  half: LoadPhase;
  same: LoadPhase | null;
  /** `stages`: the server child's breakdown of each latency phase, as printed lines. */
  stageLines: string[];
  exact: boolean;
  problems: string[];
}

type Server = Peer<ServerCommand, ServerReport>;
type Client = Peer<ClientCommand, ClientReport>;
type RssReport = Extract<ServerReport, { type: 'rss' }>;

interface Marks {
  server: Extract<ServerReport, { type: 'mark' }>;
  clients: Array<Extract<ClientReport, { type: 'mark' }>>;
}

/** Rates between two marks, each process over its own interval; client figures summed. */
function rates(a: Marks, b: Marks) {
  const serverSeconds = (b.server.atMs - a.server.atMs) / 1000;
  let framesPerS = 0;
  let clientCpuPct = 0;
  let frames = 0;
  let bytes = 0;
  a.clients.forEach((ca, i) => {
    const cb = b.clients[i]!;
    const seconds = (cb.atMs - ca.atMs) / 1000;
    framesPerS += (cb.frames - ca.frames) / seconds;
    clientCpuPct += (cb.cpuUs - ca.cpuUs) / 1e4 / seconds;
    frames += cb.frames - ca.frames;
    bytes += cb.bytes - ca.bytes;
  });
  return {
    framesPerS,
    eventsPerS: (b.server.events - a.server.events) / serverSeconds,
    bytesPerFrame: bytes / Math.max(1, frames),
    serverCpuPct: (b.server.cpuUs - a.server.cpuUs) / 1e4 / serverSeconds,
    clientCpuPct,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The server's resident memory once it stops moving: V8 hands collected pages back
 * to the OS over a second or two after a GC (tens of MB after start-up here), so one
 * reading right after start-up or a burst of connections would be off by more than
 * the connections weigh. Read (after a GC) every 400 ms until two readings agree
 * within 256 KiB.
 */
async function settledRss(server: Server, readings: number): Promise<RssReport> {
  let last = await server.ask('rss', { type: 'rss' });
  for (let i = 1; i < readings; i++) {
    await sleep(400);
    const now = await server.ask('rss', { type: 'rss' });
    if (Math.abs(now.rssBytes - last.rssBytes) < 256 * 1024) return now;
    last = now;
  }
  return last;
}

export interface CaseOptions {
  /** Also measure latency at this event rate (the baseline's half load). */
  sameRate?: number;
  /** Write a V8 CPU profile of the server child here. */
  cpuProfDir?: string;
  /** Bare uWS only: 300-byte frames. */
  smallFrames?: boolean;
  /** Engine servers: have the server child split ingest-to-publish by stage (bench/fanout-stages.ts). */
  stages?: boolean;
  /** Extra Node/V8 flags for the server child (after `npm start`'s, so they win): experiments only. */
  serverFlags?: string[];
  /** Engine servers: events through a pipe into the NDJSON source (default), or the gate's embedded submitLine. */
  feed?: Feed;
}

export async function runCase(kind: ServerKind, shape: Shape, connections: number, sizes: Sizes, options: CaseOptions = {}): Promise<CaseResult> {
  // ten-pools: a connection waits a whole round (every pool once) between its frames, so the window is two rounds.
  const window =
    shape === 'one-topic' ? Math.max(8, Math.floor(Math.min(PER_CONNECTION_BYTES, IN_FLIGHT_BYTES / connections) / FRAME_BYTES)) : 2 * sizes.pools;
  const serverPlan: ServerPlan = { kind, shape, pools: sizes.pools, window, smallFrames: options.smallFrames, stages: options.stages && kind !== 'uws', feed: options.feed };
  const profile = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [];
  const server: Server = new Peer(`${kind} server`, SERVER, serverPlan, ['--expose-gc', ...profile, ...(options.serverFlags ?? [])]);
  const clients: Client[] = [];
  let warm: Client | null = null;
  const problems: string[] = [];
  const stageLines: string[] = [];
  try {
    const ready = await server.ask('ready', undefined, 120_000);
    const planOf = (first: number, count: number): ClientPlan => ({ shape, pools: sizes.pools, host: '127.0.0.1', port: ready.port, key: ready.key, first, count, concurrency: 64, progressMs: 10 });
    // What the first connections cost once (code compiled for the connection path,
    // tables and metric children made) is no connection's: a few connect, subscribe
    // and leave before the baseline reading.
    warm = new Peer('warm-up client', CLIENT, planOf(0, Math.min(WARM_CONNECTIONS, connections)));
    await warm.ask('ready', undefined, 120_000);
    await warm.stop({ type: 'exit' });
    const base = await settledRss(server, sizes.settleReadings);
    const clientCount = Math.min(sizes.clients, connections);
    for (let c = 0; c < clientCount; c++) {
      const first = Math.floor((c * connections) / clientCount);
      const count = Math.floor(((c + 1) * connections) / clientCount) - first;
      clients.push(new Peer(`client ${c}`, CLIENT, planOf(first, count)));
    }
    await Promise.all(clients.map((c) => c.ask('ready', undefined, 120_000)));
    const idle = await settledRss(server, sizes.settleReadings);
    await server.ask('market', { type: 'market' }, 120_000);

    const through = clients.map(() => 0);
    let credited = 0;
    clients.forEach((client, i) => {
      client.onMessage = (m) => {
        if (m.type !== 'progress') return;
        through[i] = m.through;
        const min = Math.min(...through);
        if (min > credited) {
          credited = min;
          server.send({ type: 'credit', through: min });
        }
      };
    });
    for (const c of clients) c.send({ type: 'count' });

    // Each process stamps its own mark, so that a server busy in a long turn (the `ws`
    // broadcast loop) answers late without skewing anyone's rates.
    const mark = async (): Promise<Marks> => {
      const [s, ...cs] = await Promise.all([server.ask('mark', { type: 'mark' }), ...clients.map((c) => c.ask('mark', { type: 'mark' }))]);
      return { server: s, clients: cs };
    };
    /** Drives for `ms` (after `warmMs` unmeasured), then waits until every frame has arrived. */
    const drive = async (rate: number | null, warmMs: number, ms: number) => {
      const driven = server.ask('driven', { type: 'drive', rate, ms: 120_000 }, 180_000);
      await sleep(warmMs);
      const a = await mark();
      await sleep(ms);
      let b = await mark();
      const stretch = Date.now() + PHASE_STRETCH_MS;
      while (b.server.events - a.server.events < PHASE_EVENTS_MIN && Date.now() < stretch) {
        await sleep(50);
        b = await mark();
      }
      server.send({ type: 'halt' });
      const { events, creditWaits, gateWaits } = await driven;
      const deadline = Date.now() + 30_000;
      while (Math.min(...through) < events) {
        if (Date.now() > deadline) throw new Error(`frames of ${fmt(events)} events not all delivered 30 s after the driver stopped`);
        if (server.failed) throw server.failed;
        await sleep(10);
      }
      return { ...rates(a, b), events, creditWaits, gateWaits };
    };
    const latencyAt = async (rate: number, expectedFramesPerS: number): Promise<LoadPhase> => {
      for (const c of clients) c.send({ type: 'sample', every: Math.max(1, Math.floor(expectedFramesPerS / SAMPLES_PER_S)) });
      server.send({ type: 'sample', every: Math.max(1, Math.floor(rate / SAMPLES_PER_S)) });
      const r = await drive(rate, 0, sizes.latencyMs);
      const reports = await Promise.all(clients.map((c) => c.ask('latency', { type: 'latency' })));
      const all = Float64Array.from(reports.flatMap((l) => l.samples)).sort();
      if (all.length === 0) problems.push(`no latency samples at ${fmt(rate)} events/s`);
      const served = await server.ask('latency', { type: 'latency' });
      if (served.stages) stageLines.push(`at ${fmt(rate)} events/s:`, ...served.stages.map((line) => `  ${line}`));
      const engine = Float64Array.from(served.samples).sort();
      return {
        rate, framesPerS: r.framesPerS, serverCpuPct: r.serverCpuPct, clientCpuPct: r.clientCpuPct,
        p50Ms: percentile(all, 0.5), p99Ms: percentile(all, 0.99), maxMs: all.length ? all[all.length - 1]! : NaN, samples: all.length,
        publishP50Ms: percentile(engine, 0.5), publishP99Ms: percentile(engine, 0.99),
      };
    };

    const full = await drive(null, sizes.warmMs, sizes.fullMs);
    const framesPerEvent = full.framesPerS / Math.max(1, full.eventsPerS);
    // A full-load phase that barely moved still leaves a latency phase that drives events.
    const halfRate = Math.max(full.eventsPerS / 2, (PHASE_EVENTS_MIN * 1000) / sizes.latencyMs);
    const half = await latencyAt(halfRate, (halfRate * full.framesPerS) / Math.max(1, full.eventsPerS));
    const same = options.sameRate === undefined ? null : await latencyAt(options.sameRate, options.sameRate * framesPerEvent);

    const total = (await server.ask('mark', { type: 'mark' })).events;
    const finals = await Promise.all(clients.map((c) => c.ask('final', { type: 'final', events: total })));
    const mismatched = finals.reduce((n, f) => n + f.mismatched, 0);
    const closed = finals.reduce((n, f) => n + f.closed, 0);
    const codes: Record<string, number> = {};
    for (const f of finals) for (const [code, n] of Object.entries(f.closeCodes)) codes[code] = (codes[code] ?? 0) + n;
    if (mismatched) {
      const missing = finals.reduce((n, f) => n + f.missing, 0);
      const extra = finals.reduce((n, f) => n + f.extra, 0);
      problems.push(`${mismatched} connections did not get exactly their frames (${fmt(missing)} missing, ${fmt(extra)} extra)`);
    }
    if (closed) problems.push(`${closed} connections closed (codes ${JSON.stringify(codes)})`);
    const unexpected = finals.reduce((n, f) => n + f.wrong, 0);
    if (unexpected) problems.push(`${unexpected} frames read were not JSON, or not the pool_trades of a subscribed pool`);

    return {
      kind, serverPid: server.child.pid ?? 0, shape, connections,
      framesPerS: full.framesPerS, eventsPerS: full.eventsPerS, bytesPerFrame: full.bytesPerFrame,
      serverCpuPct: full.serverCpuPct, clientCpuPct: full.clientCpuPct, creditWaits: full.creditWaits, gateWaits: full.gateWaits,
      rssPerConnectionBytes: (idle.rssBytes - base.rssBytes) / connections,
      heapPerConnectionBytes: (idle.heapBytes - base.heapBytes) / connections,
      livePerConnectionBytes: (idle.rssBytes - idle.heapPhysicalBytes + idle.heapBytes - (base.rssBytes - base.heapPhysicalBytes + base.heapBytes)) / connections,
      half, same, stageLines,
      exact: mismatched === 0 && closed === 0,
      problems,
    };
  } finally {
    await Promise.all([...clients, ...(warm ? [warm] : [])].map((c) => c.stop({ type: 'exit' })));
    await server.stop({ type: 'exit' });
  }
}
