import { createServer, mountWebSocket } from '../transport/index.ts';
import { loadCursorSecret } from '../transport/http/index.ts';
import { WallClock } from './clock.ts';
import type { Config } from './config.ts';
import { createKeyStore, createLimits, createSessionStore, type KeyStore, type SessionStore } from './plans/index.ts';
import { createLimitsHook } from '../transport/http/index.ts';
import { createLogger } from './log.ts';
import { createEngine, type Engine } from './system.ts';
import { TRADE_DEFAULT_WINDOW_MS } from './query/index.ts';
import { decodeSimState, simSource, type SimPersistence } from './sources/sim/index.ts';
import type { Source, SourceFactory } from './sources/index.ts';
import type { Storage } from '../storage/index.ts';

/** Meta key: how many times the simulator has started on this data directory. */
const SIM_RUNS_KEY = 'sim:runs';
/** Meta key: the simulator's market as its last run left it (engine/sources/sim/state.ts). */
const SIM_STATE_KEY = 'sim:state';

/**
 * The seed of a new simulated market on this data directory: the configured seed the
 * first time, another one at each later new market (counted in LMDB). Only a data
 * directory whose simulator ran before its state was kept (mds before the state was
 * saved in `sim:state`) starts a second market: the same seed again would send the first
 * market's mints, pools, wallets and transaction signatures a second time at new slots
 * and times, trades with the trade_id of earlier ones (SERVICE.md 2.8: unique per
 * trade) that the ingest gate cannot drop (their slots differ).
 */
export function simRunSeed(storage: Storage, seed: number): number {
  const run = (storage.meta.get(SIM_RUNS_KEY) as number | undefined) ?? 0;
  storage.meta.putSync(SIM_RUNS_KEY, run + 1);
  // The seed's high 32 bits, which the simulator's PRNG seeding mixes in apart from the low ones.
  const offset = run * 2 ** 32;
  return Number.isSafeInteger(seed + offset) ? seed + offset : seed - offset;
}

/**
 * The simulator as `mds serve` runs it on `engine`'s data directory: it goes on with
 * the market its last run saved in LMDB meta (`sim:state`), whatever seed and rates are
 * configured, and saves it as it runs. `now` and `persist` are for tests (a hand-moved
 * wall clock, saves every few events).
 */
export function serveSimSource(engine: Engine, test: { now?: () => number; persist?: Pick<SimPersistence, 'everyMs' | 'everyEvents'> } = {}): Source {
  const { storage, log } = engine;
  const { seed, speed, launchRate, tradeRate } = engine.config.sim;
  const saved = storage.meta.get(SIM_STATE_KEY) as Uint8Array | undefined;
  const resume = saved === undefined ? undefined : decodeSimState(saved);
  if (resume) {
    const o = resume.market.options;
    log.info({ seed: o.seed, started_at: new Date(o.startAt).toISOString(), launch_rate: o.launchRate, trade_rate: o.tradeRate }, 'the simulator goes on with the market of this data directory (its own seed and rates)');
  }
  return simSource({
    seed: resume ? resume.market.options.seed : simRunSeed(storage, seed),
    speed,
    launchRate,
    tradeRate,
    startAt: Math.floor(test.now?.() ?? Date.now()),
    now: test.now,
    persist: { resume, appliedAt: engine.latestEventAt, save: (state) => storage.meta.put(SIM_STATE_KEY, state), ...test.persist },
  });
}

/** `--source sim` (the simulator is the default source), as `mds serve` makes it available to its engine. */
const simulator: SourceFactory<Engine> = (spec, engine) => (spec === 'sim' ? serveSimSource(engine) : null);

/** An engine served over HTTP and /ws: what `startService` returns. */
export interface Service {
  /** The port it listens on (the configured one, or the one picked for port 0). */
  readonly port: number;
  /** The API keys of the engine's data directory: `await service.keys.create({ plan: 'pro' })`. */
  readonly keys: KeyStore;
  /** The web terminal's sessions: `await service.sessions.createLogin({ plan: 'pro' })` gives a one-time token for `/session/{token}`. */
  readonly sessions: SessionStore;
  /** Closes /ws and HTTP connections and writes the rate counters; the engine keeps running (stop it after). */
  close(): Promise<void>;
}

/**
 * Serves `engine` over HTTP and /ws on `config.host`:`config.port` (the engine's
 * config): the route table, API keys in the engine's data directory, plans and limits
 * on wall time, live frames from the engine's topics. `mds serve` is this plus a source
 * and the signals; an embedder calls it on its own engine.
 */
