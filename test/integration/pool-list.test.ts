import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { base58, rng, USDC, WSOL } from '../helpers/fixtures.ts';

/**
 * GET /v1/pools over a real engine and server. Five pools with hand-computed numbers
 * (SOL $100, USDC $1):
 *
 *   pool  base/quote   type           created  liquidity            all-time volume
 *   P1    X / wSOL     amm            +1 min   2 × 10 SOL = $2,000  2 SOL = $200
 *   P2    X / USDC     cpmm           +2 min   2 × 1,500 = $3,000   50 USDC = $50
 *   P3    Y / wSOL     bonding_curve  +3 min   real 5 SOL = $500    5 SOL = $500
 *   P4    Y / X        clmm           +4 min   no USD price: 0      no USD: 0
 *   P5    Z / wSOL     amm            +5 min   no trade: 0          0
 */

const r = rng(505);
const addr = () => base58(r, 44);
const [X, Y, Z, P1, P2, P3, P4, P5, WALLET] = Array.from({ length: 9 }, addr) as [string, string, string, string, string, string, string, string, string];
const T0 = 1_767_225_600_000;
const MIN = 60_000;
const tx = (i: number) => base58(rng(60_000 + i), 88);

let srv: ServedEngine;
let engine: Engine;

const get = (path: string) => srv.get(path);
const pools = async (path: string) => {
  const { status, body } = await get(path);
  expect(status, path).toBe(200);
  return body.data.map((p: any) => p.pool_address) as string[];
};
/** Descending order of equal keys goes by pool_address descending too. */
const desc = (...xs: string[]) => [...xs].sort().reverse();

let txs = 0;
const swap = (pool: string, extra: Record<string, unknown>) => ({
  type: 'swap', tx_hash: tx(txs), slot: 5_000 + txs++, tx_index: 0, event_index: 0, at: T0 + 10 * MIN, pool_address: pool, wallet_address: WALLET, side: 'buy', ...extra,
});
const token = (mint: string, symbol: string) => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol, name: `Token ${symbol}`, slot: 4_000, at: T0 });
const pool = (address: string, baseMint: string, quote: string, poolType: string, minute: number, extra: Record<string, unknown> = {}) => ({
  type: 'pool', pool_address: address, base_address: baseMint, quote_address: quote, dex: 'testdex', pool_type: poolType, created_at: T0 + minute * MIN, slot: 4_100 + minute, ...extra,
});

beforeAll(async () => {
  const events: unknown[] = [
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'quote_price', quote_address: USDC, price_usd: 1, at: T0 },
    token(X, 'XX'), token(Y, 'YY'), token(Z, 'ZZ'),
    pool(P1, X, WSOL, 'amm', 1),
    pool(P2, X, USDC, 'cpmm', 2),
    pool(P3, Y, WSOL, 'bonding_curve', 3, { curve_initial_real_base_raw: '793100000000000' }),
    pool(P4, Y, X, 'clmm', 4),
    pool(P5, Z, WSOL, 'amm', 5),
    swap(P1, { base_amount_raw: '1000000000', quote_amount_raw: '2000000000', base_reserve_raw: '100000000000000', quote_reserve_raw: '10000000000' }),
    swap(P2, { base_amount_raw: '1000000000', quote_amount_raw: '50000000', base_reserve_raw: '100000000000000', quote_reserve_raw: '1500000000' }),
    swap(P3, { base_amount_raw: '1000000000', quote_amount_raw: '5000000000', base_reserve_raw: '1000000000000000', quote_reserve_raw: '35000000000', real_base_reserve_raw: '700000000000000', real_quote_reserve_raw: '5000000000' }),
    swap(P4, { base_amount_raw: '1000000', quote_amount_raw: '3000000', base_reserve_raw: '1000000000', quote_reserve_raw: '3000000000' }),
  ];
  srv = await startServedEngine(events, { plan: 'starter' });
  engine = srv.engine;
});

afterAll(() => srv.stop());

