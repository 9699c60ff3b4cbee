import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { base58, rng, USDC, WSOL } from '../helpers/fixtures.ts';

/**
 * Issue 20, items 1-6: the numbers a trader checks first (DECISIONS.md, "Prices and
 * market cap"): market cap = price × supply, USD = quote × the quote's USD price, and
 * two routes agree on one total. SOL at $100; every token has 6 decimals and a supply
 * of 1e9.
 *
 *   Q: Q/SOL (1e6 Q / 1,000 SOL: 0.1 USD a Q; at min 4, 2,000 SOL: 0.2 USD)
 *   C: C/SOL (1e8 C / 90 SOL: 18,000 USD of liquidity) and C/Q (1e7 C / 10,000 Q:
 *      20,000 Q, 4,000 USD at min 4; more quote units than the SOL pool's 180 SOL)
 *   U: U/SOL (10 SOL: 2,000 USD) and U/Z, Z a token with no USD price (2e6 Z)
 *   W: W/Z only: no USD price at all
 *   A, B: A/B and B/A, each quoted in the other (a cycle)
 *   G: a curve (trades at prices away from its spot) graduating at min 8 into G/SOL
 *   S: S/USDC, no USDC price event (USDC is worth 1 USD until one): 1e-5 USD, 10,000 USD market cap
 *   V: V/Q only (1e8 V / 3,750 Q): 37,500 Q of market cap, 7,500 USD at min 4
 */

const r = rng(2_020);
const addr = () => base58(r, 44);
const [Q, C, U, Z, W, A, B, G, S] = [addr(), addr(), addr(), addr(), addr(), addr(), addr(), addr(), addr()];
const [Q_SOL, C_SOL, C_Q, U_SOL, U_Z, W_Z, A_B, B_A, G_CURVE, G_AMM, S_USDC] = Array.from({ length: 11 }, addr) as string[];
const [W1, W2, W3] = [addr(), addr(), addr()];
const [V, V_Q] = [addr(), addr()];
const T0 = 1_767_225_600_000;
const MIN = 60_000;
const SUPPLY = 1e9;

let n = 0;
/** A swap; amounts and reserves in whole units (tokens 6 decimals, SOL 9, USDC 6). */
function swap(pool: string, minute: number, side: 'buy' | 'sell', wallet: string, base: number, quote: number, reserves: [number, number], quoteDecimals = 6, real?: [number, number]) {
  n++;
  const raw = (x: number, d: number) => String(Math.round(x * 10 ** d));
  return {
    type: 'swap', tx_hash: base58(rng(70_000 + n), 88), slot: 30_000 + n, tx_index: 0, event_index: 0, at: T0 + minute * MIN,
    pool_address: pool, wallet_address: wallet, side, base_amount_raw: raw(base, 6), quote_amount_raw: raw(quote, quoteDecimals),
    base_reserve_raw: raw(reserves[0], 6), quote_reserve_raw: raw(reserves[1], quoteDecimals),
    ...(real ? { real_base_reserve_raw: raw(real[0], 6), real_quote_reserve_raw: raw(real[1], quoteDecimals) } : {}),
  };
}
const token = (mint: string, symbol: string) => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol, name: `${symbol} token`, slot: 29_000, at: T0 });
const pool = (address: string, base: string, quote: string, type = 'amm', extra: Record<string, unknown> = {}) => ({
  type: 'pool', pool_address: address, base_address: base, quote_address: quote, dex: 'testdex', pool_type: type, created_at: T0, slot: 29_001, ...extra,
});

let srv: ServedEngine;

