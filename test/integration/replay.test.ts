import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSimFile } from '../../engine/sources/sim/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { TOKEN_SIGNAL_KINDS, WALLET_SIGNAL_KINDS } from '../../engine/model/index.ts';
import { tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * Issue 4's replay test: a simulated hour ingested twice, each time into a fresh data
 * directory in event-clock mode, gives byte-identical responses on every market route
 * (cursors included: both servers sign them with the same key). A third time the same
 * events go in as objects through the embedded API: the actors then apply the objects,
 * where the NDJSON source's swaps reach them built from the parse workers' columns
 * (engine/ingest/swap-columns.ts); the responses are the same bytes.
 *
 * Each instance also serves a WebSocket before its ingest, with chart_lines
 * subscriptions on the busiest pools (lines recomputed on the engine-clock ticker):
 * the frames they get are the same bytes in the same order in all three.
 * Issue 23: each instance also has a WebSocket client subscribed before the events go in
 * to social_posts (every post), wallet_activity (kol) and markers (the token most
 * called out in the file); the frames it got are the same across the three, and so are
 * the recent marks a subscriber gets after the hour. The two NDJSON runs also serve a
 * WebSocket client subscribed to every signal: the same frames.
 */

const cursorSecret = randomBytes(32);
let dir: TempDir;
let file: string;
const instances: EngineServer[] = [];
/** Per instance, the chart_lines frames its subscriber got, as text. */
const chartFrames: string[][] = [];
const wsServers: WsTestServer[] = [];
/** chart_lines payloads, picked from the file before any ingest. */
let chartPayloads: object[] = [];

/** Busiest pools of the file, each with its base and the wallets that traded it most. */
function busiestPools(): Array<{ pool: string; base: string; wallets: string[] }> {
  const bases = new Map<string, string>();
  const trades = new Map<string, Map<string, number>>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('{"type":"pool"')) {
      const e = JSON.parse(line);
      bases.set(e.pool_address, e.base_address);
    } else if (line.startsWith('{"type":"swap"')) {
      const pool = /"pool_address":"(\w+)"/.exec(line)![1]!;
      const wallet = /"wallet_address":"(\w+)"/.exec(line)![1]!;
      let byWallet = trades.get(pool);
      if (!byWallet) trades.set(pool, (byWallet = new Map()));
      byWallet.set(wallet, (byWallet.get(wallet) ?? 0) + 1);
    }
  }
  const count = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return [...trades]
    .filter(([pool]) => bases.has(pool))
    .sort((a, b) => count(b[1]) - count(a[1]) || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([pool, byWallet]) => ({ pool, base: bases.get(pool)!, wallets: [...byWallet].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 4).map(([w]) => w) }));
}

/** A WebSocket on the engine, its chart_lines subscriptions made before any event; `done` collects the frames. */
async function watchChartLines(ws: WsTestServer): Promise<{ done(): Promise<void> }> {
  const client = await TestClient.authed(ws.url, (await ws.key('pro')).key);
  const frames: string[] = [];
  chartFrames.push(frames);
  client.ws.on('message', (data) => {
    const text = data.toString();
    if (text.startsWith('{"stream":"chart_lines"')) frames.push(text);
  });
  for (const payload of chartPayloads) client.subscribe('chart_lines', payload);
  await client.untilPong();
  return {
    async done() {
      await client.untilPong();
      client.close();
      await client.closed;
    },
  };
}

/** Per instance: its WebSocket server and the stream frames its client got while the events went in. */
const live: Array<{ ws: WsTestServer; frames: string[] }> = [];

