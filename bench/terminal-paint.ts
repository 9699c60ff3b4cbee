import { join } from 'node:path';
import { loadConfig } from '../engine/config.ts';
import { startService } from '../engine/serve.ts';
import { writeSimFile } from '../engine/sources/sim/index.ts';
import { createEngine } from '../engine/system.ts';
import { buildTerminal } from '../transport/terminal/build.ts';
import { browserMissing, launchBrowser } from '../test/helpers/browser.ts';
import { tempDir } from '../test/helpers/fixtures.ts';

/**
 * Question: how soon does a token page of the web terminal paint on loopback (issue 27:
 * first paint under 1 s), and how soon is its chart drawn?
 * Shape: ten simulated minutes ingested (seed 27, as the browser test), served by
 * startService; headless Debian chromium (playwright-core) with a session cookie opens
 * /t/{token} of the busiest token, `RUNS` times cold (a new browser context each:
 * empty cache, new connections) and `RUNS` times warm (same context, cached script).
 * Figures per load: first-contentful-paint (the header's search box and the title), and
 * the page's own mark when the first candle series was drawn (`mds-chart-drawn`:
 * token overview, candles over HTTP, the chart on canvas), both from navigation start.
 * Baseline (same run, same browser): first-contentful-paint of /docs/ws, a static HTML
 * page of the same server with no script.
 * Estimate: the HTML shell is <1 KB and the bundle ~60 KB brotli from loopback; parse
 * and run ~20-50 ms; three HTTP reads before the chart: ~100-200 ms to the chart.
 * Run: node --import tsx bench/terminal-paint.ts [RUNS] (not in the suite: needs chromium).
 */

const RUNS = Number(process.argv[2] ?? 10);
const missing = browserMissing();
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(0);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const dir = tempDir('mds-paint-');
const file = join(dir.path, 'sim.ndjson');
await buildTerminal();
await writeSimFile({ out: file, durationMs: 10 * 60_000, seed: 27 });
const engine = await createEngine({ config: loadConfig({ flags: { data: join(dir.path, 'data'), source: 'none', clock: 'event', logLevel: 'silent', port: 0 } }) });
await engine.runSource(engine.createSource(`ndjson:${file}`));
const service = await startService(engine);
const base = `http://127.0.0.1:${service.port}`;
const { key } = await service.keys.create({ plan: 'pro' });
const top = ((await (await fetch(`${base}/v1/tokens/search?sort=volume_usd&limit=1`, { headers: { authorization: `Bearer ${key}` } })).json()) as any).data[0];
const browser = await launchBrowser();

interface Load {
  fcp: number;
  chart: number | null;
}

async function measure(page: import('playwright-core').Page, path: string, chart: boolean): Promise<Load> {
  await page.goto(base + path, { waitUntil: 'load' });
  if (chart) await page.locator('#chart[data-loaded]').waitFor();
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
  return page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
    chart: performance.getEntriesByName('mds-chart-drawn')[0]?.startTime ?? null,
  }));
}

async function session() {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const { token } = await service.sessions.createLogin({ plan: 'pro' });
  await page.goto(`${base}/session/${token}`);
  return { context, page };
}

const cold: Load[] = [];
const docs: Load[] = [];
const warm: Load[] = [];
for (let i = 0; i < RUNS; i++) {
  // The login lands on / (which loads the bundle): a fresh context per run, its cache
  // emptied by a new context for the measured load.
  const { context } = await session();
  const state = await context.storageState();
  await context.close();
  const fresh = await browser.newContext({ viewport: { width: 1400, height: 900 }, storageState: state });
  const page = await fresh.newPage();
  cold.push(await measure(page, `/t/${top.token_address}`, true));
  warm.push(await measure(page, `/t/${top.token_address}`, true));
  await fresh.close();
  const other = await browser.newContext();
  docs.push(await measure(await other.newPage(), '/docs/ws', false));
  await other.close();
}

const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
const baseline = median(docs.map((d) => d.fcp));
process.stdout.write(`terminal first paint, ${RUNS} loads each, ${base}/t/${top.token_address} (${top.symbol}), load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}\n`);
process.stdout.write(`  token page, cold: first-contentful-paint ${fmt(cold.map((l) => l.fcp))}; chart drawn ${fmt(cold.map((l) => l.chart!))}\n`);
process.stdout.write(`  token page, warm: first-contentful-paint ${fmt(warm.map((l) => l.fcp))}; chart drawn ${fmt(warm.map((l) => l.chart!))}\n`);
process.stdout.write(`  baseline /docs/ws (static HTML, no script), cold: first-contentful-paint ${fmt(docs.map((l) => l.fcp))}\n`);
process.stdout.write(`  ratio token page FCP (cold) / baseline FCP: ${(median(cold.map((l) => l.fcp)) / baseline).toFixed(2)}x\n`);

await browser.close();
await service.close();
await engine.stop();
dir.cleanup();
