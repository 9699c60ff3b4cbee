import { peakRssMiB } from './harness.ts';

/**
 * The processes of bench/wallets.ts, each fresh so that its heap and RSS are its own.
 *   wallets-child.ts idle <dataDir> <wallets> <on|off>
 *     `wallets` distinct wallets each trade once (1,000 pools), the engine checkpoints and
 *     passivates every idle actor (as its sweep does after actors.idleMs), then a full
 *     GC: the heap and RSS that stay, with wallet accounting on or off.
 *   wallets-child.ts serve <ndjsonFile> <dataDir>
 *     ingests the file, serves it on 127.0.0.1 and sends {port, key, wallet} (the
 *     wallet with the most open positions); exits on the message 'stop'.
 */

export interface IdleChildResult {
  wallets: number;
  ingestSeconds: number;
  passivated: number;
  /** Wallet actors still in memory after the sweep (0 when passivation works). */
  walletActorsResident: number;
  heapUsedMiB: number;
  rssMiB: number;
  peakRssMiB: number;
}

export interface ServeChildMessage {
  port: number;
  key: string;
  wallet: string;
  positions: number;
}

const POOLS = 1_000;
const T0 = 1_767_225_600_000;
const WSOL = 'So11111111111111111111111111111111111111112';

async function idle(dataDir: string, count: number, on: boolean): Promise<IdleChildResult> {
  const [{ loadConfig }, { createEngine }, { addressMaker, base58Digits }] = await Promise.all([
    import('../engine/config.ts'),
    import('../engine/system.ts'),
    import('./fixtures/swaps.ts'),
  ]);
  const config = loadConfig({ flags: { data: dataDir, source: 'none', clock: 'event', logLevel: 'silent', port: 0 } });
  const engine = await createEngine({ config, wallets: on });
  const make = addressMaker(7);
  const pools = Array.from({ length: POOLS }, () => make(44));
  const mints = Array.from({ length: POOLS }, () => make(44));
  const declarations: unknown[] = [{ type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 - 60_000 }];
  for (let p = 0; p < POOLS; p++) {
    declarations.push({ type: 'token', token_address: mints[p], decimals: 6, supply_raw: '1000000000000000', slot: 1, at: T0 - 60_000 });
    declarations.push({ type: 'pool', pool_address: pools[p], base_address: mints[p], quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 - 60_000, slot: 2 });
  }
  await Promise.all(declarations.map((e) => engine.ingest(e)));
  const started = performance.now();
  const tail = make(77);
  for (let i = 0; i < count; i += 2_000) {
    const batch: Array<Promise<unknown>> = [];
    for (let k = i; k < Math.min(count, i + 2_000); k++) {
      // A distinct wallet per swap: 33 fixed characters and 11 base58 digits of k.
      const wallet = `${tail.slice(0, 33)}${base58Digits(k, 11)}`;
      batch.push(
        engine.ingest({
          type: 'swap', tx_hash: `${base58Digits(k, 11)}${tail}`, slot: 300_000_000 + k, tx_index: 0, event_index: 0, at: T0 + k, pool_address: pools[k % POOLS], wallet_address: wallet,
          side: 'buy', base_amount_raw: String(1_000_000 + k), quote_amount_raw: String(5_000_000 + k), base_reserve_raw: '800000000000000', quote_reserve_raw: '40000000000',
        }),
      );
    }
    await Promise.all(batch);
  }
  await engine.checkpoint();
  const ingestSeconds = (performance.now() - started) / 1000;
  // Everything idle: as the sweep finds it actors.idleMs later.
  const passivated = await engine.passivateIdle(performance.now() + config.actors.idleMs + 1);
  await engine.checkpoint();
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const memory = process.memoryUsage();
  const result: IdleChildResult = {
    wallets: count,
    ingestSeconds,
    passivated,
    walletActorsResident: engine.wallets?.wallets.size ?? 0,
    heapUsedMiB: memory.heapUsed / 2 ** 20,
    rssMiB: memory.rss / 2 ** 20,
    peakRssMiB: peakRssMiB(),
  };
  await engine.stop();
  return result;
}

async function serve(file: string, dataDir: string): Promise<void> {
  const [{ WallClock }, { loadConfig }, { createKeyStore }, { ndjsonSource }, { createEngine }, { loadCursorSecret }, { createServer }] = await Promise.all([
    import('../engine/clock.ts'),
    import('../engine/config.ts'),
    import('../engine/plans/index.ts'),
    import('../engine/sources/ndjson.ts'),
    import('../engine/system.ts'),
    import('../transport/http/cursor.ts'),
    import('../transport/index.ts'),
  ]);
  // Benchmarks lift the plans' limits (DECISIONS.md), as bench/http.ts does.
  const plans = { scale: { rps: 1_000_000_000, in_flight: 1_000_000, monthly_requests: 1_000_000_000_000 } };
  const config = loadConfig({ flags: { data: dataDir, source: 'none', clock: 'event', logLevel: 'silent', port: 0, plans } as Record<string, unknown> });
  const engine = await createEngine({ config });
  await engine.runSource(ndjsonSource({ path: file, lineBytesMax: config.ingest.lineBytesMax }));
  await engine.checkpoint();
  // The wallet with the most open positions (the file's 5,000 wallets each trade many pools).
  let wallet = '';
  let positions = -1;
  const wallets = engine.wallets!.wallets;
  for (const { key } of engine.storage.snapshots.getRange({ start: 'wallet:', end: 'wallet;' })) {
    const address = String(key).slice('wallet:'.length);
    const s = wallets.get(address);
    const n = s ? [...s.positions.values()].filter((p) => p.qty > 0).length : 0;
    if (n > positions) [wallet, positions] = [address, n];
    if (positions >= 50) break;
  }
  const key = (await createKeyStore(engine.storage, new WallClock()).create({ plan: 'scale' })).key;
  const server = createServer({ config, log: engine.log, query: engine.query, keys: createKeyStore(engine.storage, new WallClock()), metrics: engine.metrics, cursorSecret: await loadCursorSecret(engine.storage) });
  const port = await server.listen();
  process.send!({ port, key, wallet, positions } satisfies ServeChildMessage);
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  server.close();
  await engine.stop();
}

const [mode, a, b, c, d] = process.argv.slice(2);
if (mode === 'idle') {
  process.send!(await idle(a!, Number(b), c === 'on'));
  process.disconnect();
} else if (mode === 'serve') {
  await serve(a!, b!);
  process.disconnect();
} else {
  process.stderr.write(`wallets-child: unknown mode ${mode} ${d ?? ''}\n`);
  process.exit(2);
}
