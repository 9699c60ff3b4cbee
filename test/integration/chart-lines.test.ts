import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * The chart_lines stream (issue 23; SERVICE.md 2.10, 4.4, 6; DECISIONS.md "Signals,
 * posts, markers, chart lines") over a real engine (LMDB in a temp dir, event clock), a
 * real uWS server and real WebSocket clients. Every trade below has round amounts, so
 * each level is worked out by hand here: a price is quote / tokens, a market cap that
 * price × the supply of 1,000,000,000 tokens, USD at 100 USD per SOL.
 */

const r = rng(2310);
const T0 = 1_767_225_600_000;
const MINT = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const [DEV, KOL1, KOL2, SMART, W1, ME, H1, H2, NOBODY] = Array.from({ length: 9 }, () => base58(r, 44));
const SUPPLY = 1_000_000_000;
const SOL_USD = 100;
let n = 0;

/** A swap of `tokens` whole tokens for `sol` SOL; every swap leaves the pool at 200M tokens / 80 SOL (spot 4e-7 SOL). */
const swap = (pool: string, at: number, wallet: string, side: 'buy' | 'sell', tokens: number, sol: number) => ({
  type: 'swap', tx_hash: base58(rng(70_000 + ++n), 88), slot: 1_000 + n, tx_index: 0, event_index: 0, at, pool_address: pool, wallet_address: wallet, side,
  base_amount_raw: String(tokens * 1e6), quote_amount_raw: String(sol * 1e9), base_reserve_raw: String(200_000_000 * 1e6), quote_reserve_raw: String(80 * 1e9),
});
const balance = (wallet: string, tokens: number, at: number) => ({ type: 'balance', token_address: MINT, wallet_address: wallet, balance_raw: String(tokens * 1e6), slot: 1_000 + ++n, at });
const label = (wallet: string, name: string, action: 'add' | 'remove', at: number) => ({ type: 'label', wallet_address: wallet, label: name, action, at });
/** Moves the engine clock to `at`: the ticks due before it run first. */
const clockTo = (at: number) => ({ type: 'quote_price', quote_address: WSOL, price_usd: SOL_USD, at });

/** Equal within float rounding (the engine sums in its own order). */
const near = (actual: number | null, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(1e-9 * Math.abs(expected));
};

/** A line's levels from its price in SOL (USD at SOL_USD; market caps × SUPPLY). */
function expectLevel(line: any, priceSol: number) {
  near(line.price_quote, priceSol);
  near(line.price_usd, priceSol * SOL_USD);
  near(line.market_cap_quote, priceSol * SUPPLY);
  near(line.market_cap_usd, priceSol * SOL_USD * SUPPLY);
}

let dir: TempDir;
let engine: Engine;
let ws: WsTestServer;
let pro: { id: string; key: string };

async function ingest(...events: unknown[]) {
  for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
}

const PAYLOAD = { pool_address: AMM, token_address: MINT, top_holder_count: 2, wallet_addresses: [NOBODY, W1], wallet_address: ME };
const byId = (lines: any[]) => Object.fromEntries(lines.map((l) => [l.id, l]));
const chartEvents = (frames: any[]) => frames.filter((f) => f.stream === 'chart_lines');

// Times of the trades the expectations name.
const DEV_BUY2_AT = T0 + 2_200;
const DEV_SELL_AT = T0 + 2_300;
const KOL2_AT = T0 + 2_500;
const ME_SELL_AT = T0 + 2_900;
const H1_SELL_AT = T0 + 3_300;
const MIGRATED_AT = T0 + 5_000;

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path) });
  await ingest(
    clockTo(T0),
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: String(SUPPLY * 1e6), symbol: 'CL', name: 'Chart Lines', creator_address: DEV, slot: 1, at: T0 },
    { type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0 + 100, curve_initial_real_base_raw: '793100000000000', slot: 2 },
    label(KOL1, 'kol', 'add', T0 + 200),
    label(KOL2, 'kol', 'add', T0 + 200),
    label(SMART, 'smart_money', 'add', T0 + 200),
    // dev: buys 10M for 1 SOL and 10M for 3 SOL (average 4 / 20M = 2e-7), sells 5M for 2 SOL (4e-7).
    swap(CURVE, T0 + 2_100, DEV, 'buy', 10_000_000, 1),
    swap(CURVE, DEV_BUY2_AT, DEV, 'buy', 10_000_000, 3),
    swap(CURVE, DEV_SELL_AT, DEV, 'sell', 5_000_000, 2),
    // kols: 1M for 1 SOL and 4M for 1 SOL (together 2 / 5M = 4e-7); a smart-money wallet is no kol.
    swap(CURVE, T0 + 2_400, KOL1, 'buy', 1_000_000, 1),
    swap(CURVE, KOL2_AT, KOL2, 'buy', 4_000_000, 1),
    swap(CURVE, T0 + 2_550, SMART, 'buy', 1_000_000, 0.1),
    // the watched wallet: 2M for 1 SOL (5e-7).
    swap(CURVE, T0 + 2_600, W1, 'buy', 2_000_000, 1),
    // me: 1M for 0.5 SOL and 1M for 1.5 SOL (1e-6), sells 1M for 2 SOL (2e-6: the highest trade price, the ATH).
    swap(CURVE, T0 + 2_700, ME, 'buy', 1_000_000, 0.5),
    swap(CURVE, T0 + 2_800, ME, 'buy', 1_000_000, 1.5),
    swap(CURVE, ME_SELL_AT, ME, 'sell', 1_000_000, 2),
    // holders: H1's largest buy is 30M for 3 SOL (1e-7), its only sell 10M for 5 SOL (5e-7); H2 bought 40M for 2 SOL (5e-8).
    swap(CURVE, T0 + 3_100, H1, 'buy', 30_000_000, 3),
    swap(CURVE, T0 + 3_200, H1, 'buy', 20_000_000, 4),
    swap(CURVE, H1_SELL_AT, H1, 'sell', 10_000_000, 5),
    swap(CURVE, T0 + 3_400, H2, 'buy', 40_000_000, 2),
    // Balances: the curve's own account holds most (a pool is no holder), then H1 (40M), H2 (39M), DEV (15M).
    balance(CURVE, 700_000_000, T0 + 3_500),
    balance(H1, 40_000_000, T0 + 3_500),
    balance(H2, 39_000_000, T0 + 3_500),
    balance(DEV, 15_000_000, T0 + 3_500),
    { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: MIGRATED_AT, migrated_from_pool_address: CURVE, slot: 3_000 },
    { type: 'migration', token_address: MINT, from_pool_address: CURVE, to_pool_address: AMM, slot: 3_000, at: MIGRATED_AT },
    clockTo(T0 + 6_000),
  );
  ws = await startWsServer({ engine });
  pro = await ws.key('pro');
});

