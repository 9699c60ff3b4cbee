import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { SIGNAL_DEFAULTS } from '../../actors/signals/index.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { tempDir, testConfig, type TempDir } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';
import { marketEvents, scenarios, T0, W, type Scenarios } from './signals-market.ts';

/**
 * Signals wired (issue 23): the token-signals actors and the wallet actors' big_win and
 * first_buy on the router, the signals store, routes 17 and 22 over real HTTP and the
 * token_signals / wallet_signals streams over a real WebSocket, on the hand-built market
 * of signals-market.ts: per kind the trades that fire it once and those that must not.
 */

let dir: TempDir;
let engine: Engine;
let http: EngineServer;
let s: Scenarios;

async function ingest(events: readonly unknown[]) {
  for (const e of events) {
    const result = await engine.ingest(e);
    if (result.status !== 'applied') throw new Error(`not applied: ${JSON.stringify(result)} ${JSON.stringify(e).slice(0, 200)}`);
  }
}

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path) });
  s = scenarios();
  await ingest(marketEvents(s));
  http = await serveEngine(engine, { plan: 'pro' });
});

afterAll(async () => {
  http?.close();
  await engine?.stop();
  dir?.cleanup();
});

/** Route 17's signals of one token and kind: [wallets, at] newest first. */
async function tokenSignals(token: string, kind: string) {
  const res = await http.get(`/v1/tokens/signals?token_address=${token}&kind=${kind}`);
  expect(res.status).toBe(200);
  for (const sig of res.body.data) {
    expect(sig.kind).toBe(kind);
    expect(sig.token_address).toBe(token);
    expect(sig.score).toBeGreaterThanOrEqual(0);
    expect(sig.score).toBeLessThanOrEqual(1);
  }
  return res.body.data as any[];
}

