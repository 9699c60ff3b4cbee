import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { peakRssMiB } from './harness.ts';
import { bytesByDatabase } from './lmdb-stats.ts';

/**
 * One timed run of bench/engine.ts in a fresh process, so that its peak RSS and heap
 * are its own (not those of the file generation or of other benchmarks), reported to
 * the parent over IPC. Usage (from engine.ts, through `node --import tsx`):
 *   engine-child.ts gate <file> <dataDir>
 *   engine-child.ts engine <file> <dataDir> <poolsJsonFile>
 */

export interface GateChildResult {
  mode: 'gate';
  seconds: number;
  ingested: number;
  deadLetters: number;
  dbBytes: number;
  peakRssMiB: number;
}

export interface EngineChildResult {
  mode: 'engine';
  /** First read of the file to the last batch applied, flushed, and the checkpoint durable. */
  seconds: number;
  /** CPU time of the process (every thread) over those seconds: less moved by other tenants than wall time. */
  cpuSeconds: number;
  ingested: number;
  deadLetters: number;
  /** Sum of trade_count over every pool's totals: what the pool actors derived. */
  trades: number;
  /** engine.stop(): passivate every actor (snapshots, trade blocks, candles) and close. */
  stopSeconds: number;
  /** From the checkpoint durable to the wallet journal empty: how far the wallet indexer's thread was behind. */
  walletIndexSeconds: number;
  /** Trades in the wallet index then (storage/wallet-index.ts chunks): every swap, once. */
  walletTrades: number;
  dbBytes: number;
  /** Bytes in use per LMDB database (pages × page size), by its LMDB name (`ingest_log`, `trades`, ...). */
  dbBytesByName: Record<string, number>;
  peakRssMiB: number;
  /** createEngine on the directory + createServer + listen + the first /v1/pools/{pool} answered. */
  restartMs: number;
  restartStatus: number;
}

async function runEngine(file: string, dataDir: string, pools: string[]): Promise<EngineChildResult> {
  // Imported here: the gate's baseline run loads no actor, query or transport code.
  const [{ WallClock }, { loadConfig }, { createKeyStore }, { ndjsonSource }, { createEngine }, { whenFlushed }, { loadCursorSecret }, { createServer }] = await Promise.all([
    import('../engine/clock.ts'),
    import('../engine/config.ts'),
    import('../engine/plans/index.ts'),
    import('../engine/sources/ndjson.ts'),
    import('../engine/system.ts'),
    import('../storage/lmdb.ts'),
    import('../transport/http/cursor.ts'),
    import('../transport/index.ts'),
  ]);
  // Event time: the file's trades are dated 2026-01-01 and must not fall out of the
  // 30-day trade retention that wall time would apply (the same as `mds replay --clock event`).
  const config = loadConfig({ flags: { data: dataDir, source: 'none', clock: 'event', logLevel: 'silent', port: 0 } });
  // MDS_BENCH_FEEDS=off: without the ranking feeds (bench/ab.ts --a-env/--b-env), to measure what they cost.
  const feeds = process.env.MDS_BENCH_FEEDS !== 'off';
  // MDS_BENCH_WALLETS=off: wallet accounting off (bench/wallets.ts measures what it costs).
  const wallets = process.env.MDS_BENCH_WALLETS !== 'off';
  // MDS_BENCH_SIGNALS=off: without the signals (actors/signals, the store, the streams), to measure what they cost.
  const signals = process.env.MDS_BENCH_SIGNALS !== 'off';
  const engine = await createEngine({ config, feeds, wallets, signals });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await engine.runSource(ndjsonSource({ path: file, lineBytesMax: config.ingest.lineBytesMax }));
  await whenFlushed(engine.checkpoint() as Promise<boolean>);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const peak = peakRssMiB();
  const indexStarted = performance.now();
  await engine.walletIndexer.drain();
  const walletIndexSeconds = (performance.now() - indexStarted) / 1000;
  let walletTrades = 0;
  for (const { value } of engine.storage.tradesByWallet.getRange({})) walletTrades += value[1].length / 5;
  const status = engine.query.status();
  let trades = 0;
  const market = engine.query.market!;
  // Every pool of the file, read as GET /pools/{pool} reads it: the work really was derived.
  for (const address of pools) trades += market.pools.pool(address)?.totals.trade_count ?? 0;
  const dbBytesByName = bytesByDatabase(engine.storage);
  const key = (await createKeyStore(engine.storage, new WallClock()).create({ plan: 'scale' })).key;
  const stopStarted = performance.now();
  await engine.stop();
  const stopSeconds = (performance.now() - stopStarted) / 1000;
  const dbBytes = statSync(join(dataDir, 'data.mdb')).size;

  const restartStarted = performance.now();
  const again = await createEngine({ config, feeds, wallets, signals });
  const server = createServer({
    config, log: again.log, query: again.query, keys: createKeyStore(again.storage, new WallClock()),
    metrics: again.metrics, cursorSecret: await loadCursorSecret(again.storage),
  });
  const port = await server.listen();
  const res = await fetch(`http://127.0.0.1:${port}/v1/pools/${pools[0]}`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  const restartMs = performance.now() - restartStarted;
  server.close();
  await again.stop();
  return {
    mode: 'engine', seconds, cpuSeconds, ingested: status.ingested, deadLetters: status.deadLetters, trades, stopSeconds, walletIndexSeconds, walletTrades, dbBytes, dbBytesByName,
    peakRssMiB: peak, restartMs, restartStatus: res.status,
  };
}

const [mode, file, dataDir, poolsFile] = process.argv.slice(2);
const result =
  mode === 'gate'
    ? { mode: 'gate' as const, ...(await (await import('./ingest-gate.ts')).runGate(file!, dataDir!)), peakRssMiB: peakRssMiB() }
    : mode === 'engine'
      ? await runEngine(file!, dataDir!, JSON.parse(readFileSync(poolsFile!, 'utf8')) as string[])
      : null;
if (!result) {
  process.stderr.write(`engine-child: unknown mode ${mode}\n`);
  process.exit(2);
}
process.send!(result);
process.disconnect();
