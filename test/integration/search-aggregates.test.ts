import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * A search item's volumes, counts, ATH and traders are the token's, over every pool
 * where it is the base: a graduated token keeps what it traded on its curve. Price,
 * market cap and liquidity are its main pool's. SOL at $100, supply 1e9 of each token.
 * Every swap moves 1,000,000 tokens: a trade's market cap (its price × supply) is
 * 1,000 × its SOL amount; the spot market cap (mcap) follows the reserves.
 *
 *   G: curve   min 5: W1 buy 10 SOL (mcap 30 SOL), min 10: W2 buy 5 SOL (mcap 60 SOL)
 *      migrates at min 20 to its AMM pool (liquidity 2 × 8 SOL, the curve's nothing: the main pool)
 *      AMM     min 30: W1 sell 2 SOL, min 50: W3 buy 1 SOL (mcap 40 SOL)
 *   S: one AMM pool, min 57: W4 buy 12 SOL (mcap 10 SOL)
 *
 * The engine clock (event time) ends at min 60.
 */

const r = rng(2_212);
const addr = () => base58(r, 44);
const [G, S, G_CURVE, G_AMM, S_AMM] = [addr(), addr(), addr(), addr(), addr()];
const [W1, W2, W3, W4] = [addr(), addr(), addr(), addr()];
const T0 = 1_767_225_600_000;
const MIN = 60_000;

let n = 0;
const swap = (pool: string, minute: number, wallet: string, side: 'buy' | 'sell', sol: number, reserves: { base: number; sol: number; realSol?: number }) => ({
  type: 'swap', tx_hash: base58(rng(60_000 + ++n), 88), slot: 20_000 + minute * 150 + n, tx_index: 0, event_index: 0, at: T0 + minute * MIN,
  pool_address: pool, wallet_address: wallet, side, base_amount_raw: String(1e12), quote_amount_raw: String(sol * 1e9),
  base_reserve_raw: String(reserves.base * 1e6), quote_reserve_raw: String(reserves.sol * 1e9),
  ...(reserves.realSol === undefined ? {} : { real_base_reserve_raw: String(5e14), real_quote_reserve_raw: String(reserves.realSol * 1e9) }),
});
const token = (mint: string, symbol: string) => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol, name: `${symbol} token`, slot: 19_000, at: T0 });

let srv: ServedEngine;

beforeAll(async () => {
  srv = await startServedEngine([
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    token(G, 'GRAD'),
    token(S, 'SOLO'),
    { type: 'pool', pool_address: G_CURVE, base_address: G, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, curve_initial_real_base_raw: '793100000000000', slot: 19_001 },
    { type: 'pool', pool_address: S_AMM, base_address: S, quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0, slot: 19_002 },
    swap(G_CURVE, 5, W1, 'buy', 10, { base: 1e9, sol: 30, realSol: 2 }),
    swap(G_CURVE, 10, W2, 'buy', 5, { base: 1e9, sol: 60, realSol: 5 }),
    { type: 'pool', pool_address: G_AMM, base_address: G, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + 20 * MIN, migrated_from_pool_address: G_CURVE, slot: 23_000 },
    { type: 'migration', token_address: G, from_pool_address: G_CURVE, to_pool_address: G_AMM, slot: 23_000, at: T0 + 20 * MIN },
    swap(G_AMM, 30, W1, 'sell', 2, { base: 2e8, sol: 8 }),
    swap(G_AMM, 50, W3, 'buy', 1, { base: 2e8, sol: 8 }),
    swap(S_AMM, 57, W4, 'buy', 12, { base: 1e9, sol: 10 }),
    // The clock to min 60.
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 + 60 * MIN },
  ]);
});

afterAll(() => srv.stop());

const search = async (query: string) => {
  const { status, body } = await srv.get(`/v1/tokens/search?${query}`);
  expect(status, query).toBe(200);
  return body.data as Array<Record<string, any>>;
};

describe('search items of a token with several pools', () => {
  it('count every pool where the token is the base: the curve it graduated from too', async () => {
    const [item] = await search('q=GRAD');
    expect(item).toMatchObject({ token_address: G, pool_address: G_AMM, pool_type: 'amm', migrated: true, buy_count: 3, sell_count: 1, trader_count: 3 });
    expect(item!.volume_quote).toBeCloseTo(18, 9);
    expect(item!.volume_usd).toBeCloseTo(1_800, 6);
    // The ATH is the curve's first buy (10 SOL for 1,000,000 tokens × 1e9 supply); price, market cap and
    // liquidity are the AMM pool's.
    expect(item!.ath_market_cap_quote).toBeCloseTo(10_000, 6);
    expect(item!.ath_market_cap_usd).toBeCloseTo(1_000_000, 4);
    expect(item!.market_cap_quote).toBeCloseTo(40, 9);
    expect(item!.liquidity_quote).toBeCloseTo(16, 9);
  });

  it('sort by all-time and window volume on the same figures', async () => {
    expect((await search('sort=volume_usd')).map((x) => x.token_address)).toEqual([G, S]);
    const hour = await search('sort=volume_usd&window=1h');
    expect(hour.map((x) => [x.token_address, x.buy_count, x.sell_count])).toEqual([[G, 3, 1], [S, 1, 0]]);
    expect(hour[0]!.volume_usd).toBeCloseTo(1_800, 6);
    const fiveMinutes = await search('sort=volume_usd&window=5m');
    expect(fiveMinutes.map((x) => [x.token_address, x.volume_quote])).toEqual([[S, 12], [G, 0]]);
    const day = await search('q=GRAD&window=24h');
    expect(day[0]!.volume_quote).toBeCloseTo(18, 9);
  });
});
