import { copyFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore, createSessionStore, type KeyStore, type SessionStore } from '../../engine/plans/index.ts';
import { startService, type Service } from '../../engine/serve.ts';
import { writeSimFile } from '../../engine/sources/sim/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { buildTerminal } from '../../transport/terminal/build.ts';
import { browserMissing, launchBrowser } from '../helpers/browser.ts';
import { base58, rng, tempDir, testConfig, type TempDir } from '../helpers/fixtures.ts';

/**
 * The web terminal in headless Chromium (issue 27): a real engine with ten simulated
 * minutes ingested, served by startService on loopback, the bundle built from the
 * sources, and the page driven as a user would: the one-time link, the discovery page's
 * six feeds, search, a token's chart and tape, an interval switch, a dropped socket
 * resumed without a gap, a wallet. Everything is waited for on the DOM or the page's
 * state, never slept for. Screenshots of each page go to the test's temp dir.
 */
const missing = browserMissing();
if (missing) process.stderr.write(`test/e2e/terminal.test.ts: ${missing}\n`);

let dir: TempDir;
let engine: Engine;
let service: Service;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let key: string;
let sessions: SessionStore;
/** Keys the test's view of the key store created: the terminal key no response may carry. */
const terminalKeys: string[] = [];
/** Every same-origin response body and WebSocket frame the browser received. */
const received: string[] = [];
/** Uncaught errors and console errors or warnings of the pages: none expected. */
const pageErrors: string[] = [];
/** The simulated swaps, by pool: models for the trades the test ingests. */
const swapsByPool = new Map<string, Record<string, any>>();
let lastEvent: Record<string, any> = {};
const random = rng(2701);

const api = async (path: string) => {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};

/** A new trade in `pool` (a copy of its last simulated swap at a later slot and time), ingested through the engine. */
async function trade(pool: string, atMs: number, extra: Record<string, unknown> = {}): Promise<string> {
  const model = swapsByPool.get(pool)!;
  const event = { ...model, tx_hash: base58(random, 88), slot: lastEvent.slot + 1, tx_index: 0, event_index: 0, at: atMs, ...extra };
  const result = await engine.ingest(event);
  expect(result.status).toBe('applied');
  lastEvent = event;
  return `${event.tx_hash}:0`;
}

/** An event that moves the engine clock on (its publisher flushes candles every 250 ms of event time). */
async function tick(atMs: number): Promise<void> {
  expect((await engine.ingest({ type: 'quote_price', quote_address: 'So11111111111111111111111111111111111111112', price_usd: 150 + random(), at: atMs })).status).toBe('applied');
}

/** A screenshot under the test's temp dir (and in MDS_E2E_SCREENSHOTS, when set: how docs/terminal.png is made). */
async function shot(name: string): Promise<void> {
  const path = join(dir.path, `${name}.png`);
  await page.screenshot({ path });
  expect(statSync(path).size).toBeGreaterThan(10_000);
  if (process.env.MDS_E2E_SCREENSHOTS) copyFileSync(path, join(process.env.MDS_E2E_SCREENSHOTS, `${name}.png`));
}

