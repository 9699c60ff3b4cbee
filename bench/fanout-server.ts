import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { startWsBaseline } from './baselines/ws-server.ts';
import { openFifo } from './fifo.ts';
import { addressMaker, liveSwapLine } from './fixtures/swaps.ts';
import { startBareUws } from './fanout-uws.ts';
import type { TopicSink } from '../engine/topics/index.ts';
import { probeEngine, type StageProbe } from './fanout-stages.ts';
import { marketAddresses, poolOfEvent, wallMs, type ServerCommand, type ServerKind, type ServerReport, type ShapeParams } from './fanout-plan.ts';

/**
 * The server process of the fan-out benchmark (bench/fanout.ts), with its own event
 * driver, so that events enter the engine the way an embedder's do and the clients
 * can tell how long each took from ingest to their socket.
 *
 * - `mds`: the engine (LMDB in a temp dir, actors, publisher) and the service's own
 *   transport wired as `mds serve` wires it (engine/serve.ts): createServer with the
 *   limits hook, mountWebSocket with keys and plan limits, the engine's topics
 *   attached. Plan limits are lifted through the config (DECISIONS.md), nothing else.
 * - `ws`: the same engine, the same events, its topics attached to the `ws`-library
 *   broadcast server of bench/baselines/ws-server.ts instead.
 * - `uws`: no engine; bare uWebSockets.js publishing a frame of the same size built by
 *   string concatenation (bench/fanout-uws.ts): the ceiling of any Node server here,
 *   and so of what the clients can take.
 *
 * The driver (in this process, counted in its CPU) writes swap lines, each stamped
 * with the wall time as it is written (`at` in ms and the sub-millisecond part in
 * `tx_index`: bench/fixtures/swaps.ts liveSwapLine), into a named pipe the engine reads
 * as `mds serve --source ndjson:-` reads its stdin (`feed: 'pipe'`, the default: the
 * NDJSON source, its parse workers, the gate), as a decoder feeds mds in a pipeline,
 * a turn's lines in one write; or, with `feed: 'embedded'`, submits them to the gate
 * (`submitLine`, the embedded path). It emits as fast as it may (`rate` null) or at
 * `rate` events/s, and never past the credit: the slowest connection's delivery plus
 * `window` events, nor while the gate or the pipe asks it to wait.
 *
 * Usage: fanout-server.ts '<ServerPlan JSON>' (forked, with IPC; `--expose-gc`).
 */

export interface ServerPlan extends ShapeParams {
  kind: ServerKind;
  /** Events the driver may run ahead of the slowest connection. */
  window: number;
  /** Bare uWS only: 300-byte frames instead of trade-sized ones. */
  smallFrames?: boolean;
  /** Engine servers: split the sampled ingest-to-publish times by stage (bench/fanout-stages.ts). */
  stages?: boolean;
  /** Engine servers: how the driver's events enter the engine (default `pipe`). */
  feed?: Feed;
}

/** `pipe`: NDJSON lines through a named pipe, as `decoder | mds serve --source ndjson:-`; `embedded`: the gate's submitLine. */
export type Feed = 'pipe' | 'embedded';

const plan = JSON.parse(process.argv[2]!) as ServerPlan;
/** Reports to the parent; once it is gone (it failed and left), there is no one to tell, and no throw. */
const send = (report: ServerReport) => {
  if (process.connected) process.send!(report);
};
const HOST = '127.0.0.1';
/** Events submitted per event-loop turn at most (a turn's events share one batch, one commit, one write per socket). */
const CHUNK = 1_000;
const WSOL = 'So11111111111111111111111111111111111111112';

const started = performance.now();
const { pools, mints } = marketAddresses(plan.pools);
const dataDir = plan.kind === 'uws' ? null : mkdtempSync(join(tmpdir(), 'mds-bench-fanout-'));
const cleanups: Array<() => Promise<void> | void> = [];