/** Route 22 over the day, with extra parameters. */
async function walletSignals(params: string) {
  const res = await http.get(`/v1/wallets/signals?window=24h&${params}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as any[];
}

const MIN = 60_000;

describe('each token kind fires once, and not under its threshold or inside its cooldown', () => {
  it('smart_money_buy: 1,000 USD by a smart_money wallet; not again inside the hour, not 400 USD', async () => {
    const got = await tokenSignals(s.smart.token, 'smart_money_buy');
    expect(got.map((x) => x.wallet_addresses)).toEqual([[W.sm]]);
    expect(got[0].detail).toMatchObject({ amount_usd: 1_000, labels: ['smart_money'] });
    expect(got[0].score).toBeCloseTo(Math.log(2) / Math.log(20), 9);
    expect(got[0].signal_id).toMatch(/^smart_money_buy:/);
    expect(got[0].pool_address).toBe(s.smart.pool);
  });

  it('kol_buy: 300 USD by a kol; not 200 USD, not again inside the hour', async () => {
    const got = await tokenSignals(s.kol.token, 'kol_buy');
    expect(got.map((x) => x.wallet_addresses)).toEqual([[W.kol]]);
    expect(got[0].at).toBe(T0 + 30 * MIN + MIN);
  });

  it('whale_buy: 6,000 USD by anyone and 1,500 by a labeled whale; not 4,000 unlabeled, not again inside the hour', async () => {
    const got = await tokenSignals(s.whale.token, 'whale_buy');
    expect(got.map((x) => x.wallet_addresses)).toEqual([[W.whale], [W.u1]]);
  });

  it('dev_sell: the creator selling 1 % of supply; not 2 % five minutes later, not another wallet, not 0.1 %', async () => {
    const got = await tokenSignals(s.dev.token, 'dev_sell');
    expect(got.map((x) => x.wallet_addresses)).toEqual([[W.dev]]);
    expect(got[0].detail.supply_pct).toBeCloseTo(1, 9);
    expect(await tokenSignals(s.dev2.token, 'dev_sell')).toEqual([]);
  });

  it('almost_bonded: crossing 70 % once; not staying above, not crossing again inside the hour, not stopping at 69 %', async () => {
    const got = await tokenSignals(s.bond.token, 'almost_bonded');
    expect(got).toHaveLength(1);
    expect(got[0].detail.bonding_curve_progress_pct).toBeCloseTo(75, 6);
    expect(got[0].at).toBe(T0 + 6 * 30 * MIN + 3 * MIN);
    expect(await tokenSignals(s.bond2.token, 'almost_bonded')).toEqual([]);
  });

  it('migration: the curve completing; not its migration inside 24 h', async () => {
    const got = await tokenSignals(s.mig.token, 'migration');
    expect(got).toHaveLength(1);
    expect(got[0].pool_address).toBe(s.mig.pool);
    expect(got[0].detail).toMatchObject({ from_pool_address: s.mig.pool, to_pool_address: null, time_to_graduate_ms: 2 * MIN }); // from its first trade (the token gives no launched_at)
    expect(got[0].score).toBeCloseTo(1, 9);
  });

  it('volume_spike: 5,400 USD in 5 minutes against a 1,000 baseline; not again inside 30 minutes, not a burst under 5,000', async () => {
    const got = await tokenSignals(s.spike.token, 'volume_spike');
    expect(got).toHaveLength(1);
    expect(got[0].detail.volume_usd).toBeCloseTo(5_400, 6);
    expect(got[0].at).toBe(T0 + 8 * 30 * MIN + 20 * MIN + 4 * 5_000);
    expect(await tokenSignals(s.spike2.token, 'volume_spike')).toEqual([]);
  });

  it('price_breakout: 1.5x an ATH that stood 20 minutes; not 2x an ATH 5 minutes old, not a token 12 minutes old', async () => {
    const got = await tokenSignals(s.ath.token, 'price_breakout');
    expect(got).toHaveLength(1);
    expect(got[0].at).toBe(T0 + 9 * 30 * MIN + 20 * MIN);
    expect(got[0].detail.market_cap_usd).toBeCloseTo(150_000, 3);
    expect(await tokenSignals(s.ath2.token, 'price_breakout')).toEqual([]);
  });
});

describe('each wallet kind fires once, and not under its threshold or inside its cooldown (route 22)', () => {
  it('cluster_buy: three labeled wallets within 10 minutes; not a fourth inside the hour, not two', async () => {
    const got = await walletSignals(`token_address=${s.cluster.token}`);
    const clusters = got.filter((x) => x.kind === 'cluster_buy');
    expect(clusters.map((x) => x.wallet_addresses)).toEqual([[W.cSm, W.cKol, W.cWhale]]);
    expect(clusters[0].detail).toMatchObject({ wallet_count: 3, buys_usd: 600 });
    expect((await walletSignals(`token_address=${s.cluster2.token}`)).filter((x) => x.kind === 'cluster_buy')).toEqual([]);
  });

  it('first_buy: a tracked wallet\'s first buy of 50 USD or more; not its second, not 40 USD, not an untracked wallet', async () => {
    const got = (await walletSignals(`token_address=${s.smart.token}`)).filter((x) => x.kind === 'first_buy');
    expect(got.map((x) => x.wallet_addresses)).toEqual([[W.sm2], [W.sm]]);
    expect(got[1].detail).toMatchObject({ amount_usd: 1_000, market_cap_usd: 100_000, labels: ['smart_money'] });
  });

  it('big_win: 2,000 USD realized at 3x; not again inside the hour, not 500 USD; a bot\'s only with include_bots', async () => {
    const wins = (q: string) => walletSignals(`token_address=${s.win.token}${q}`).then((l) => l.filter((x) => x.kind === 'big_win'));
    const got = await wins('');
    expect(got.map((x) => x.wallet_addresses)).toEqual([[W.u3]]);
    expect(got[0].detail).toMatchObject({ profit_usd: 2_000, cost_usd: 1_000, multiple: 3, hold_time_ms: 4 * MIN, entry_market_cap_usd: 1_000_000 });
    expect((await wins('&include_bots=true')).map((x) => x.wallet_addresses)).toEqual([[W.bot], [W.u3]]);
  });
});

describe('route 22 filters', () => {
  it('wallets (each signal once), min_wallets, min_profit_usd, min_cost_usd, max_hold_time_ms, entry market cap', async () => {
    // A cluster names all three: listed once for two of them.
    const both = await walletSignals(`wallets=${W.cSm},${W.cKol}`);
    expect(both.map((x) => [x.kind, x.wallet_addresses.length])).toEqual([['cluster_buy', 3], ['first_buy', 1], ['first_buy', 1]]);
    expect(new Set(both.map((x) => x.signal_id)).size).toBe(3);
    expect((await walletSignals('min_wallets=3')).map((x) => x.kind)).toEqual(['cluster_buy']);
    expect((await walletSignals('min_wallets=4'))).toEqual([]);
    expect((await walletSignals('min_profit_usd=1500&include_bots=true')).map((x) => x.wallet_addresses[0])).toEqual([W.bot, W.u3]);
    expect((await walletSignals('min_profit_usd=2500&include_bots=true')).map((x) => x.wallet_addresses[0])).toEqual([W.bot]);
    expect((await walletSignals('max_hold_time_ms=240000&include_bots=true')).map((x) => x.wallet_addresses[0])).toEqual([W.u3]);
    // Cost: cluster 600, sm's first buy 1,000, sm2's 400, the rest 200 (cluster wallets) or less.
    expect((await walletSignals(`min_cost_usd=500&token_address=${s.smart.token}`)).map((x) => x.wallet_addresses[0])).toEqual([W.sm]);
    expect((await walletSignals(`min_cost_usd=500&token_address=${s.cluster.token}`)).map((x) => x.kind)).toEqual(['cluster_buy']);
    // Entry market cap: every buy here is at 100,000 USD but big_win's entry (10 SOL for 1M: 1,000,000).
    expect((await walletSignals('min_entry_market_cap_usd=500000')).map((x) => x.kind)).toEqual(['big_win']);
    expect((await walletSignals('max_entry_market_cap_usd=500000')).every((x) => x.kind !== 'big_win')).toBe(true);
  });

  it('window: signals older than it are left out (the engine clock is the newest event)', async () => {
    const all = await walletSignals('');
    expect(all.length).toBeGreaterThan(0);
    const newest = engine.latestEventAt;
    const res = await http.get('/v1/wallets/signals?window=1h');
    expect(res.body.data.every((x: any) => x.at >= newest - 3_600_000)).toBe(true);
    expect(res.body.data.length).toBeLessThan(all.length);
  });

  it('pages newest first with a cursor bound to the filters', async () => {
    const all = await walletSignals('include_bots=true&limit=100');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await http.get(`/v1/wallets/signals?window=24h&include_bots=true&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((x: any) => x.signal_id));
      cursor = res.body.pagination.next_cursor;
      if (cursor) {
        const other = await http.get(`/v1/wallets/signals?window=24h&limit=3&cursor=${cursor}`);
        expect(other.status).toBe(400);
        expect(other.body.message).toMatch(/cursor/);
      }
    } while (cursor);
    expect(seen).toEqual(all.map((x) => x.signal_id));
    const ats = all.map((x) => x.at);
    expect(ats).toEqual([...ats].sort((a, b) => b - a));
  });
});