beforeAll(async () => {
  srv = await startServedEngine([
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    ...[[Q, 'QQ'], [C, 'CHILL'], [U, 'UU'], [Z, 'ZZ'], [W, 'WW'], [A, 'AA'], [B, 'BB'], [G, 'GRAD'], [S, 'SS'], [V, 'VV']].map(([m, s]) => token(m!, s!)),
    pool(Q_SOL, Q, WSOL), pool(C_SOL, C, WSOL), pool(C_Q, C, Q), pool(U_SOL, U, WSOL), pool(U_Z, U, Z), pool(W_Z, W, Z),
    pool(A_B, A, B), pool(B_A, B, A), pool(S_USDC, S, USDC), pool(V_Q, V, Q),
    pool(G_CURVE, G, WSOL, 'bonding_curve', { curve_initial_real_base_raw: '793100000000000' }),
    swap(Q_SOL, 1, 'buy', W1, 1_000, 1, [1e6, 1_000], 9),
    swap(C_SOL, 2, 'buy', W1, 1e6, 0.9, [1e8, 90], 9),
    // 100 Q at 0.1 USD: 10 USD.
    swap(C_Q, 3, 'buy', W2, 1e5, 100, [1e7, 10_000]),
    swap(Q_SOL, 4, 'buy', W1, 1_000, 2, [1e6, 2_000], 9),
    // 100 Q at 0.2 USD: 20 USD.
    swap(C_Q, 5, 'sell', W2, 1e5, 100, [1e7, 10_000]),
    swap(U_SOL, 5, 'buy', W1, 1e6, 0.1, [1e8, 10], 9),
    swap(U_Z, 5, 'buy', W1, 1e5, 10_000, [1e7, 1e6]),
    swap(W_Z, 5, 'buy', W1, 1e5, 10, [1e7, 1_000]),
    swap(A_B, 5, 'buy', W1, 10, 10, [1_000, 1_000]),
    swap(B_A, 5, 'buy', W1, 10, 10, [1_000, 1_000]),
    swap(S_USDC, 5, 'buy', W3, 1e6, 10, [1e8, 1_000]),
    swap(V_Q, 5, 'buy', W3, 1e5, 3.75, [1e8, 3_750]),
    // The curve: trade prices 1e-7, 2e-7 and 1e-7 SOL, spot prices 31/9.9e8, 33/9.8e8, 32/9.85e8.
    swap(G_CURVE, 6, 'buy', W1, 1e7, 1, [9.9e8, 31], 9, [7e8, 1]),
    swap(G_CURVE, 7, 'buy', W2, 1e7, 2, [9.8e8, 33], 9, [6.9e8, 3]),
    swap(G_CURVE, 7.5, 'sell', W1, 5e6, 0.5, [9.85e8, 32], 9, [6.95e8, 2.5]),
    pool(G_AMM, G, WSOL, 'amm', { created_at: T0 + 8 * MIN, migrated_from_pool_address: G_CURVE, slot: 40_000 }),
    { type: 'migration', token_address: G, from_pool_address: G_CURVE, to_pool_address: G_AMM, slot: 40_000, at: T0 + 8 * MIN },
    swap(G_AMM, 9, 'sell', W3, 1e6, 0.2, [2e8, 40], 9),
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 + 10 * MIN },
  ]);
});

afterAll(() => srv.stop());

const data = async (path: string) => {
  const { status, body } = await srv.get(path);
  expect(status, path).toBe(200);
  return body.data;
};
const searchOne = async (symbol: string) => {
  const items = (await data(`/v1/tokens/search?q=${symbol}&match=exact`)) as any[];
  expect(items, symbol).toHaveLength(1);
  return items[0];
};

describe('1. a token\'s main pool is its most liquid in USD', () => {
  it('a pool quoted in a token is valued at that token\'s USD price, not in its raw units', async () => {
    // C/SOL: 180 SOL = 18,000 USD; C/Q: 20,000 Q at 0.2 USD = 4,000 USD (20,000 raw quote units).
    expect((await data(`/v1/tokens/${C}`)).pool.pool_address).toBe(C_SOL);
    expect((await data(`/v1/tokens/${C}/pools`)).map((p: any) => p.pool_address)).toEqual([C_SOL, C_Q]);
    const viaQ = (await data(`/v1/pools/${C_Q}`)).snapshot;
    expect(viaQ.liquidity_usd).toBeCloseTo(20_000 * 0.2, 9);
    expect(viaQ.price_usd).toBeCloseTo((10_000 / 1e7) * 0.2, 15);
  });

  it('a pool whose USD value is unknown never outranks one whose value is known', async () => {
    // U/Z holds 2,000,000 Z (no USD price), U/SOL 20 SOL.
    expect((await data(`/v1/tokens/${U}`)).pool.pool_address).toBe(U_SOL);
    expect((await searchOne('UU')).pool_address).toBe(U_SOL);
  });

  it('two tokens quoted in each other: answered, with no USD value (the recursion is bounded)', async () => {
    for (const [t, p] of [[A, A_B], [B, B_A]] as const) {
      const d = await data(`/v1/tokens/${t}`);
      expect(d.pool.pool_address).toBe(p);
      expect(d.snapshot).toMatchObject({ price_quote: 1, price_usd: null, market_cap_usd: null, liquidity_usd: null });
    }
  });
});

