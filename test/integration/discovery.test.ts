import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRADE } from '../../engine/model/index.ts';
import type { ActorBehavior } from '../../engine/supervisor/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * Posts, labeled wallets, labeled activity and markers (issue 23): routes 18, 19, 21 over
 * real HTTP and the social_posts, wallet_activity and markers streams over a real
 * WebSocket, on a real engine (LMDB in a temp dir, event clock). Signals come from a
 * test actor kind that emits the `signal` derived event on a trade of SIGNALER.
 */

const r = rng(2323);
const T0 = 1_767_225_600_000;
const TOKEN = base58(r, 44);
const OTHER = base58(r, 44);
const POOL = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const KOL = base58(r, 44);
const SMART = base58(r, 44);
const RETAIL = base58(r, 44);
const SIGNALER = base58(r, 44);
let n = 0;

const swap = (wallet: string, at: number, side: 'buy' | 'sell', quoteRaw = '1000000000') => ({
  type: 'swap', tx_hash: base58(rng(70_000 + ++n), 88), slot: 9_000 + n, tx_index: 0, event_index: 0, at, pool_address: POOL, wallet_address: wallet, side,
  base_amount_raw: '1000000000', quote_amount_raw: quoteRaw, base_reserve_raw: '1000000000000000', quote_reserve_raw: '1000000000000',
});
const label = (wallet: string, name: string, action: 'add' | 'remove', at: number, detail: Record<string, unknown> | null = null) => ({ type: 'label', wallet_address: wallet, label: name, action, detail, at });
const post = (id: string, author: string, tokens: string[], at: number) => ({
  type: 'social_post', post_id: id, platform: 'x', author, author_wallet_address: null, text: `post ${id}`, url: `https://x.com/${author}/status/${id}`, token_addresses: tokens, at,
});

/** A test signal kind: a `signal` on the token of every trade by SIGNALER. */
const signaler: ActorBehavior<{ fired: number }> = {
  kind: 'test-signaler',
  takes: ['pool.trade'],
  route: (e) => (e.type === 'pool.trade' && e.trade[TRADE.wallet] === SIGNALER ? e.base_address : undefined),
  initial: () => ({ fired: 0 }),
  apply(state, e, ctx) {
    if (e.type !== 'pool.trade') return;
    state.fired++;
    const t = e.trade;
    ctx.emit({
      type: 'signal',
      signal: { signal_id: `kol_buy:${e.base_address}:${t[TRADE.txHash]}:${t[TRADE.eventIndex]}`, kind: 'kol_buy', token_address: e.base_address, pool_address: e.pool_address, wallet_addresses: [SIGNALER], at: t[TRADE.at], score: 0.5, detail: {} },
    });
  },
};

let dir: TempDir;
let engine: Engine;
let http: EngineServer;
let starter: EngineServer;
let ws: WsTestServer;
let proKey: string;

async function ingest(...events: unknown[]) {
  for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
}

/** A pro client subscribed to `stream` with `payload` (the ping's pong: the subscribe was applied), and the frames before the pong. */
async function subscribed(stream: string, payload: unknown): Promise<TestClient & { first: any[] }> {
  const client = await TestClient.authed(ws.url, proKey);
  client.send({ type: 'subscribe', stream, payload });
  client.send({ type: 'ping' });
  const first: any[] = [];
  for (let m = await client.next(); m.type !== 'pong'; m = await client.next()) first.push(m);
  return Object.assign(client, { first });
}

beforeAll(async () => {
  dir = tempDir();
  // The engine's own signal actors are off: the marks of signals come from the test actor (signaler) alone.
  engine = await createEngine({ config: testConfig(dir.path), actors: [signaler], signals: false });
  await ingest(
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: TOKEN, decimals: 6, supply_raw: '1000000000000000', symbol: 'TOK', name: 'Token', slot: 1, at: T0 },
    { type: 'pool', pool_address: POOL, base_address: TOKEN, quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0 + 10, slot: 2 },
  );
  http = await serveEngine(engine, { plan: 'pro' });
  starter = await serveEngine(engine, { plan: 'starter' });
  ws = await startWsServer({ engine });
  proKey = (await ws.key('pro')).key;
});

afterAll(async () => {
  http?.close();
  starter?.close();
  await ws?.close();
  await engine?.stop();
  dir?.cleanup();
});