/** Submits driver event k (the engine), or publishes its frame (bare uWS). */
let emit: (k: number) => void;
/** Around each turn's emits (the pipe: corked, so that a turn's lines go in one write). */
let turnStart: () => void = () => {};
let turnEnd: () => void = () => {};
/** The ingest gate's backpressure (null: go on). */
let writable: () => Promise<void> | null = () => null;
let key: string;
let port: number;
let attach: (sink: TopicSink) => void;
/** Server-side latency samples: ingest (the frame's stamp) to the engine's publish call. */
const publishSampling = { every: 0, counter: 0, samples: [] as number[] };
/** `stages`: where the sampled frames' time went. */
let probe: StageProbe | null = null;

/**
 * The transport's sink as the engine sees it, with one frame in `every` timed from its
 * stamp to this publish call: the engine's share of the end-to-end latency (gate,
 * commit, actors, serialization), measured the same way for both transports.
 */
function sampled(sink: TopicSink): TopicSink {
  return {
    has: (topic) => sink.has(topic),
    publish(topic, frame) {
      const s = publishSampling;
      if (s.every > 0 && ++s.counter >= s.every) {
        s.counter = 0;
        const stamp = STAMP.exec(frame);
        if (stamp) {
          const stampMs = Number(stamp[2]) + Number(stamp[1]) / 1000;
          s.samples.push(wallMs() - stampMs);
          probe?.sample(stampMs);
        }
      }
      sink.publish(topic, frame);
    },
    flush: () => sink.flush?.(),
  };
}
/** tx_index (µs) and created_at (ms) in a pool_trades frame (engine/model/trade-record.ts field order). */
const STAMP = /"tx_index":(\d+),.*"created_at":(\d+)/;

/** Declares the market's tokens and pools (engine servers; bare uWS has no market). */
let setupMarket: () => Promise<void> = async () => {};

const makeAddress = addressMaker(5_003);
const WALLETS = Array.from({ length: 1_000 }, () => makeAddress(44));
const HASH_TAIL = makeAddress(77);

/** The swap line of event k, stamped now. */
function swapLine(k: number): string {
  return liveSwapLine(k, wallMs(), pools[poolOfEvent(plan, k)]!, WALLETS[k % WALLETS.length]!, HASH_TAIL);
}