describe('route 17 without token_address: the latest signal of each token', () => {
  it('one per token, newest first; with kind, each token\'s latest of that kind; pages with a cursor', async () => {
    const res = await http.get('/v1/tokens/signals');
    expect(res.status).toBe(200);
    const tokens = res.body.data.map((x: any) => x.token_address);
    expect(new Set(tokens).size).toBe(tokens.length);
    // The whale token's latest is the labeled whale's buy, its smart_money token's sm's.
    expect(res.body.data.find((x: any) => x.token_address === s.whale.token).wallet_addresses).toEqual([W.whale]);
    expect(tokens[0]).toBe(s.ath.token);
    const kol = await http.get('/v1/tokens/signals?kind=kol_buy');
    expect(kol.body.data.map((x: any) => [x.token_address, x.kind])).toEqual([[s.kol.token, 'kol_buy']]);
    const first = await http.get('/v1/tokens/signals?limit=2');
    const second = await http.get(`/v1/tokens/signals?limit=2&cursor=${first.body.pagination.next_cursor}`);
    expect([...first.body.data, ...second.body.data].map((x: any) => x.signal_id)).toEqual(res.body.data.slice(0, 4).map((x: any) => x.signal_id));
    const late = await http.get(`/v1/tokens/signals?start_time=${T0 + 9 * 30 * MIN}`);
    expect(late.body.data.map((x: any) => x.token_address)).toEqual([s.ath.token]);
  });
});

