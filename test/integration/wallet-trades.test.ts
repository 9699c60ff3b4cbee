import { describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { pruneOnce } from '../../engine/retention.ts';
import type { WalletChunk } from '../../storage/wallet-index.ts';
import { serveEngine, useTempEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';

/**
 * GET /wallets/{wallet}/trades (DECISIONS.md row 25) and the wallet order of trades it
 * reads (storage/wallet-index.ts): trades stored at a checkpoint (journal, then index,
 * on the indexer's thread) and trades still in the pools' memory, in one order.
 */

const r = rng(2525);
const MINT = base58(r, 44);
const OTHER_MINT = base58(r, 44);
const POOL_A = base58(r, 44);
const POOL_B = base58(r, 44);
/** OTHER_MINT against MINT: MINT is this pool's quote. */
const POOL_C = base58(r, 44);
const WALLET = base58(r, 44);
const SOMEONE = base58(r, 44);
const NOBODY = base58(r, 44);
const DAY = 86_400_000;
const T0 = 1_767_225_600_000;

const token = (mint: string) => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: T0 });
const pool = (address: string, base: string, quote: string) => ({ type: 'pool', pool_address: address, base_address: base, quote_address: quote, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 });
const DECLARATIONS = [token(MINT), token(OTHER_MINT), pool(POOL_A, MINT, WSOL), pool(POOL_B, MINT, WSOL), pool(POOL_C, OTHER_MINT, MINT)];

/** The wallet's swaps in each pool (own slots and signatures per pool), and someone else's in A. */
const swapIn = {
  [POOL_A]: swapMaker(POOL_A, WALLET, 100, 1_000),
  [POOL_B]: swapMaker(POOL_B, WALLET, 200, 2_000),
  [POOL_C]: swapMaker(POOL_C, WALLET, 300, 3_000),
};
const someone = swapMaker(POOL_A, SOMEONE, 400, 4_000);

/** When each of the wallet's trades happens (seconds after T0), by pool; stored ones before the checkpoint. */
const STORED: Array<[string, number]> = [[POOL_A, 10], [POOL_C, 20], [POOL_B, 30], [POOL_A, 40], [POOL_C, 50]];
const IN_MEMORY: Array<[string, number]> = [[POOL_B, 60], [POOL_A, 70], [POOL_C, 80]];
const ALL = [...STORED, ...IN_MEMORY];

const temp = useTempEngine();

/** The wallet's trades in the index (its chunks hold five numbers a trade). */
function indexed(engine: Engine, wallet: string): number {
  let n = 0;
  for (const { value } of engine.storage.tradesByWallet.getRange({ start: [wallet], end: [wallet, Infinity] })) n += (value as WalletChunk)[1].length / 5;
  return n;
}

async function ingest(engine: Engine, ...events: unknown[]) {
  for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
}

/** An engine with the wallet's stored and in-memory trades, someone else's in between, and a server. */
async function setUp(): Promise<{ engine: Engine; srv: EngineServer }> {
  const engine = await temp.open();
  await ingest(engine, ...DECLARATIONS);
  for (const [p, s] of STORED) await ingest(engine, swapIn[p]!(T0 + s * 1000), someone(T0 + s * 1000 + 1));
  await engine.checkpoint();
  for (const [p, s] of IN_MEMORY) await ingest(engine, swapIn[p]!(T0 + s * 1000), someone(T0 + s * 1000 + 1));
  return { engine, srv: await serveEngine(engine) };
}

interface Row {
  created_at: number;
  pool_address: string;
  wallet_address: string;
  token_address: string;
  type: string;
}

async function list(srv: EngineServer, query: string, start = T0): Promise<Row[]> {
  const { status, body } = await srv.get(`/v1/wallets/${WALLET}/trades?start_time=${start}${query}`);
  expect(status, query).toBe(200);
  return body.data;
}

/** Every page of a list with `limit`, following next_cursor. */
async function walk(srv: EngineServer, query: string, limit: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor = '';
  for (let pages = 0; pages < 50; pages++) {
    const { status, body } = await srv.get(`/v1/wallets/${WALLET}/trades?start_time=${T0}&limit=${limit}${query}${cursor}`);
    expect(status).toBe(200);
    rows.push(...body.data);
    if (!body.pagination.has_more) return rows;
    cursor = `&cursor=${encodeURIComponent(body.pagination.next_cursor)}`;
  }
  throw new Error('more than 50 pages');
}

