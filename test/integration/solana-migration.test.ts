import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { PUMP_AMM_PROGRAM, PUMP_PROGRAM, SolanaDecoder } from '../../engine/sources/solana/decode.ts';
import { AMM_BUY_EVENT, AMM_SELL_EVENT, COMPLETE_EVENT, CREATE_EVENT, CREATE_POOL_EVENT, MIGRATION_EVENT, TRADE_EVENT } from '../../engine/sources/solana/layouts.ts';
import { WSOL } from '../../engine/model/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { tempDir, testConfig, type TempDir } from '../helpers/fixtures.ts';
import { encodeEvent, rpcTransaction, selfCpi } from '../helpers/solana.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * A graduation, which the recorded fixtures do not hold, made of SOLANA.md's layouts:
 * a create and buys empty the curve (CompleteEvent), `migrate` makes the PumpSwap pool
 * (CreatePoolEvent at stack height 3, CompletePumpAmmMigrationEvent), and trades go on
 * in that pool. Decoded and ingested, the token reports migrated, the curve names the
 * pool that replaced it, and token_trades follows the token there (SERVICE.md 3.1).
 */

const key = () => bs58.encode(randomBytes(32));
const decoder = new SolanaDecoder();
const MINT = key();
const CURVE = decoder.bondingCurve(MINT);
const POOL = key();
const CREATOR = key();
const BUYER = key();
const TRADER = key();
const EVENT_AUTHORITY = 'Ce6TQqeHC9p8KetsN6JsjHK7UTZk7nasjjnr7XxXp9F1';
const AMM_EVENT_AUTHORITY = 'GS4CU59F31iL7aR2Q8zVS8DRrcRnXX1yjQ66TqNVQnaR';
const T0 = 1_767_225_600; // seconds
const sig = () => bs58.encode(randomBytes(64));
const pumpEvent = (data: Buffer, stackHeight = 2) => ({ program: PUMP_PROGRAM, accounts: [EVENT_AUTHORITY], data: selfCpi(data), stackHeight });
const ammEvent = (data: Buffer, stackHeight: number) => ({ program: PUMP_AMM_PROGRAM, accounts: [AMM_EVENT_AUTHORITY], data: selfCpi(data), stackHeight });
const ix = (program: string, accounts: string[], disc: string) => ({ program, accounts, data: Buffer.from(disc, 'hex') });
const BUY = '66063d1201daebea';
const SELL = '33e685a4017f83ad';

const trade = (at: number, sol: bigint, tokens: bigint, buy: boolean, user: string, vSol: bigint, vTok: bigint, rSol: bigint, rTok: bigint) =>
  encodeEvent(TRADE_EVENT, {
    mint: MINT, sol_amount: sol, token_amount: tokens, is_buy: buy, user, timestamp: at, virtual_sol_reserves: vSol, virtual_token_reserves: vTok,
    real_sol_reserves: rSol, real_token_reserves: rTok, fee_recipient: key(), fee_basis_points: 95n, fee: sol / 100n, creator: CREATOR,
    creator_fee_basis_points: 5n, creator_fee: sol / 2000n,
  });

const ammSwap = (buy: boolean, at: number, base: bigint, quote: bigint, poolBase: bigint, poolQuote: bigint, lpFee: bigint) =>
  encodeEvent(buy ? AMM_BUY_EVENT : AMM_SELL_EVENT, {
    timestamp: at, [buy ? 'base_amount_out' : 'base_amount_in']: base, [buy ? 'max_quote_amount_in' : 'min_quote_amount_out']: quote,
    user_base_token_reserves: 0n, user_quote_token_reserves: 0n, pool_base_token_reserves: poolBase, pool_quote_token_reserves: poolQuote,
    [buy ? 'quote_amount_in' : 'quote_amount_out']: quote, lp_fee_basis_points: 20n, lp_fee: lpFee, protocol_fee_basis_points: 5n, protocol_fee: 1000n,
    [buy ? 'quote_amount_in_with_lp_fee' : 'quote_amount_out_without_lp_fee']: buy ? quote + lpFee : quote - lpFee,
    [buy ? 'user_quote_amount_in' : 'user_quote_amount_out']: quote, pool: POOL, user: TRADER, user_base_token_account: key(),
    user_quote_token_account: key(), protocol_fee_recipient: key(), protocol_fee_recipient_token_account: key(),
  });