/** The token the file's posts name most (its markers are compared). */
function calledOut(): string {
  const counts = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{"type":"social_post"')) continue;
    for (const token of JSON.parse(line).token_addresses as string[]) counts.set(token, (counts.get(token) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
}

/** A WebSocket client on the engine subscribed to the streams compared, before anything is ingested; `done` ends the recording. */
async function watch(ws: WsTestServer): Promise<() => Promise<void>> {
  const client = await TestClient.authed(ws.url, (await ws.key('pro')).key);
  const subscriptions = [['social_posts', {}], ['wallet_activity', { label: 'kol' }], ['markers', { token_address: calledOut() }]] as const;
  for (const [stream, payload] of subscriptions) client.send({ type: 'subscribe', stream, payload });
  const untilPong = async () => {
    client.send({ type: 'ping' });
    const frames: string[] = [];
    for (let m = await client.next(); m.type !== 'pong'; m = await client.next()) frames.push(JSON.stringify(m));
    return frames;
  };
  await untilPong();
  return async () => {
    live.push({ ws, frames: await untilPong() });
    client.ws.close();
  };
}

/** The same file as objects through the embedded API, 2,000 events a batch. */
async function ingestEmbedded(name: string): Promise<EngineServer> {
  const engine = await createEngine({ config: testConfig(join(dir.path, name)) });
  const ws = await startWsServer({ engine });
  wsServers.push(ws);
  const watchLines = await watchChartLines(ws);
  const done = await watch(ws);
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  for (let i = 0; i < lines.length; i += 2_000) {
    const results = await Promise.all(lines.slice(i, i + 2_000).map((line) => engine.ingest(JSON.parse(line))));
    expect(results.every((r) => r.status === 'applied')).toBe(true);
  }
  await watchLines.done();
  await done();
  return serveEngine(engine, { plan: 'scale', cursorSecret });
}

/** The token_signals and wallet_signals frames of each NDJSON run, as the WebSocket client received their bytes. */
const signalFrames: string[][] = [];

/**
 * The file through the NDJSON source, with a Pro WebSocket client subscribed to every
 * token and wallet signal from before the first event: its frames, as received, in
 * `signalFrames`.
 */
async function ingestOnce(name: string): Promise<EngineServer> {
  const engine = await createEngine({ config: testConfig(join(dir.path, name)) });
  // One WebSocket server per engine (the engine publishes to the sink attached last).
  const ws = await startWsServer({ engine });
  wsServers.push(ws);
  const watchLines = await watchChartLines(ws);
  const done = await watch(ws);
  const client = await TestClient.authed(ws.url, (await ws.key('pro')).key);
  const frames: string[] = [];
  client.ws.on('message', (data) => {
    const text = data.toString();
    if (text.includes('"stream":"token_signals"') || text.includes('"stream":"wallet_signals"')) frames.push(text);
  });
  client.subscribe('token_signals', {});
  client.subscribe('wallet_signals', {});
  expect(await client.untilPong()).toEqual([]);
  await engine.runSource(engine.createSource(`ndjson:${file}`));
  await watchLines.done();
  await done();
  // Frames published before the pong's reply reach the client before it.
  await client.untilPong();
  client.ws.close();
  signalFrames.push(frames);
  return serveEngine(engine, { plan: 'scale', cursorSecret });
}

/** The paths to compare: every market route, over pools and tokens picked from the file. */
function paths(): string[] {
  const pools: Array<{ pool: string; base: string; quote: string; swaps: number }> = [];
  const swaps = new Map<string, number>();
  const byWallet = new Map<string, number>();
  const byCreator = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('{"type":"token"')) {
      const creator = /"creator_address":"(\w+)"/.exec(line)?.[1];
      if (creator) byCreator.set(creator, (byCreator.get(creator) ?? 0) + 1);
    } else if (line.startsWith('{"type":"pool"')) {
      const e = JSON.parse(line);
      pools.push({ pool: e.pool_address, base: e.base_address, quote: e.quote_address, swaps: 0 });
    } else if (line.startsWith('{"type":"swap"')) {
      const pool = /"pool_address":"(\w+)"/.exec(line)![1]!;
      swaps.set(pool, (swaps.get(pool) ?? 0) + 1);
      const wallet = /"wallet_address":"(\w+)"/.exec(line)![1]!;
      byWallet.set(wallet, (byWallet.get(wallet) ?? 0) + 1);
    }
  }
  for (const p of pools) p.swaps = swaps.get(p.pool) ?? 0;
  const busiest = [...pools].sort((a, b) => b.swaps - a.swaps || a.pool.localeCompare(b.pool)).slice(0, 3);
  const picked = [...busiest, pools[0]!, pools[Math.floor(pools.length / 2)]!, pools[pools.length - 1]!, ...pools.filter((p) => p.quote !== WSOL).slice(0, 2)];
  const out = [
    '/v1/tokens/search?sort=volume_usd&window=1h&limit=50', '/v1/tokens/search?q=a&match=prefix', '/v1/tokens/search?sort=market_cap_usd&limit=100',
    '/v1/pools?sort=liquidity_usd&limit=100', '/v1/pools?limit=100', `/v1/pools?base_address=${picked[0]!.base}`,
    '/v1/market/sol-price', `/v1/pools/metrics?addresses=${picked.map((p) => p.pool).join(',')}`, `/v1/tokens?addresses=${picked.map((p) => p.base).join(',')}`];
  for (const p of picked) {
    out.push(`/v1/pools/${p.pool}`, `/v1/pools/${p.pool}/trades?limit=500`, `/v1/pools/${p.pool}/trades?order=asc&limit=100`);
    out.push(`/v1/tokens/${p.base}`, `/v1/tokens/${p.base}/pools`, `/v1/tokens/${p.base}/trades?limit=200`);
    for (const interval of ['1s', '1m', '1h']) out.push(`/v1/pools/${p.pool}/candles?interval=${interval}&limit=1000`);
    out.push(`/v1/pools/${p.pool}/candles?mode=market_cap&currency=quote`);
    out.push(`/v1/tokens/${p.base}/holders/stats`, `/v1/tokens/${p.base}/holders?limit=20`, `/v1/tokens/${p.base}/holders?label=kol&limit=5`, `/v1/tokens/${p.base}/bonding_curve`);
  }
  // The busiest wallets and one that traded once: their trades span many pools, stored,
  // indexed or not yet (each instance's wallet indexer is wherever it got to).
  const wallets = [...byWallet].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [wallet] of [...wallets.slice(0, 3), wallets.find(([, n]) => n === 1)!]) {
    out.push(`/v1/wallets/${wallet}/trades?limit=100`, `/v1/wallets/${wallet}/trades?order=asc&limit=50`, `/v1/wallets/${wallet}/trades?token_address=${picked[0]!.base}`);
    // Wallet accounting (issue 22): the same wallets' performance, positions and days.
    for (const window of ['1d', '7d', 'all']) out.push(`/v1/wallets/${wallet}/performance?window=${window}`);
    out.push(`/v1/wallets/${wallet}/positions?limit=2`, `/v1/wallets/${wallet}/positions?min_value_usd=1`, `/v1/wallets/${wallet}/daily_pnl?days=3`);
  }
  for (const p of picked) out.push(`/v1/tokens/${p.base}/traders?limit=20`, `/v1/tokens/${p.base}/traders?sort=volume_usd&limit=20`);
  for (const window of ['1d', '7d']) {
    for (const sort of ['pnl_usd', 'win_rate_pct', 'volume_usd']) out.push(`/v1/wallets/leaderboard?window=${window}&sort=${sort}&limit=25`);
    out.push(`/v1/wallets/leaderboard?window=${window}&min_trade_count=3&min_win_rate_pct=50&limit=25`);
  }
  // Creators of several tokens and of one (their tokens newest first, paged by 2).
  const creators = [...byCreator].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [creator] of [...creators.slice(0, 3), creators.find(([, n]) => n === 1)!]) out.push(`/v1/wallets/${creator}/deployed_tokens?limit=2`);
  // Every ranking feed and window (route 16): recomputed on the engine-clock ticker, so the same events give the same rows.
  for (const feed of ['new_pair', 'popular', 'top_gainers', 'almost_bonded', 'migrated', 'stocks']) {
    for (const window of ['5m', '1h', '6h', '24h']) out.push(`/v1/tokens/rankings/${feed}?window=${window}&limit=40`);
  }
  // Posts, labeled wallets and labeled activity (routes 18, 19, 21), the callout token's and the busiest wallets'.
  const token = calledOut();
  out.push('/v1/tokens/posts?limit=100', `/v1/tokens/posts?token_address=${token}`, '/v1/wallets?limit=100', '/v1/wallets?label=smart_money&limit=20');
  out.push('/v1/wallets/activity?limit=100', '/v1/wallets/activity?label=kol&limit=50', '/v1/wallets/activity?label=bot&min_market_cap_usd=5000&limit=50');
  out.push(`/v1/wallets/activity?wallets=${wallets.slice(0, 3).map(([w]) => w).join(',')}&limit=100`);
  // Signals (routes 17 and 22): the latest per token, per kind, the picked tokens', the wallet kinds with and without filters.
  out.push('/v1/tokens/signals?limit=100');
  for (const kind of TOKEN_SIGNAL_KINDS) out.push(`/v1/tokens/signals?kind=${kind}&limit=20`);
  for (const p of picked) out.push(`/v1/tokens/signals?token_address=${p.base}&limit=50`);
  out.push('/v1/wallets/signals?window=24h&limit=100', '/v1/wallets/signals?window=24h&include_bots=true&limit=100', '/v1/wallets/signals?window=24h&min_wallets=3&limit=20');
  out.push('/v1/wallets/signals?window=1h&min_profit_usd=1000&limit=20', `/v1/wallets/signals?window=24h&wallets=${wallets.slice(0, 3).map(([w]) => w).join(',')}&limit=20`);
  return out;
}

