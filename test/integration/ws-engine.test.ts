import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * Every stream of issue 5 end to end: events ingested into a real engine, frames built
 * by its publisher, carried by /ws to real clients.
 */

const r = rng(504);
const MINT = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const WALLET = base58(r, 44);
const T0 = 1_767_225_600_000;
let n = 0;
const swap = (pool: string, at: number, side: 'buy' | 'sell', base: string, quote: string) => ({
  type: 'swap', tx_hash: base58(rng(70_000 + ++n), 88), slot: 3_000 + n, tx_index: 1, event_index: 0, at, pool_address: pool, wallet_address: WALLET, side,
  base_amount_raw: base, quote_amount_raw: quote, base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000000',
});

let dir: TempDir;
let engine: Engine;
let srv: WsTestServer;
let key: string;

async function ingest(...events: unknown[]) {
  for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
}

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path) });
  await ingest(
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'M', name: 'Mint', slot: 1, at: T0 },
    { type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, curve_initial_real_base_raw: '793100000000000', slot: 2 },
  );
  srv = await startWsServer({ engine });
  key = (await srv.key('pro')).key;
});

afterAll(async () => {
  await srv.close();
  await engine.stop();
  dir.cleanup();
});

describe('streams from the engine', () => {
  it('pool_trades and token_trades; token_trades follows the token to its AMM pool after graduation', async () => {
    const c = await TestClient.connect(srv.url, { key });
    c.subscribe('token_trades', { token_address: MINT });
    c.subscribe('pool_trades', { pool_address: CURVE });
    await c.untilPong();
    await ingest(swap(CURVE, T0 + 1_000, 'buy', '2000000', '1000000000'));
    const first = [await c.next(), await c.next()].sort((a, b) => a.stream.localeCompare(b.stream));
    expect(first.map((f) => f.stream)).toEqual(['pool_trades', 'token_trades']);
    expect(first[0].data).toMatchObject({ type: 'buy', pool_address: CURVE, token_address: MINT, quote_address: WSOL, token_amount: 2, quote_amount: 1, slot: 3_000 + n, tx_index: 1, event_index: 0 });
    expect(first[1].data).toEqual(first[0].data);

    // Graduation: the AMM pool is created after the subscription.
    await ingest(
      { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + 2_000, migrated_from_pool_address: CURVE, slot: 10 },
      { type: 'migration', token_address: MINT, from_pool_address: CURVE, to_pool_address: AMM, slot: 10, at: T0 + 2_000 },
      swap(AMM, T0 + 3_000, 'sell', '1000000', '400000000'),
    );
    const after = await c.next();
    expect(after).toMatchObject({ stream: 'token_trades', data: { type: 'sell', pool_address: AMM, token_address: MINT, token_amount: 1 } });
    // The curve's pool_trades subscription saw nothing of the AMM.
    expect(await c.untilPong()).toEqual([]);
    c.close();
    await c.closed;
  });

  it('after a disconnect, events are not replayed: a new subscription gets only what happens next', async () => {
    const a = await TestClient.connect(srv.url, { key });
    a.subscribe('pool_trades', { pool_address: AMM });
    await a.untilPong();
    a.close();
    await a.closed;
    await ingest(swap(AMM, T0 + 3_500, 'buy', '1000000', '100000000')); // missed
    const b = await TestClient.connect(srv.url, { key });
    b.subscribe('pool_trades', { pool_address: AMM });
    expect(await b.untilPong()).toEqual([]);
    await ingest(swap(AMM, T0 + 3_600, 'buy', '3000000', '100000000'));
    expect((await b.next()).data).toMatchObject({ pool_address: AMM, token_amount: 3, created_at: T0 + 3_600 });
    b.close();
    await b.closed;
  });

  it('pool_metrics with the position of the last trade included', async () => {
    const c = await TestClient.connect(srv.url, { key });
    c.subscribe('pool_metrics', { pool_addresses: [AMM] });
    await c.untilPong();
    await ingest(swap(AMM, T0 + 4_000, 'buy', '1000000', '500000000'));
    engine.flush();
    // First the live flush's tick at T0 + 4,000 on the event clock, which runs before the
    // swap of that time is applied (engine/topics/ticker.ts): the pool as the swap at
    // T0 + 3,600 left it. Then the whole flush after the swap.
    const ticked = await c.next((f) => f.stream === 'pool_metrics');
    expect(ticked.data).toMatchObject({ pool_address: AMM, slot: 3_000 + n - 1 });
    const m = await c.next((f) => f.stream === 'pool_metrics');
    expect(m.data).toMatchObject({ pool_address: AMM, token_address: MINT, quote_address: WSOL, pool_type: 'amm', slot: 3_000 + n, tx_index: 1, ix_index: 0 });
    expect(m.data.snapshot).toBeTypeOf('object');
    c.close();
    await c.closed;
  });

  it('pool_metrics when the token\'s holders change, without a trade', async () => {
    const c = await TestClient.connect(srv.url, { key });
    c.subscribe('pool_metrics', { pool_addresses: [AMM] });
    await c.untilPong();
    await ingest({ type: 'balance', token_address: MINT, wallet_address: WALLET, balance_raw: '50000000000000', slot: 4_100, at: T0 + 4_500 });
    engine.flush();
    const m = await c.next((f) => f.stream === 'pool_metrics');
    // 50M of a 1e9 supply, one holder.
    expect(m.data).toMatchObject({ pool_address: AMM, totals: { holder_count: 1, top10_pct: 5 } });
    c.close();
    await c.closed;
  });

  it('token_metadata on a metadata change', async () => {
    const c = await TestClient.connect(srv.url, { key });
    c.subscribe('token_metadata', {});
    await c.untilPong();
    await ingest({ type: 'token', token_address: MINT, name: 'Mint Renamed', slot: 20, at: T0 + 5_000 });
    expect(await c.next()).toEqual({
      stream: 'token_metadata',
      data: { token_address: MINT, symbol: 'M', name: 'Mint Renamed', image_url: null, description: null, socials: {} },
    });
    c.close();
    await c.closed;
  });

  it('candles: subscription_id echoed, seq per series; a resume returns exactly the missed updates, then live ones follow', async () => {
    const payload = { pool_address: AMM, interval: '1s', mode: 'price', currency: 'quote' };
    const a = await TestClient.connect(srv.url, { key });
    a.subscribe('candles', { ...payload, subscription_id: 'chart-1' });
    await a.untilPong();
    await ingest(swap(AMM, T0 + 10_000, 'buy', '1000000', '2000000000'));
    engine.flush();
    const live = await a.next((f) => f.stream === 'candles');
    expect(live.data).toMatchObject({ subscription_id: 'chart-1', pool_address: AMM, interval: '1s', mode: 'price', currency: 'quote' });
    expect(live.data.candles).toEqual([{ start_at: T0 + 10_000, open: 2, high: 2, low: 2, close: 2, volume: 2 }]);
    const seq = live.data.seq as number;
    a.close();
    await a.closed;

    // Missed while away: two updates of one candle and a new candle.
    await ingest(swap(AMM, T0 + 10_000, 'buy', '1000000', '3000000000'));
    engine.flush();
    await ingest(swap(AMM, T0 + 10_000, 'sell', '1000000', '1000000000'));
    engine.flush();
    await ingest(swap(AMM, T0 + 11_000, 'buy', '1000000', '5000000000'));
    engine.flush();

    const b = await TestClient.connect(srv.url, { key });
    b.subscribe('candles', { ...payload, subscription_id: 'chart-2', resume_after_seq: seq });
    const resumed = await b.next();
    expect(resumed).toEqual({
      stream: 'candles',
      data: {
        subscription_id: 'chart-2', pool_address: AMM, interval: '1s', mode: 'price', currency: 'quote', seq: seq + 3,
        candles: [
          { start_at: T0 + 10_000, open: 2, high: 3, low: 1, close: 1, volume: 6 },
          { start_at: T0 + 11_000, open: 5, high: 5, low: 5, close: 5, volume: 5 },
        ],
      },
    });
    await ingest(swap(AMM, T0 + 11_000, 'sell', '1000000', '4000000000'));
    engine.flush();
    const next = await b.next((f) => f.stream === 'candles');
    expect(next.data).toMatchObject({ subscription_id: 'chart-2', seq: seq + 4 });
    expect(next.data.candles).toEqual([{ start_at: T0 + 11_000, open: 5, high: 5, low: 4, close: 4, volume: 9 }]);

    // Up to date: the resume frame is empty; by time: the candles since then.
    b.subscribe('candles', { ...payload, subscription_id: 'chart-3', resume_after_seq: seq + 4 });
    expect((await b.next((f) => f.data?.subscription_id === 'chart-3')).data).toMatchObject({ seq: seq + 4, candles: [] });
    b.subscribe('candles', { ...payload, subscription_id: 'chart-4', resume_after_time: T0 + 10_500 });
    const byTime = await b.next((f) => f.data?.subscription_id === 'chart-4');
    expect(byTime.data.candles.map((x: any) => x.start_at)).toEqual([T0 + 10_000, T0 + 11_000]);
    b.close();
    await b.closed;
  });

  it('candles resume for an unknown pool sends nothing; the subscription stands', async () => {
    const c = await TestClient.connect(srv.url, { key });
    const pool = base58(r, 44);
    c.subscribe('candles', { pool_address: pool, resume_after_seq: 5 });
    expect(await c.untilPong()).toEqual([]);
    expect(srv.endpoint.sink.has(`candles:${pool}:1m:price:usd`)).toBe(true);
    c.close();
    await c.closed;
  });
});
