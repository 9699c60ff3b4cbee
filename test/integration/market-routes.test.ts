import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

const r = rng(99);
const MINT = base58(r, 44);
const MINT2 = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const PAIR = base58(r, 44); // MINT2 (base) / MINT (quote): a token-to-token pool
const BUSY = base58(r, 44);
const BUSY_MINT = base58(r, 44);
const WALLET = base58(r, 44);
const FREEZER = base58(r, 44);
const T0 = 1_767_225_600_000;

let srv: ServedEngine;
let engine: Engine;

const get = (path: string) => srv.get(path);
const tx = (i: number) => base58(rng(10_000 + i), 88);
const swap = (i: number, pool: string, at: number, extra: Record<string, unknown>) => ({
  type: 'swap', tx_hash: tx(i), slot: 1_000 + i, tx_index: 0, event_index: 0, at, pool_address: pool, wallet_address: WALLET, ...extra,
});

beforeAll(async () => {
  const events: unknown[] = [
    { type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'AAA', name: 'Alpha', slot: 999, at: T0 },
    { type: 'token', token_address: MINT2, decimals: 6, supply_raw: '500000000000000', symbol: 'BBB', name: 'Beta', slot: 999, at: T0, mint_authority: null, freeze_authority: FREEZER, lp_burned_pct: 100, dex_paid: true },
    { type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, curve_initial_real_base_raw: '793100000000000', slot: 999 },
    // Buys 35,000,000 tokens for 1 SOL: virtual reserves 1,038,000,000 tokens / 31 SOL, real 758,100,000 tokens / 1 SOL.
    swap(1, CURVE, T0 + 1_000, { side: 'buy', base_amount_raw: '35000000000000', quote_amount_raw: '1000000000', base_reserve_raw: '1038000000000000', quote_reserve_raw: '31000000000', real_base_reserve_raw: '758100000000000', real_quote_reserve_raw: '1000000000' }),
    // Sells 10,000,000 tokens for 0.3 SOL.
    swap(2, CURVE, T0 + 2_000, { side: 'sell', base_amount_raw: '10000000000000', quote_amount_raw: '300000000', base_reserve_raw: '1048000000000000', quote_reserve_raw: '30700000000', real_base_reserve_raw: '768100000000000', real_quote_reserve_raw: '700000000' }),
    { type: 'pool', pool_address: PAIR, base_address: MINT2, quote_address: MINT, dex: 'meteora_dlmm', pool_type: 'clmm', created_at: T0 + 2_500, slot: 1_002 },
    // 100 BBB bought for 400 AAA: 4 AAA per BBB.
    swap(3, PAIR, T0 + 3_000, { side: 'buy', base_amount_raw: '100000000', quote_amount_raw: '400000000', base_reserve_raw: '10000000000', quote_reserve_raw: '40000000000' }),
    { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + 4_000, migrated_from_pool_address: CURVE, slot: 1_004 },
    { type: 'migration', token_address: MINT, from_pool_address: CURVE, to_pool_address: AMM, slot: 1_004, at: T0 + 4_000 },
    swap(5, AMM, T0 + 5_000, { side: 'buy', base_amount_raw: '1000000000000', quote_amount_raw: '100000000', base_reserve_raw: '200000000000000', quote_reserve_raw: '20000000000' }),
  ];
  srv = await startServedEngine(events, { plan: 'pro' });
  engine = srv.engine;
});

afterAll(() => srv.stop());