describe('posts: route 18 and the social_posts stream', () => {
  it('stores posts by post_id and lists them newest first with token_address, author and start_time filters, a page at a time', async () => {
    const all = await subscribed('social_posts', {});
    const byAuthor = await subscribed('social_posts', { author: 'alice' });
    await ingest(post('p1', 'alice', [TOKEN], T0 + 1_000), post('p2', 'bob', [TOKEN, OTHER], T0 + 2_000), post('p3', 'alice', [], T0 + 3_000));
    // The same post again is a no-op (the gate's identity: post_id).
    expect((await engine.ingest(post('p1', 'alice', [TOKEN], T0 + 1_000))).status).not.toBe('applied');
    const list = await http.get('/v1/tokens/posts');
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: any) => p.post_id)).toEqual(['p3', 'p2', 'p1']);
    expect(list.body.data[2]).toEqual({ post_id: 'p1', platform: 'x', author: 'alice', author_wallet_address: null, text: 'post p1', url: 'https://x.com/alice/status/p1', token_addresses: [TOKEN], at: T0 + 1_000 });
    expect((await http.get(`/v1/tokens/posts?token_address=${TOKEN}`)).body.data.map((p: any) => p.post_id)).toEqual(['p2', 'p1']);
    expect((await http.get(`/v1/tokens/posts?token_address=${OTHER}`)).body.data.map((p: any) => p.post_id)).toEqual(['p2']);
    expect((await http.get('/v1/tokens/posts?author=alice')).body.data.map((p: any) => p.post_id)).toEqual(['p3', 'p1']);
    expect((await http.get(`/v1/tokens/posts?author=alice&token_address=${TOKEN}`)).body.data.map((p: any) => p.post_id)).toEqual(['p1']);
    expect((await http.get(`/v1/tokens/posts?start_time=${T0 + 2_000}`)).body.data.map((p: any) => p.post_id)).toEqual(['p3', 'p2']);
    const page1 = await http.get('/v1/tokens/posts?limit=2');
    expect(page1.body.data.map((p: any) => p.post_id)).toEqual(['p3', 'p2']);
    expect(page1.body.pagination.has_more).toBe(true);
    const page2 = await http.get(`/v1/tokens/posts?limit=2&cursor=${page1.body.pagination.next_cursor}`);
    expect(page2.body.data.map((p: any) => p.post_id)).toEqual(['p1']);
    expect(page2.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const other = await http.get(`/v1/tokens/posts?limit=2&author=bob&cursor=${page1.body.pagination.next_cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/cursor/);
    // The stream: every post to the empty payload, alice's to hers; the same bytes as the route's items.
    const got = [await all.next((m) => m.stream === 'social_posts'), await all.next((m) => m.stream === 'social_posts'), await all.next((m) => m.stream === 'social_posts')];
    expect(got.map((m) => m.data.post_id)).toEqual(['p1', 'p2', 'p3']);
    expect(got[0].data).toEqual(list.body.data[2]);
    const alices = [await byAuthor.next((m) => m.stream === 'social_posts'), await byAuthor.next((m) => m.stream === 'social_posts')];
    expect(alices.map((m) => m.data.post_id)).toEqual(['p1', 'p3']);
    all.ws.close();
    byAuthor.ws.close();
  });
});

describe('labeled wallets (route 19) and labeled activity (route 21, wallet_activity)', () => {
  it('lists wallets with a label in force, with details, by label, a page at a time; a removed label leaves the list', async () => {
    await ingest(
      label(KOL, 'kol', 'add', T0 + 4_000, { name: 'Big Kol', twitter: '@bigkol' }),
      label(SMART, 'smart_money', 'add', T0 + 4_100),
      label(SMART, 'whale', 'add', T0 + 4_200),
      label(RETAIL, 'bot', 'add', T0 + 4_300),
      label(RETAIL, 'bot', 'remove', T0 + 4_400),
    );
    const res = await http.get('/v1/wallets');
    expect(res.status).toBe(200);
    const expected = [
      { wallet_address: KOL, labels: [{ label: 'kol', detail: { name: 'Big Kol', twitter: '@bigkol' }, labeled_at: T0 + 4_000 }] },
      { wallet_address: SMART, labels: [{ label: 'smart_money', detail: null, labeled_at: T0 + 4_100 }, { label: 'whale', detail: null, labeled_at: T0 + 4_200 }] },
    ].sort((a, b) => (a.wallet_address < b.wallet_address ? -1 : 1));
    expect(res.body.data).toEqual(expected);
    expect((await http.get('/v1/wallets?label=whale')).body.data.map((w: any) => w.wallet_address)).toEqual([SMART]);
    expect((await http.get('/v1/wallets?label=bot')).body.data).toEqual([]);
    const page1 = await http.get('/v1/wallets?limit=1');
    expect(page1.body.data).toEqual([expected[0]]);
    const page2 = await http.get(`/v1/wallets?limit=1&cursor=${page1.body.pagination.next_cursor}`);
    expect(page2.body.data).toEqual([expected[1]]);
    expect(page2.body.pagination.has_more).toBe(false);
  });

  it('stores trades of labeled wallets with their labels at the trade; wallets= follows the caller\'s own list, labeled or not', async () => {
    const labeledStream = await subscribed('wallet_activity', {});
    const kolStream = await subscribed('wallet_activity', { label: 'kol' });
    const mine = await subscribed('wallet_activity', { wallets: [RETAIL] });
    // 1 SOL for 1,000 tokens: price 0.001 SOL, market cap 1,000,000 SOL = 100,000,000 USD; 2 SOL: twice that.
    await ingest(swap(KOL, T0 + 5_000, 'buy'), swap(RETAIL, T0 + 5_100, 'buy'), swap(SMART, T0 + 5_200, 'sell', '2000000000'));
    const res = await http.get('/v1/wallets/activity');
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: any) => t.wallet_address)).toEqual([SMART, KOL]);
    expect(res.body.data[1]).toMatchObject({
      at: T0 + 5_000, token_address: TOKEN, pool_address: POOL, wallet_address: KOL, labels: [{ label: 'kol', detail: { name: 'Big Kol', twitter: '@bigkol' } }],
      type: 'buy', token_amount: 1_000, amount_quote: 1, amount_usd: 100, price_quote: 0.001, price_usd: 0.1, market_cap_quote: 1_000_000, market_cap_usd: 100_000_000,
    });
    expect(res.body.data[0].labels.map((l: any) => l.label)).toEqual(['smart_money', 'whale']);
    expect((await http.get('/v1/wallets/activity?label=kol')).body.data.map((t: any) => t.wallet_address)).toEqual([KOL]);
    expect((await http.get('/v1/wallets/activity?min_market_cap_usd=150000000')).body.data.map((t: any) => t.wallet_address)).toEqual([SMART]);
    expect((await http.get('/v1/wallets/activity?max_market_cap_usd=150000000')).body.data.map((t: any) => t.wallet_address)).toEqual([KOL]);
    expect((await http.get(`/v1/wallets/activity?start_time=${T0 + 5_100}`)).body.data.map((t: any) => t.wallet_address)).toEqual([SMART]);
    const page1 = await http.get('/v1/wallets/activity?limit=1');
    expect(page1.body.data.map((t: any) => t.wallet_address)).toEqual([SMART]);
    const page2 = await http.get(`/v1/wallets/activity?limit=1&cursor=${page1.body.pagination.next_cursor}`);
    expect(page2.body.data.map((t: any) => t.wallet_address)).toEqual([KOL]);
    expect(page2.body.pagination.has_more).toBe(false);
    // The caller's own list: RETAIL is unlabeled (its bot label was removed) and still listed.
    const own = await http.get(`/v1/wallets/activity?wallets=${RETAIL},${KOL}`);
    expect(own.body.data.map((t: any) => [t.wallet_address, t.labels.length])).toEqual([[RETAIL, 0], [KOL, 1]]);
    const ownPage = await http.get(`/v1/wallets/activity?wallets=${RETAIL},${KOL}&limit=1`);
    const ownNext = await http.get(`/v1/wallets/activity?wallets=${RETAIL},${KOL}&limit=1&cursor=${ownPage.body.pagination.next_cursor}`);
    expect(ownNext.body.data.map((t: any) => t.wallet_address)).toEqual([KOL]);
    // The streams, with the route's items.
    const a = [await labeledStream.next((m) => m.stream === 'wallet_activity'), await labeledStream.next((m) => m.stream === 'wallet_activity')];
    expect(a.map((m) => m.data)).toEqual([res.body.data[1], res.body.data[0]]);
    expect((await kolStream.next((m) => m.stream === 'wallet_activity')).data.wallet_address).toBe(KOL);
    const retail = await mine.next((m) => m.stream === 'wallet_activity');
    expect(retail.data).toMatchObject({ wallet_address: RETAIL, labels: [], type: 'buy' });
    for (const c of [labeledStream, kolStream, mine]) c.ws.close();
  });

  it('400 naming the parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/v1/tokens/posts?token_address=xyz', /token_address/],
      ['/v1/tokens/posts?author=', /author/],
      ['/v1/tokens/posts?limit=101', /limit/],
      ['/v1/tokens/posts?start_time=-1', /start_time/],
      ['/v1/tokens/posts?sort=at', /sort/],
      ['/v1/wallets?label=', /label/],
      ['/v1/wallets?cursor=AAAA', /cursor/],
      [`/v1/wallets/activity?wallets=${KOL},${KOL}`, /wallets/],
      ['/v1/wallets/activity?wallets=bad', /wallets/],
      ['/v1/wallets/activity?min_market_cap_usd=abc', /min_market_cap_usd/],
      ['/v1/wallets/activity?min_market_cap_usd=10&max_market_cap_usd=5', /max_market_cap_usd/],
      ['/v1/wallets/activity?limit=0', /limit/],
    ];
    for (const [path, named] of cases) {
      const res = await http.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.code, path).toBe(4000);
      expect(res.body.message, path).toMatch(named);
    }
  });
});

describe('markers', () => {
  it('marks a callout, a signal, a new ATH and a migration, sends labeled trades, and withdraws the marks of a removed label', async () => {
    const client = await subscribed('markers', { token_address: TOKEN });
    // On subscribe: the token's recent marks still in force, oldest first.
    const recent = client.first.filter((m) => m.stream === 'markers').map((m) => m.data);
    expect(recent.map((d) => d.marker_id)).toContain('callout:p1');
    expect(recent.filter((d) => d.event === 'labeled_trade').map((d) => d.wallet_address)).toEqual([KOL, SMART]);
    expect(recent.filter((d) => d.type === 'ath')).toHaveLength(1);
    await ingest(post('p4', 'carol', [TOKEN], T0 + 6_000));
    const callout = await client.next((m) => m.stream === 'markers');
    expect(callout.data).toEqual({
      event: 'mark', token_address: TOKEN, marker_id: 'callout:p4', at: T0 + 6_000, type: 'callout', source: 'x',
      detail: { post_id: 'p4', author: 'carol', author_wallet_address: null, url: 'https://x.com/carol/status/p4' },
    });

    await ingest(label(SIGNALER, 'kol', 'add', T0 + 6_500), swap(SIGNALER, T0 + 7_000, 'buy'));
    const kolTrade = await client.next((m) => m.stream === 'markers' && m.data.event === 'labeled_trade');
    expect(kolTrade.data).toMatchObject({ wallet_address: SIGNALER, labels: [{ label: 'kol', detail: null }], token_address: TOKEN, type: 'buy' });
    expect(kolTrade.data.marker_id).toBe(`labeled_trade:${kolTrade.data.trade_id}`);
    const signal = await client.next((m) => m.stream === 'markers' && m.data.type === 'signal');
    expect(signal.data).toMatchObject({ event: 'mark', marker_id: `signal:kol_buy:${TOKEN}:${kolTrade.data.trade_id}`, source: 'kol_buy', at: T0 + 7_000 });
    expect(signal.data.detail).toMatchObject({ kind: 'kol_buy', score: 0.5, wallet_addresses: [SIGNALER] });

    // A new ATH: 1.25 × the last ATH mark's market cap withdraws it and marks the new one.
    const athBefore = recent.find((d) => d.type === 'ath');
    await ingest(swap(RETAIL, T0 + 8_000, 'buy', '3000000000'));
    const removed = await client.next((m) => m.stream === 'markers' && m.data.event === 'remove');
    expect(removed.data).toEqual({ event: 'remove', token_address: TOKEN, marker_id: athBefore.marker_id });
    const ath = await client.next((m) => m.stream === 'markers' && m.data.type === 'ath');
    expect(ath.data.detail.market_cap_usd).toBeCloseTo(300_000_000);

    // A migration: the curve graduates into a new pool.
    await ingest(
      { type: 'pool', pool_address: CURVE, base_address: TOKEN, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0 + 8_100, curve_initial_real_base_raw: '793100000000000', slot: 3 },
      { type: 'pool', pool_address: AMM, base_address: TOKEN, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + 8_200, migrated_from_pool_address: CURVE, slot: 4 },
      { type: 'migration', token_address: TOKEN, from_pool_address: CURVE, to_pool_address: AMM, slot: 5, at: T0 + 8_300 },
    );
    const migration = await client.next((m) => m.stream === 'markers' && m.data.type === 'migration');
    expect(migration.data).toEqual({ event: 'mark', token_address: TOKEN, marker_id: `migration:${CURVE}`, at: T0 + 8_300, type: 'migration', source: 'market', detail: { from_pool_address: CURVE, to_pool_address: AMM } });

    // The kol label removed: SIGNALER's labeled trade and the kol_buy mark it produced are withdrawn.
    await ingest(label(SIGNALER, 'kol', 'remove', T0 + 9_000));
    const first = await client.next((m) => m.stream === 'markers');
    const second = await client.next((m) => m.stream === 'markers');
    expect([first.data, second.data].map((d) => d.event)).toEqual(['remove', 'remove']);
    expect(new Set([first.data.marker_id, second.data.marker_id])).toEqual(new Set([kolTrade.data.marker_id, signal.data.marker_id]));
    // SMART loses one of two labels: its labeled trade goes, and comes back with the label left.
    await ingest(label(SMART, 'whale', 'remove', T0 + 9_500));
    const gone = await client.next((m) => m.stream === 'markers');
    const back = await client.next((m) => m.stream === 'markers');
    expect(gone.data.event).toBe('remove');
    expect(back.data).toMatchObject({ event: 'labeled_trade', marker_id: gone.data.marker_id, wallet_address: SMART, labels: [{ label: 'smart_money', detail: null }] });
    // A new subscriber's recent marks no longer hold the withdrawn ones.
    const late = await subscribed('markers', { token_address: TOKEN });
    const ids = late.first.filter((m) => m.stream === 'markers').map((m) => m.data.marker_id);
    expect(ids).not.toContain(kolTrade.data.marker_id);
    expect(ids).not.toContain(signal.data.marker_id);
    expect(ids).not.toContain(athBefore.marker_id);
    expect(ids).toContain(ath.data.marker_id);
    expect(late.first.find((m) => m.data?.marker_id === gone.data.marker_id)?.data.labels).toEqual([{ label: 'smart_money', detail: null }]);
    client.ws.close();
    late.ws.close();
  });
});

describe('Pro only', () => {
  it('a starter key gets 403/4033 on routes 18, 19, 21 and the error frame on social_posts, wallet_activity and markers', async () => {
    for (const path of ['/v1/tokens/posts', '/v1/wallets', '/v1/wallets/activity']) {
      const res = await starter.get(path);
      expect(res.status, path).toBe(403);
      expect(res.body.code, path).toBe(4033);
      expect(res.body.error, path).toBe('PLAN_REQUIRED');
    }
    const client = await TestClient.authed(ws.url, (await ws.key('starter')).key);
    for (const [stream, payload] of [['social_posts', {}], ['wallet_activity', { label: 'kol' }], ['markers', { token_address: TOKEN }]] as const) {
      client.send({ type: 'subscribe', stream, payload });
      const frame = await client.next();
      expect(frame).toMatchObject({ type: 'error', code: 4033, error: 'PLAN_REQUIRED', stream });
    }
    client.ws.close();
  });

  it('counts watched items: a token for markers, each wallet of wallet_activity\'s list, the subscription otherwise', async () => {
    const account = await ws.key('pro');
    const client = await TestClient.authed(ws.url, account.key);
    client.send({ type: 'subscribe', stream: 'markers', payload: { token_address: TOKEN } });
    client.send({ type: 'subscribe', stream: 'wallet_activity', payload: { wallets: [KOL, SMART] } });
    client.send({ type: 'subscribe', stream: 'social_posts', payload: { author: 'alice' } });
    client.send({ type: 'ping' });
    await client.next((m) => m.type === 'pong');
    expect(ws.limits.usageOf(account.id)?.watchedItems).toBe(4);
    client.ws.close();
  });
});