describe.skipIf(missing !== null)('web terminal in Chromium', () => {
  beforeAll(async () => {
    dir = tempDir('mds-e2e-');
    const file = join(dir.path, 'sim.ndjson');
    const [, launched] = await Promise.all([
      (async () => {
        await buildTerminal();
        await writeSimFile({ out: file, durationMs: 10 * 60_000, seed: 27 });
        engine = await createEngine({ config: testConfig(join(dir.path, 'data')) });
        await engine.runSource(engine.createSource(`ndjson:${file}`));
      })(),
      launchBrowser(),
    ]);
    browser = launched;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      const e = JSON.parse(line);
      if (e.type === 'swap') swapsByPool.set(e.pool_address, e);
      // The latest slot (and its time): the simulator's token distributions may follow later slots' events in the file.
      if (typeof e.slot === 'number' && !(e.slot < lastEvent.slot)) lastEvent = e;
    }
    service = await startService(engine);
    base = `http://127.0.0.1:${service.port}`;
    key = (await service.keys.create({ plan: 'pro' })).key;
    const inner = createKeyStore(engine.storage, { now: () => Date.now() });
    const keys: KeyStore = { ...inner, create: async (input) => {
      const created = await inner.create(input);
      terminalKeys.push(created.key);
      return created;
    } };
    sessions = createSessionStore(engine.storage, keys, { now: () => Date.now() });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on('response', async (res) => {
      if (!res.url().startsWith(base) || res.status() === 303) return;
      received.push(`${res.url()} ${JSON.stringify(await res.allHeaders())} ${await res.text().catch(() => '')}`);
    });
    page.on('websocket', (ws) => ws.on('framereceived', (f) => received.push(String(f.payload))));
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') pageErrors.push(message.text());
    });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.close();
    await engine?.stop();
    dir?.cleanup();
  });

  it('the one-time link opens a session and the discovery page shows the six feeds, live', async () => {
    const { token } = await sessions.createLogin({ plan: 'pro' });
    await page.goto(`${base}/session/${token}`);
    expect(new URL(page.url()).pathname).toBe('/');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'mds_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    // The cookie is invisible to the page's script.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    for (const feed of ['new_pair', 'almost_bonded', 'migrated', 'popular', 'top_gainers', 'stocks']) {
      await page.locator(`section.feed[data-feed="${feed}"][data-loaded]`).waitFor();
    }
    await page.locator('#status.live').waitFor();
    // Feeds with pools in the simulated market have rows linking to their tokens.
    const rows = await page.evaluate(() => (window.mdsTerminal!.feeds as () => Record<string, number>)());
    expect(rows.new_pair).toBeGreaterThan(0);
    expect(await page.locator('section.feed[data-feed="new_pair"] tbody a[href^="/t/"]').count()).toBeGreaterThan(0);
    // A new pool enters new_pair live (the feed recomputes on the engine clock).
    const before = await page.locator('section.feed[data-feed="new_pair"] tbody tr').first().getAttribute('data-pool');
    const pool = base58(random, 44);
    const mint = base58(random, 44);
    const at = lastEvent.at + 1_000;
    expect((await engine.ingest({ type: 'token', token_address: mint, symbol: 'E2E', name: 'End To End', decimals: 6, supply_raw: '1000000000000000', slot: lastEvent.slot + 1, at })).status).toBe('applied');
    expect((await engine.ingest({ type: 'pool', pool_address: pool, base_address: mint, quote_address: 'So11111111111111111111111111111111111111112', dex: 'pumpswap', pool_type: 'amm', created_at: at, migrated_from_pool_address: null, slot: lastEvent.slot + 1 })).status).toBe('applied');
    await tick(at + 1_500);
    await tick(at + 2_500);
    await page.locator(`section.feed[data-feed="new_pair"] tbody tr[data-pool="${pool}"]`).waitFor({ timeout: 10_000 });
    expect(before).not.toBe(pool);
    await shot('discovery');
  });

  it('search finds a simulated token and opens its page: candles drawn, pool metrics, holders, traders', async () => {
    const top = (await api('/v1/tokens/search?sort=volume_usd&limit=1')).data[0];
    expect(top.symbol).toBeTruthy();
    await page.fill('#search', top.symbol);
    const result = page.locator(`#results a[data-token="${top.token_address}"]`);
    await result.waitFor();
    await result.click();
    await page.waitForURL(`${base}/t/${top.token_address}`);
    await page.locator('#chart[data-loaded]').waitFor();
    await page.locator('.chart-panel canvas').first().waitFor();
    const bars = Number(await page.locator('#chart').getAttribute('data-bars'));
    expect(bars).toBeGreaterThan(0);
    const http = (await api(`/v1/pools/${top.pool_address}/candles?interval=1m&limit=500`)).data.candles;
    expect(bars).toBe(http.length);
    await page.locator('section.metrics[data-loaded] .heat, section.metrics[data-loaded] .muted').first().waitFor();
    await page.locator('section.holders[data-loaded]').waitFor();
    await page.locator('section.traders[data-loaded]').waitFor();
    await page.locator('section.tape[data-loaded]').waitFor();
    (globalThis as any).token = top;
  });

  it('a trade ingested through the engine appears on the tape within seconds', async () => {
    const top = (globalThis as any).token;
    const tradeId = await trade(top.pool_address, lastEvent.at + 3_000);
    const started = Date.now();
    await page.locator(`section.tape tr[data-trade-id="${tradeId}"]`).waitFor({ timeout: 5_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    // Newest first.
    expect(await page.locator('section.tape tbody tr').first().getAttribute('data-trade-id')).toBe(tradeId);
    await shot('token');
  });

  it('switches interval and between price and market cap', async () => {
    const top = (globalThis as any).token;
    await page.click('button[data-interval="1s"]');
    await page.locator('.chart-panel[data-interval="1s"] #chart[data-loaded]').waitFor();
    const http1s = (await api(`/v1/pools/${top.pool_address}/candles?interval=1s&limit=500`)).data.candles;
    await expect.poll(() => page.locator('#chart').getAttribute('data-bars')).toBe(String(http1s.length));
    await page.click('button[data-mode="market_cap"]');
    await page.locator('.chart-panel[data-mode="market_cap"][data-interval="1s"] #chart[data-loaded]').waitFor();
    const mcap = (await api(`/v1/pools/${top.pool_address}/candles?interval=1s&mode=market_cap&limit=500`)).data.candles;
    const drawn = await page.evaluate(() => ((window.mdsTerminal!.chart as any).bars() as Array<{ close: number }>).at(-1)!.close);
    expect(drawn).toBe(mcap.at(-1).close);
    await page.click('button[data-mode="price"]');
    await page.click('button[data-interval="15s"]');
    await page.locator('.chart-panel[data-mode="price"][data-interval="15s"] #chart[data-loaded]').waitFor();
  });

  it('a dropped socket reconnects and the chart resumes without a gap', async () => {
    const top = (globalThis as any).token;
    const series = async () => (await api(`/v1/pools/${top.pool_address}/candles?interval=15s&limit=500`)).data.candles;
    const bars = () => page.evaluate(() => (window.mdsTerminal!.chart as any).bars());
    // Live first: a trade in a new 15 s bucket reaches the chart over the socket.
    await trade(top.pool_address, lastEvent.at + 16_000);
    await tick(lastEvent.at + 1_000);
    await expect.poll(async () => JSON.stringify(await bars()), { timeout: 10_000 }).toBe(JSON.stringify(await series()));
    const closesBefore = await page.evaluate(() => window.mdsTerminal!.events.filter((e) => e === 'close').length);
    // Drop the socket, then trade into the current bucket and two new ones while it reconnects.
    await page.evaluate(() => window.mdsTerminal!.dropSocket());
    for (const dt of [2_000, 17_000, 33_000]) await trade(top.pool_address, lastEvent.at + dt, { side: dt === 17_000 ? 'sell' : 'buy' });
    await tick(lastEvent.at + 1_000);
    await page.waitForFunction((n) => window.mdsTerminal!.events.filter((e) => e === 'close').length > n && window.mdsTerminal!.events.at(-1) === 'resynced', closesBefore);
    // The page holds exactly the route's candles: none missing, none stale.
    await expect.poll(async () => JSON.stringify(await bars()), { timeout: 10_000 }).toBe(JSON.stringify(await series()));
    // And the tape holds the trades made while the socket was down (the SDK read them over HTTP).
    const trades = (await api(`/v1/tokens/${top.token_address}/trades?limit=4`)).data.map((t: any) => t.trade_id);
    for (const id of trades) await page.locator(`section.tape tr[data-trade-id="${id}"]`).waitFor();
    await page.locator('#status.live').waitFor();
  });

  it('the wallet page shows performance, positions and the daily PnL chart', async () => {
    const top = (globalThis as any).token;
    const traders = (await api(`/v1/tokens/${top.token_address}/traders?limit=1`)).data;
    const wallet = traders[0].wallet_address;
    await page.goto(`${base}/w/${wallet}`);
    for (const panel of ['performance', 'pnl', 'positions', 'wallet-trades']) await page.locator(`section.${panel}[data-loaded]`).waitFor();
    expect(await page.locator('section.performance tbody tr').count()).toBe(4);
    expect(Number(await page.locator('.pnl-chart').getAttribute('data-days'))).toBeGreaterThan(0);
    await page.locator('.pnl-chart canvas').first().waitFor();
    await shot('wallet');
  });

  it('no page, script, response or frame the browser received carries the key', () => {
    expect(terminalKeys.length).toBe(1);
    expect(received.length).toBeGreaterThan(20);
    expect(received.some((r) => r.includes('/terminal/app.js'))).toBe(true);
    for (const body of received) expect(body.includes(terminalKeys[0]!), body.slice(0, 120)).toBe(false);
  });

  it('the markers and chart lines overlays are on for a Pro session: the chart lines on subscribe, a callout drawn as a marker', async () => {
    const top = (globalThis as any).token;
    await page.goto(`${base}/t/${top.token_address}`);
    await page.locator('#chart[data-loaded]').waitFor();
    // A post naming the token is a callout: a mark on its markers stream (INGEST.md social_post).
    const at = Number(lastEvent.at ?? Date.now());
    expect((await engine.ingest({ type: 'social_post', post_id: `e2e-${at}`, platform: 'x', author: 'e2e', text: `calling ${top.token_address}`, token_addresses: [top.token_address], at })).status).toBe('applied');
    await page.waitForFunction(() => {
      const s = (window.mdsTerminal!.chart as any).overlays();
      return s.markers === 'on' && s.chart_lines === 'on';
    });
    // Nothing on any page threw or logged an error (a failed load, a CSP refusal).
    expect(pageErrors).toEqual([]);
  });
});