describe('2. search items: one pool, one quote asset; an unknown USD value is null, not 0', () => {
  it('quote and USD fields come from the main pool and its quote\'s USD price', async () => {
    const item = await searchOne('CHILL');
    const snapshot = (await data(`/v1/pools/${C_SOL}`)).snapshot;
    expect(item.pool_address).toBe(C_SOL);
    expect(item.market_cap_quote).toBeCloseTo(snapshot.market_cap_quote, 9);
    expect(item.market_cap_usd).toBeCloseTo(item.market_cap_quote * 100, 6);
    expect(item.liquidity_quote).toBeCloseTo(180, 9);
    expect(item.liquidity_usd).toBeCloseTo(18_000, 6);
  });

  it('a token without a USD price shows null and is in no USD sort, in either order', async () => {
    const item = await searchOne('WW');
    expect(item).toMatchObject({ pool_address: W_Z, market_cap_usd: null, liquidity_usd: null, volume_usd: null, ath_market_cap_usd: null, buy_count: 1 });
    expect(item.market_cap_quote).toBeCloseTo((1_000 / 1e7) * SUPPLY, 6);
    expect((await data('/v1/tokens/search?q=WW&match=exact&window=1h'))[0]).toMatchObject({ volume_usd: null, buy_count: 1 });
    for (const [sort, window] of [['market_cap_usd', ''], ['liquidity_usd', ''], ['volume_usd', ''], ['volume_usd', '&window=1h']]) {
      for (const order of ['asc', 'desc']) {
        const items = (await data(`/v1/tokens/search?sort=${sort}&order=${order}&limit=100${window}`)) as any[];
        const ids = items.map((x) => x.token_address);
        expect(ids, `${sort}${window} ${order}`).not.toContain(W);
        expect(ids, `${sort}${window} ${order}`).toContain(C);
        // Honest: the values shown are in the order asked.
        const keys = items.map((x) => x[sort!] as number);
        expect(keys.every((k) => typeof k === 'number'), `${sort}${window} ${order}`).toBe(true);
        expect(keys, `${sort}${window} ${order}`).toEqual([...keys].sort((a, b) => (order === 'asc' ? a - b : b - a)));
      }
    }
  });
});

describe('3. USD values of a trade in a pool quoted in a token, or in USDC', () => {
  it('go through the quote token\'s USD price at the trade', async () => {
    const trades = (await data(`/v1/pools/${C_Q}/trades?order=asc`)) as any[];
    expect(trades.map((t) => t.type)).toEqual(['buy', 'sell']);
    expect(trades[0].amount_usd).toBeCloseTo(100 * 0.1, 9);
    expect(trades[1].amount_usd).toBeCloseTo(100 * 0.2, 9);
    expect(trades[1].price_usd).toBeCloseTo(1e-3 * 0.2, 15);
    expect(trades[1].market_cap_usd).toBeCloseTo(1e-3 * 0.2 * SUPPLY, 6);
    const totals = (await data(`/v1/pools/${C_Q}`)).totals;
    expect(totals.volume_usd).toBeCloseTo(30, 9);
  });

  it('order GET /v1/pools by the USD liquidity its items show, a pool quoted in a token included', async () => {
    for (const order of ['desc', 'asc']) {
      const items = (await data(`/v1/pools?sort=liquidity_usd&order=${order}&limit=100`)) as any[];
      // Pools whose quote has no USD price sort as 0 (documented).
      const keys = items.map((p) => p.snapshot.liquidity_usd ?? 0);
      expect(items.find((p) => p.pool_address === C_Q).snapshot.liquidity_usd).toBeCloseTo(20_000 * 0.2, 9);
      expect(keys, order).toEqual([...keys].sort((a, b) => (order === 'asc' ? a - b : b - a)));
    }
  });

  it('count USDC at 1 USD until a quote_price says otherwise', async () => {
    const [trade] = (await data(`/v1/pools/${S_USDC}/trades`)) as any[];
    expect(trade.amount_usd).toBeCloseTo(10, 12);
    expect((await data(`/v1/pools/${S_USDC}`)).snapshot.liquidity_usd).toBeCloseTo(2_000, 9);
  });
});