beforeAll(async () => {
  dir = tempDir();
  file = join(dir.path, 'hour.ndjson');
  await writeSimFile({ out: file, durationMs: 60 * 60_000, seed: 11 });
  const [a, b, c] = busiestPools();
  chartPayloads = [
    { pool_address: a!.pool, token_address: a!.base, top_holder_count: 25, wallet_addresses: a!.wallets.slice(1), wallet_address: a!.wallets[0] },
    { pool_address: b!.pool, token_address: b!.base, top_holder_count: 5, wallet_address: b!.wallets[0] },
    { pool_address: c!.pool, token_address: c!.base },
  ];
  instances.push(await ingestOnce('first'));
  instances.push(await ingestOnce('second'));
  instances.push(await ingestEmbedded('objects'));
}, 600_000);

afterAll(async () => {
  for (const ws of wsServers) await ws.close();
  for (const i of instances) {
    i.close();
    await i.engine.stop();
  }
  dir.cleanup();
});

describe('replay in event-clock mode', () => {
  it('gives byte-identical chart_lines frames, in the same order, with every kind the hour has', () => {
    const [a, b, c] = chartFrames as [string[], string[], string[]];
    expect(a.length).toBeGreaterThan(chartPayloads.length * 5);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    // The hour's lines: which kinds it has (the sim's pools graduate, its kols and devs trade).
    const kinds = new Set(a.flatMap((f) => (JSON.parse(f).data.lines as Array<{ kind: string }>).map((l) => l.kind)));
    for (const kind of ['ath', 'dev_buy', 'top_buy', 'top_sell', 'watchlist_buy', 'self_buy']) expect([...kinds], kind).toContain(kind);
  });

  it('gives byte-identical responses on every market route, and on the next pages', { timeout: 240_000 }, async () => {
    const [a, b, c] = instances as [EngineServer, EngineServer, EngineServer];
    expect(a.engine.query.status().ingested).toBe(b.engine.query.status().ingested);
    expect(c.engine.query.status().ingested).toBe(a.engine.query.status().ingested);
    expect(a.engine.query.status().deadLetters).toBe(0);
    let compared = 0;
    let withData = 0;
    for (const path of paths()) {
      const [x, y, z] = [await a.text(path), await b.text(path), await c.text(path)];
      expect(y, path).toBe(x);
      expect(z, `${path} (events as objects)`).toBe(x);
      compared++;
      if (x.startsWith('200')) withData++;
      // Follow the cursor one page on: the same cursor text must give the same page.
      const cursor = /"next_cursor":"([^"]+)"/.exec(x)?.[1];
      if (cursor) {
        const next = `${path}&cursor=${encodeURIComponent(cursor)}`;
        const first = await a.text(next);
        expect(await b.text(next), next).toBe(first);
        expect(await c.text(next), `${next} (events as objects)`).toBe(first);
        compared++;
      }
    }
    // The busiest wallet's list holds trades of several pools.
    const busiestWallet = await a.text(paths().find((p) => p.startsWith('/v1/wallets/'))!);
    expect(busiestWallet.match(/"trade_id"/g)?.length).toBeGreaterThan(20);
    expect(new Set(busiestWallet.match(/"pool_address":"\w+"/g)).size).toBeGreaterThan(1);
    // The wallet-accounting answers hold data: leaderboard rows with their recent trades, a token's traders.
    const board = await a.text('/v1/wallets/leaderboard?window=7d&sort=pnl_usd&limit=25');
    expect(board.match(/"recent_trades"/g)?.length).toBe(25);
    expect((await a.text(paths().find((p) => p.includes('/traders?'))!)).match(/"pnl_usd"/g)?.length).toBeGreaterThan(1);
    expect(compared).toBeGreaterThan(80);
    expect(withData).toBeGreaterThan(70);
    // The holder and curve routes had something to show.
    const holders = await a.text(paths().find((p) => p.endsWith('/holders?limit=20'))!);
    expect(holders.match(/"wallet_address"/g)?.length).toBe(20);
    expect(paths().filter((p) => p.endsWith('/bonding_curve')).length).toBeGreaterThan(0);
    const deployed = await a.text(paths().find((p) => p.includes('/deployed_tokens'))!);
    expect(deployed.match(/"token_address"/g)?.length).toBe(2);
    // Posts, labeled wallets and labeled activity had rows to compare.
    for (const path of ['/v1/tokens/posts?limit=100', '/v1/wallets?limit=100', '/v1/wallets/activity?limit=100', '/v1/wallets/activity?label=kol&limit=50']) {
      expect((await a.text(path)).match(/"wallet_address"|"post_id"/g)?.length ?? 0, path).toBeGreaterThan(0);
    }
    // Every signal kind fired in the hour, and the WebSocket clients of both NDJSON runs got the same frames, byte for byte.
    for (const kind of [...TOKEN_SIGNAL_KINDS, ...WALLET_SIGNAL_KINDS]) {
      const listed = kind === 'cluster_buy' || kind === 'big_win' || kind === 'first_buy' ? await a.text('/v1/wallets/signals?window=24h&include_bots=true&limit=100') : await a.text(`/v1/tokens/signals?kind=${kind}&limit=20`);
      expect(listed.includes(`"kind":"${kind}"`), kind).toBe(true);
    }
    const [framesA, framesB] = signalFrames as [string[], string[]];
    expect(framesA.length).toBeGreaterThan(100);
    expect(framesB).toEqual(framesA);
    // What the stream sent is what the store holds: as many frames as signals.
    expect(framesA.length).toBe(a.engine.signals!.count());
    // Every ranking feed had rows to compare (stocks: the simulator's xStocks, tagged `stock`).
    for (const feed of ['new_pair', 'popular', 'top_gainers', 'almost_bonded', 'migrated', 'stocks']) {
      const rows = (await a.text(`/v1/tokens/rankings/${feed}?window=24h&limit=40`)).match(/"rank":/g)?.length ?? 0;
      expect(rows, feed).toBeGreaterThan(0);
    }
  });
});

