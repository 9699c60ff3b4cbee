import { WallClock } from '../../engine/clock.ts';
import type { ConfigInput, PlanName } from '../../engine/config.ts';
import { createKeyStore } from '../../engine/keys.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { loadCursorSecret } from '../../transport/http/cursor.ts';
import { createServer, type Server } from '../../transport/index.ts';
import { tempDir, testConfig } from './fixtures.ts';

/** A real uWS server on 127.0.0.1 over an engine, and a key of `plan` to call it with. */
export interface EngineServer {
  server: Server;
  base: string;
  key: string;
  /** GET with the key: status and parsed body. */
  get(path: string): Promise<{ status: number; body: any }>;
  /** GET with the key: `<status> <body text>`, for byte comparisons. */
  text(path: string): Promise<string>;
  close(): void;
}

export async function serveEngine(engine: Engine, options: { plan?: PlanName; cursorSecret?: Buffer } = {}): Promise<EngineServer> {
  const keys = createKeyStore(engine.storage, new WallClock());
  const key = (await keys.create({ plan: options.plan ?? 'pro' })).key;
  const cursorSecret = options.cursorSecret ?? (await loadCursorSecret(engine.storage));
  const server = createServer({ config: engine.config, log: engine.log, query: engine.query, keys, metrics: engine.metrics, cursorSecret });
  const base = `http://127.0.0.1:${await server.listen()}`;
  const headers = { authorization: `Bearer ${key}` };
  return {
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
    close: () => server.close(),
  };
}

/** A fresh engine in a temporary directory, served: what most route tests start from. */
export interface ServedEngine extends EngineServer {
  engine: Engine;
  /** Closes the server, stops the engine, deletes the directory. */
  stop(): Promise<void>;
}

/**
 * Creates an engine in a temporary directory (test config: event clock, no source),
 * ingests `events` (each must be applied) and serves it with a key of `plan`.
 */
export async function startServedEngine(events: readonly unknown[], options: { plan?: PlanName; config?: Partial<ConfigInput>; start?: boolean } = {}): Promise<ServedEngine> {
  const dir = tempDir();
  const engine = await createEngine({ config: testConfig(dir.path, options.config) });
  if (options.start) await engine.start();
  for (const e of events) {
    const result = await engine.ingest(e);
    if (result.status !== 'applied') throw new Error(`event not applied (${JSON.stringify(result)}): ${JSON.stringify(e).slice(0, 200)}`);
  }
  const served = await serveEngine(engine, { plan: options.plan });
  return {
    ...served,
    engine,
    async stop() {
      served.close();
      await engine.stop();
      dir.cleanup();
    },
  };
}
