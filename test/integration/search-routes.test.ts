import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * GET /v1/tokens/search over a real engine and server. Four tokens with hand-computed
 * numbers (every pool holds 100,000,000 of a 1,000,000,000 supply; SOL at $100):
 *
 *   token  symbol  pool quote reserve  mcap SOL  liq SOL  trades (minutes after T0: SOL)        traders
 *   A      PEPE    50                  500       100      0: buy 1, 40: buy 2, 58: sell 1 (W2)  2
 *   B      PEPEC   20                  200       40       10: buy 3                             1
 *   C      WIF     80                  800       160      59: buy 0.5 (W3)                      1
 *   D      MOON    none                0         0        none                                  0
 *
 * The engine clock (event time) ends at T0 + 60 min, so the 5m window holds A's sell
 * and C's buy, the 1h window everything but A's first buy (it left 1 h after), and
 * the 24h window and all time everything.
 */

const r = rng(404);
const addr = () => base58(r, 44);
const [A, B, C, D, NOPOOL] = [addr(), addr(), addr(), addr(), addr()];
const POOL = { [A]: addr(), [B]: addr(), [C]: addr(), [D]: addr() };
const [W1, W2, W3] = [addr(), addr(), addr()];
const T0 = 1_767_225_600_000;
const MIN = 60_000;
const tx = (i: number) => base58(rng(50_000 + i), 88);

let srv: ServedEngine;
let engine: Engine;

const get = (path: string) => srv.get(path);
const addresses = async (path: string) => {
  const { status, body } = await get(path);
  expect(status, path).toBe(200);
  return body.data.map((item: any) => item.token_address) as string[];
};

let txs = 0;
const swap = (token: string, minute: number, side: 'buy' | 'sell', sol: number, wallet: string, quoteReserveSol: number) => ({
  type: 'swap', tx_hash: tx(txs++), slot: 10_000 + minute * 150 + txs, tx_index: 0, event_index: 0, at: T0 + minute * MIN,
  pool_address: POOL[token], wallet_address: wallet, side, base_amount_raw: String(sol * 2_000_000 * 1e6), quote_amount_raw: String(sol * 1e9),
  base_reserve_raw: '100000000000000', quote_reserve_raw: String(quoteReserveSol * 1e9),
});
const tokenEvent = (token: string, symbol: string, name: string) => ({
  type: 'token', token_address: token, decimals: 6, supply_raw: '1000000000000000', symbol, name, socials: { x: `https://x.com/${symbol}` }, slot: 9_000, at: T0 - 4 * 60 * MIN,
});
const poolEvent = (token: string, createdMinutes: number) => ({
  type: 'pool', pool_address: POOL[token], base_address: token, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + createdMinutes * MIN, slot: 9_100 + createdMinutes,
});

beforeAll(async () => {
  const events: unknown[] = [
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 - 4 * 60 * MIN },
    tokenEvent(A, 'PEPE', 'Pepe Coin'),
    tokenEvent(B, 'PEPEC', 'Pepe Classic'),
    tokenEvent(C, 'WIF', 'Dog Wif Hat'),
    tokenEvent(D, 'MOON', 'Moon Rocket'),
    tokenEvent(NOPOOL, 'NOPE', 'No Pool'),
    poolEvent(A, -180),
    poolEvent(B, -120),
    poolEvent(C, -60),
    poolEvent(D, -30),
    swap(A, 0, 'buy', 1, W1, 50),
    swap(B, 10, 'buy', 3, W1, 20),
    swap(A, 40, 'buy', 2, W2, 50),
    swap(A, 58, 'sell', 1, W1, 50),
    swap(C, 59, 'buy', 0.5, W3, 80),
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 + 60 * MIN },
  ];
  srv = await startServedEngine(events, { plan: 'pro' });
  engine = srv.engine;
});

afterAll(() => srv.stop());

