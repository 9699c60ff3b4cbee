import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followWindow, holdSnapshot, type HeldWindow, type WindowEvent } from '../../actors/feed/feed.events.ts';
import { bookOf, type TradedState } from '../../actors/feed/feed.actor.ts';
import { FeedBook } from '../../actors/feed/feed.logic.ts';
import { FEED_NAMES, RANKING_WINDOWS } from '../../actors/feed/feed.rules.ts';
import { openStorage } from '../../storage/index.ts';
import { createEngine } from '../../engine/system.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, tempDir, testConfig, WSOL } from '../helpers/fixtures.ts';
import { startStreamsEngine, type StreamsEngine } from '../helpers/streams-engine.ts';
import { TestClient, type WsTestServer } from '../helpers/ws.ts';

/**
 * The ranking feeds wired into the engine (issue 23): feed actors fed by the router,
 * recomputed on the engine-clock ticker, read by route 16 over real HTTP and sent on
 * the `rankings` stream over a real WebSocket. The test config runs the event clock:
 * a tick falls when an event's time reaches a multiple of the feed's period, so the
 * tests move time with quote_price events.
 */

const r = rng(2311);
const T0 = 1_767_225_600_000;
const MINT = [base58(r, 44), base58(r, 44), base58(r, 44), base58(r, 44)];
const CURVE1 = base58(r, 44);
const CURVE2 = base58(r, 44);
const AMM1 = base58(r, 44);
const AMM2 = base58(r, 44);
const GRADUATED = base58(r, 44);
const WALLETS = Array.from({ length: 4 }, () => base58(r, 44));
const INITIAL = 793_100_000_000_000;
let n = 0;

/** A swap; a curve's `progress` (0..100) sets its real base reserve after the trade. */
const swap = (pool: string, at: number, side: 'buy' | 'sell', base: string, quote: string, wallet = WALLETS[0]!, progress?: number) => ({
  type: 'swap', tx_hash: base58(rng(90_000 + ++n), 88), slot: 5_000 + n, tx_index: 1, event_index: 0, at, pool_address: pool, wallet_address: wallet, side,
  base_amount_raw: base, quote_amount_raw: quote, base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000000',
  ...(progress === undefined ? {} : { real_base_reserve_raw: String(Math.round(INITIAL * (1 - progress / 100))), real_quote_reserve_raw: '1000000000' }),
});
/** Moves the engine clock to `at` (the ticks due before it run first). */
const clockTo = (at: number) => ({ type: 'quote_price', quote_address: WSOL, price_usd: 100, at });

let served: StreamsEngine;
let http: EngineServer;
let ws: WsTestServer;
let key: string;
const ingest = (...events: unknown[]) => served.ingest(...events);

const addresses = (items: Array<{ pool_address: string }>) => items.map((i) => i.pool_address);
/** What a snapshot and a followed copy must agree on (entries' market values are as of when each was built). */
const rowsOf = (rows: any[]) => rows.map((e) => ({ pool_address: e.pool_address, score: e.score, entered_at: e.entered_at }));

beforeAll(async () => {
  served = await startStreamsEngine(async (ingest) => {
    await ingest(clockTo(T0));
    for (let i = 0; i < MINT.length; i++) {
      await ingest({ type: 'token', token_address: MINT[i], decimals: 6, supply_raw: '1000000000000000', symbol: `M${i}`, name: `Mint ${i}`, slot: 1, at: T0 });
    }
    await ingest(
      { type: 'pool', pool_address: CURVE1, base_address: MINT[0], quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0 + 100, curve_initial_real_base_raw: String(INITIAL), slot: 2 },
      { type: 'pool', pool_address: CURVE2, base_address: MINT[1], quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0 + 200, curve_initial_real_base_raw: String(INITIAL), slot: 3 },
      { type: 'pool', pool_address: AMM1, base_address: MINT[2], quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0 + 300, slot: 4 },
      { type: 'pool', pool_address: AMM2, base_address: MINT[3], quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0 + 400, slot: 5 },
      clockTo(T0 + 1_000),
    );
  });
  ({ http, ws, key } = served);
});

afterAll(() => served?.close());

