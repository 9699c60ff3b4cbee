import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { BURN_ADDRESS } from '../../engine/model/index.ts';
import { openStorage } from '../../storage/lmdb.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * DECISIONS.md routes 3, 4, 6 and 27 over real HTTP on a real engine: holder stats and
 * the holder list from a known set of balances (a pool account and the burn address
 * holding tokens, a wallet gone to zero, ties, a balance arriving late), paging while
 * balances change, labels and the Pro-only label filter, the bonding curve before and
 * after graduation, and a creator's deployed tokens (across a restart).
 */

const r = rng(2_222);
const MINT = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const DEV = base58(r, 44);
const OTHER = base58(r, 44);
const [S1, BUNDLER, A, B, C, D, E, I, H, F, G] = Array.from({ length: 11 }, () => base58(r, 44));
const X = Array.from({ length: 110 }, () => base58(r, 44));
const T2 = base58(r, 44);
const CURVE2 = base58(r, 44);
const T3 = base58(r, 44);
const T4 = base58(r, 44);
const NOBODY = base58(r, 44);
const NONE = base58(r, 44);
const T0 = 1_767_225_600_000;
const SOL_USD = 150;
/** Whole tokens → raw (6 decimals). */
const raw = (n: number) => String(Math.round(n * 1e6));
const atOf = (slot: number) => T0 + (slot - 100) * 400;
const balance = (wallet: string, n: number, slot: number) => ({ type: 'balance', token_address: MINT, wallet_address: wallet, balance_raw: raw(n), slot, at: atOf(slot) });
let tx = 0;
const swap = (pool: string, slot: number, extra: Record<string, unknown>) => ({
  type: 'swap', tx_hash: base58(rng(9_000 + ++tx), 88), slot, tx_index: 0, event_index: 0, at: atOf(slot), pool_address: pool, wallet_address: S1, side: 'buy', ...extra,
});

/** Supply 1e9 tokens; the curve's virtual reserves after its trade: 1e9 tokens and 100,000 SOL, so 1e-4 SOL ($0.015) a token. */
const PRICE_USD = (100_000 / 1e9) * SOL_USD;

/** Final balances of the holders (whole tokens), by hand; the curve, the burn address and G (sold out) are not holders. */
const HOLDERS = new Map<string, number>([
  [S1, 35_000_000], // sniper (slot 101)
  [DEV, 10_000_000], // the creator
  [BUNDLER, 1_500_000], // bundler (slot 100)
  [A, 5_000_000],
  [B, 5_000_000], // a tie with A
  [C, 2_000_000],
  [D, 1_000_000],
  [E, 100_000], // $1,500
  [I, 10_000], // $150
  [H, 1_000], // $15
  [F, 500], // $7.50
  ...X.map((w, i): [string, number] => [w, 200 + i]), // $3.00 to $4.64
]);

const EVENTS = [
  { type: 'quote_price', quote_address: WSOL, price_usd: SOL_USD, at: T0 },
  { type: 'token', token_address: MINT, decimals: 6, supply_raw: raw(1e9), symbol: 'HOLD', name: 'Holders', creator_address: DEV, slot: 100, at: T0 },
  { type: 'token', token_address: NONE, decimals: 6, supply_raw: raw(1e9), symbol: 'NONE', slot: 100, at: T0 },
  { type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, curve_initial_real_base_raw: raw(793_100_000), slot: 100 },
  swap(CURVE, 101, {
    base_amount_raw: raw(35_000_000), quote_amount_raw: '1000000000', base_reserve_raw: raw(1e9), quote_reserve_raw: String(100_000 * 1e9),
    real_base_reserve_raw: raw(758_100_000), real_quote_reserve_raw: '1000000000',
  }),
  balance(CURVE, 758_100_000, 101), // the pool's own account
  balance(BURN_ADDRESS, 50_000_000, 105),
  balance(G, 3_000_000, 106),
  balance(G, 0, 130), // sold out: a tombstone
  ...[...HOLDERS].map(([wallet, n], i) => balance(wallet, n, wallet === S1 ? 101 : wallet === BUNDLER || wallet === DEV ? 100 : 110 + i)),
  balance(C, 1_000_000, 108), // older than C's balance: C holds 2M, first seen at slot 108
  { type: 'label', wallet_address: A, label: 'kol', action: 'add', at: T0 },
  { type: 'label', wallet_address: X[5], label: 'kol', action: 'add', at: T0 },
  { type: 'label', wallet_address: C, label: 'smart_money', action: 'add', at: T0 },
];

let dir: TempDir;
let engine: Engine;
let pro: EngineServer;
let starter: EngineServer;

