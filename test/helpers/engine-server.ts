import { afterEach, beforeEach } from 'vitest';
import { WallClock } from '../../engine/clock.ts';
import type { ConfigInput, PlanName } from '../../engine/config.ts';
import { createKeyStore, createLimits } from '../../engine/plans/index.ts';
import { createLimitsHook } from '../../transport/http/limits.ts';
import { createEngine, type Engine, type EngineOptions } from '../../engine/system.ts';
import { loadCursorSecret } from '../../transport/http/cursor.ts';
import { createServer, type Server } from '../../transport/index.ts';
import { tempDir, testConfig, type TempDir } from './fixtures.ts';

/** A real uWS server on 127.0.0.1 over an engine, and a key of `plan` to call it with. */
export interface EngineServer {
  /** The engine served (serveEngine's argument). */
  engine: Engine;
  server: Server;
  base: string;
  key: string;
  /** GET with the key: status and parsed body. */
  get(path: string): Promise<{ status: number; body: any }>;
  /** GET with the key: `<status> <body text>`, for byte comparisons. */
  text(path: string): Promise<string>;
  close(): void;
}

/**
 * `limits`: with the plan limits hook `mds serve` installs (engine/serve.ts), which
 * answers 403/4033 on a route's minPlan before its handler; closed with the server.
 */
export async function serveEngine(engine: Engine, options: { plan?: PlanName; cursorSecret?: Buffer; limits?: boolean } = {}): Promise<EngineServer> {
  const keys = createKeyStore(engine.storage, new WallClock());
  const key = (await keys.create({ plan: options.plan ?? 'pro' })).key;
  const cursorSecret = options.cursorSecret ?? (await loadCursorSecret(engine.storage));
  const limits = options.limits ? createLimits({ plans: engine.config.plans, clock: new WallClock(), storage: engine.storage, flushMs: 0 }) : null;
  const beforeHandle = limits ? [createLimitsHook(limits)] : [];
  const server = createServer({ config: engine.config, log: engine.log, query: engine.query, keys, metrics: engine.metrics, cursorSecret, beforeHandle });
  const base = `http://127.0.0.1:${await server.listen()}`;
  const headers = { authorization: `Bearer ${key}` };
  return {
    engine,
    server,
    base,
    key,
    async get(path) {
      const res = await fetch(base + path, { headers });
      return { status: res.status, body: (await res.json()) as any };
    },
    async text(path) {
      const res = await fetch(base + path, { headers });
      return `${res.status} ${await res.text()}`;
    },
    close: () => {
      server.close();
      void limits?.close();
    },
  };
}

/** A fresh engine in a temporary directory, served: what most route tests start from. */
export interface ServedEngine extends EngineServer {
  /** Closes the server, stops the engine, deletes the directory. */
  stop(): Promise<void>;
}

/**
 * Creates an engine in a temporary directory (test config: event clock, no source),
 * ingests `events` (each must be applied) and serves it with a key of `plan`.
 */
export async function startServedEngine(events: readonly unknown[], options: { plan?: PlanName } = {}): Promise<ServedEngine> {
  const dir = tempDir();
  const engine = await createEngine({ config: testConfig(dir.path) });
  for (const e of events) {
    const result = await engine.ingest(e);
    if (result.status !== 'applied') throw new Error(`event not applied (${JSON.stringify(result)}): ${JSON.stringify(e).slice(0, 200)}`);
  }
  const served = await serveEngine(engine, { plan: options.plan });
  return Object.assign(served, {
    async stop() {
      served.close();
      await engine.stop();
      dir.cleanup();
    },
  });
}

/** Engines on one temporary directory per test: see useTempEngine. */
export interface TempEngine {
  /** This test's directory; only inside a test or its hooks. */
  readonly dir: TempDir;
  /**
   * Opens an engine (test config) on the directory, or on `overrides.data`, and records
   * it for the afterEach to stop (createEngine starts it). `clock`, `flushMs`, `sources`
   * and `wallets` as createEngine takes them (by default the config's clock, the event clock).
   */
  open(overrides?: Partial<ConfigInput>, options?: Pick<EngineOptions, 'actors' | 'clock' | 'flushMs' | 'sources' | 'wallets'>): Promise<Engine>;
  /**
   * A simulated crash: what was ingested is made durable, nothing more is snapshotted,
   * storage is closed without a checkpoint; the engine is forgotten (never stopped).
   */
  crash(engine: Engine): Promise<void>;
}

/**
 * A fresh temporary directory for each test of the enclosing describe (or file),
 * made in a beforeEach; an afterEach stops every engine `open` made (errors ignored:
 * a test may have stopped one itself) and deletes the directory.
 */
export function useTempEngine(prefix?: string): TempEngine {
  let dir: TempDir | null = null;
  let engines: Engine[] = [];
  const current = (): TempDir => {
    if (!dir) throw new Error('useTempEngine: the temp dir exists only inside a test or its hooks');
    return dir;
  };
  beforeEach(() => {
    dir = tempDir(prefix);
  });
  afterEach(async () => {
    const [open, path] = [engines, dir];
    engines = [];
    dir = null;
    try {
      for (const engine of open) await engine.stop().catch(() => undefined);
    } finally {
      path?.cleanup();
    }
  });
  return {
    get dir() {
      return current();
    },
    async open(overrides = {}, options = {}) {
      const engine = await createEngine({ config: testConfig(current().path, overrides), actors: options.actors, clock: options.clock, flushMs: options.flushMs, sources: options.sources, wallets: options.wallets });
      engines.push(engine);
      return engine;
    },
    async crash(engine) {
      await engine.gate.flush();
      engine.query.research?.stop();
      // Its thread dies with the process in a real crash.
      await engine.walletIndexer.close();
      await engine.storage.close();
      engines = engines.filter((e) => e !== engine);
    },
  };
}

/** Resolves once the engine has applied `count` events in all (from its events$, no timer). */
export function untilApplied(engine: Engine, count: number): Promise<void> {
  return new Promise((resolve) => {
    let n = engine.query.status().ingested;
    if (n >= count) return resolve();
    const sub = engine.events$.subscribe(() => {
      if (++n >= count) {
        sub.unsubscribe();
        resolve();
      }
    });
  });
}
