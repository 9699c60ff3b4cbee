import { expect } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { serveEngine, type EngineServer } from './engine-server.ts';
import { tempDir, testConfig, type TempDir } from './fixtures.ts';
import { startWsServer, type WsTestServer } from './ws.ts';

/** An engine in a temporary directory served over HTTP and WebSocket with Pro keys: the tests of a stream and its route together. */
export interface StreamsEngine {
  dir: TempDir;
  engine: Engine;
  http: EngineServer;
  ws: WsTestServer;
  /** A Pro key of the WebSocket server. */
  key: string;
  /** Ingests each event in order; each must be applied. */
  ingest(...events: unknown[]): Promise<void>;
  /** Closes both servers, stops the engine, deletes the directory. */
  close(): Promise<void>;
}

/**
 * Creates the engine (test config: event clock, no source; `flags` over it), runs
 * `setup` with its `ingest`, then serves it.
 */
export async function startStreamsEngine(setup: (ingest: StreamsEngine['ingest']) => Promise<void>, flags: Record<string, unknown> = {}): Promise<StreamsEngine> {
  const dir = tempDir();
  const engine = await createEngine({ config: testConfig(dir.path, flags as never) });
  const ingest = async (...events: unknown[]) => {
    for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
  };
  await setup(ingest);
  const http = await serveEngine(engine, { plan: 'pro' });
  const ws = await startWsServer({ engine });
  const key = (await ws.key('pro')).key;
  return {
    dir, engine, http, ws, key, ingest,
    async close() {
      http.close();
      await ws.close();
      await engine.stop();
      dir.cleanup();
    },
  };
}