describe('validation, static segments and plans', () => {
  it('400/4000 naming the parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/v1/tokens/signals?kind=cluster_buy', /kind/],
      ['/v1/tokens/signals?token_address=nope', /token_address/],
      ['/v1/tokens/signals?limit=101', /limit/],
      ['/v1/tokens/signals?start_time=-1', /start_time/],
      ['/v1/tokens/signals?cursor=AAAA', /cursor/],
      ['/v1/tokens/signals?wallets=x', /wallets/],
      ['/v1/wallets/signals?window=1m', /window/],
      ['/v1/wallets/signals?wallets=nope', /wallets/],
      ['/v1/wallets/signals?min_wallets=0', /min_wallets/],
      ['/v1/wallets/signals?min_profit_usd=-5', /min_profit_usd/],
      ['/v1/wallets/signals?min_cost_usd=x', /min_cost_usd/],
      ['/v1/wallets/signals?max_hold_time_ms=1.5', /max_hold_time_ms/],
      ['/v1/wallets/signals?min_entry_market_cap_usd=x', /min_entry_market_cap_usd/],
      ['/v1/wallets/signals?max_entry_market_cap_usd=x', /max_entry_market_cap_usd/],
      ['/v1/wallets/signals?include_bots=yes', /include_bots/],
      ['/v1/wallets/signals?kind=big_win', /kind/],
    ];
    for (const [path, param] of cases) {
      const res = await http.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.code, path).toBe(4000);
      expect(res.body.message, path).toMatch(param);
    }
  });

  it('the static segment `signals` is never read as an address: both routes answer, not a token or wallet', async () => {
    const token = await http.get('/v1/tokens/signals');
    expect(token.status).toBe(200);
    expect(Array.isArray(token.body.data)).toBe(true);
    const wallet = await http.get('/v1/wallets/signals');
    expect(wallet.status).toBe(200);
    expect(Array.isArray(wallet.body.data)).toBe(true);
  });

  it('starter: 403/4033 on both routes, from the limits hook and without it', async () => {
    for (const limits of [true, false]) {
      const starter = await serveEngine(engine, { plan: 'starter', limits });
      try {
        for (const path of ['/v1/tokens/signals', '/v1/wallets/signals']) {
          const res = await starter.get(path);
          expect(res.status, `${path} limits=${limits}`).toBe(403);
          expect(res.body.code).toBe(4033);
          expect(res.body.error).toBe('PLAN_REQUIRED');
        }
      } finally {
        starter.close();
      }
    }
    const scale = await serveEngine(engine, { plan: 'scale', limits: true });
    try {
      expect((await scale.get('/v1/wallets/signals')).status).toBe(200);
    } finally {
      scale.close();
    }
  });
});

describe('configuration', () => {
  it('signals.<kind>.<name> from the config sets a threshold; an unknown one fails the start naming it; signals off answers 503', async () => {
    const d = tempDir();
    try {
      const lower = await createEngine({ config: testConfig(d.path, { signals: { kol_buy: { minUsd: 100 } } } as any) });
      const m = scenarios();
      for (const e of marketEvents(m)) expect((await lower.ingest(e)).status).toBe('applied');
      const served = await serveEngine(lower);
      try {
        // kol2's 200 USD now passes, and kol's second buy is still inside the hour.
        const got = (await served.get(`/v1/tokens/signals?token_address=${m.kol.token}&kind=kol_buy`)).body.data;
        expect(got.map((x: any) => x.wallet_addresses)).toEqual([[W.kol2], [W.kol]]);
        expect(SIGNAL_DEFAULTS.kol_buy.minUsd).toBe(250);
      } finally {
        served.close();
        await lower.stop();
      }
    } finally {
      d.cleanup();
    }
    const bad = tempDir();
    try {
      await expect(createEngine({ config: testConfig(bad.path, { signals: { kol_buy: { minUSD: 100 } } } as any) })).rejects.toThrow(/signals\.kol_buy\.minUSD/);
      await expect(createEngine({ config: testConfig(bad.path, { signals: { kol_buys: {} } } as any) })).rejects.toThrow(/signals\.kol_buys/);
    } finally {
      bad.cleanup();
    }
    const off = tempDir();
    try {
      const e = await createEngine({ config: testConfig(off.path), signals: false });
      const served = await serveEngine(e);
      try {
        expect(e.hosts.some((h) => h.kind === 'token-signals')).toBe(false);
        expect((await served.get('/v1/tokens/signals')).status).toBe(503);
      } finally {
        served.close();
        await e.stop();
      }
    } finally {
      off.cleanup();
    }
  });
});