async function open(): Promise<void> {
  engine = await createEngine({ config: testConfig(dir.path) });
  pro = await serveEngine(engine, { plan: 'pro' });
  starter = await serveEngine(engine, { plan: 'starter' });
}

async function close(): Promise<void> {
  pro.close();
  starter.close();
  await engine.stop();
}

async function ingest(...events: unknown[]): Promise<void> {
  for (const e of events) expect((await engine.ingest(e)).status, JSON.stringify(e)).toBe('applied');
}

async function data(path: string, server = pro): Promise<any> {
  const { status, body } = await server.get(path);
  expect(status, `${path}: ${JSON.stringify(body)}`).toBe(200);
  return body;
}

async function failure(path: string, server = pro): Promise<{ status: number; code: number; message: string }> {
  const { status, body } = await server.get(path);
  return { status, code: body.code, message: body.message };
}

/** Every page of a walk over the holder list. */
async function walk(path: string, between?: (page: number) => Promise<void>): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    const body = await data(cursor === null ? path : `${path}&cursor=${encodeURIComponent(cursor)}`);
    items.push(...body.data);
    if (!body.pagination.has_more) {
      expect(body.pagination.next_cursor).toBeNull();
      return items;
    }
    cursor = body.pagination.next_cursor;
    await between?.(page);
  }
}

/** The holders in list order by brute force: largest first, ties by address. */
const byHand = (holders: Map<string, number>) => [...holders].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));

beforeAll(async () => {
  dir = tempDir();
  await open();
  await ingest(...EVENTS);
});
afterAll(async () => {
  await close();
  dir.cleanup();
});

describe('holder stats (route 3)', () => {
  it('are the hand-computed values: pool account, burn address and sold-out wallet left out', async () => {
    const s = (await data(`/v1/tokens/${MINT}/holders/stats`)).data;
    expect(s.holder_count).toBe(HOLDERS.size);
    expect(s.holder_count).toBe(121);
    expect(s.excluded_addresses).toEqual([CURVE, BURN_ADDRESS]);
    expect(s.price_usd).toBeCloseTo(PRICE_USD, 15);
    expect(s.dev_pct).toBeCloseTo(1, 12);
    expect(s.sniper_count).toBe(1);
    expect(s.sniper_pct).toBeCloseTo(3.5, 12);
    expect(s.bundler_count).toBe(1);
    expect(s.bundle_pct).toBeCloseTo(0.15, 12);
    // $10,000 and more: S1, DEV, BUNDLER ($22,500), A, B, C, D ($15,000); E $1,500; I $150; H $15; F and the 110 X below $10.
    expect(s.distribution).toEqual({ lt_10: 111, '10_100': 1, '100_1k': 1, '1k_10k': 1, gte_10k: 7 });
    const ranked = byHand(HOLDERS).map(([, n]) => n);
    const pct = (from: number, to: number) => (100 * ranked.slice(from, to).reduce((a, b) => a + b, 0)) / 1e9;
    expect(s.top10_pct).toBeCloseTo(pct(0, 10), 12);
    expect(s.supply_pct_by_rank.top_10).toBeCloseTo(pct(0, 10), 12);
    expect(s.supply_pct_by_rank.top_11_50).toBeCloseTo(pct(10, 50), 12);
    expect(s.supply_pct_by_rank.top_51_100).toBeCloseTo(pct(50, 100), 12);
    expect(s.supply_pct_by_rank.rest).toBeCloseTo(pct(100, 121), 12);
    // The token overview's totals say the same (the burn address is no holder there either).
    const totals = (await data(`/v1/tokens/${MINT}`)).data.totals;
    expect(totals.holder_count).toBe(s.holder_count);
    expect(totals.top10_pct).toBeCloseTo(s.top10_pct, 12);
  });
});

