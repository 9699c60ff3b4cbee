import { createServer, mountWebSocket } from '../transport/index.ts';
import { loadCursorSecret } from '../transport/http/cursor.ts';
import { WallClock } from './clock.ts';
import type { Config } from './config.ts';
import { createKeyStore } from './keys.ts';
import { createLimits } from './limits.ts';
import { createLimitsHook } from '../transport/http/limits.ts';
import { createLogger } from './log.ts';
import { createEngine, registerSource } from './system.ts';

/** Makes `--source sim` available (the simulator is the default source). */
async function registerSimulator(): Promise<void> {
  const { simSource } = await import('./sources/sim/index.ts');
  registerSource((spec, engine) => {
    if (spec !== 'sim') return null;
    const { seed, speed, launchRate, tradeRate } = engine.config.sim;
    return simSource({ seed, speed, launchRate, tradeRate, startAt: Date.now() });
  });
}

/** `mds serve`: ingest from the configured source and serve HTTP (and /ws) until a signal. */
export async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  if (config.source === 'sim') await registerSimulator();
  const engine = await createEngine({ config, log });
  // Keys expire in wall time whatever clock the engine derives state with.
  const wall = new WallClock();
  const keys = createKeyStore(engine.storage, wall);
  // Rate windows, quotas and expiries run on wall time, whatever clock derives state.
  const limits = createLimits({ plans: config.plans, clock: wall, storage: engine.storage, log: log.child({ part: 'limits' }) });
  const cursorSecret = await loadCursorSecret(engine.storage);
  const server = createServer({ config, log, query: engine.query, keys, metrics: engine.metrics, cursorSecret, beforeHandle: [createLimitsHook(limits)] });
  const ws = mountWebSocket(server.app, { config, log, keys, limits, metrics: engine.metrics, market: engine.query.market, candleWatch: engine.publisher });
  engine.attachTopics(ws.sink);
  const port = await server.listen();
  log.info({ host: config.host, port, data: config.data, source: config.source, clock: config.clock }, 'mds serving');
  const source = engine.createSource(config.source);
  engine.runSource(source).catch((err) => log.error({ err }, 'source failed'));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    ws.close();
    server.close();
    await limits.close();
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
  const engine = await createEngine({ config, log });
  const started = performance.now();
  await engine.runSource(engine.createSource(config.source));
  const status = engine.query.status();
  await engine.stop();
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`replayed ${config.source.slice('ndjson:'.length)}: ${status.ingested} events in the log, ${status.deadLetters} dead letters, ${seconds.toFixed(1)} s\n`);
}