describe('4. market cap is a trade\'s price × supply; the snapshot keeps the spot', () => {
  it('each trade\'s market cap is its own price × supply', async () => {
    const trades = (await data(`/v1/pools/${G_CURVE}/trades?order=asc`)) as any[];
    expect(trades).toHaveLength(3);
    for (const t of trades) {
      expect(t.market_cap_quote).toBeCloseTo(t.price_quote * SUPPLY, 6);
      expect(t.market_cap_usd).toBeCloseTo(t.price_usd * SUPPLY, 4);
    }
    expect((await data(`/v1/pools/${G_CURVE}`)).totals.ath_market_cap_quote).toBeCloseTo(2e-7 * SUPPLY, 6);
    // The snapshot: the spot after the latest trade, 40 SOL / 2e8 G on the AMM pool.
    expect((await data(`/v1/pools/${G_AMM}`)).snapshot.market_cap_quote).toBeCloseTo((40 / 2e8) * SUPPLY, 6);
  });

  it('market-cap candles are the price candles × supply, bucket for bucket', async () => {
    for (const currency of ['quote', 'usd']) {
      const candles = async (mode: string) => (await data(`/v1/pools/${G_CURVE}/candles?interval=1m&mode=${mode}&currency=${currency}`)).candles as any[];
      const price = await candles('price');
      const cap = await candles('market_cap');
      expect(price).toHaveLength(2);
      expect(cap.map((c) => c.start_at)).toEqual(price.map((c) => c.start_at));
      price.forEach((p, i) => {
        for (const k of ['open', 'high', 'low', 'close']) expect(cap[i][k], `${currency} ${i} ${k}`).toBeCloseTo(p[k] * SUPPLY, 6);
      });
    }
  });
});

describe('5. a graduated curve holds no liquidity', () => {
  it('its liquidity is 0 on its own route and in its token\'s pool list', async () => {
    expect((await data(`/v1/pools/${G_CURVE}`)).snapshot).toMatchObject({ liquidity_quote: 0, liquidity_usd: 0 });
    const pools = (await data(`/v1/tokens/${G}/pools`)) as any[];
    expect(pools.map((p) => [p.pool_address, p.snapshot.liquidity_quote])).toEqual([[G_AMM, 80], [G_CURVE, 0]]);
  });
});

describe('6. a token\'s totals: across its pools, curve included, alike on both routes', () => {
  it('GET /tokens/{t} counts the curve and the AMM pool, as search does', async () => {
    const totals = (await data(`/v1/tokens/${G}`)).totals;
    expect(totals).toMatchObject({ trade_count: 4, buy_count: 2, sell_count: 2, trader_count: 3, first_trade_at: T0 + 6 * MIN });
    expect(totals.volume_quote).toBeCloseTo(1 + 2 + 0.5 + 0.2, 9);
    expect(totals.volume_usd).toBeCloseTo(370, 6);
    // Launch: the curve's first trade, 1 SOL for 1e7 G.
    expect(totals.launch_price_quote).toBeCloseTo(1e-7, 15);
    expect(totals.launch_price_usd).toBeCloseTo(1e-5, 12);
    expect(totals.ath_market_cap_quote).toBeCloseTo(200, 6);
    const item = await searchOne('GRAD');
    expect(item.pool_address).toBe(G_AMM);
    expect([item.volume_quote, item.volume_usd, item.buy_count, item.sell_count, item.trader_count, item.ath_market_cap_quote, item.ath_market_cap_usd]).toEqual([
      totals.volume_quote, totals.volume_usd, totals.trade_count - totals.sell_count, totals.sell_count, totals.trader_count, totals.ath_market_cap_quote, totals.ath_market_cap_usd,
    ]);
  });
});

// Last: it moves Q's price.
describe('a pool quoted in a token, served from the response cache', () => {
  it('follows the quote token\'s USD price as its main pool trades', async () => {
    const before = (await data(`/v1/pools/${C_Q}`)).snapshot;
    expect(before.liquidity_usd).toBeCloseTo(20_000 * 0.2, 9);
    const byCap = async () => ((await data('/v1/tokens/search?sort=market_cap_usd&limit=100')) as any[]).filter((x) => x.token_address === V || x.token_address === S);
    expect((await byCap()).map((x) => [x.token_address, Math.round(x.market_cap_usd)])).toEqual([[S, 10_000], [V, 7_500]]);
    // Q/SOL to 4,000 SOL for 1e6 Q: 0.4 USD a Q.
    const result = await srv.engine.ingest(swap(Q_SOL, 10, 'buy', W1, 1_000, 4, [1e6, 4_000], 9));
    expect(result.status).toBe('applied');
    const after = (await data(`/v1/pools/${C_Q}`)).snapshot;
    expect(after.liquidity_usd).toBeCloseTo(20_000 * 0.4, 9);
    expect((await searchOne('CHILL')).pool_address).toBe(C_SOL);
    // V's market cap follows Q's price in search, in the values shown and in the order.
    expect((await byCap()).map((x) => [x.token_address, Math.round(x.market_cap_usd)])).toEqual([[V, 15_000], [S, 10_000]]);
  });
});