async function startEngineServer(): Promise<void> {
  const [{ WallClock }, { configSchema }, { createKeyStore, createLimits }, { createLogger }, { createEngine }, { loadCursorSecret }, { createServer, mountWebSocket }, { createLimitsHook }] =
    await Promise.all([
      import('../engine/clock.ts'),
      import('../engine/config.ts'),
      import('../engine/plans/index.ts'),
      import('../engine/log.ts'),
      import('../engine/system.ts'),
      import('../transport/http/cursor.ts'),
      import('../transport/index.ts'),
      import('../transport/http/limits.ts'),
    ]);
  // DECISIONS.md: benchmarks lift plan limits through the config; nothing else changes.
  const lifted = { rps: 1_000_000, in_flight: 1_000_000, monthly_requests: 1_000_000_000_000, ws_connections: 1_000_000, watched_items: 10_000_000 };
  const config = configSchema.parse({ data: dataDir, host: HOST, port: 0, source: 'none', clock: 'wall', logLevel: 'warn', plans: { scale: lifted } });
  const log = createLogger('warn', { pretty: false });
  const engine = await createEngine({ config, log });
  if (plan.stages) probe = probeEngine(engine);
  cleanups.push(() => engine.stop());
  // The market is made once the idle connections have been measured (`market`
  // command), so that its garbage does not hide their memory in freed heap space.
  setupMarket = async () => {
    const at = Date.now();
    const setup: Promise<unknown>[] = [engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 150, at })];
    for (let p = 0; p < plan.pools; p++) {
      setup.push(
        engine.ingest({ type: 'token', token_address: mints[p], decimals: 6, supply_raw: '1000000000000000', symbol: `F${p}`, name: `Fanout ${p}`, slot: Math.floor(at / 400) - 10, at }),
        engine.ingest({ type: 'pool', pool_address: pools[p], base_address: mints[p], quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: at, curve_initial_real_base_raw: '793100000000000', slot: Math.floor(at / 400) - 10 }),
      );
    }
    const outcomes = (await Promise.all(setup)) as Array<{ status: string; reason?: string }>;
    const bad = outcomes.find((o) => o.status !== 'applied');
    if (bad) throw new Error(`setup event not applied: ${bad.status} ${bad.reason ?? ''}`);
    // Checkpointed before the driver starts: the snapshot of the pools just created
    // (a one-off at start-up) does not land in a measured phase.
    await engine.checkpoint();
  };
  const gate = engine.gate;
  attach = (sink) => engine.attachTopics(sampled(sink));
  if ((plan.feed ?? 'pipe') === 'pipe') {
    // Both ends here: this process stands for the decoder and for mds serve, whose
    // stdin, a pipe, Node reads through a net.Socket as `input` is read.
    const { readFd, writeFd } = openFifo(dataDir!, 'feed.fifo');
    const input = new Socket({ fd: readFd, readable: true, writable: false });
    const output = new Socket({ fd: writeFd, readable: false, writable: true });
    const { ndjsonSource } = await import('../engine/sources/ndjson.ts');
    void engine.runSource(ndjsonSource({ path: '-', lineBytesMax: config.ingest.lineBytesMax, stream: input }));
    cleanups.unshift(() => void output.destroy());
    // A line through each of the two parse workers (they take pieces in turn) first: their
    // start-up lands in no measured phase, idle memory included.
    for (let i = 0; i < 2; i++) {
      const through = firstValueFrom(engine.gate.committed$);
      output.write(`{"type":"quote_price","quote_address":"${WSOL}","price_usd":150,"at":${Date.now() - 2 + i}}\n`);
      await through;
    }
    emit = (k) => void output.write(swapLine(k) + '\n');
    turnStart = () => output.cork();
    turnEnd = () => output.uncork();
    // The gate's backpressure reaches the driver through the pipe, as it reaches a decoder: its writes wait.
    writable = () => (output.writableNeedDrain ? once(output, 'drain').then(() => undefined) : null);
  } else {
    emit = (k) => gate.submitLine(swapLine(k), 'fanout');
    writable = () => gate.writable();
  }

  const wall = new WallClock();
  const keys = createKeyStore(engine.storage, wall);
  key = (await keys.create({ plan: 'scale' })).key;
  if (plan.kind === 'ws') {
    const baseline = await startWsBaseline({ host: HOST, port: 0, key });
    attach(baseline.sink);
    cleanups.unshift(() => baseline.close());
    port = baseline.port;
    return;
  }
  const limits = createLimits({ plans: config.plans, clock: wall, storage: engine.storage, log: log.child({ part: 'limits' }) });
  const server = createServer({
    config, log, query: engine.query, keys, metrics: engine.metrics, cursorSecret: await loadCursorSecret(engine.storage), beforeHandle: [createLimitsHook(limits)],
  });
  const ws = mountWebSocket(server.app, { config, log, keys, limits, metrics: engine.metrics, candles: engine.query.market?.candles, candleWatch: engine.publisher });
  attach(ws.sink);
  port = await server.listen();
  cleanups.unshift(async () => {
    ws.close();
    server.close();
    await limits.close();
  });
}

async function startUwsServer(): Promise<void> {
  key = 'bench-ceiling';
  const bare = await startBareUws({ host: HOST, key });
  cleanups.push(() => bare.close());
  port = bare.port;
  emit = (k) => {
    const pool = pools[poolOfEvent(plan, k)]!;
    bare.publish(`pool_trades:${pool}`, plan.smallFrames ? bare.smallFrame(k, pool, wallMs()) : bare.frame(k, pool, wallMs()));
  };
}

/**
 * Resident memory that is the process's own (Linux RssAnon: heap, native allocations,
 * uWS and socket buffers), not the pages of LMDB's memory-mapped file that reads
 * happen to touch; whole RSS where /proc is missing.
 */
function anonRss(): number {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return process.memoryUsage.rss();
  }
  const m = /RssAnon:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : process.memoryUsage.rss();
}

/**
 * After a full GC: resident memory, the JS heap in use, and the V8 heap's resident
 * size (in use or not: after a burst of allocation, as when connections open, V8 keeps
 * up to its two 64 MiB semi-spaces and freed old-space pages resident, the same
 * whatever the number of connections).
 */