afterAll(async () => {
  await ws?.close();
  await engine?.stop();
  dir?.cleanup();
});

describe('chart_lines', () => {
  let client: TestClient;
  let first: any;

  it('sends every kind on subscribe, each level worked out from the trades', async () => {
    client = await TestClient.authed(ws.url, pro.key);
    client.subscribe('chart_lines', PAYLOAD);
    const frames = await client.untilPong();
    expect(frames).toHaveLength(1);
    first = frames[0];
    expect(first.stream).toBe('chart_lines');
    const data = first.data;
    expect(data).toMatchObject({ pool_address: AMM, token_address: MINT, wallet_address: ME });
    expect(data.lines.map((l: any) => l.id)).toEqual([
      'ath', 'migration', 'dev_buy', 'dev_sell', `top_buy:${H1}`, `top_buy:${H2}`, `top_sell:${H1}`, 'kol_buy', `watchlist_buy:${W1}`, 'self_buy', 'self_sell',
    ]);
    const lines = byId(data.lines);
    for (const l of data.lines) expect(Object.keys(l)).toEqual(['id', 'kind', 'label', 'supply_pct', 'wallet_count', 'set_at', 'price_usd', 'price_quote', 'market_cap_usd', 'market_cap_quote']);

    expect(lines.ath).toMatchObject({ kind: 'ath', label: 'ATH', supply_pct: null, wallet_count: null, set_at: ME_SELL_AT });
    expectLevel(lines.ath, 2 / 1_000_000);
    // The curve's spot after its last trade: 80 SOL / 200M tokens.
    expect(lines.migration).toMatchObject({ kind: 'migration', set_at: MIGRATED_AT, supply_pct: null });
    expectLevel(lines.migration, 80 / 200_000_000);

    expect(lines.dev_buy).toMatchObject({ kind: 'dev_buy', wallet_count: 1, set_at: DEV_BUY2_AT });
    expectLevel(lines.dev_buy, 4 / 20_000_000);
    near(lines.dev_buy.supply_pct, 2);
    expect(lines.dev_sell).toMatchObject({ kind: 'dev_sell', wallet_count: 1, set_at: DEV_SELL_AT });
    expectLevel(lines.dev_sell, 2 / 5_000_000);
    near(lines.dev_sell.supply_pct, 0.5);

    // Top holders by balance: H1 (40M), H2 (39M); the curve's 700M is not a holder, DEV (15M) is third.
    expect(lines[`top_buy:${H1}`]).toMatchObject({ kind: 'top_buy', label: 'Top 1 buy', wallet_count: 1, set_at: T0 + 3_100 });
    expectLevel(lines[`top_buy:${H1}`], 3 / 30_000_000);
    near(lines[`top_buy:${H1}`].supply_pct, 3);
    expect(lines[`top_buy:${H2}`]).toMatchObject({ kind: 'top_buy', label: 'Top 2 buy', set_at: T0 + 3_400 });
    expectLevel(lines[`top_buy:${H2}`], 2 / 40_000_000);
    near(lines[`top_buy:${H2}`].supply_pct, 4);
    expect(lines[`top_sell:${H1}`]).toMatchObject({ kind: 'top_sell', label: 'Top 1 sell', set_at: H1_SELL_AT });
    expectLevel(lines[`top_sell:${H1}`], 5 / 10_000_000);
    near(lines[`top_sell:${H1}`].supply_pct, 1);

    expect(lines.kol_buy).toMatchObject({ kind: 'kol_buy', wallet_count: 2, set_at: KOL2_AT });
    expectLevel(lines.kol_buy, 2 / 5_000_000);
    near(lines.kol_buy.supply_pct, 0.5);

    // NOBODY never traded: no line.
    expect(lines[`watchlist_buy:${W1}`]).toMatchObject({ kind: 'watchlist_buy', wallet_count: 1, set_at: T0 + 2_600 });
    expectLevel(lines[`watchlist_buy:${W1}`], 1 / 2_000_000);

    expect(lines.self_buy).toMatchObject({ kind: 'self_buy', wallet_count: 1, set_at: T0 + 2_800 });
    expectLevel(lines.self_buy, 2 / 2_000_000);
    near(lines.self_buy.supply_pct, 0.2);
    expect(lines.self_sell).toMatchObject({ kind: 'self_sell', set_at: ME_SELL_AT });
    expectLevel(lines.self_sell, 2 / 1_000_000);
  });

  it('replaces all: a later event carries every line, a changed line keeps its id; a busy second sends one event', async () => {
    const t = T0 + 7_000;
    // Ten trades of mine in one second on the AMM, 1M tokens for 3 SOL each (3e-6: a new ATH), and a kol losing its label.
    const burst = Array.from({ length: 10 }, (_, i) => swap(AMM, t + 10 * i, ME, 'buy', 1_000_000, 3));
    await ingest(...burst, label(KOL2, 'kol', 'remove', t + 200), clockTo(t + 1_000));
    const events = chartEvents(await client.untilPong());
    expect(events).toHaveLength(1);
    const next = events[0].data;
    expect(next.lines.map((l: any) => l.id)).toEqual(first.data.lines.map((l: any) => l.id));
    const before = byId(first.data.lines);
    const after = byId(next.lines);
    // me: 2M for 2 SOL, then 10M for 30 SOL: 32 / 12M.
    expectLevel(after.self_buy, 32 / 12_000_000);
    expect(after.self_buy.set_at).toBe(t + 90);
    expectLevel(after.ath, 3 / 1_000_000);
    expect(after.ath.set_at).toBe(t);
    // KOL1 alone now.
    expect(after.kol_buy.wallet_count).toBe(1);
    expectLevel(after.kol_buy, 1 / 1_000_000);
    // What did not change is the same.
    for (const id of ['migration', 'dev_buy', 'dev_sell', `top_buy:${H1}`, `top_buy:${H2}`, `top_sell:${H1}`, `watchlist_buy:${W1}`, 'self_sell']) expect(after[id], id).toEqual(before[id]);
    // A second without a change sends nothing.
    await ingest(clockTo(t + 2_500));
    expect(chartEvents(await client.untilPong())).toEqual([]);
    // A wallet that bought before it was labeled kol joins kol_buy: KOL1 and SMART, 1.1 SOL for 2M.
    await ingest(label(SMART, 'kol', 'add', t + 2_600), clockTo(t + 3_000));
    const [labeled] = chartEvents(await client.untilPong());
    const kol = byId(labeled.data.lines).kol_buy;
    expect(kol.wallet_count).toBe(2);
    expectLevel(kol, 1.1 / 2_000_000);
  });

  it('same parameters share one topic: the same bytes to every subscriber, whatever the order of wallet_addresses', async () => {
    const other = await TestClient.authed(ws.url, pro.key);
    other.subscribe('chart_lines', { ...PAYLOAD, wallet_addresses: [W1, NOBODY, W1] });
    const [own] = chartEvents(await other.untilPong());
    expect(own.data.lines.map((l: any) => l.id)).toContain('self_buy');
    const raw: string[][] = [[], []];
    for (const [i, c] of [client, other].entries()) c.ws.on('message', (data) => raw[i]!.push(data.toString()));
    await ingest(swap(AMM, T0 + 11_100, W1, 'buy', 1_000_000, 1), clockTo(T0 + 12_000));
    const [a, b] = [chartEvents(await client.untilPong()), chartEvents(await other.untilPong())];
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    const frames = raw.map((list) => list.filter((f) => f.startsWith('{"stream":"chart_lines"')));
    expect(frames[0]).toHaveLength(1);
    expect(frames[1]).toEqual(frames[0]);
    other.close();
    await other.closed;
  });

  it('is Pro-only: a Starter key gets the error frame and no subscription', async () => {
    const starter = await TestClient.authed(ws.url, (await ws.key('starter')).key);
    starter.subscribe('chart_lines', PAYLOAD);
    expect(await starter.untilPong()).toEqual([
      { type: 'error', code: 4033, error: 'PLAN_REQUIRED', message: 'stream chart_lines needs the pro or scale plan', stream: 'chart_lines' },
    ]);
    // Unsubscribing what it could not subscribe is silent.
    starter.unsubscribe('chart_lines', PAYLOAD);
    expect(await starter.untilPong()).toEqual([]);
    starter.close();
    await starter.closed;
  });

  it('counts 1 + the distinct wallets named as watched items, and gives them back on unsubscribe', async () => {
    const key = await ws.key('pro');
    const c = await TestClient.authed(ws.url, key.key);
    c.subscribe('chart_lines', { pool_address: AMM, token_address: MINT, top_holder_count: 1, wallet_addresses: [W1, H1], wallet_address: W1 });
    const [event] = chartEvents(await c.untilPong());
    // One top holder: H1's lines, not H2's (the token's other topic asks for two).
    expect(event.data.lines.map((l: any) => l.id).filter((id: string) => id.startsWith('top_'))).toEqual([`top_buy:${H1}`, `top_sell:${H1}`]);
    // The pool, W1 (named twice) and H1.
    expect(ws.limits.usageOf(key.id)!.watchedItems).toBe(3);
    c.unsubscribe('chart_lines', { pool_address: AMM, token_address: MINT, wallet_addresses: [H1, W1], wallet_address: W1, top_holder_count: 1 });
    expect(await c.untilPong()).toEqual([]);
    expect(ws.limits.usageOf(key.id)!.watchedItems).toBe(0);
    c.close();
    await c.closed;
  });

  it('ignores invalid payloads without an error frame', async () => {
    const c = await TestClient.authed(ws.url, pro.key);
    const wallets = Array.from({ length: 21 }, () => base58(r, 44));
    const invalid = [
      { token_address: MINT },
      { pool_address: AMM },
      { pool_address: AMM, token_address: MINT, top_holder_count: 26 },
      { pool_address: AMM, token_address: MINT, top_holder_count: -1 },
      { pool_address: AMM, token_address: MINT, top_holder_count: 1.5 },
      { pool_address: AMM, token_address: MINT, wallet_addresses: wallets },
      { pool_address: AMM, token_address: MINT, wallet_address: 'not-an-address' },
    ];
    for (const payload of invalid) c.subscribe('chart_lines', payload);
    expect(await c.untilPong()).toEqual([]);
    // 20 wallets and 25 holders are fine.
    c.subscribe('chart_lines', { pool_address: AMM, token_address: MINT, top_holder_count: 25, wallet_addresses: wallets.slice(1) });
    expect(chartEvents(await c.untilPong())).toHaveLength(1);
    c.close();
    await c.closed;
  });

  it('keeps state only for subscribed tokens: dropped at the first tick after the last subscriber leaves', async () => {
    expect(engine.chartLines.size).toBe(1);
    client.close();
    await client.closed;
    await ingest(clockTo(T0 + 12_500));
    expect(engine.chartLines.size).toBe(1);
    await ingest(clockTo(T0 + 13_000));
    expect(engine.chartLines.size).toBe(0);
  });

  it('gives the same lines after a restart: the levels are in the wallets\' and pools\' snapshots', async () => {
    const before = await TestClient.authed(ws.url, pro.key);
    before.subscribe('chart_lines', PAYLOAD);
    const [was] = chartEvents(await before.untilPong());
    expect(was.data.lines.length).toBe(11);
    before.close();
    await before.closed;
    await ws.close();
    await engine.stop();
    engine = await createEngine({ config: testConfig(dir.path) });
    ws = await startWsServer({ engine });
    const after = await TestClient.authed(ws.url, (await ws.key('pro')).key);
    after.subscribe('chart_lines', PAYLOAD);
    const [now] = chartEvents(await after.untilPong());
    expect(now).toEqual(was);
    after.close();
    await after.closed;
  });
});
