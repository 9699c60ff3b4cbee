import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * The token metadata merge of INGEST.md (`token`: a later event merges the fields it
 * carries, null clears; "later" is by chain position, as every derived value must not
 * depend on arrival order), and a bonding curve's graduation (INGEST.md `migration`,
 * SERVICE.md 3.1), read over HTTP.
 */

const r = rng(5150);
const MINT_IN_ORDER = base58(r, 44);
const MINT_SHUFFLED = base58(r, 44);
const GRAD_MINT = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const LIFE_MINT = base58(r, 44);
const LIFE_CURVE = base58(r, 44);
const LIFE_AMM = base58(r, 44);
const WALLET = base58(r, 44);
const CREATOR = base58(r, 44);
const T0 = 1_767_225_600_000;

let srv: ServedEngine;
let engine: Engine;

beforeAll(async () => {
  srv = await startServedEngine([{ type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 }]);
  engine = srv.engine;
});
afterAll(() => srv.stop());

async function ingest(...events: unknown[]): Promise<void> {
  for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
}

async function data(path: string): Promise<any> {
  const { status, body } = await srv.get(path);
  expect(status, path).toBe(200);
  return body.data;
}

describe('token metadata merge', () => {
  /** Four token events of one mint, by slot: the first sets everything, later ones change parts. */
  const events = (mint: string) => {
    const first = {
      type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'FIRST', name: 'First Name',
      description: 'first description', image_url: 'https://example.com/first.png', socials: { x: 'https://x.com/first' },
      creator_address: CREATOR, launched_at: T0, mayhem_mode: true, mayhem_ends_at: T0 + 3_600_000, creator_fee_destination: 'shared',
      slot: 100, at: T0,
    };
    // Slot 200: a new symbol, description and image cleared; the rest absent.
    const clearing = { type: 'token', token_address: mint, symbol: 'SECOND', description: null, image_url: null, mayhem_ends_at: null, slot: 200, at: T0 + 80_000 };
    // Slot 150: older than `clearing` for every field it carries.
    const stale = {
      type: 'token', token_address: mint, symbol: 'STALE', description: 'stale description', image_url: 'https://example.com/stale.png',
      mayhem_ends_at: T0 + 7_200_000, slot: 150, at: T0 + 60_000,
    };
    // Slot 300: only the name.
    const renaming = { type: 'token', token_address: mint, name: 'Third Name', slot: 300, at: T0 + 120_000 };
    return { first, clearing, stale, renaming };
  };

  const expected = (mint: string) => ({
    token_address: mint,
    symbol: 'SECOND', // from slot 200: the later slot 150 arrival does not overwrite it
    name: 'Third Name', // from slot 300
    description: null, // cleared at slot 200
    image_url: null, // cleared at slot 200
    mayhem_ends_at: null, // cleared at slot 200
    socials: { x: 'https://x.com/first' }, // absent from every later event: kept
    decimals: 6,
    launched_at: T0,
    mayhem_mode: true,
    creator_fee_destination: 'shared',
    tags: [],
    migrated: false,
  });

  it('clears fields set to null, keeps absent ones, and never lets an older event overwrite a newer one', async () => {
    const e = events(MINT_IN_ORDER);
    await ingest(e.first);
    expect((await data(`/v1/tokens/${MINT_IN_ORDER}`)).token).toEqual({ ...expected(MINT_IN_ORDER), symbol: 'FIRST', name: 'First Name', description: 'first description', image_url: 'https://example.com/first.png', mayhem_ends_at: T0 + 3_600_000 });
    await ingest(e.clearing);
    expect((await data(`/v1/tokens/${MINT_IN_ORDER}`)).token).toEqual({ ...expected(MINT_IN_ORDER), name: 'First Name' });
    // Arrives after the slot 200 event, but is older: changes nothing.
    await ingest(e.stale);
    expect((await data(`/v1/tokens/${MINT_IN_ORDER}`)).token).toEqual({ ...expected(MINT_IN_ORDER), name: 'First Name' });
    await ingest(e.renaming);
    expect((await data(`/v1/tokens/${MINT_IN_ORDER}`)).token).toEqual(expected(MINT_IN_ORDER));
  });

  it('gives the same token whatever the arrival order', async () => {
    const e = events(MINT_SHUFFLED);
    await ingest(e.first, e.renaming, e.clearing, e.stale);
    expect((await data(`/v1/tokens/${MINT_SHUFFLED}`)).token).toEqual(expected(MINT_SHUFFLED));
    const many = await data(`/v1/tokens?addresses=${MINT_SHUFFLED},${MINT_IN_ORDER}`);
    expect(many.map((t: any) => t.token)).toEqual([expected(MINT_SHUFFLED), expected(MINT_IN_ORDER)]);
  });
});