describe('GET /v1/pools', () => {
  it('lists the newest pools first, with the pool object, token, snapshot and all-time volume', async () => {
    const { status, body } = await get('/v1/pools');
    expect(status).toBe(200);
    expect(body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(body.data.map((p: any) => p.pool_address)).toEqual([P5, P4, P3, P2, P1]);
    const p1 = body.data[4];
    expect(p1).toMatchObject({
      pool_address: P1, base_address: X, quote_address: WSOL, dex: 'testdex', pool_type: 'amm', created_at: T0 + MIN,
      migrated_from_pool_address: null, migrated_at: null, replaced_by_pool_address: null, trade_count: 1,
      token: { token_address: X, symbol: 'XX', name: 'Token XX', image_url: null },
    });
    expect(p1.snapshot.liquidity_quote).toBeCloseTo(20, 9);
    expect(p1.snapshot.liquidity_usd).toBeCloseTo(2_000, 6);
    expect(p1.volume_quote).toBeCloseTo(2, 9);
    expect(p1.volume_usd).toBeCloseTo(200, 6);
    const p4 = body.data[1];
    // Quoted in X: valued at X's USD price, its main pool's (P2: 3,000 USD of liquidity against P1's 2,000),
    // 1,500 USDC / 100,000,000 X. Liquidity 2 × 3,000 X; volume 3 X.
    const xUsd = 1_500 / 100_000_000;
    expect(p4.snapshot.liquidity_usd).toBeCloseTo(6_000 * xUsd, 12);
    expect(p4.volume_usd).toBeCloseTo(3 * xUsd, 12);
    expect(body.data[2].snapshot.liquidity_quote).toBeCloseTo(5, 9); // the curve's real quote reserve
  });

  it('gives each pool as GET /pools/{pool} has it: the pool, its token\'s name fields, snapshot, all-time volumes, trade count', async () => {
    const { body } = await get('/v1/pools');
    expect(body.data).toHaveLength(5);
    for (const item of body.data) {
      const { status, body: one } = await get(`/v1/pools/${item.pool_address}`);
      expect(status).toBe(200);
      const d = one.data;
      const token = d.token && { token_address: d.token.token_address, symbol: d.token.symbol, name: d.token.name, image_url: d.token.image_url };
      const expected = {
        ...d.pool, token, snapshot: d.snapshot, volume_quote: d.totals.volume_quote, volume_usd: d.totals.volume_usd,
        trade_count: d.totals.trade_count, replaced_by_pool_address: d.replaced_by_pool_address,
      };
      // The same bytes: same values, same key order.
      expect(JSON.stringify(item)).toBe(JSON.stringify(expected));
    }
  });

  it('filters by base token, quote asset and pair', async () => {
    expect(await pools(`/v1/pools?base_address=${X}`)).toEqual([P2, P1]);
    expect(await pools(`/v1/pools?base_address=${Y}&order=asc`)).toEqual([P3, P4]);
    expect(await pools(`/v1/pools?quote_address=${WSOL}`)).toEqual([P5, P3, P1]);
    expect(await pools(`/v1/pools?quote_address=${WSOL}&order=asc`)).toEqual([P1, P3, P5]);
    expect(await pools(`/v1/pools?quote_address=${X}`)).toEqual([P4]);
    expect(await pools(`/v1/pools?base_address=${Y}&quote_address=${WSOL}`)).toEqual([P3]);
    expect(await pools(`/v1/pools?base_address=${Z}&quote_address=${USDC}`)).toEqual([]);
    expect(await pools(`/v1/pools?base_address=${WALLET}`)).toEqual([]);
  });

  it('sorts by USD liquidity and all-time USD volume', async () => {
    expect(await pools('/v1/pools?sort=liquidity_usd')).toEqual([P2, P1, P3, ...desc(P4, P5)]);
    expect(await pools('/v1/pools?sort=liquidity_usd&order=asc')).toEqual([...desc(P4, P5).reverse(), P3, P1, P2]);
    expect(await pools(`/v1/pools?sort=liquidity_usd&base_address=${X}`)).toEqual([P2, P1]);
    expect(await pools('/v1/pools?sort=volume_usd')).toEqual([P3, P1, P2, ...desc(P4, P5)]);
    expect(await pools(`/v1/pools?sort=volume_usd&quote_address=${WSOL}&order=asc`)).toEqual([P5, P1, P3]);
  });

  it('answers 400 naming the parameter', async () => {
    const first = (await get('/v1/pools?limit=2')).body.pagination.next_cursor as string;
    expect(first).toEqual(expect.any(String));
    const search = (await get('/v1/tokens/search?limit=1')).body.pagination.next_cursor as string;
    const flipped = `${first.slice(0, 20)}${first[20] === 'A' ? 'B' : 'A'}${first.slice(21)}`;
    const cases: Array<[string, string]> = [
      ['/v1/pools?token_address=x', 'token_address'],
      ['/v1/pools?base_address=nope', 'base_address'],
      ['/v1/pools?quote_address=0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', 'quote_address'],
      ['/v1/pools?sort=price', 'sort'],
      ['/v1/pools?order=newest', 'order'],
      ['/v1/pools?limit=101', 'limit'],
      ['/v1/pools?limit=-1', 'limit'],
      ['/v1/pools?cursor=', 'cursor'],
      [`/v1/pools?cursor=${flipped}`, 'cursor'],
      [`/v1/pools?cursor=${search}`, 'cursor'],
      [`/v1/pools?order=asc&cursor=${first}`, 'cursor'],
      [`/v1/pools?sort=volume_usd&cursor=${first}`, 'cursor'],
      [`/v1/pools?base_address=${X}&cursor=${first}`, 'cursor'],
      [`/v1/pools?quote_address=${WSOL}&cursor=${first}`, 'cursor'],
    ];
    for (const [path, param] of cases) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body, path).toMatchObject({ code: 4000, error: 'BAD_REQUEST', data: null });
      expect(body.message, path).toContain(param);
    }
    const next = await get(`/v1/pools?limit=2&cursor=${first}`);
    expect(next.body.data.map((p: any) => p.pool_address)).toEqual([P3, P2]);
  });
});

