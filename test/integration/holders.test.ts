import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * Holder-based totals over real HTTP, across a crash (snapshot + the log after the
 * checkpoint), a clean restart (snapshots only) and passivation.
 */

const r = rng(6_060);
const MINT = base58(r, 44);
const CURVE = base58(r, 44);
const DEV = base58(r, 44);
const [B1, S1, R1, R2] = Array.from({ length: 4 }, () => base58(r, 44));
const T0 = 1_767_225_600_000;
/** Raw units of n whole tokens (6 decimals). */
const tokens = (n: number) => String(n * 1e6);
const balance = (wallet: string, n: number, slot: number) => ({ type: 'balance', token_address: MINT, wallet_address: wallet, balance_raw: tokens(n), slot, at: T0 + (slot - 100) * 400 });
const M = 1_000_000;
const ACTORS = { idleMs: 3_600_000, sweepMs: 3_600_000, checkpointMs: 3_600_000 };

// Supply 1e9 tokens; the curve is created in slot 100 and sells 35M tokens in slot 101.
const BEFORE_CHECKPOINT = [
  { type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 },
  { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'HOLD', creator_address: DEV, slot: 100, at: T0 },
  { type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, curve_initial_real_base_raw: '793100000000000', slot: 100 },
  {
    type: 'swap', tx_hash: base58(r, 88), slot: 101, tx_index: 0, event_index: 0, at: T0 + 400, pool_address: CURVE, wallet_address: S1, side: 'buy',
    base_amount_raw: tokens(35 * M), quote_amount_raw: '1000000000', base_reserve_raw: '1038000000000000', quote_reserve_raw: '31000000000',
    real_base_reserve_raw: '758100000000000', real_quote_reserve_raw: '1000000000',
  },
  balance(DEV, 10 * M, 100), // the creator
  balance(B1, 15 * M, 100), // bundler: first holding in the creation slot
  balance(S1, 5 * M, 102), // sniper: within 3 slots after it
  balance(R1, 3 * M, 110),
  balance(R2, 2 * M, 111),
];
const AFTER_CHECKPOINT = [
  balance(S1, 0, 130), // the sniper sells out
  balance(R1, 8 * M, 130),
  balance(R2, 9 * M, 105), // older than R2's balance of slot 111: ignored
];

/** Holders after both parts: DEV 10M, B1 15M, R1 8M, R2 2M of 1e9. */
const EXPECTED = {
  holder_count: 4, top10_pct: 3.5, dev_pct: 1, bundle_pct: 1.5, sniper_pct: 0, bundler_count: 1, total_supply: 1e9, circulating_supply: 35 * M,
};

let dir: TempDir;
let data: string;
let engine: Engine;
let served: EngineServer;

/** Ingests the first part, checkpoints, ingests the second and exits without stopping: a crash. */
function crashAfterCheckpoint(): Promise<string> {
  const events = join(dir.path, 'events.json');
  writeFileSync(events, JSON.stringify([BEFORE_CHECKPOINT, AFTER_CHECKPOINT]));
  const url = (p: string) => new URL(p, import.meta.url).href;
  const script = `
    import { readFileSync } from 'node:fs';
    const { createEngine } = await import(${JSON.stringify(url('../../engine/system.ts'))});
    const { testConfig } = await import(${JSON.stringify(url('../helpers/fixtures.ts'))});
    const [before, after] = JSON.parse(readFileSync(${JSON.stringify(events)}, 'utf8'));
    const engine = await createEngine({ config: testConfig(${JSON.stringify(data)}, { actors: ${JSON.stringify(ACTORS)} }) });
    for (const e of before) if ((await engine.ingest(e)).status !== 'applied') throw new Error('not applied: ' + JSON.stringify(e));
    await engine.checkpoint();
    for (const e of after) if ((await engine.ingest(e)).status !== 'applied') throw new Error('not applied: ' + JSON.stringify(e));
    process.stdout.write(JSON.stringify(engine.query.market.pools.pool(${JSON.stringify(CURVE)}).totals));
    process.exit(0);
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

async function open(): Promise<void> {
  engine = await createEngine({ config: testConfig(data, { actors: ACTORS }) });
  served = await serveEngine(engine);
}

async function close(): Promise<void> {
  served.close();
  await engine.stop();
}

async function totals(): Promise<Record<string, unknown>> {
  const pool = await served.get(`/v1/pools/${CURVE}`);
  expect(pool.status).toBe(200);
  const token = await served.get(`/v1/tokens/${MINT}`);
  expect(token.status).toBe(200);
  // The token overview shows its main pool's totals: this curve.
  expect(token.body.data.totals).toEqual(pool.body.data.totals);
  return pool.body.data.totals;
}

function expectHolderTotals(t: Record<string, unknown>, expected: Record<string, number>): void {
  for (const [field, value] of Object.entries(expected)) expect(t[field] as number, field).toBeCloseTo(value, 9);
  // The curve's one trade sold 35M of 793.1M, with no trade before the 5m window: all of it gained in it.
  expect(t.bonding_curve_gain_5m_pct as number).toBeCloseTo((100 * 35) / 793.1, 9);
}

beforeAll(async () => {
  dir = tempDir();
  data = join(dir.path, 'data');
});

afterAll(async () => {
  dir.cleanup();
});

describe('holder-based totals', () => {
  it('are the hand-computed values after a crash (snapshot + log replay), a restart and passivation', async () => {
    const beforeCrash = JSON.parse(await crashAfterCheckpoint());
    expectHolderTotals(beforeCrash, EXPECTED);

    // The token's snapshot holds the first part; the second is replayed from the log.
    await open();
    const afterCrash = await totals();
    expectHolderTotals(afterCrash, EXPECTED);
    expect(afterCrash).toEqual(beforeCrash);

    // A clean restart: everything from snapshots.
    await close();
    await open();
    expect(await totals()).toEqual(afterCrash);

    // Passivated, then a new balance: the creator sells out.
    expect(await engine.passivateIdle(Number.POSITIVE_INFINITY)).toBeGreaterThan(0);
    expect(engine.tokens.isResident(MINT)).toBe(false);
    expect((await engine.ingest(balance(DEV, 0, 200))).status).toBe('applied');
    const later = { ...EXPECTED, holder_count: 3, top10_pct: 2.5, dev_pct: 0 };
    expectHolderTotals(await totals(), later);

    // A repeated event changes nothing; a restart keeps the numbers.
    expect((await engine.ingest(balance(DEV, 0, 200))).status).toBe('duplicate');
    const settled = await totals();
    await close();
    await open();
    expect(await totals()).toEqual(settled);
    expectHolderTotals(settled, later);
    await close();
  });
});
