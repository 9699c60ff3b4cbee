import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSimFile } from '../../engine/sources/sim/index.ts';
import { createEngine } from '../../engine/system.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * Issue 4's replay test: a simulated hour ingested twice, each time into a fresh data
 * directory in event-clock mode, gives byte-identical responses on every market route
 * (cursors included: both servers sign them with the same key). A third time the same
 * events go in as objects through the embedded API: the actors then apply the objects,
 * where the NDJSON source's swaps reach them built from the parse workers' columns
 * (engine/ingest/swap-columns.ts); the responses are the same bytes.
 */

const cursorSecret = randomBytes(32);
let dir: TempDir;
let file: string;
const instances: EngineServer[] = [];

/** The same file as objects through the embedded API, 2,000 events a batch. */
async function ingestEmbedded(name: string): Promise<EngineServer> {
  const engine = await createEngine({ config: testConfig(join(dir.path, name)) });
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  for (let i = 0; i < lines.length; i += 2_000) {
    const results = await Promise.all(lines.slice(i, i + 2_000).map((line) => engine.ingest(JSON.parse(line))));
    expect(results.every((r) => r.status === 'applied')).toBe(true);
  }
  return serveEngine(engine, { plan: 'scale', cursorSecret });
}

async function ingestOnce(name: string): Promise<EngineServer> {
  const engine = await createEngine({ config: testConfig(join(dir.path, name)) });
  await engine.runSource(engine.createSource(`ndjson:${file}`));
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
  return out;
}

beforeAll(async () => {
  dir = tempDir();
  file = join(dir.path, 'hour.ndjson');
  await writeSimFile({ out: file, durationMs: 60 * 60_000, seed: 11 });
  instances.push(await ingestOnce('first'));
  instances.push(await ingestOnce('second'));
  instances.push(await ingestEmbedded('objects'));
}, 120_000);

afterAll(async () => {
  for (const i of instances) {
    i.close();
    await i.engine.stop();
  }
  dir.cleanup();
});

describe('replay in event-clock mode', () => {
  it('gives byte-identical responses on every market route, and on the next pages', async () => {
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
    // Every ranking feed had rows to compare (stocks: the simulator's xStocks, tagged `stock`).
    for (const feed of ['new_pair', 'popular', 'top_gainers', 'almost_bonded', 'migrated', 'stocks']) {
      const rows = (await a.text(`/v1/tokens/rankings/${feed}?window=24h&limit=40`)).match(/"rank":/g)?.length ?? 0;
      expect(rows, feed).toBeGreaterThan(0);
    }
  });
});