const expected = (trades: Array<[string, number]>) => trades.map(([p, s]) => ({ pool_address: p, created_at: T0 + s * 1000 }));
const shape = (rows: Row[]) => rows.map((t) => ({ pool_address: t.pool_address, created_at: t.created_at }));

describe('GET /wallets/{wallet}/trades', () => {
  it('lists the wallet\'s trades in every pool, stored and in memory, exactly once, in both orders and across pages', async () => {
    const { engine, srv } = await setUp();
    const asc = expected(ALL);
    const desc = [...asc].reverse();
    const check = async () => {
      expect(shape(await list(srv, '&order=asc'))).toEqual(asc);
      expect(shape(await list(srv, ''))).toEqual(desc);
      for (const limit of [1, 2, 3]) {
        expect(shape(await walk(srv, '&order=asc', limit))).toEqual(asc);
        expect(shape(await walk(srv, '', limit))).toEqual(desc);
      }
    };
    // Whatever the indexer has done yet: the journal and the index are read alike.
    await check();
    // Someone traded in one pool only, stored and in memory.
    const theirs = await srv.get(`/v1/wallets/${SOMEONE}/trades?start_time=${T0}&order=asc`);
    expect(theirs.body.data.map((t: Row) => [t.pool_address, t.created_at])).toEqual(ALL.map(([, s]) => [POOL_A, T0 + s * 1000 + 1]));
    await engine.walletIndexer.drain();
    expect(engine.storage.walletJournal.getKeysCount()).toBe(0);
    // The stored trades are in the index: the wallet's and someone else's.
    expect(indexed(engine, WALLET)).toBe(STORED.length);
    expect(indexed(engine, SOMEONE)).toBe(STORED.length);
    await check();
    // Stored now, the in-memory ones too; the list is the same.
    await engine.checkpoint();
    await engine.walletIndexer.drain();
    expect(indexed(engine, WALLET)).toBe(ALL.length);
    await check();
    // Every record names the wallet, and the window rules hold: start_time cuts.
    expect((await list(srv, '')).every((t) => t.wallet_address === WALLET)).toBe(true);
    expect(shape(await list(srv, '&order=asc', T0 + 45_000))).toEqual(expected(ALL.filter(([, s]) => s * 1000 >= 45_000)));
    srv.close();
  });

  it('token_address keeps the pools holding that token and describes each trade from its side', async () => {
    const { srv } = await setUp();
    const rows = await list(srv, `&order=asc&token_address=${OTHER_MINT}`);
    expect(shape(rows)).toEqual(expected(ALL.filter(([p]) => p === POOL_C)));
    expect(rows.every((t) => t.type === 'buy' && t.token_address === OTHER_MINT)).toBe(true);
    // MINT is POOL_C's quote: a buy of OTHER_MINT there is a sale of MINT.
    const fromMint = await list(srv, `&order=asc&token_address=${MINT}`);
    expect(shape(fromMint)).toEqual(expected(ALL));
    expect(fromMint.map((t) => t.type)).toEqual(ALL.map(([p]) => (p === POOL_C ? 'sell' : 'buy')));
    expect(fromMint.every((t) => t.token_address === MINT)).toBe(true);
    // Without it, each trade from its pool's base token.
    expect((await list(srv, '&order=asc')).map((t) => t.token_address)).toEqual(ALL.map(([p]) => (p === POOL_C ? OTHER_MINT : MINT)));
    srv.close();
  });

  it('a wallet that never traded has an empty list; bad parameters are 400s naming them', async () => {
    const { srv } = await setUp();
    const empty = await srv.get(`/v1/wallets/${NOBODY}/trades`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    expect(empty.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const bad = async (path: string, param: string) => {
      const { status, body } = await srv.get(path);
      expect(status, path).toBe(400);
      expect(body, path).toMatchObject({ code: 4000, error: 'BAD_REQUEST', data: null });
      expect(body.message, path).toContain(param);
    };
    await bad('/v1/wallets/not-an-address/trades', 'wallet_address');
    await bad(`/v1/wallets/${WALLET}/trades?limit=501`, 'limit');
    await bad(`/v1/wallets/${WALLET}/trades?order=up`, 'order');
    await bad(`/v1/wallets/${WALLET}/trades?token_address=xyz`, 'token_address');
    await bad(`/v1/wallets/${WALLET}/trades?token=${MINT}`, 'token');
    // A cursor is bound to the wallet and to token_address.
    const first = await srv.get(`/v1/wallets/${WALLET}/trades?start_time=${T0}&limit=1`);
    const cursor = encodeURIComponent(first.body.pagination.next_cursor);
    await bad(`/v1/wallets/${WALLET}/trades?start_time=${T0}&limit=1&token_address=${MINT}&cursor=${cursor}`, 'cursor');
    await bad(`/v1/wallets/${SOMEONE}/trades?start_time=${T0}&limit=1&cursor=${cursor}`, 'cursor');
    srv.close();
  });

  it('keeps the trades of pools passivated since (stored with their snapshots)', async () => {
    const { engine, srv } = await setUp();
    await engine.passivateIdle(performance.now() + 10 * 60_000);
    expect(engine.pools.isResident(POOL_A)).toBe(false);
    expect(shape(await list(srv, '&order=asc'))).toEqual(expected(ALL));
    await engine.walletIndexer.drain();
    expect(indexed(engine, WALLET)).toBe(ALL.length);
    expect(shape(await list(srv, '&order=asc'))).toEqual(expected(ALL));
    srv.close();
  });

  it('keeps every trade across a stop and a crash, whatever the indexer had done', async () => {
    let { engine, srv } = await setUp();
    srv.close();
    await engine.stop();
    ({ engine } = { engine: await temp.open() });
    srv = await serveEngine(engine);
    expect(shape(await list(srv, '&order=asc'))).toEqual(expected(ALL));
    // More trades, stored, then a crash before the indexer is asked for anything.
    await ingest(engine, swapIn[POOL_B]!(T0 + 90_000));
    await engine.checkpoint();
    srv.close();
    await temp.crash(engine);
    engine = await temp.open();
    srv = await serveEngine(engine);
    expect(shape(await list(srv, '&order=asc'))).toEqual(expected([...ALL, [POOL_B, 90]]));
    await engine.walletIndexer.drain();
    expect(engine.storage.walletJournal.getKeysCount()).toBe(0);
    expect(shape(await list(srv, '&order=asc'))).toEqual(expected([...ALL, [POOL_B, 90]]));
    srv.close();
  });

  it('lists after a crash the trades start-up replay applied again, in their pool\'s memory only (the router\'s pool.trade subscriber during replay)', async () => {
    let { engine, srv } = await setUp();
    await engine.checkpoint();
    // After the checkpoint: in the log and the pool's memory, in no trade block.
    await ingest(engine, swapIn[POOL_B]!(T0 + 90_000));
    srv.close();
    await temp.crash(engine);
    engine = await temp.open();
    srv = await serveEngine(engine);
    expect(shape(await list(srv, '&order=asc'))).toEqual(expected([...ALL, [POOL_B, 90]]));
    srv.close();
  });

  it('retention drops index entries of trades past the 30-day history with their blocks', async () => {
    const { engine, srv } = await setUp();
    await engine.checkpoint();
    await engine.walletIndexer.drain();
    // A trade 31 days later moves the event clock on: every earlier trade is out of the history.
    await ingest(engine, swapIn[POOL_A]!(T0 + 31 * DAY));
    await engine.checkpoint();
    await engine.walletIndexer.drain();
    const chunks = engine.storage.tradesByWallet.getKeysCount();
    const result = await pruneOnce({ storage: engine.storage, trades: engine.trades, candles: engine.candles, clock: engine.clock }, engine.config.retention);
    // The wallet's and someone else's chunks, all but the one of the last trade.
    expect(result.walletChunks).toBe(chunks - 1);
    expect(indexed(engine, WALLET)).toBe(1);
    expect(indexed(engine, SOMEONE)).toBe(0);
    const { body } = await srv.get(`/v1/wallets/${WALLET}/trades`);
    expect(shape(body.data)).toEqual([{ pool_address: POOL_A, created_at: T0 + 31 * DAY }]);
    srv.close();
  });
});