describe('paging through a few hundred pools', () => {
  const N = 300;
  const made: Array<{ pool: string; created: number; liquiditySol: number; volumeSol: number; quote: string }> = [];

  beforeAll(async () => {
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < N; i++) {
      const mint = base58(rng(110_000 + i), 44);
      const address = base58(rng(120_000 + i), 44);
      // Every 10th pool is quoted in USDC (a rare quote: its own set is scanned).
      const quote = i % 10 === 3 ? USDC : WSOL;
      const created = T0 + 60 * MIN + Math.floor(i / 2) * 1_000; // pairs share a creation time
      const liquiditySol = 1 + (i % 17);
      const volumeSol = 1 + ((i * 11) % 29);
      made.push({ pool: address, created, liquiditySol, volumeSol, quote });
      const decimals = quote === USDC ? 6 : 9;
      pending.push(
        engine.ingest(token(mint, `P${i}`)),
        engine.ingest({ ...pool(address, mint, quote, 'cpmm', 0), created_at: created, slot: 6_000 + i }),
        engine.ingest(swap(address, {
          base_amount_raw: '1000000', quote_amount_raw: String(volumeSol * 10 ** decimals), base_reserve_raw: '100000000000000',
          quote_reserve_raw: String((liquiditySol / 2) * 10 ** decimals), at: T0 + 70 * MIN,
        })),
      );
    }
    await Promise.all(pending);
  });

  async function walk(path: string, limit: number, whilePaging?: (page: number) => Promise<unknown>) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const { status, body } = await get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(status).toBe(200);
      seen.push(...body.data.map((p: any) => p.pool_address));
      cursor = body.pagination.next_cursor;
      expect(body.pagination.has_more).toBe(cursor !== null);
      await whilePaging?.(page++);
    } while (cursor);
    return seen;
  }

  /** The expected order of the bulk pools: key then address, both in the direction. */
  const order = (rows: typeof made, key: (m: (typeof made)[number]) => number, direction: 1 | -1) =>
    [...rows].sort((a, b) => direction * (key(a) - key(b) || (a.pool < b.pool ? -1 : 1))).map((m) => m.pool);
  const bulk = (seen: string[]) => seen.filter((p) => made.some((m) => m.pool === p));

  it('walks every pool exactly once in each sort and order', async () => {
    for (const direction of [1, -1] as const) {
      const o = direction === 1 ? 'asc' : 'desc';
      const byCreated = await walk(`/v1/pools?order=${o}`, 17);
      expect(bulk(byCreated)).toEqual(order(made, (m) => m.created, direction));
      expect(byCreated).toHaveLength(N + 5);
      // USD: SOL pools at $100 per SOL, USDC pools at $1 per USDC.
      const usd = (m: (typeof made)[number], sol: number) => (m.quote === USDC ? sol : sol * 100);
      expect(bulk(await walk(`/v1/pools?sort=liquidity_usd&order=${o}`, 23))).toEqual(order(made, (m) => usd(m, m.liquiditySol), direction));
      expect(bulk(await walk(`/v1/pools?sort=volume_usd&order=${o}`, 31))).toEqual(order(made, (m) => usd(m, m.volumeSol), direction));
      const usdc = made.filter((m) => m.quote === USDC);
      const byUsdc = await walk(`/v1/pools?quote_address=${USDC}&order=${o}`, 4);
      expect(bulk(byUsdc)).toEqual(order(usdc, (m) => m.created, direction));
      expect(byUsdc).toContain(P2);
      const sol = made.filter((m) => m.quote === WSOL);
      expect(bulk(await walk(`/v1/pools?quote_address=${WSOL}&order=${o}`, 50))).toEqual(order(sol, (m) => m.created, direction));
    }
  });

  it('keeps liquidity-ordered pages in the first page\'s order while SOL moves', async () => {
    const usd = (m: (typeof made)[number]) => (m.quote === USDC ? m.liquiditySol : m.liquiditySol * 100);
    const seen = await walk('/v1/pools?sort=liquidity_usd', 19, async (page) => {
      // SOL swings between $5 and $200: USDC pools would jump over SOL pools if pages were re-keyed.
      const price = page % 2 ? 5 : 200;
      expect((await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: price, at: T0 + 80 * MIN + page * 1_000 })).status).toBe('applied');
    });
    expect(bulk(seen)).toEqual(order(made, usd, -1));
    // A new walk orders by the current price ($5 or $200 after the last page).
    const now = engine.query.solPrice()!.price_usd;
    const fresh = bulk(await walk('/v1/pools?sort=liquidity_usd', 100));
    expect(fresh).toEqual(order(made, (m) => (m.quote === USDC ? m.liquiditySol : m.liquiditySol * now), -1));
    await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 + 90 * MIN });
  });

  it('keeps creation-ordered pages exactly-once while pools are added', async () => {
    let added = 0;
    const addPool = async (page: number) => {
      const mint = base58(rng(130_000 + added), 44);
      await engine.ingest(token(mint, `N${added}`));
      await engine.ingest({ ...pool(base58(rng(140_000 + added), 44), mint, WSOL, 'amm', 0), created_at: T0 + 200 * MIN + added * 1_000 + page, slot: 7_000 + added });
      added++;
    };
    const before = await walk('/v1/pools', 100);
    const newestFirst = await walk('/v1/pools', 20, addPool);
    // Newer pools sit before every position: none is served, every older one once.
    expect(newestFirst).toEqual(before);
    const oldestFirst = await walk('/v1/pools?order=asc', 20, addPool);
    expect(new Set(oldestFirst).size).toBe(oldestFirst.length);
    expect(oldestFirst.slice(0, before.length)).toEqual([...before].reverse());
    // Pools added while walking forward come after every position: all are served but
    // the one added after the last page.
    expect(oldestFirst.length).toBe(before.length + added - 1);
  });
});
