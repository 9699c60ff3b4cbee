import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { whenFlushed } from '../../storage/lmdb.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, swapMaker, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * Reads leave no LMDB read transaction behind (issue 25, found by bench/serve-memory.ts):
 * a page of trades or candles stops its range iterators part-way, and an iterator not
 * returned keeps its read transaction open for good, and with it every page freed since,
 * which LMDB then cannot reuse: under one client paging a pool's trades the data file
 * grew ~5 GiB an hour. After the pages are read and later writes commit, every read
 * transaction of the main thread is the current one (lmdb-js readerList).
 */

const r = rng(4_711);
const MINT = base58(r, 44);
const POOLS = [base58(r, 44), base58(r, 44)];
const WALLET = base58(r, 44);
/** Recent, so that the default windows of the trade lists and candles hold the trades. */
const T0 = Math.floor((Date.now() - 3_600_000) / 1_000) * 1_000;

let dir: TempDir;
let engine: Engine;
let served: EngineServer;

async function checkpointed(): Promise<void> {
  await whenFlushed(engine.checkpoint() as Promise<boolean>);
}

/** The main thread's read transactions: its renewed read transaction is the newest (a read just before). */
function mainThreadTxnIds(): number[] {
  engine.storage.meta.get('readers-test');
  const rows = engine.storage.env
    .readerList()
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length === 3 && /^\d+$/.test(f[2]!))
    .map(([, thread, txn]) => ({ thread: thread!, txn: Number(txn) }));
  const newest = rows.reduce((a, b) => (b.txn > a.txn ? b : a));
  return rows.filter((row) => row.thread === newest.thread).map((row) => row.txn);
}

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path, { actors: { checkpointMs: 3_600_000 } }) });
  await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 });
  await engine.ingest({ type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'RDR', slot: 1, at: T0 });
  for (const pool of POOLS) await engine.ingest({ type: 'pool', pool_address: pool, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 1 });
  const swaps = POOLS.map((pool, i) => swapMaker(pool, WALLET, 5_000 + i * 1_000, 100 + i * 1_000));
  for (let i = 0; i < 120; i++) for (const swap of swaps) await engine.ingest(swap(T0 + 1_000 + i * 2_000));
  await checkpointed();
  served = await serveEngine(engine);
});

afterAll(async () => {
  served.close();
  await engine.stop();
  dir.cleanup();
});

describe('LMDB read transactions after paged reads', () => {
  it('ends every one: pool, token and wallet trade pages, 1s and 15s candle pages', async () => {
    const pages = [
      `/v1/pools/${POOLS[0]}/trades?limit=10`,
      `/v1/tokens/${MINT}/trades?limit=10`,
      `/v1/wallets/${WALLET}/trades?limit=10`,
      `/v1/pools/${POOLS[0]}/candles?interval=1s&limit=5`,
      `/v1/pools/${POOLS[1]}/candles?interval=15s&limit=5`,
    ];
    for (const path of pages) {
      const { status, body } = await served.get(path);
      expect(status, path).toBe(200);
      // A page of a longer list: the read stopped part-way.
      expect((path.includes('candles') ? body.data.candles : body.data).length, `${path} ${JSON.stringify(body).slice(0, 300)}`).toBe(path.includes('candles') ? 5 : 10);
    }
    // Later writes commit: a read transaction still open stays at the transaction it began in.
    const more = swapMaker(POOLS[0]!, WALLET, 9_000, 9_000);
    for (let i = 0; i < 3; i++) {
      await engine.ingest(more(T0 + 300_000 + i * 1_000));
      await checkpointed();
    }
    const txns = mainThreadTxnIds();
    expect(new Set(txns).size, `main-thread readers at transactions ${txns.join(', ')}`).toBe(1);
  });
});