describe('GET /v1/tokens/search', () => {
  it('returns SERVICE.md 2.2 items from the main pool, all-time without a window', async () => {
    const { status, body } = await get(`/v1/tokens/search?q=PEPE&match=exact`);
    expect(status).toBe(200);
    expect(body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(body.data).toHaveLength(1);
    const item = body.data[0];
    expect(Object.keys(item).sort()).toEqual([
      'ath_market_cap_quote', 'ath_market_cap_usd', 'bonding_curve_progress_pct', 'buy_count', 'created_at', 'dex', 'image_url', 'liquidity_quote',
      'liquidity_usd', 'market_cap_quote', 'market_cap_usd', 'migrated', 'name', 'pool_address', 'pool_type', 'sell_count', 'socials', 'symbol',
      'token_address', 'trader_count', 'volume_quote', 'volume_usd',
    ]);
    expect(item).toMatchObject({
      token_address: A, pool_address: POOL[A], symbol: 'PEPE', name: 'Pepe Coin', image_url: null, socials: { x: 'https://x.com/PEPE' },
      dex: 'pumpswap', pool_type: 'amm', bonding_curve_progress_pct: null, migrated: false, created_at: T0 - 180 * MIN,
      trader_count: 2, buy_count: 2, sell_count: 1,
    });
    // Spot 50 SOL / 100,000,000 tokens × 1,000,000,000 supply = 500 SOL; liquidity 2 × 50 SOL.
    expect(item.market_cap_quote).toBeCloseTo(500, 9);
    expect(item.market_cap_usd).toBeCloseTo(50_000, 6);
    expect(item.ath_market_cap_quote).toBeCloseTo(500, 9);
    expect(item.liquidity_quote).toBeCloseTo(100, 9);
    expect(item.liquidity_usd).toBeCloseTo(10_000, 6);
    expect(item.volume_quote).toBeCloseTo(4, 9); // 1 + 2 + 1 SOL
    expect(item.volume_usd).toBeCloseTo(400, 6);
  });

  it("reads each item's figures as GET /pools/{pool} shows its main pool (a USD value not known yet is 0)", async () => {
    const { body } = await get('/v1/tokens/search?q=pepe');
    expect(body.data.length).toBeGreaterThan(1);
    for (const item of body.data) {
      const { status, body: one } = await get(`/v1/pools/${item.pool_address}`);
      expect(status).toBe(200);
      const { snapshot, totals, pool } = one.data;
      expect(item).toMatchObject({
        market_cap_quote: snapshot.market_cap_quote, market_cap_usd: snapshot.market_cap_usd ?? 0,
        ath_market_cap_quote: totals.ath_market_cap_quote, ath_market_cap_usd: totals.ath_market_cap_usd ?? 0,
        liquidity_quote: snapshot.liquidity_quote, liquidity_usd: snapshot.liquidity_usd ?? 0,
        volume_quote: totals.volume_quote, volume_usd: totals.volume_usd ?? 0,
        trader_count: totals.trader_count, buy_count: totals.buy_count, sell_count: totals.sell_count,
        dex: pool.dex, pool_type: pool.pool_type, created_at: pool.created_at,
        bonding_curve_progress_pct: pool.pool_type === 'bonding_curve' ? snapshot.bonding_curve_progress_pct : null,
      });
    }
  });

  it('counts volume, buys and sells over the window', async () => {
    const one = async (window: string, token: string) => (await get(`/v1/tokens/search?q=${token}&window=${window}`)).body.data[0];
    const expected: Array<[string, string, number, number, number]> = [
      // window, token, volume SOL, buys, sells
      ['5m', A, 1, 0, 1], ['5m', B, 0, 0, 0], ['5m', C, 0.5, 1, 0],
      ['1h', A, 3, 1, 1], ['1h', B, 3, 1, 0], ['1h', C, 0.5, 1, 0],
      ['6h', A, 4, 2, 1], ['24h', A, 4, 2, 1], ['24h', B, 3, 1, 0],
    ];
    for (const [window, token, sol, buys, sells] of expected) {
      const item = await one(window, token);
      expect(item.token_address).toBe(token);
      expect([item.volume_quote, item.volume_usd, item.buy_count, item.sell_count], `${window} ${token}`).toEqual([
        expect.closeTo(sol, 9), expect.closeTo(sol * 100, 6), buys, sells,
      ]);
      expect(item.trader_count).toBe(token === A ? 2 : 1); // all time whatever the window
    }
  });

  it('finds tokens by name, symbol and mint, in each match mode', async () => {
    // Smart: every word a prefix of a name or symbol word; the exact symbol first.
    expect(await addresses('/v1/tokens/search?q=pepe')).toEqual([A, B]);
    expect(await addresses('/v1/tokens/search?q=classic')).toEqual([B]);
    expect(await addresses('/v1/tokens/search?q=dog%20hat')).toEqual([C]);
    expect(await addresses('/v1/tokens/search?q=wif')).toEqual([C]);
    // Exact: the whole name or symbol, case-insensitive.
    expect(await addresses('/v1/tokens/search?q=pepe%20classic&match=exact')).toEqual([B]);
    expect(await addresses('/v1/tokens/search?q=pep&match=exact')).toEqual([]);
    // Prefix: a shorter symbol covered more by q ranks first (PEPE 3/4, PEPEC 3/5).
    expect(await addresses('/v1/tokens/search?q=pep&match=prefix')).toEqual([A, B]);
    expect(await addresses('/v1/tokens/search?q=moon%20r&match=prefix')).toEqual([D]);
    // A mint address gives that token whatever match says; a token without a pool is not listed.
    for (const match of ['smart', 'exact', 'prefix']) expect(await addresses(`/v1/tokens/search?q=${C}&match=${match}`)).toEqual([C]);
    expect(await addresses(`/v1/tokens/search?q=${NOPOOL}`)).toEqual([]);
    expect(await addresses('/v1/tokens/search?q=nope')).toEqual([]);
  });

  it('sorts by every key, desc by default, ties by token_address', async () => {
    const byAddress = (xs: string[]) => [...xs].sort();
    expect(await addresses('/v1/tokens/search?sort=market_cap_usd')).toEqual([C, A, B, D]);
    expect(await addresses('/v1/tokens/search?sort=market_cap_usd&order=asc')).toEqual([D, B, A, C]);
    expect(await addresses('/v1/tokens/search?sort=liquidity_usd')).toEqual([C, A, B, D]);
    expect(await addresses('/v1/tokens/search?sort=created_at')).toEqual([D, C, B, A]);
    expect(await addresses('/v1/tokens/search?sort=trader_count')).toEqual([A, ...byAddress([B, C]), D]);
    // All time: A 4, B 3, C 0.5, D 0 SOL.
    expect(await addresses('/v1/tokens/search?sort=volume_usd')).toEqual([A, B, C, D]);
    // 1h: A 3 and B 3 tie, then C 0.5, D 0.
    expect(await addresses('/v1/tokens/search?sort=volume_usd&window=1h')).toEqual([...byAddress([A, B]), C, D]);
    // 5m: A 1, C 0.5, then B and D at 0.
    expect(await addresses('/v1/tokens/search?sort=volume_usd&window=5m')).toEqual([A, C, ...byAddress([B, D])]);
    expect(await addresses('/v1/tokens/search?q=pepe&sort=created_at&order=asc')).toEqual([A, B]);
    // Relevance without q: every token scores the same, so the order is by address.
    expect(await addresses('/v1/tokens/search')).toEqual(byAddress([A, B, C, D]));
  });

  it('answers 400 naming the parameter', async () => {
    const first = (await get('/v1/tokens/search?limit=1&sort=market_cap_usd')).body.pagination.next_cursor as string;
    expect(first).toEqual(expect.any(String));
    const flipped = `${first.slice(0, 30)}${first[30] === 'A' ? 'B' : 'A'}${first.slice(31)}`;
    const cases: Array<[string, string]> = [
      ['/v1/tokens/search?qq=pepe', 'qq'],
      ['/v1/tokens/search?match=fuzzy', 'match'],
      ['/v1/tokens/search?sort=price', 'sort'],
      ['/v1/tokens/search?order=up', 'order'],
      ['/v1/tokens/search?window=2h', 'window'],
      ['/v1/tokens/search?limit=101', 'limit'],
      ['/v1/tokens/search?limit=0', 'limit'],
      ['/v1/tokens/search?limit=1e1', 'limit'],
      [`/v1/tokens/search?q=${'x'.repeat(101)}`, 'q'],
      ['/v1/tokens/search?q=a&q=b', 'q'],
      ['/v1/tokens/search?cursor=abc', 'cursor'],
      [`/v1/tokens/search?sort=market_cap_usd&cursor=${flipped}`, 'cursor'],
      // The cursor is bound to q, match, sort, order and window.
      [`/v1/tokens/search?sort=liquidity_usd&cursor=${first}`, 'cursor'],
      [`/v1/tokens/search?sort=market_cap_usd&order=asc&cursor=${first}`, 'cursor'],
      [`/v1/tokens/search?sort=market_cap_usd&q=pepe&cursor=${first}`, 'cursor'],
      [`/v1/tokens/search?sort=market_cap_usd&window=5m&cursor=${first}`, 'cursor'],
      [`/v1/tokens/search?sort=market_cap_usd&match=exact&cursor=${first}`, 'cursor'],
      // A cursor of another route.
      [`/v1/pools/${POOL[A]}/trades?cursor=${first}`, 'cursor'],
    ];
    for (const [path, param] of cases) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body, path).toMatchObject({ code: 4000, error: 'BAD_REQUEST', data: null });
      expect(body.message, path).toContain(param);
    }
    expect((await get(`/v1/tokens/search?sort=market_cap_usd&cursor=${first}`)).status).toBe(200);
    expect((await fetch(`${srv.base}/v1/tokens/search`)).status).toBe(401);
  });
});

