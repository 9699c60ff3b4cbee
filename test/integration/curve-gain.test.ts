import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * bonding_curve_gain_5m_pct over real HTTP, on the event clock (now = the latest event
 * time), and the /pools/{pool} response cache following a token's other pool.
 */

const r = rng(7_070);
const MINT = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const WALLET = base58(r, 44);
const T0 = 1_767_225_600_000;
const S = 1_000;

let slot = 100;
/** A curve buy leaving `left` million of the 800M real base for sale (progress = 100 × (800 − left) / 800). */
const curveSwap = (at: number, left: number) => ({
  type: 'swap', tx_hash: base58(r, 88), slot: ++slot, tx_index: 0, event_index: 0, at, pool_address: CURVE, wallet_address: WALLET, side: 'buy',
  base_amount_raw: '1000000', quote_amount_raw: '1000000000', base_reserve_raw: '1000000000000000', quote_reserve_raw: '30000000000',
  real_base_reserve_raw: String(left * 1e12), real_quote_reserve_raw: '1000000000',
});
const ammSwap = (at: number, baseReserve: number) => ({
  type: 'swap', tx_hash: base58(r, 88), slot: ++slot, tx_index: 0, event_index: 0, at, pool_address: AMM, wallet_address: WALLET, side: 'buy',
  base_amount_raw: '1000000', quote_amount_raw: '1000000000', base_reserve_raw: String(baseReserve * 1e12), quote_reserve_raw: '30000000000',
});
const price = (at: number) => ({ type: 'quote_price', quote_address: WSOL, price_usd: 150, at });

let served: ServedEngine;
let engine: Engine;

beforeAll(async () => {
  served = await startServedEngine([
    price(T0),
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'GAIN', slot: 100, at: T0 },
    { type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, curve_initial_real_base_raw: '800000000000000', slot: 100 },
  ]);
  engine = served.engine;
});

afterAll(() => served.stop());

const totals = async (pool: string) => {
  const { status, body } = await served.get(`/v1/pools/${pool}`);
  expect(status).toBe(200);
  return body.data.totals;
};

describe('bonding_curve_gain_5m_pct', () => {
  it('is the progress gained since the start of the last 5 minutes, and decays as the clock moves on', async () => {
    await engine.ingest(curveSwap(T0 + 10 * S, 720)); // 10 %
    expect((await totals(CURVE)).bonding_curve_gain_5m_pct).toBeCloseTo(10, 9); // no trade before the window: from 0
    await engine.ingest(curveSwap(T0 + 200 * S, 600)); // 25 %
    await engine.ingest(curveSwap(T0 + 400 * S, 400)); // 50 %
    // now 400 s: the window starts at 105 s, after the 10 % trade.
    expect((await totals(CURVE)).bonding_curve_gain_5m_pct).toBeCloseTo(40, 9);
    const token = await served.get(`/v1/tokens/${MINT}`);
    expect(token.body.data.totals.bonding_curve_gain_5m_pct).toBeCloseTo(40, 9);
    // Only the clock moves (a SOL price at 500 s): the window starts at 205 s, after the 25 % trade.
    await engine.ingest(price(T0 + 500 * S));
    expect((await totals(CURVE)).bonding_curve_gain_5m_pct).toBeCloseTo(25, 9);
    await engine.ingest(price(T0 + 700 * S));
    expect((await totals(CURVE)).bonding_curve_gain_5m_pct).toBeCloseTo(0, 9);
    // Sells give progress back: 50 % → 45 % within the window reads 0, not −5 (0 to 100).
    await engine.ingest(curveSwap(T0 + 710 * S, 440));
    expect((await totals(CURVE)).bonding_curve_gain_5m_pct).toBe(0);
    // A gain again on top of the loss: from 50 % at the window start to 55 %.
    await engine.ingest(curveSwap(T0 + 720 * S, 360));
    expect((await totals(CURVE)).bonding_curve_gain_5m_pct).toBeCloseTo(5, 9);
  });

  it('is null for an AMM pool, and for the curve once it graduated', async () => {
    await engine.ingest({ type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + 800 * S, migrated_from_pool_address: CURVE, slot: ++slot });
    await engine.ingest({ type: 'migration', token_address: MINT, from_pool_address: CURVE, to_pool_address: AMM, slot: ++slot, at: T0 + 800 * S });
    await engine.ingest(ammSwap(T0 + 800 * S, 200));
    expect((await totals(CURVE)).bonding_curve_gain_5m_pct).toBeNull();
    expect((await totals(AMM)).bonding_curve_gain_5m_pct).toBeNull();
  });

  it('serves a fresh circulating_supply on /pools/{pool} when another pool of the token trades in the same second', async () => {
    // Supply 1e9; the graduated curve holds nothing, the AMM pool its base reserve.
    expect((await totals(CURVE)).circulating_supply).toBeCloseTo(800 * 1e6, 3);
    // A trade of the AMM pool in the same second as the cached response: the curve's view changes too.
    await engine.ingest(ammSwap(T0 + 800 * S, 300));
    expect((await totals(CURVE)).circulating_supply).toBeCloseTo(700 * 1e6, 3);
    expect((await totals(AMM)).circulating_supply).toBeCloseTo(700 * 1e6, 3);
  });
});