function rss(): { rssBytes: number; heapBytes: number; heapPhysicalBytes: number } {
  // --expose-gc: collect first, so that RSS is live memory, not garbage not yet collected.
  (globalThis as { gc?: () => void }).gc?.();
  const h = getHeapStatistics();
  return { rssBytes: anonRss(), heapBytes: h.used_heap_size, heapPhysicalBytes: h.total_physical_size };
}

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** The driver's state: events emitted so far (k of the next event) and the credit. */
let next = 0;
let through = 0;
let waitingForCredit = false;
let creditWaits = 0;
let gateWaits = 0;
let run: { rate: number | null; startK: number; startedAt: number; endAt: number; done: boolean } | null = null;

function pump(): void {
  const r = run;
  if (!r || r.done) return;
  const now = performance.now();
  if (now >= r.endAt) return finish(r);
  const wait = writable();
  if (wait) {
    // The gate has its maximum of batches waiting to be durable (through the pipe: the pipe is full): the engine's own backpressure.
    gateWaits++;
    void wait.then(pump);
    return;
  }
  const credit = through + plan.window;
  const due = r.rate === null ? Infinity : r.startK + Math.floor(((now - r.startedAt) * r.rate) / 1000);
  const n = Math.min(credit - next, due - next, CHUNK);
  if (n > 0) {
    turnStart();
    for (let i = 0; i < n; i++) emit(next++);
    turnEnd();
    setImmediate(pump);
  } else if (credit <= due) {
    // Ahead of the slowest connection by the whole window: wait for its progress.
    waitingForCredit = true;
    creditWaits++;
  } else setTimeout(pump, 1);
}

function finish(r: NonNullable<typeof run>): void {
  r.done = true;
  run = null;
  send({ type: 'driven', events: next, seconds: (performance.now() - r.startedAt) / 1000, creditWaits, gateWaits });
}

process.on('message', (command: ServerCommand) => {
  switch (command.type) {
    case 'rss':
      return send({ type: 'rss', ...rss() });
    case 'mark':
      return send({ type: 'mark', atMs: wallMs(), events: next, cpuUs: cpuUs(), rssBytes: anonRss() });
    case 'credit':
      if (command.through > through) through = command.through;
      if (waitingForCredit) {
        waitingForCredit = false;
        setImmediate(pump);
      }
      return;
    case 'drive': {
      const now = performance.now();
      const r = { rate: command.rate, startK: next, startedAt: now, endAt: now + command.ms, done: false };
      run = r;
      creditWaits = 0;
      gateWaits = 0;
      waitingForCredit = false;
      // Ends on time even while waiting for credit.
      setTimeout(() => {
        if (!r.done) finish(r);
      }, command.ms + 1);
      pump();
      return;
    }
    case 'market': {
      const at = performance.now();
      setupMarket().then(
        () => send({ type: 'market', setupMs: performance.now() - at }),
        (err: Error) => send({ type: 'error', message: err.stack ?? String(err) }),
      );
      return;
    }
    case 'sample':
      publishSampling.every = command.every;
      publishSampling.counter = 0;
      publishSampling.samples = [];
      probe?.start();
      return;
    case 'latency': {
      const samples = publishSampling.samples;
      publishSampling.every = 0;
      publishSampling.samples = [];
      return send({ type: 'latency', samples, stages: probe?.lines() });
    }
    case 'halt':
      if (run && !run.done) finish(run);
      return;
    case 'exit':
      void shutdown(0);
      return;
  }
});
process.on('disconnect', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (run) run.done = true;
  // Once the parent is gone nobody will SIGKILL this process: a cleanup that never
  // settles must not leave it running (and holding a port and a temp directory).
  setTimeout(() => {
    process.stderr.write('fanout-server: cleanup did not finish within 10 s; exiting\n');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    process.exit(code || 1);
  }, 10_000).unref();
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch (err) {
      process.stderr.write(`fanout-server: cleanup failed: ${(err as Error).message}\n`);
    }
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}

try {
  if (plan.kind === 'uws') await startUwsServer();
  else await startEngineServer();
  send({ type: 'ready', port: port!, key: key!, rssBytes: rss().rssBytes, setupMs: performance.now() - started });
} catch (err) {
  send({ type: 'error', message: (err as Error).stack ?? String(err) });
  await shutdown(1);
}