const tokenEvent = (mint: string, slot: number) => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'GRD', name: 'Graduate', slot, at: T0 });
const curveEvent = (pool: string, mint: string, slot: number) => ({
  type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0 + 1_000,
  curve_initial_real_base_raw: '793100000000000', slot,
});
/** The AMM's own pool event: no migrated_from_pool_address. */
const ammEvent = (pool: string, mint: string, slot: number, at: number) => ({
  type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: at, slot,
});
let txSeed = 90_000;
/** A curve buy leaving `realBase` raw tokens in the curve. */
const curveBuy = (pool: string, slot: number, at: number, realBase: string) => ({
  type: 'swap', tx_hash: base58(rng(txSeed++), 88), slot, tx_index: 0, event_index: 0, at, pool_address: pool, wallet_address: WALLET, side: 'buy',
  base_amount_raw: '100000000000000', quote_amount_raw: '5000000000', base_reserve_raw: '500000000000000', quote_reserve_raw: '60000000000',
  real_base_reserve_raw: realBase, real_quote_reserve_raw: '30000000000',
});

describe('graduation', () => {
  it('a migration event alone sets migrated_from_pool_address and migrated_at on the AMM pool', async () => {
    const MIGRATED_AT = T0 + 50_000;
    await ingest(tokenEvent(GRAD_MINT, 500), curveEvent(CURVE, GRAD_MINT, 501), curveBuy(CURVE, 502, T0 + 2_000, '693100000000000'));
    await ingest(ammEvent(AMM, GRAD_MINT, 600, MIGRATED_AT));
    const before = await data(`/v1/pools/${AMM}`);
    expect(before.pool).toMatchObject({ pool_address: AMM, migrated_from_pool_address: null, migrated_at: null });
    expect((await data(`/v1/pools/${CURVE}`)).replaced_by_pool_address).toBeNull();
    expect((await data(`/v1/tokens/${GRAD_MINT}`)).token.migrated).toBe(false);

    await ingest({ type: 'migration', token_address: GRAD_MINT, from_pool_address: CURVE, to_pool_address: AMM, slot: 600, at: MIGRATED_AT });
    const amm = await data(`/v1/pools/${AMM}`);
    expect(amm.pool).toMatchObject({ pool_address: AMM, pool_type: 'amm', migrated_from_pool_address: CURVE, migrated_at: MIGRATED_AT });
    const curve = await data(`/v1/pools/${CURVE}`);
    expect(curve.replaced_by_pool_address).toBe(AMM);
    expect(curve.pool.pool_address).toBe(CURVE);
    expect(curve.snapshot.bonding_curve_progress_pct).toBe(0); // 0 after migration
    expect((await data(`/v1/tokens/${GRAD_MINT}`)).token.migrated).toBe(true);
    // The curve's trade now shows in the AMM's trades (pool trades include the curve it graduated from).
    const trades = await data(`/v1/pools/${AMM}/trades?start_time=${T0}`);
    expect(trades.map((t: any) => [t.pool_address, t.created_at])).toEqual([[CURVE, T0 + 2_000]]);
  });

  it('a curve passes through complete when its real base reserve reaches 0, then graduated after the migration', async () => {
    const lifecycle = async (pool: string) => {
      const viaHttp = (await data(`/v1/pools/${pool}`)).lifecycle;
      expect(engine.pools.lifecycle(pool)).toBe(viaHttp);
      return viaHttp;
    };
    await ingest(tokenEvent(LIFE_MINT, 700), curveEvent(LIFE_CURVE, LIFE_MINT, 701));
    expect(await lifecycle(LIFE_CURVE)).toBe('curve');
    // 793,100,000 → 393,100,000 real tokens: half-way (progress 100 × 400/793.1).
    await ingest(curveBuy(LIFE_CURVE, 702, T0 + 3_000, '393100000000000'));
    expect(await lifecycle(LIFE_CURVE)).toBe('curve');
    expect((await data(`/v1/pools/${LIFE_CURVE}`)).snapshot.bonding_curve_progress_pct).toBeCloseTo((100 * 400) / 793.1, 9);
    // The last real token bought: complete, before any migration.
    await ingest(curveBuy(LIFE_CURVE, 703, T0 + 4_000, '0'));
    expect(await lifecycle(LIFE_CURVE)).toBe('complete');
    const complete = await data(`/v1/pools/${LIFE_CURVE}`);
    expect(complete.snapshot.bonding_curve_progress_pct).toBe(100);
    expect(complete.replaced_by_pool_address).toBeNull();
    // Still complete once the AMM pool exists but no migration names it.
    await ingest(ammEvent(LIFE_AMM, LIFE_MINT, 710, T0 + 9_000));
    expect(await lifecycle(LIFE_CURVE)).toBe('complete');
    expect(await lifecycle(LIFE_AMM)).toBe('trading');
    await ingest({ type: 'migration', token_address: LIFE_MINT, from_pool_address: LIFE_CURVE, to_pool_address: LIFE_AMM, slot: 710, at: T0 + 9_000 });
    expect(await lifecycle(LIFE_CURVE)).toBe('graduated');
    expect(await lifecycle(LIFE_AMM)).toBe('trading');
    expect((await data(`/v1/pools/${LIFE_CURVE}`)).replaced_by_pool_address).toBe(LIFE_AMM);
  });
});