describe('holder list (route 4)', () => {
  it('lists every holder largest first, ties by address, with balance, share, value, labels and first_seen_at', async () => {
    const items = await walk(`/v1/tokens/${MINT}/holders?limit=100`);
    const expected = byHand(HOLDERS);
    expect(items.map((h) => h.wallet_address)).toEqual(expected.map(([w]) => w));
    // The tie: A and B hold 5M each, the lower address first.
    const tie = items.filter((h) => h.balance === 5_000_000).map((h) => h.wallet_address);
    expect(tie).toEqual([A, B].sort());
    for (const h of items) {
      const n = HOLDERS.get(h.wallet_address)!;
      expect(h.balance).toBe(n);
      expect(h.balance_raw).toBe(raw(n));
      expect(h.supply_pct).toBeCloseTo((100 * n) / 1e9, 12);
      expect(h.value_usd).toBeCloseTo(n * PRICE_USD, 9);
    }
    // supply_pct sums to what the holders hold, the rank groups' sum.
    const sum = items.reduce((a, h) => a + h.supply_pct, 0);
    const stats = (await data(`/v1/tokens/${MINT}/holders/stats`)).data.supply_pct_by_rank;
    expect(sum).toBeCloseTo(stats.top_10 + stats.top_11_50 + stats.top_51_100 + stats.rest, 9);
    const of = (w: string) => items.find((h) => h.wallet_address === w);
    expect(of(A).labels).toEqual(['kol']);
    expect(of(C).labels).toEqual(['smart_money']);
    expect(of(D).labels).toEqual([]);
    // C's first balance above 0 is the one of slot 108, which arrived after its slot-1xx one.
    expect(of(C).first_seen_at).toBe(atOf(108));
    expect(of(S1).first_seen_at).toBe(atOf(101));
    expect(items.some((h) => [CURVE, BURN_ADDRESS, G].includes(h.wallet_address))).toBe(false);
  });

  it('shows each holder at most once per walk while balances change, and every unchanged holder once', async () => {
    const changed = new Set<string>();
    let slot = 1_000;
    const items = await walk(`/v1/tokens/${MINT}/holders?limit=5`, async (page) => {
      if (page === 0) {
        // S1 was on page 1; it falls below the position: it must not come again.
        await ingest(balance(S1, 100, slot++));
        changed.add(S1);
        // X[0], not shown yet, jumps above the position: it may be left out, never shown twice.
        await ingest(balance(X[0]!, 20_000_000, slot++));
        changed.add(X[0]!);
      }
      if (page === 3) {
        // D (shown on page 1) changes but stays above the position.
        await ingest(balance(D, 900_000, slot++));
        changed.add(D);
      }
    });
    const wallets = items.map((h) => h.wallet_address);
    expect(new Set(wallets).size).toBe(wallets.length);
    for (const w of HOLDERS.keys()) if (!changed.has(w)) expect(wallets, w).toContain(w);
    // Put back as the other tests expect them.
    await ingest(balance(S1, 35_000_000, slot++), balance(X[0]!, 200, slot++), balance(D, 1_000_000, slot++));
  });

  it('filters by label on Pro; 403/4033 naming label below it', async () => {
    const kol = await walk(`/v1/tokens/${MINT}/holders?label=kol`);
    expect(kol.map((h) => h.wallet_address)).toEqual([A, X[5]]);
    expect(kol.every((h) => h.labels.includes('kol'))).toBe(true);
    const denied = await failure(`/v1/tokens/${MINT}/holders?label=kol`, starter);
    expect(denied).toMatchObject({ status: 403, code: 4033 });
    expect(denied.message).toMatch(/^label: needs the pro plan/);
    // Without the filter, every plan.
    expect((await data(`/v1/tokens/${MINT}/holders?limit=3`, starter)).data).toHaveLength(3);
  });

  it('looks at 10,000 holdings a page at most: a rare label ends pages early, with has_more, and the walk goes on', async () => {
    const MANY = base58(r, 44);
    const RARE = base58(r, 44);
    await ingest({ type: 'token', token_address: MANY, decimals: 0, supply_raw: '100000000', symbol: 'MANY', slot: 5_000, at: atOf(5_000) });
    const holders = Array.from({ length: 10_050 }, (_, i) => base58(rng(70_000 + i), 44));
    await Promise.all(holders.map((w, i) => engine.ingest({ type: 'balance', token_address: MANY, wallet_address: w, balance_raw: String(20_000 - i), slot: 5_001 + i, at: atOf(5_001 + i) })));
    await ingest(
      { type: 'balance', token_address: MANY, wallet_address: RARE, balance_raw: '1', slot: 20_000, at: atOf(20_000) },
      { type: 'label', wallet_address: RARE, label: 'rare', action: 'add', at: T0 },
    );
    const first = await data(`/v1/tokens/${MANY}/holders?label=rare`);
    expect(first.data).toEqual([]);
    expect(first.pagination.has_more).toBe(true);
    const second = await data(`/v1/tokens/${MANY}/holders?label=rare&cursor=${encodeURIComponent(first.pagination.next_cursor)}`);
    expect(second.data.map((h: any) => h.wallet_address)).toEqual([RARE]);
    expect(second.pagination).toEqual({ next_cursor: null, has_more: false });
    // Before its first balance a token's holder fields are null.
    const none = (await data(`/v1/tokens/${NONE}/holders/stats`)).data;
    expect(none).toMatchObject({ holder_count: null, top10_pct: null, distribution: null, supply_pct_by_rank: null });
    expect((await data(`/v1/tokens/${NONE}/holders`)).data).toEqual([]);
  });

  it('answers 400 naming the parameter, and 404 for an unknown token', async () => {
    const cases: Array<[string, string]> = [
      ['/v1/tokens/not-an-address/holders', 'token_address'],
      [`/v1/tokens/${MINT}/holders?limit=101`, 'limit'],
      [`/v1/tokens/${MINT}/holders?limit=0`, 'limit'],
      [`/v1/tokens/${MINT}/holders?label=`, 'label'],
      [`/v1/tokens/${MINT}/holders?label=${'k'.repeat(65)}`, 'label'],
      [`/v1/tokens/${MINT}/holders?sort=balance`, 'sort'],
      [`/v1/tokens/${MINT}/holders?cursor=abc`, 'cursor'],
      ['/v1/tokens/not-an-address/holders/stats', 'token_address'],
      [`/v1/tokens/${MINT}/holders/stats?limit=5`, 'limit'],
    ];
    for (const [path, param] of cases) {
      const f = await failure(path);
      expect(f, path).toMatchObject({ status: 400, code: 4000 });
      expect(f.message, path).toContain(param);
    }
    // A cursor of this walk used with another label, or edited, or on another route.
    const first = await data(`/v1/tokens/${MINT}/holders?limit=2`);
    const cursor = first.pagination.next_cursor as string;
    for (const path of [
      `/v1/tokens/${MINT}/holders?limit=2&label=kol&cursor=${cursor}`,
      `/v1/tokens/${NOBODY}/holders?limit=2&cursor=${cursor}`,
      `/v1/tokens/${MINT}/holders?limit=2&cursor=${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BA' : 'AA'}`,
      `/v1/wallets/${DEV}/deployed_tokens?cursor=${cursor}`,
    ]) {
      const f = await failure(path);
      expect(f, path).toMatchObject({ status: 400, code: 4000 });
      expect(f.message, path).toMatch(/^cursor: /);
    }
    for (const path of [`/v1/tokens/${NOBODY}/holders`, `/v1/tokens/${NOBODY}/holders/stats`, `/v1/tokens/${NOBODY}/bonding_curve`]) {
      expect(await failure(path), path).toMatchObject({ status: 404, code: 4040 });
    }
  });
});