/** The five transactions, in chain order. */
const TXS = [
  // Slot 1000: create (CreateEvent of 2025, every field through is_mayhem_mode), the creator buys 400M tokens for 20 SOL.
  rpcTransaction({
    signature: sig(), slot: 1000, blockTime: T0,
    outer: [ix(PUMP_PROGRAM, [MINT, key(), CURVE], '181ec828051c0777'), ix(PUMP_PROGRAM, [key(), key(), MINT, CURVE], BUY)],
    inner: {
      0: [pumpEvent(encodeEvent(CREATE_EVENT, {
        name: 'Grad Token', symbol: 'GRAD', uri: 'https://example.com/grad.json', mint: MINT, bonding_curve: CURVE, user: CREATOR, creator: CREATOR,
        timestamp: T0, virtual_token_reserves: 1_073_000_000_000_000n, virtual_sol_reserves: 30_000_000_000n, real_token_reserves: 793_100_000_000_000n,
        token_total_supply: 1_000_000_000_000_000n, token_program: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', is_mayhem_mode: false,
      }))],
      1: [pumpEvent(trade(T0, 20_000_000_000n, 400_000_000_000_000n, true, CREATOR, 50_000_000_000n, 673_000_000_000_000n, 20_000_000_000n, 393_100_000_000_000n))],
    },
    postTokenBalances: [{ mint: MINT, owner: CREATOR, amount: '400000000000000' }],
  }),
  // Slot 1001: a buy of the last 393.1M real tokens: the curve is complete.
  rpcTransaction({
    signature: sig(), slot: 1001, blockTime: T0 + 1,
    outer: [ix(PUMP_PROGRAM, [key(), key(), MINT, CURVE], BUY)],
    inner: {
      0: [
        pumpEvent(trade(T0 + 1, 55_000_000_000n, 393_100_000_000_000n, true, BUYER, 105_000_000_000n, 279_900_000_000_000n, 75_000_000_000n, 0n)),
        pumpEvent(encodeEvent(COMPLETE_EVENT, { user: BUYER, mint: MINT, bonding_curve: CURVE, timestamp: T0 + 1 })),
      ],
    },
  }),
  // Slot 1010: migrate: pump invokes PumpSwap create_pool (its event at stack height 3), then emits the migration.
  rpcTransaction({
    signature: sig(), slot: 1010, blockTime: T0 + 10,
    outer: [ix(PUMP_PROGRAM, [key(), key(), MINT, CURVE, POOL], '9beae792ec9ea21e')],
    inner: {
      0: [
        { ...ix(PUMP_AMM_PROGRAM, [POOL, key(), key(), MINT, WSOL], 'e992d18ecf6840bc'), stackHeight: 2 },
        ammEvent(encodeEvent(CREATE_POOL_EVENT, {
          timestamp: T0 + 10, index: 0, creator: key(), base_mint: MINT, quote_mint: WSOL, base_mint_decimals: 6, quote_mint_decimals: 9,
          base_amount_in: 206_900_000_000_000n, quote_amount_in: 69_000_000_000n, pool_base_amount: 206_900_000_000_000n, pool_quote_amount: 69_000_000_000n,
          minimum_liquidity: 100n, initial_liquidity: 3_778_000_000_000n, lp_token_amount_out: 3_777_999_999_900n, pool_bump: 255, pool: POOL,
          lp_mint: key(), user_base_token_account: key(), user_quote_token_account: key(), coin_creator: CREATOR, is_mayhem_mode: false,
        }), 3),
        pumpEvent(encodeEvent(MIGRATION_EVENT, {
          user: key(), mint: MINT, mint_amount: 206_900_000_000_000n, sol_amount: 69_000_000_000n, pool_migration_fee: 15_000_000n, bonding_curve: CURVE,
          timestamp: T0 + 10, pool: POOL,
        })),
      ],
    },
  }),
  // Slot 1020 and 1021: a PumpSwap buy then a sell in the new pool (base = the token, quote = wSOL).
  rpcTransaction({
    signature: sig(), slot: 1020, blockTime: T0 + 20,
    outer: [ix(PUMP_AMM_PROGRAM, [POOL, TRADER, key(), MINT, WSOL], BUY)],
    inner: { 0: [ammEvent(ammSwap(true, T0 + 20, 1_000_000_000_000n, 334_000_000n, 206_900_000_000_000n, 69_000_000_000n, 668_000n), 2)] },
  }),
  rpcTransaction({
    signature: sig(), slot: 1021, blockTime: T0 + 21,
    outer: [ix(PUMP_AMM_PROGRAM, [POOL, TRADER, key(), MINT, WSOL], SELL)],
    inner: { 0: [ammEvent(ammSwap(false, T0 + 21, 500_000_000_000n, 167_000_000n, 205_900_000_000_000n, 69_334_668_000n, 334_000n), 2)] },
  }),
];