export async function startService(engine: Engine): Promise<Service> {
  const { config, log } = engine;
  // Keys expire in wall time whatever clock the engine derives state with.
  const wall = new WallClock();
  const keys = createKeyStore(engine.storage, wall);
  // Rate windows, quotas and expiries run on wall time, whatever clock derives state.
  const limits = createLimits({ plans: config.plans, clock: wall, storage: engine.storage, log: log.child({ part: 'limits' }) });
  const sessions = createSessionStore(engine.storage, keys, wall);
  const cursorSecret = await loadCursorSecret(engine.storage);
  const server = createServer({ config, log, query: engine.query, keys, sessions, metrics: engine.metrics, cursorSecret, beforeHandle: [createLimitsHook(limits)] });
  const ws = mountWebSocket(server.app, { config, log, keys, sessions, limits, metrics: engine.metrics, candles: engine.query.market?.candles, candleWatch: engine.publisher, rankings: engine.rankings ?? undefined, chartLines: engine.chartLines, markers: engine.markers });
  engine.attachTopics(ws.sink);
  const port = await server.listen();
  warnIfStale(engine, wall.now());
  return {
    port,
    keys,
    sessions,
    async close() {
      ws.close();
      server.close();
      await limits.close();
    },
  };
}

/**
 * Lists without a start_time cover the last 24 hours of the engine clock. On the wall
 * clock, a data directory whose newest event is older than that (replayed from a file,
 * say) answers empty trade lists and windows with no hint why: say so once at start.
 */
function warnIfStale(engine: Engine, now: number): void {
  const latest = engine.latestEventAt;
  if (engine.clock.kind !== 'wall' || latest === 0 || now - latest <= TRADE_DEFAULT_WINDOW_MS) return;
  engine.log.warn(
    { latest_event_at: new Date(latest).toISOString(), hours_ago: Math.floor((now - latest) / 3_600_000) },
    'the newest event is older than the 24 hours that lists without start_time cover on the wall clock: trade lists and windows will be empty; serve it with --clock event to read it as of its own time',
  );
}

/** The one-time login link of a token on `host`:`port` (0.0.0.0 and :: are shown as 127.0.0.1, which a browser on this machine reaches). */
export function terminalUrl(host: string, port: number, token: string): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}/session/${token}`;
}

/** `mds serve`: ingest from the configured source and serve HTTP (and /ws) until a signal. */
export async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  const engine = await createEngine({ config, log, sources: [simulator] });
  const service = await startService(engine);
  log.info({ host: config.host, port: service.port, data: config.data, source: config.source, clock: config.clock }, 'mds serving');
  // The web terminal: a one-time link for this start (a session of the pro plan's terminal key).
  const login = await service.sessions.createLogin({ plan: 'pro' });
  log.info({ url: terminalUrl(config.host, service.port, login.token), expires_at: new Date(login.expiresAt).toISOString() }, 'web terminal: open this one-time link (mds terminal-url makes another)');
  const source = engine.createSource(config.source);
  engine.runSource(source).catch((err) => log.error({ err }, 'source failed'));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    await service.close();
    await engine.stop();
    log.flush?.();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** `mds replay <file>`: ingest a file into the data directory, then exit. */
export async function replay(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  // Nothing reads while a replay runs: batches are applied whole, each in its turn
  // (ingest.applySliceMs 0). In slices, bench/market.ts --other (100,000 swaps, 4 rounds
  // at load ~22) ran at 0.56-0.80x the events/s and 1.10-1.31x the CPU per event.
  // MDS_BENCH_FEEDS=off, MDS_BENCH_WALLETS=off: without the ranking feeds or wallet accounting, for bench/market.ts to measure what each costs.
  const feeds = process.env.MDS_BENCH_FEEDS !== 'off';
  const wallets = process.env.MDS_BENCH_WALLETS !== 'off';
  const engine = await createEngine({ config: { ...config, ingest: { ...config.ingest, applySliceMs: 0 } }, log, feeds, wallets });
  const started = performance.now();
  await engine.runSource(engine.createSource(config.source));
  const status = engine.query.status();
  await engine.stop();
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`replayed ${config.source.slice('ndjson:'.length)}: ${status.ingested} events in the log, ${status.deadLetters} dead letters, ${seconds.toFixed(1)} s\n`);
}