describe('bonding curve (route 6) and deployed tokens (route 27)', () => {
  it('shows the curve before graduation', async () => {
    const curve = (await data(`/v1/tokens/${MINT}/bonding_curve`)).data;
    expect(curve).toMatchObject({
      token_address: MINT, pool_address: CURVE, dex: 'pumpfun', quote_address: WSOL, created_at: T0, complete: false,
      real_token_reserve: 758_100_000, real_quote_reserve: 1, virtual_token_reserve: 1e9, virtual_quote_reserve: 100_000, initial_real_token_reserve: 793_100_000,
      migrated_to_pool_address: null, migrated_at: null,
    });
    expect(curve.progress_pct).toBeCloseTo((100 * 35) / 793.1, 9);
    expect(curve.price_quote).toBeCloseTo(1e-4, 15);
  });

  it('shows it complete and migrated after graduation', async () => {
    const migratedAt = atOf(2_002);
    await ingest(
      swap(CURVE, 2_000, {
        base_amount_raw: raw(758_100_000), quote_amount_raw: String(84 * 1e9), base_reserve_raw: raw(279_900_000), quote_reserve_raw: String(115 * 1e9),
        real_base_reserve_raw: '0', real_quote_reserve_raw: String(85 * 1e9),
      }),
      { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: migratedAt, migrated_from_pool_address: CURVE, slot: 2_001 },
      { type: 'migration', token_address: MINT, from_pool_address: CURVE, to_pool_address: AMM, slot: 2_002, at: migratedAt },
      swap(AMM, 2_003, { base_amount_raw: raw(1_000), quote_amount_raw: '400000', base_reserve_raw: raw(200_000_000), quote_reserve_raw: String(80 * 1e9) }),
    );
    const curve = (await data(`/v1/tokens/${MINT}/bonding_curve`)).data;
    expect(curve).toMatchObject({ pool_address: CURVE, complete: true, progress_pct: 100, real_token_reserve: 0, migrated_to_pool_address: AMM, migrated_at: migratedAt });
    // A token without a curve: 404.
    await ingest(
      { type: 'token', token_address: T3, decimals: 6, supply_raw: raw(1e9), symbol: 'NOPOOL', creator_address: DEV, slot: 3_000, at: atOf(3_000) },
    );
    expect(await failure(`/v1/tokens/${T3}/bonding_curve`)).toMatchObject({ status: 404, code: 4040 });
  });

  it('lists the tokens a wallet created, newest first, with migrated flag, main pool and market cap; across a restart', async () => {
    await ingest(
      { type: 'token', token_address: T2, decimals: 6, supply_raw: raw(1e9), symbol: 'TWO', creator_address: DEV, slot: 2_500, at: atOf(2_500) },
      { type: 'pool', pool_address: CURVE2, base_address: T2, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: atOf(2_500), curve_initial_real_base_raw: raw(793_100_000), slot: 2_500 },
      { ...swap(CURVE2, 2_501, { base_amount_raw: raw(1_000), quote_amount_raw: '30', base_reserve_raw: raw(1e9), quote_reserve_raw: String(30 * 1e9), real_base_reserve_raw: raw(793_000_000), real_quote_reserve_raw: '30' }) },
      // T4 is named DEV's, then (a later slot) OTHER's: only OTHER's.
      { type: 'token', token_address: T4, decimals: 6, supply_raw: raw(1e9), symbol: 'FOUR', creator_address: DEV, slot: 3_500, at: atOf(3_500) },
      { type: 'token', token_address: T4, creator_address: OTHER, slot: 3_501, at: atOf(3_501) },
    );
    const check = async () => {
      const all = await walk(`/v1/wallets/${DEV}/deployed_tokens?limit=2`);
      expect(all.map((t) => t.token_address)).toEqual([T3, T2, MINT]);
      const [t3, t2, mint] = all;
      expect(t3).toMatchObject({ symbol: 'NOPOOL', created_at: atOf(3_000), migrated: false, pool_address: null, market_cap_quote: null, market_cap_usd: null });
      expect(t2).toMatchObject({ symbol: 'TWO', migrated: false, pool_address: CURVE2, pool_type: 'bonding_curve' });
      // 30 SOL over 1e9 tokens × 1e9 supply: 30 SOL, $4,500.
      expect(t2.market_cap_quote).toBeCloseTo(30, 9);
      expect(t2.market_cap_usd).toBeCloseTo(30 * SOL_USD, 6);
      // Graduated: its main pool is the AMM (80 SOL over 200M tokens × 1e9 supply: 400 SOL).
      expect(mint).toMatchObject({ symbol: 'HOLD', created_at: T0, migrated: true, migrated_at: atOf(2_002), pool_address: AMM, pool_type: 'amm' });
      expect(mint.market_cap_quote).toBeCloseTo(400, 9);
      expect(mint.market_cap_usd).toBeCloseTo(400 * SOL_USD, 6);
      expect((await data(`/v1/wallets/${OTHER}/deployed_tokens`)).data.map((t: any) => t.token_address)).toEqual([T4]);
      expect((await data(`/v1/wallets/${NOBODY}/deployed_tokens`)).data).toEqual([]);
    };
    await check();
    // A restart reads the index from LMDB: nothing to index again.
    await close();
    await open();
    expect(engine.query.research!.creators.waiting).toBe(0);
    await check();
    // A data directory from before the index: it is made from the token actors once.
    await close();
    const storage = openStorage(dir.path);
    await storage.env.openDB({ name: 'creators' }).drop();
    await storage.close();
    await open();
    expect(engine.query.research!.creators.waiting).toBe(6); // MINT, NONE, MANY, T2, T3, T4
    await check();
    expect(engine.query.research!.creators.waiting).toBe(0);
  });

  it('answers 400 naming the parameter', async () => {
    for (const [path, param] of [
      ['/v1/wallets/not-an-address/deployed_tokens', 'wallet_address'],
      [`/v1/wallets/${DEV}/deployed_tokens?limit=101`, 'limit'],
      [`/v1/wallets/${DEV}/deployed_tokens?cursor=%20`, 'cursor'],
      [`/v1/wallets/${DEV}/deployed_tokens?label=kol`, 'label'],
      ['/v1/tokens/not-an-address/bonding_curve', 'token_address'],
      [`/v1/tokens/${MINT}/bonding_curve?limit=1`, 'limit'],
    ] as const) {
      const f = await failure(path);
      expect(f, path).toMatchObject({ status: 400, code: 4000 });
      expect(f.message, path).toContain(param);
    }
    // A cursor of another wallet's list.
    const page = await data(`/v1/wallets/${DEV}/deployed_tokens?limit=1`);
    const f = await failure(`/v1/wallets/${OTHER}/deployed_tokens?limit=1&cursor=${page.pagination.next_cursor}`);
    expect(f).toMatchObject({ status: 400, code: 4000 });
    expect(f.message).toMatch(/^cursor: /);
  });
});