describe('route 16 on a hand-built market', () => {
  it('new_pair: every pool created within the window, newest first, score created_at, entered at the tick', async () => {
    const res = await http.get('/v1/tokens/rankings/new_pair?window=5m');
    expect(res.status).toBe(200);
    expect(addresses(res.body.data)).toEqual([AMM2, AMM1, CURVE2, CURVE1]);
    expect(res.body.data.map((e: any) => [e.rank, e.score, e.entered_at])).toEqual([[1, T0 + 400, T0 + 1_000], [2, T0 + 300, T0 + 1_000], [3, T0 + 200, T0 + 1_000], [4, T0 + 100, T0 + 1_000]]);
    const first = res.body.data[0];
    expect(first.token).toMatchObject({ token_address: MINT[3], symbol: 'M3' });
    expect(first.pool).toMatchObject({ base_address: MINT[3], quote_address: WSOL, pool_type: 'amm', created_at: T0 + 400 });
    expect(first).toHaveProperty('snapshot.price_quote');
    expect(first).toHaveProperty('totals');
    expect(first).toHaveProperty('windowed');
    // The default window is 1h; pages by rank, the cursor bound to feed and window.
    const page1 = await http.get('/v1/tokens/rankings/new_pair?limit=3');
    expect(addresses(page1.body.data)).toEqual([AMM2, AMM1, CURVE2]);
    expect(page1.body.pagination.has_more).toBe(true);
    const page2 = await http.get(`/v1/tokens/rankings/new_pair?limit=3&cursor=${page1.body.pagination.next_cursor}`);
    expect(addresses(page2.body.data)).toEqual([CURVE1]);
    expect(page2.body.data[0].rank).toBe(4);
    expect(page2.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const other = await http.get(`/v1/tokens/rankings/new_pair?window=6h&limit=3&cursor=${page1.body.pagination.next_cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/cursor/);
  });

  it('400 naming the parameter: feed, window, limit, cursor, unknown parameters', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/v1/tokens/rankings/trending', /feed/],
      // Matches /v1/tokens/:token_address/trades segment for segment: the static 'rankings' wins (moved from routes-not-built.test.ts).
      ['/v1/tokens/rankings/trades', /feed/],
      ['/v1/tokens/rankings/popular?window=1m', /window/],
      ['/v1/tokens/rankings/popular?limit=101', /limit/],
      ['/v1/tokens/rankings/popular?limit=0', /limit/],
      ['/v1/tokens/rankings/popular?cursor=AAAA', /cursor/],
      ['/v1/tokens/rankings/popular?sort=score', /sort/],
    ];
    for (const [path, named] of cases) {
      const res = await http.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.code, path).toBe(4000);
      expect(res.body.message, path).toMatch(named);
    }
  });

  it('popular: volume_usd × sqrt(traders) in the window, at the 1h cadence (2 minutes of engine time)', async () => {
    // AMM1: 2 SOL from two wallets ($200 × sqrt 2 ≈ 283); AMM2: 3 SOL from one ($300).
    await ingest(
      swap(AMM1, T0 + 2_000, 'buy', '2000000', '1000000000', WALLETS[0]),
      swap(AMM1, T0 + 2_100, 'buy', '2000000', '1000000000', WALLETS[1]),
      swap(AMM2, T0 + 2_200, 'buy', '2000000', '3000000000', WALLETS[2]),
      clockTo(T0 + 60_000),
    );
    // Not recomputed yet: the 1h feed recomputes every 2 minutes; the 5m feed at the minute did.
    expect((await http.get('/v1/tokens/rankings/popular')).body.data).toEqual([]);
    expect(addresses((await http.get('/v1/tokens/rankings/popular?window=5m')).body.data)).toEqual([AMM2, AMM1]);
    await ingest(clockTo(T0 + 120_000));
    const res = await http.get('/v1/tokens/rankings/popular');
    expect(addresses(res.body.data)).toEqual([AMM2, AMM1]);
    expect(res.body.data[0].score).toBeCloseTo(300, 6);
    expect(res.body.data[1].score).toBeCloseTo(200 * Math.SQRT2, 6);
  });
});

describe('the rankings stream', () => {
  it('almost_bonded: snapshot, then enter/exit and window batches that give the next snapshot; a curve crossing 70 %, and graduation', async () => {
    const c = await TestClient.connect(ws.url, { key });
    c.subscribe('rankings', { feed: 'almost_bonded', window: '1h' });
    const snap = await c.next((m) => m.stream === 'rankings');
    expect(snap.data).toMatchObject({ event: 'snapshot', feed: 'almost_bonded', window: '1h', rankings: [], seq: 0 });
    let held: HeldWindow<any> = holdSnapshot(snap.data);
    let t = T0 + 130_000;
    /** The next tick's batch: the events before it, and the copy it gives. */
    const step = async (...events: unknown[]) => {
      t += 1_000;
      await ingest(...events, clockTo(t));
      const got: any[] = [];
      for (;;) {
        const m = await c.next((x) => x.stream === 'rankings');
        got.push(m.data);
        if (m.data.event === 'window') break;
      }
      const batch = got[got.length - 1] as WindowEvent<any>;
      const next = followWindow(held, batch);
      expect(next).not.toBe('reload');
      held = next as HeldWindow<any>;
      // A new subscriber's snapshot is the copy the batches gave.
      const fresh = await TestClient.connect(ws.url, { key });
      fresh.subscribe('rankings', { feed: 'almost_bonded', window: '1h' });
      const s = (await fresh.next((m) => m.stream === 'rankings')).data;
      fresh.close();
      expect(s.seq).toBe(held.seq);
      expect(rowsOf(s.rankings)).toEqual(rowsOf(held.rows));
      return got;
    };

    // CURVE1 at 69 %: not a member; at 80 %: enters.
    await ingest(swap(CURVE1, t, 'buy', '2000000', '1000000000', WALLETS[0], 69), clockTo(t + 1_000));
    t += 1_000;
    expect(c.messages.filter((m) => m.stream === 'rankings')).toEqual([]);
    let got = await step(swap(CURVE1, t, 'buy', '2000000', '1000000000', WALLETS[0], 80));
    expect(got.map((e) => e.event)).toEqual(['enter', 'window']);
    expect(got[0]).toMatchObject({ feed: 'almost_bonded', window: '1h', pool_address: CURVE1, at: t, entry: { pool_address: CURVE1, rank: 1, score: 80, entered_at: t } });
    expect(got[1]).toMatchObject({ sort: 'bonding_curve_progress_pct', seq: 1, depth: 100, ops: [{ op: 'insert', pool_address: CURVE1, position: 0 }], pool_addresses: null });

    // CURVE2 at 90 % enters ahead of it.
    got = await step(swap(CURVE2, t, 'buy', '2000000', '1000000000', WALLETS[1], 90));
    expect(got.map((e) => e.event)).toEqual(['enter', 'window']);
    expect(got[1]).toMatchObject({ seq: 2, ops: [{ op: 'insert', pool_address: CURVE2, position: 0 }] });
    expect(addresses(held.rows)).toEqual([CURVE2, CURVE1]);

    // CURVE1 sold back under 70 %: exits.
    got = await step(swap(CURVE1, t, 'sell', '2000000', '1000000000', WALLETS[0], 60));
    expect(got.map((e) => e.event)).toEqual(['exit', 'window']);
    expect(got[0]).toMatchObject({ pool_address: CURVE1, entry: null, at: t });
    expect(got[1]).toMatchObject({ seq: 3, ops: [{ op: 'remove', pool_address: CURVE1 }] });

    // CURVE2 graduates into GRADUATED: it leaves almost_bonded and GRADUATED enters migrated.
    const m = await TestClient.connect(ws.url, { key });
    m.subscribe('rankings', { feed: 'migrated', window: '24h' });
    expect((await m.next((x) => x.stream === 'rankings')).data).toMatchObject({ event: 'snapshot', rankings: [] });
    got = await step(
      { type: 'pool', pool_address: GRADUATED, base_address: MINT[1], quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: t, migrated_from_pool_address: CURVE2, slot: 900 },
      { type: 'migration', token_address: MINT[1], from_pool_address: CURVE2, to_pool_address: GRADUATED, slot: 900, at: t },
    );
    expect(got.map((e) => e.event)).toEqual(['exit', 'window']);
    expect(got[0]).toMatchObject({ pool_address: CURVE2 });
    expect(held.rows).toEqual([]);
    const enter = (await m.next((x) => x.stream === 'rankings')).data;
    expect(enter).toMatchObject({ event: 'enter', feed: 'migrated', window: '24h', pool_address: GRADUATED, entry: { score: t - 1_000, pool: { migrated_from_pool_address: CURVE2 } } });
    expect((await m.next((x) => x.stream === 'rankings')).data).toMatchObject({ event: 'window', seq: 1, sort: 'migrated_at', ops: [{ op: 'insert', pool_address: GRADUATED, position: 0 }] });
    // A pool a curve graduated into is migrated's, not new_pair's.
    expect(addresses((await http.get('/v1/tokens/rankings/new_pair?window=24h')).body.data)).not.toContain(GRADUATED);
    m.close();
    c.close();
  });

  it('a missed batch is a seq gap: the copy held reloads, a new snapshot follows on', async () => {
    const c = await TestClient.connect(ws.url, { key });
    c.subscribe('rankings', { feed: 'almost_bonded', window: '5m' });
    const first = (await c.next((m) => m.stream === 'rankings')).data;
    const held = holdSnapshot<any>(first);
    // Away for one batch.
    c.unsubscribe('rankings', { feed: 'almost_bonded', window: '5m' });
    await c.untilPong();
    const t = T0 + 200_000;
    await ingest(swap(CURVE1, t, 'buy', '2000000', '1000000000', WALLETS[0], 75), clockTo(t + 1_000));
    c.subscribe('rankings', { feed: 'almost_bonded', window: '5m' });
    const again = (await c.next((m) => m.stream === 'rankings')).data;
    expect(again).toMatchObject({ event: 'snapshot', seq: first.seq + 1 });
    await ingest(swap(CURVE1, t + 1_500, 'sell', '2000000', '1000000000', WALLETS[0], 50), clockTo(t + 2_000));
    const batch = (await c.next((m) => m.stream === 'rankings' && m.data.event === 'window')).data;
    expect(batch.seq).toBe(first.seq + 2);
    expect(followWindow(held, batch)).toBe('reload');
    const followed = followWindow(holdSnapshot<any>(again), batch);
    expect(followed).not.toBe('reload');
    expect((followed as HeldWindow<any>).rows).toEqual([]);
    c.close();
  });

  it('an invalid payload subscribes nothing; a Starter key subscribes (rankings is not Pro-only)', async () => {
    const c = await TestClient.connect(ws.url, { key: (await ws.key('starter')).key });
    c.subscribe('rankings', { feed: 'trending', window: '1h' });
    c.subscribe('rankings', { feed: 'popular', window: '2h' });
    expect(await c.untilPong()).toEqual([]);
    c.subscribe('rankings', { feed: 'popular' });
    const snap = (await c.next((m) => m.stream === 'rankings')).data;
    expect(snap).toMatchObject({ event: 'snapshot', feed: 'popular', window: '1h' });
    expect(addresses(snap.rankings)).toEqual([AMM2, AMM1]);
    c.close();
  });
});

describe('across a restart', () => {
  it.each([
    ['their snapshots', false],
    ['snapshots of one actor per feed (before one per window)', true],
  ])('the feed actors come back from %s: the same rows, and seqs go on from where they were', async (_, legacy) => {
    const d = tempDir();
    try {
      const open = () => createEngine({ config: testConfig(d.path) });
      let e = await open();
      const put = async (...events: unknown[]) => {
        for (const x of events) expect((await e.ingest(x)).status).toBe('applied');
      };
      await put(
        clockTo(T0),
        { type: 'token', token_address: MINT[0], decimals: 6, supply_raw: '1000000000000000', symbol: 'M0', name: 'Mint 0', slot: 1, at: T0 },
        { type: 'pool', pool_address: CURVE1, base_address: MINT[0], quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0 + 100, curve_initial_real_base_raw: String(INITIAL), slot: 2 },
        swap(CURVE1, T0 + 500, 'buy', '2000000', '1000000000', WALLETS[0], 85),
        clockTo(T0 + 1_000),
      );
      let s = await serveEngine(e);
      const before = await s.text('/v1/tokens/rankings/almost_bonded');
      const newPairs = await s.text('/v1/tokens/rankings/new_pair?window=5m');
      expect(before).toContain(`"pool_address":"${CURVE1}"`);
      expect(newPairs).toContain(`"pool_address":"${CURVE1}"`);
      expect(e.rankings!.snapshotFrame('almost_bonded', '1h')).toContain('"seq":1');
      const traded = [...(e.feeds!.get('traded') as TradedState).traded];
      expect(traded.map(([pool]) => pool)).toEqual([CURVE1]);
      s.close();
      await e.stop();
      if (legacy) await toLegacyFeedSnapshots(d.path);

      e = await open();
      if (legacy) {
        expect(e.storage.snapshots.get('feed:almost_bonded')).toBeUndefined();
        expect(e.storage.snapshots.get('feed:popular')).toBeUndefined();
      }
      expect([...(e.feeds!.get('traded') as TradedState).traded]).toEqual(traded);
      s = await serveEngine(e);
      expect(await s.text('/v1/tokens/rankings/almost_bonded')).toBe(before);
      expect(await s.text('/v1/tokens/rankings/new_pair?window=5m')).toBe(newPairs);
      // The next batch is seq 2, not a second seq 1.
      await put(swap(CURVE1, T0 + 1_500, 'sell', '2000000', '1000000000', WALLETS[0], 50), clockTo(T0 + 2_000));
      expect(bookOf(e.feeds!.get('almost_bonded:1h'))!.lastSeq).toBe(2);
      expect((await s.get('/v1/tokens/rankings/almost_bonded')).body.data).toEqual([]);
      s.close();
      await e.stop();
    } finally {
      d.cleanup();
    }
  });
});

type Envelope = { seq: number; state: { state: Record<string, unknown> } & Record<string, unknown> };

const doubles = (bytes: unknown): Float64Array => new Float64Array(new Uint8Array(bytes as Uint8Array).buffer);

/** A book's data as snapshots of then held it: [pool, score] entries. */
function legacyBook(book: unknown): unknown {
  const { poolAddresses, scores, ...rest } = book as { poolAddresses?: string[]; scores?: Uint8Array };
  if (scores === undefined) return book;
  const s = doubles(scores);
  return { ...rest, pools: poolAddresses!.map((pool, i) => [pool, s[i]]) };
}

/** `traded` as snapshots of then held it: [pool, at, seq] entries. */
function legacyTraded(state: Record<string, unknown> | undefined): unknown[] {
  if (state === undefined) return [];
  if (state.times === undefined) return (state.traded as unknown[] | undefined) ?? [];
  const t = doubles(state.times);
  return (state.pools as string[]).map((pool, i) => [pool, t[2 * i], t[2 * i + 1]]);
}

/**
 * Rewrites a stopped engine's feed snapshots the way they were kept before one actor per
 * (feed, window): one `feed:<feed>` each, with its four books, popular's traded pools and
 * stocks' tagged tokens.
 */
async function toLegacyFeedSnapshots(path: string): Promise<void> {
  const storage = openStorage(path);
  const snaps = storage.snapshots;
  const get = (id: string) => snaps.get(id) as Envelope | undefined;
  for (const feed of FEED_NAMES) {
    const parts = RANKING_WINDOWS.map((w) => get(`feed:${feed}:${w}`));
    const first = parts.find((p) => p !== undefined);
    if (first === undefined) continue;
    const books = Object.fromEntries(RANKING_WINDOWS.map((w, i) => [w, legacyBook(parts[i]?.state.state.book ?? new FeedBook(feed, w).toData())]));
    const traded = feed === 'popular' ? legacyTraded(get('feed:traded')?.state.state) : [];
    const stockTokens = feed === 'stocks' ? (get('feed:stock-tags')?.state.state.stockTokens ?? []) : [];
    const seq = Math.max(...parts.map((p) => p?.seq ?? 0));
    await snaps.put(`feed:${feed}`, { seq, state: { ...first.state, state: { feed, books, traded, stockTokens } } });
    for (const w of RANKING_WINDOWS) await snaps.remove(`feed:${feed}:${w}`);
  }
  const traded = get('feed:traded');
  // popular had no book yet: its traded pools were in popular's snapshot all the same.
  if (traded && get('feed:popular') === undefined) {
    const books = Object.fromEntries(RANKING_WINDOWS.map((w) => [w, legacyBook(new FeedBook('popular', w).toData())]));
    await snaps.put('feed:popular', { seq: traded.seq, state: { ...traded.state, state: { feed: 'popular', books, traded: legacyTraded(traded.state.state), stockTokens: [] } } });
  }
  await snaps.remove('feed:traded');
  await snaps.remove('feed:stock-tags');
  await storage.close();
}