describe('pool and token routes', () => {
  it('serves a curve after graduation: snapshot, totals, replacement', async () => {
    const { status, body } = await get(`/v1/pools/${CURVE}`);
    expect(status).toBe(200);
    const d = body.data;
    expect(d.pool).toMatchObject({ pool_address: CURVE, base_address: MINT, pool_type: 'bonding_curve', dex: 'pumpfun' });
    expect(d.replaced_by_pool_address).toBe(AMM);
    expect(d.lifecycle).toBe('graduated');
    // Spot after the last trade: 30.7 SOL / 1,048,000,000 tokens; supply 1e9 tokens.
    expect(d.snapshot.price_quote).toBeCloseTo(30.7 / 1_048_000_000, 18);
    expect(d.snapshot.market_cap_quote).toBeCloseTo(29.29389, 4);
    expect(d.snapshot.market_cap_usd).toBeCloseTo(29.29389 * 150, 2);
    // A graduated curve holds nothing: its 0.7 SOL moved to the AMM pool (issue 20, item 5).
    expect(d.snapshot.liquidity_quote).toBe(0);
    expect(d.snapshot.liquidity_usd).toBe(0);
    expect(d.snapshot.bonding_curve_progress_pct).toBe(0); // 0 after migration
    expect(d.totals).toMatchObject({ trade_count: 2, buy_count: 1, sell_count: 1, first_trade_at: T0 + 1_000, total_supply: 1e9 });
    expect(d.totals.volume_quote).toBeCloseTo(1.3, 12);
    expect(d.totals.buy_volume_usd).toBeCloseTo(150, 9);
    expect(d.totals.launch_price_quote).toBeCloseTo(1 / 35_000_000, 18); // 1 SOL / 35M tokens
    // ATH market cap: a trade's price × supply (DECISIONS.md): the sale's 0.3 SOL / 10M tokens × 1e9 = 30 SOL
    // (the buy's 1 SOL / 35M tokens: 28.57 SOL).
    expect(d.totals.ath_market_cap_quote).toBeCloseTo(30, 9);
    // The rest of SERVICE.md 2.4, by hand: a buy of 1 SOL and a sale of 0.3 SOL at 150 USD, one wallet.
    expect(d.totals).toMatchObject({ trader_count: 1, buyer_count: 1, seller_count: 1 });
    expect(d.totals.buy_volume_quote).toBeCloseTo(1, 12);
    expect(d.totals.sell_volume_quote).toBeCloseTo(0.3, 12);
    expect(d.totals.volume_usd).toBeCloseTo(195, 9);
    expect(d.totals.sell_volume_usd).toBeCloseTo(45, 9);
    expect(d.totals.ath_market_cap_usd).toBeCloseTo(30 * 150, 6);
    expect(d.totals.launch_price_usd).toBeCloseTo(150 / 35_000_000, 15);
    // Since launch: the spot 30.7 / 1,048,000,000 against 1 / 35,000,000, +2.5286 %, alike in USD (one SOL price).
    expect(d.totals.price_change_pct_quote).toBeCloseTo(2.52863, 4);
    expect(d.totals.price_change_pct_usd).toBeCloseTo(2.52863, 4);
    // AAA's token event gave no authorities, LP burn or profile: unknown, not false.
    expect(d.totals).toMatchObject({ lp_burned_pct: null, mint_revoked: null, freeze_revoked: null, dex_paid: null });
  });

  it('reports what a token event gave: authorities revoked or not, LP burned, a paid profile', async () => {
    // BBB's token event: mint authority null (revoked), a freeze authority (kept), LP 100 % burned, a paid profile.
    const { body } = await get(`/v1/pools/${PAIR}`);
    expect(body.data.totals).toMatchObject({ mint_revoked: true, freeze_revoked: false, lp_burned_pct: 100, dex_paid: true });
    // One buy of 100 BBB for 400 AAA: volumes in AAA, the quote; in USD at AAA's price at the trade
    // (DECISIONS.md): its main pool then, the curve, 30.7 SOL / 1,048,000,000 tokens at 150 USD.
    expect(body.data.totals).toMatchObject({ trade_count: 1, buy_count: 1, sell_count: 0, sell_volume_quote: 0 });
    expect(body.data.totals.volume_quote).toBeCloseTo(400, 9);
    expect(body.data.totals.launch_price_quote).toBeCloseTo(4, 12);
    const aaaUsdThen = (30.7 / 1_048_000_000) * 150;
    expect(body.data.totals.volume_usd).toBeCloseTo(400 * aaaUsdThen, 15);
    expect(body.data.totals.launch_price_usd).toBeCloseTo(4 * aaaUsdThen, 15);
    // Now: 4 AAA per BBB, AAA at its main pool's (the AMM's) 20 SOL / 200,000,000 tokens.
    const aaaUsdNow = (20 / 200_000_000) * 150;
    expect(body.data.totals.price_change_pct_usd).toBeCloseTo(100 * (aaaUsdNow / aaaUsdThen - 1), 6);
  });

  it('names where an AMM pool migrated from, and the token reports migrated', async () => {
    const pool = (await get(`/v1/pools/${AMM}`)).body.data;
    expect(pool.pool).toMatchObject({ migrated_from_pool_address: CURVE, migrated_at: T0 + 4_000 });
    expect(pool.snapshot.liquidity_quote).toBeCloseTo(40, 9); // 2 × 20 SOL
    expect(pool.snapshot.bonding_curve_progress_pct).toBe(0);
    const token = (await get(`/v1/tokens/${MINT}`)).body.data;
    expect(token.token).toMatchObject({ token_address: MINT, symbol: 'AAA', name: 'Alpha', decimals: 6, migrated: true });
    expect(token.pool.pool_address).toBe(AMM); // the most liquid: 40 SOL against the graduated curve's nothing
    const pools = (await get(`/v1/tokens/${MINT}/pools`)).body.data.map((p: any) => p.pool_address);
    expect(pools).toEqual([AMM, CURVE, PAIR]); // base-side pools by liquidity, then the pair where AAA is the quote
  });

  it('pages a token\'s pools like every list: limit and a cursor bound to the token', async () => {
    const all = (await get(`/v1/tokens/${MINT}/pools`)).body;
    expect(all.pagination).toEqual({ next_cursor: null, has_more: false });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body }: { status: number; body: any } = await get(`/v1/tokens/${MINT}/pools?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(status).toBe(200);
      expect(body.data).toHaveLength(1);
      seen.push(body.data[0].pool_address);
      expect(body.pagination.has_more).toBe(body.pagination.next_cursor !== null);
      cursor = body.pagination.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([AMM, CURVE, PAIR]);
    const first = (await get(`/v1/tokens/${MINT}/pools?limit=2`)).body;
    expect(first.data.map((p: any) => p.pool_address)).toEqual([AMM, CURVE]);
    const other = await get(`/v1/tokens/${MINT2}/pools?cursor=${first.pagination.next_cursor}`);
    expect([other.status, other.body.code]).toEqual([400, 4000]);
    expect(other.body.message).toContain('cursor');
    for (const bad of ['limit=101', 'limit=0', 'sort=liquidity_usd']) {
      const res = await get(`/v1/tokens/${MINT}/pools?${bad}`);
      expect([res.status, res.body.code, res.body.message.includes(bad.split('=')[0]!)]).toEqual([400, 4000, true]);
    }
  });

  it('lists pool trades with those of the curve it migrated from, newest first', async () => {
    const { body } = await get(`/v1/pools/${AMM}/trades`);
    expect(body.data.map((t: any) => [t.pool_address, t.type, t.created_at])).toEqual([
      [AMM, 'buy', T0 + 5_000],
      [CURVE, 'sell', T0 + 2_000],
      [CURVE, 'buy', T0 + 1_000],
    ]);
    expect(body.pagination).toEqual({ next_cursor: null, has_more: false });
    const t = body.data[2];
    expect(t).toMatchObject({ trade_id: `${tx(1)}:0`, tx_hash: tx(1), slot: 1_001, tx_index: 0, event_index: 0, wallet_address: WALLET, token_address: MINT, quote_address: WSOL, dex: 'pumpfun', token_amount: 35_000_000, quote_amount: 1, labels: [] });
    expect(t.amount_usd).toBeCloseTo(150, 9);
  });

  it('describes a token-to-token trade from either token’s side', async () => {
    const asBase = (await get(`/v1/pools/${PAIR}/trades`)).body.data[0];
    expect(asBase).toMatchObject({ type: 'buy', token_address: MINT2, quote_address: MINT, token_amount: 100, quote_amount: 400, price_quote: 4 });
    const asQuote = (await get(`/v1/pools/${PAIR}/trades?token=${MINT}`)).body.data[0];
    expect(asQuote).toMatchObject({ type: 'sell', token_address: MINT, quote_address: MINT2, token_amount: 400, quote_amount: 100, price_quote: 0.25 });
    // AAA (the quote here) at its USD price at the trade, from its main pool then (the curve: 30.7 SOL /
    // 1,048,000,000 tokens at 150 USD); its market cap in BBB: 0.25 × 1e9.
    const aaaUsdThen = (30.7 / 1_048_000_000) * 150;
    expect(asQuote).toMatchObject({ market_cap_quote: 2.5e8 });
    expect(asQuote.price_usd).toBeCloseTo(aaaUsdThen, 18);
    expect(asQuote.amount_usd).toBeCloseTo(400 * aaaUsdThen, 15);
    expect(asQuote.market_cap_usd).toBeCloseTo(1e9 * aaaUsdThen, 6);
    // From wSOL's side of a SOL pool: its USD price is the SOL price; its supply is not tracked.
    const asSol = (await get(`/v1/pools/${AMM}/trades?token=${WSOL}`)).body.data[0];
    expect(asSol).toMatchObject({ type: 'sell', token_address: WSOL, quote_address: MINT, token_amount: 0.1, quote_amount: 1_000_000, price_usd: 150, market_cap_quote: 0, market_cap_usd: null });
    expect(asSol.price_quote).toBeCloseTo(1e7, 6);
    expect(asSol.amount_usd).toBeCloseTo(15, 9);
    // AAA's token trades include the pair, from AAA's side.
    const tokenTrades = (await get(`/v1/tokens/${MINT}/trades?order=asc`)).body.data;
    expect(tokenTrades.map((x: any) => [x.pool_address, x.type, x.token_address])).toEqual([
      [CURVE, 'buy', MINT], [CURVE, 'sell', MINT], [PAIR, 'sell', MINT], [AMM, 'buy', MINT],
    ]);
  });

  it('serves many tokens and pool metrics in the order asked, without unknown ones', async () => {
    const unknown = base58(rng(5), 44);
    const tokens = (await get(`/v1/tokens?addresses=${MINT2},${unknown},${MINT}`)).body.data;
    expect(tokens.map((t: any) => t.token.token_address)).toEqual([MINT2, MINT]);
    const metrics = (await get(`/v1/pools/metrics?addresses=${AMM},${CURVE}`)).body.data;
    expect(metrics.map((m: any) => [m.pool_address, m.slot, m.tx_index, m.ix_index])).toEqual([[AMM, 1_005, 0, 0], [CURVE, 1_002, 0, 0]]);
  });

  it('answers 400 naming the parameter, and 404 for unknown pools and tokens', async () => {
    // 51 addresses: one more than a list takes.
    const MANY = Array.from({ length: 51 }, (_, i) => base58(rng(500 + i), 44));
    const cases: Array<[string, string]> = [
      [`/v1/pools/not-an-address`, 'pool_address'],
      [`/v1/pools/${AMM}/trades?limit=501`, 'limit'],
      [`/v1/pools/${AMM}/trades?limit=0`, 'limit'],
      [`/v1/pools/${AMM}/trades?order=up`, 'order'],
      [`/v1/pools/${AMM}/trades?start_time=yesterday`, 'start_time'],
      [`/v1/pools/${AMM}/trades?cursor=abc`, 'cursor'],
      [`/v1/pools/${AMM}/trades?token=${MINT2}`, 'token'],
      [`/v1/pools/${AMM}/trades?since=1`, 'since'],
      [`/v1/tokens/${MINT}/trades?token=${MINT}`, 'token'],
      [`/v1/tokens?addresses=`, 'addresses'],
      [`/v1/pools/metrics?addresses=${AMM},${AMM}`, 'addresses'],
      [`/v1/pools/metrics`, 'addresses'],
      [`/v1/tokens/${MINT}?x=1`, 'x'],
      // Every route of this file: a bad address in the path, an unknown parameter, and each parameter's bad values.
      [`/v1/tokens/not-an-address`, 'token_address'],
      [`/v1/tokens/not-an-address/pools`, 'token_address'],
      [`/v1/tokens/not-an-address/trades`, 'token_address'],
      [`/v1/pools/not-an-address/trades`, 'pool_address'],
      [`/v1/pools/${AMM}?x=1`, 'x'],
      [`/v1/tokens/${MINT}/pools?x=1`, 'x'],
      [`/v1/tokens/${MINT}/pools?limit=0`, 'limit'],
      [`/v1/tokens/${MINT}/trades?x=1`, 'x'],
      [`/v1/tokens/${MINT}/trades?limit=0`, 'limit'],
      [`/v1/tokens/${MINT}/trades?limit=501`, 'limit'],
      [`/v1/tokens/${MINT}/trades?order=up`, 'order'],
      [`/v1/tokens/${MINT}/trades?start_time=yesterday`, 'start_time'],
      [`/v1/tokens/${MINT}/trades?cursor=abc`, 'cursor'],
      [`/v1/tokens`, 'addresses'],
      [`/v1/tokens?addresses=not-an-address`, 'addresses'],
      [`/v1/tokens?addresses=${MINT},${MINT}`, 'addresses'],
      [`/v1/tokens?addresses=${MANY.join(',')}`, 'addresses'],
      [`/v1/tokens?addresses=${MINT}&x=1`, 'x'],
      [`/v1/pools/metrics?addresses=not-an-address`, 'addresses'],
      [`/v1/pools/metrics?addresses=${MANY.join(',')}`, 'addresses'],
      [`/v1/pools/metrics?addresses=${AMM}&x=1`, 'x'],
      [`/v1/market/sol-price?x=1`, 'x'],
    ];
    for (const [path, param] of cases) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body).toMatchObject({ code: 4000, error: 'BAD_REQUEST', data: null });
      expect(body.message, path).toContain(param);
    }
    const unknown = base58(rng(6), 44);
    for (const path of [`/v1/pools/${unknown}`, `/v1/pools/${unknown}/trades`, `/v1/tokens/${unknown}`, `/v1/tokens/${unknown}/trades`, `/v1/tokens/${unknown}/pools`]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(404);
      expect(body.code).toBe(4040);
    }
  });
});

describe('trade paging', () => {
  const N = 10_000;
  const ats: number[] = [];

  beforeAll(async () => {
    await engine.ingest({ type: 'token', token_address: BUSY_MINT, decimals: 6, supply_raw: '1000000000000000', slot: 2_000, at: T0 });
    await engine.ingest({ type: 'pool', pool_address: BUSY, base_address: BUSY_MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2_000 });
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < N; i++) {
      // Several trades share a time: order falls to slot, tx_index, event_index.
      const at = T0 + 10_000 + Math.floor(i / 3) * 7;
      ats.push(at);
      pending.push(engine.ingest({ type: 'swap', tx_hash: tx(100_000 + i), slot: 3_000 + Math.floor(i / 6), tx_index: (i % 6) >> 1, event_index: i % 2, at, pool_address: BUSY, wallet_address: WALLET, side: i % 2 ? 'buy' : 'sell', base_amount_raw: String(1_000_000 + i), quote_amount_raw: '1000', base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000' }));
      // Half the trades reach LMDB blocks with the pool's snapshot, half stay in memory.
      if (i === N / 2) {
        await Promise.all(pending.splice(0));
        await engine.checkpoint();
      }
    }
    await Promise.all(pending);
  });

  async function walk(order: 'asc' | 'desc', limit: number, whilePaging?: () => Promise<unknown>, route = `/v1/pools/${BUSY}/trades`) {
    const seen: string[] = [];
    const records: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body } = await get(`${route}?order=${order}&limit=${limit}&start_time=${T0}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(status).toBe(200);
      seen.push(...body.data.map((t: any) => t.trade_id));
      records.push(...body.data);
      cursor = body.pagination.next_cursor;
      expect(body.pagination.has_more).toBe(cursor !== null);
      pages++;
      await whilePaging?.();
    } while (cursor);
    return { seen, records, pages };
  }

  for (const [order, route] of [['asc', 'pools'], ['desc', 'pools'], ['asc', 'tokens'], ['desc', 'tokens']] as const) {
    it(`walks 10,000 trades ${order} exactly once, in order, in pages of 500 (${route}/…/trades)`, async () => {
      const { seen, pages } = await walk(order, 500, undefined, `/v1/${route}/${route === 'pools' ? BUSY : BUSY_MINT}/trades`);
      expect(pages).toBe(N / 500);
      expect(new Set(seen).size).toBe(N);
      const expected = Array.from({ length: N }, (_, i) => `${tx(100_000 + i)}:${i % 2}`);
      expect(seen).toEqual(order === 'asc' ? expected : [...expected].reverse());
    });
  }

  it('keeps pages stable while new trades arrive', async () => {
    let next = 0;
    const { seen } = await walk('asc', 400, () =>
      engine.ingest({ type: 'swap', tx_hash: tx(900_000 + next), slot: 9_000 + next++, tx_index: 0, event_index: 0, at: T0 + 90_000 + next, pool_address: BUSY, wallet_address: WALLET, side: 'buy', base_amount_raw: '5', quote_amount_raw: '5', base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000' }),
    );
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, N)).toEqual(Array.from({ length: N }, (_, i) => `${tx(100_000 + i)}:${i % 2}`));
  });

  it('keeps pages stable newest first while newer and late trades arrive', async () => {
    const swapAt = (i: number, at: number) =>
      engine.ingest({ type: 'swap', tx_hash: tx(950_000 + i), slot: 20_000 + i, tx_index: 0, event_index: 0, at, pool_address: BUSY, wallet_address: WALLET, side: 'sell', base_amount_raw: '7', quote_amount_raw: '7', base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000' });
    const newer: string[] = [];
    let next = 0;
    const { seen, records } = await walk('desc', 400, async () => {
      // After each page: one trade newer than everything, and one late trade among the oldest ones.
      const k = next++;
      await swapAt(2 * k, T0 + 200_000 + k);
      newer.push(`${tx(950_000 + 2 * k)}:0`);
      await swapAt(2 * k + 1, T0 + 10_000 + 100 * k + 1);
    });
    expect(new Set(seen).size).toBe(seen.length);
    // Newer than the first page: never in this walk. Late ones: listed once, where they belong.
    for (const id of newer) expect(seen).not.toContain(id);
    const originals = Array.from({ length: N }, (_, i) => `${tx(100_000 + i)}:${i % 2}`).reverse();
    const original = new Set(originals);
    expect(seen.filter((id) => original.has(id))).toEqual(originals);
    const keyOf = (t: any) => [t.created_at, t.slot, t.tx_index, t.event_index];
    for (let i = 1; i < records.length; i++) {
      const [a, b] = [keyOf(records[i - 1]), keyOf(records[i])];
      const k = a.findIndex((x, j) => x !== b[j]);
      expect(k === -1 || a[k] > b[k], `row ${i} after row ${i - 1}`).toBe(true);
    }
    // The late trades the walk had not passed yet when they came (those of the first
    // pages: the walk reaches T0+10 s..T0+12.5 s last) are listed.
    const late = new Set(Array.from({ length: next }, (_, k) => `${tx(950_000 + 2 * k + 1)}:0`));
    expect(seen.filter((id) => late.has(id)).length).toBeGreaterThanOrEqual(10);
  });

  it('rejects a cursor used with other parameters or on another route', async () => {
    const first = (await get(`/v1/pools/${BUSY}/trades?limit=10&start_time=${T0}`)).body.pagination.next_cursor;
    expect((await get(`/v1/pools/${BUSY}/trades?limit=10&order=asc&start_time=${T0}&cursor=${first}`)).status).toBe(400);
    const other = await get(`/v1/tokens/${BUSY_MINT}/trades?limit=10&start_time=${T0}&cursor=${first}`);
    expect(other.status).toBe(400);
    expect(other.body.message).toContain('cursor');
    expect((await get(`/v1/pools/${BUSY}/trades?limit=10&start_time=${T0}&cursor=${first}`)).status).toBe(200);
  });
});