describe('replay in event-clock mode: the posts, activity and markers streams', () => {
  it('sends the same frames in the same order to a client subscribed before the events, and the same recent marks after', async () => {
    const [x, y, z] = live.map((l) => l.frames) as [string[], string[], string[]];
    expect(y).toEqual(x);
    expect(z).toEqual(x);
    const streams = new Set(x.map((f) => JSON.parse(f).stream));
    expect([...streams].sort()).toEqual(['markers', 'social_posts', 'wallet_activity']);
    const events = new Set(x.map((f) => JSON.parse(f)).filter((m) => m.stream === 'markers').map((m) => m.data.type ?? m.data.event));
    expect(events.has('callout')).toBe(true);
    // The simulator removed a label in the hour (bot labels, about one an hour): its labeled trades on the token were withdrawn.
    expect(x.some((f) => f.includes('"event":"remove"') && f.includes('"marker_id":"labeled_trade:'))).toBe(true);
    // A subscriber after the hour: the token's recent marks, the same bytes everywhere.
    const recent: string[][] = [];
    for (const { ws } of live) {
      const client = await TestClient.authed(ws.url, (await ws.key('pro')).key);
      client.send({ type: 'subscribe', stream: 'markers', payload: { token_address: calledOut() } });
      client.send({ type: 'ping' });
      const frames: string[] = [];
      for (let m = await client.next(); m.type !== 'pong'; m = await client.next()) frames.push(JSON.stringify(m));
      recent.push(frames);
      client.ws.close();
    }
    expect(recent[0]!.length).toBeGreaterThan(0);
    expect(recent[1]).toEqual(recent[0]);
    expect(recent[2]).toEqual(recent[0]);
  });
});