describe('streams token_signals and wallet_signals', () => {
  let ws: WsTestServer;
  beforeAll(async () => {
    ws = await startWsServer({ engine });
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('a Pro key gets each signal as it fires, the signal object with event = kind; filters by token, kind, wallets, min_wallets', async () => {
    const key = (await ws.key('pro')).key;
    const all = await TestClient.authed(ws.url, key);
    const byToken = await TestClient.authed(ws.url, key);
    const wallets = await TestClient.authed(ws.url, key);
    const m = scenarios();
    try {
      all.subscribe('token_signals', {});
      all.subscribe('wallet_signals', {});
      byToken.subscribe('token_signals', { token_address: m.kol.token, kind: 'kol_buy' });
      wallets.subscribe('wallet_signals', { wallets: [W.cSm], min_wallets: 3 });
      for (const c of [all, byToken, wallets]) expect(await c.untilPong()).toEqual([]);
      // A second market, an hour after the first: every signal of it is live.
      const shifted = marketEvents(m).map((e) => shift(e, 6 * 3_600_000));
      await ingest(shifted);
      const kol = await byToken.next((x) => x.stream === 'token_signals');
      expect(kol.data).toMatchObject({ event: 'kol_buy', kind: 'kol_buy', token_address: m.kol.token, wallet_addresses: [W.kol] });
      const cluster = await wallets.next((x) => x.stream === 'wallet_signals');
      expect(cluster.data).toMatchObject({ event: 'cluster_buy', token_address: m.cluster.token, wallet_addresses: [W.cSm, W.cKol, W.cWhale] });
      // The frame's signal is the route's.
      const listed = (await http.get(`/v1/tokens/signals?token_address=${m.kol.token}&kind=kol_buy`)).body.data[0];
      const { event, ...signal } = kol.data;
      expect(signal).toEqual(listed);
      expect(event).toBe('kol_buy');
      // The all-subscriber got every kind of the market; nothing else came to the filtered ones.
      const frames = await all.untilPong();
      const kinds = new Set(frames.map((f) => f.data.event));
      expect([...kinds].sort()).toEqual(['almost_bonded', 'big_win', 'cluster_buy', 'dev_sell', 'first_buy', 'kol_buy', 'migration', 'price_breakout', 'smart_money_buy', 'volume_spike', 'whale_buy']);
      expect(frames.every((f) => (f.stream === 'token_signals') === !['big_win', 'cluster_buy', 'first_buy'].includes(f.data.event))).toBe(true);
      expect(await byToken.untilPong()).toEqual([]);
      expect(await wallets.untilPong()).toEqual([]);
    } finally {
      for (const c of [all, byToken, wallets]) c.ws.close();
    }
  });

  it('a Starter key gets the error frame 4033 PLAN_REQUIRED naming the stream, and nothing is subscribed', async () => {
    const c = await TestClient.authed(ws.url, (await ws.key('starter')).key);
    try {
      for (const stream of ['token_signals', 'wallet_signals']) {
        c.subscribe(stream, {});
        const err = await c.next((x) => x.type === 'error');
        expect(err).toMatchObject({ type: 'error', code: 4033, error: 'PLAN_REQUIRED', stream });
      }
    } finally {
      c.ws.close();
    }
  });

  it('watched items: one per wallet named, one for a scope without wallets', async () => {
    const key = await ws.key('pro');
    const c = await TestClient.authed(ws.url, key.key);
    try {
      c.subscribe('wallet_signals', { wallets: [W.u1, W.u2, W.u3] });
      c.subscribe('token_signals', {});
      c.subscribe('wallet_signals', { token_address: s.win.token, min_wallets: 1 });
      expect(await c.untilPong()).toEqual([]);
      expect(ws.limits.usageOf(key.id)!.watchedItems).toBe(5);
      c.unsubscribe('wallet_signals', { wallets: [W.u3, W.u2, W.u1] });
      await c.untilPong();
      expect(ws.limits.usageOf(key.id)!.watchedItems).toBe(2);
    } finally {
      c.ws.close();
    }
  });
});

/** An event moved `ms` later (a new market's labels and quote price are new events then). */
function shift(e: Record<string, unknown>, ms: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...e };
  if (typeof out.at === 'number') out.at = out.at + ms;
  if (typeof out.created_at === 'number') out.created_at = out.created_at + ms;
  return out;
}