describe('paging through a few hundred tokens', () => {
  const N = 300;
  const mints: string[] = [];
  /** Hand-set numbers of token i: volume 1..23 SOL (many ties), created at one per minute. */
  const volumeSol = (i: number) => 1 + ((i * 7) % 23);

  beforeAll(async () => {
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < N; i++) {
      const mint = base58(rng(70_000 + i), 44);
      const pool = base58(rng(80_000 + i), 44);
      mints.push(mint);
      pending.push(
        engine.ingest({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: `X${i}`, name: `Bulk Token ${i}`, slot: 20_000, at: T0 }),
        engine.ingest({ type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'raydium', pool_type: 'cpmm', created_at: T0 - 10 * 24 * 60 * MIN + i * MIN, slot: 20_001 }),
        engine.ingest({
          type: 'swap', tx_hash: tx(90_000 + i), slot: 21_000 + i, tx_index: 0, event_index: 0, at: T0 + 30 * MIN, pool_address: pool, wallet_address: W1, side: 'buy',
          base_amount_raw: '1000000', quote_amount_raw: String(volumeSol(i) * 1e9), base_reserve_raw: '100000000000000', quote_reserve_raw: String((1 + (i % 50)) * 1e9),
        }),
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
      expect(body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...body.data.map((x: any) => x.token_address));
      cursor = body.pagination.next_cursor;
      expect(body.pagination.has_more).toBe(cursor !== null);
      await whilePaging?.(page++);
    } while (cursor);
    return seen;
  }

  it('walks every bulk token exactly once, in the order of the sort', async () => {
    const order = (key: (i: number) => number, direction: 1 | -1) =>
      Array.from({ length: N }, (_, i) => i)
        .sort((i, j) => direction * (key(i) - key(j)) || (mints[i]! < mints[j]! ? -1 : 1))
        .map((i) => mints[i]!);
    expect(await walk('/v1/tokens/search?q=bulk&sort=volume_usd', 7)).toEqual(order(volumeSol, -1));
    expect(await walk('/v1/tokens/search?q=bulk&sort=volume_usd&order=asc', 13)).toEqual(order(volumeSol, 1));
    expect(await walk('/v1/tokens/search?q=bulk&sort=created_at', 100)).toEqual(order((i) => i, -1));
    expect(await walk('/v1/tokens/search?q=bulk&sort=liquidity_usd&window=24h', 9)).toEqual(order((i) => 1 + (i % 50), -1));
    // Relevance: all equal for `bulk`, so address order; 29 pages of 11.
    expect(await walk('/v1/tokens/search?q=bulk', 11)).toEqual([...mints].sort());
  });

  it('keeps pages exactly-once while new tokens arrive and SOL moves', async () => {
    let added = 0;
    const seen = await walk('/v1/tokens/search?q=bulk&sort=market_cap_usd', 25, async (page) => {
      // A newer, larger token and a SOL price change between pages.
      const mint = base58(rng(95_000 + page), 44);
      const pool = base58(rng(96_000 + page), 44);
      await engine.ingest({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: `Y${page}`, name: `Bulk Late ${page}`, slot: 30_000, at: T0 });
      await engine.ingest({ type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'raydium', pool_type: 'cpmm', created_at: T0 + 61 * MIN, slot: 30_001 });
      await engine.ingest({ type: 'swap', tx_hash: tx(98_000 + page), slot: 31_000 + page, tx_index: 0, event_index: 0, at: T0 + 60 * MIN, pool_address: pool, wallet_address: W2, side: 'buy', base_amount_raw: '1000000', quote_amount_raw: '1000000000', base_reserve_raw: '100000000000000', quote_reserve_raw: '900000000000' });
      const price = await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 100 + page + 1, at: T0 + 60 * MIN + (page + 1) * 1_000 });
      expect(price.status).toBe('applied');
      added++;
    });
    expect(added).toBeGreaterThan(10);
    // The new tokens rank first (900 SOL reserves), before every cursor: never served.
    const bulk = seen.filter((m) => mints.includes(m));
    expect(bulk).toHaveLength(N);
    expect(new Set(bulk).size).toBe(N);
    expect(seen).toHaveLength(N);
    expect(engine.query.solPrice()?.price_usd).toBe(100 + added);
  });
});