const decodeTx = (i: number) => [...new SolanaDecoder().decodeValue(TXS[i])][0]!;

describe('a graduation made of SOLANA.md layouts', () => {
  let dir: TempDir;
  let engine: Engine;
  let http: EngineServer;
  let ws: WsTestServer;

  beforeAll(async () => {
    dir = tempDir();
    engine = await createEngine({ config: testConfig(dir.path) });
    expect((await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 * 1000 })).status).toBe('applied');
    http = await serveEngine(engine);
    ws = await startWsServer({ engine });
  });
  afterAll(async () => {
    http.close();
    await ws.close();
    await engine.stop();
    dir.cleanup();
  });

  async function ingest(i: number) {
    const decoded = decodeTx(i);
    expect(decoded.rejects).toEqual([]);
    for (const e of decoded.events) expect((await engine.ingest(e)).status, JSON.stringify(e)).toBe('applied');
    return decoded;
  }
  const data = async (path: string) => {
    const { status, body } = await http.get(path);
    expect(status, path).toBe(200);
    return body.data;
  };

  it('migrate decodes to one pool (the CreatePoolEvent with the curve it came from) and then the migration', () => {
    const d = decodeTx(2);
    expect(d.found.map((f) => f.raw.name)).toEqual(['pump_amm.CreatePoolEvent', 'pump.CompletePumpAmmMigrationEvent']);
    expect(d.events).toEqual([
      { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: (T0 + 10) * 1000, migrated_from_pool_address: CURVE, slot: 1010 },
      { type: 'migration', token_address: MINT, from_pool_address: CURVE, to_pool_address: POOL, slot: 1010, at: (T0 + 10) * 1000 },
    ]);
  });

  it('curve complete, migrate, the PumpSwap pool trades; the token migrated; token_trades follows', async () => {
    await ingest(0);
    expect((await data(`/v1/pools/${CURVE}`)).lifecycle).toBe('curve');
    await ingest(1);
    const complete = await data(`/v1/pools/${CURVE}`);
    expect([complete.lifecycle, complete.snapshot.bonding_curve_progress_pct]).toEqual(['complete', 100]);
    expect((await data(`/v1/tokens/${MINT}`)).token.migrated).toBe(false);

    await ingest(2);
    const curve = await data(`/v1/pools/${CURVE}`);
    expect([curve.lifecycle, curve.replaced_by_pool_address, curve.snapshot.bonding_curve_progress_pct]).toEqual(['graduated', POOL, 0]);
    expect((await data(`/v1/pools/${POOL}`)).pool).toMatchObject({ pool_type: 'amm', dex: 'pumpswap', migrated_from_pool_address: CURVE, migrated_at: (T0 + 10) * 1000 });
    expect((await data(`/v1/tokens/${MINT}`)).token).toMatchObject({ migrated: true, symbol: 'GRAD', name: 'Grad Token' });

    const client = await TestClient.connect(ws.url, { key: (await ws.key('pro')).key });
    client.subscribe('token_trades', { token_address: MINT });
    await client.untilPong();
    await ingest(3);
    await ingest(4);
    const frames = [await client.next(), await client.next()];
    expect(frames.map((f) => [f.stream, f.data.pool_address, f.data.type, f.data.token_amount])).toEqual([
      ['token_trades', POOL, 'buy', 1_000_000],
      ['token_trades', POOL, 'sell', 500_000],
    ]);
    client.close();
    await client.closed;
    // Reserves after each trade: before-reserves ± the amounts, the LP fee kept in the pool.
    const pool = await data(`/v1/pools/${POOL}`);
    expect(pool.snapshot).toBeTypeOf('object');
    const sell = decodeTx(4).events[0]!;
    expect([sell.base_reserve_raw, sell.quote_reserve_raw]).toEqual([String(205_900_000_000_000n + 500_000_000_000n), String(69_334_668_000n - 167_000_000n + 334_000n)]);
  });
});
