import { spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, freePort, runChild, startChild, stopChild, waitForHttp } from './child.ts';
import { compare, fmt, median, summarize, type Benchmark, type Figure } from './harness.ts';
import type { HttpSetup } from './http-setup.ts';
import type { LoadPlan, LoadResult, LoadRun } from './http-load.ts';
import { newestProfile, profileLines, summarizeProfile } from './profile.ts';

/**
 * Question: how many requests/s does mds serve on one core for its hot read routes,
 * at what latency, against Fastify serving the same bodies from the same data?
 *
 * Setup: a simulated market (6 h, so the busiest pool has 300 one-minute candles) is
 * ingested into a data directory (bench/http-setup.ts); `mds serve` (the real CLI,
 * limits lifted through config plans, a `scale` key) and the Fastify baseline
 * (bench/baselines/fastify-server.ts, on a copy of the directory) run as children
 * pinned to CPU 0; the load client (bench/http-load.ts) runs pinned to CPU 1. Both servers
 * must answer byte-identical bodies before either is loaded. A third server, bare
 * uWebSockets.js sending each route's mds body precomputed
 * (bench/baselines/uws-static.ts), is the ceiling per route: of any Node server on
 * that core, and of what the one-core client can drive.
 *
 * Load: full load as Fastify's own benchmarks run it (100 connections, pipelining
 * 10), 3 repeats of 5 s per route and server, servers alternated, 2 s of warm-up
 * first; then a fixed 5,000 requests/s (20 connections, no pipelining, 10 s) for
 * latency when not saturated. Latency is the client's per-response time (request
 * written to response read), so it includes the client's own queueing.
 *
 * The load is driven by wrk when it is on PATH (Debian's package `wrk`; optional, not
 * an npm dependency), else by autocannon. On one core autocannon itself is the limit
 * near 100k req/s on a 1 KB body and 20k on a 52 KB one, where bare uWS can answer
 * ~420k and ~80k, and its JS work per response is in every latency it times: with
 * autocannon the figures measure the client. The smoke run in `npm test` always uses
 * autocannon. MDS_BENCH_HTTP_CLIENT=autocannon forces it for a comparison with older
 * results.
 *
 * Estimate: bare uWS with a cached body ~200k req/s on this core; mds adds routing,
 * key check (sha256 + an LMDB read ~3 µs), zod on params, limits and either a cached
 * body (/pools, candles) or a JSON.stringify (~2 µs per trade: 50 trades ~100 µs, so
 * ~8k req/s for token trades). Fastify ~47k req/s for a 1 KB body. Targets (issue 4):
 * >= 100,000 req/s for /pools/{pool} and its candles, p99 < 2 ms at 5,000 req/s,
 * >= 2x Fastify.
 */

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CLI = here('../engine/cli.ts');
const SETUP = here('./http-setup.ts');
const LOAD = here('./http-load.ts');
const FASTIFY = here('./baselines/fastify-server.ts');
const UWS_STATIC = here('./baselines/uws-static.ts');

/** The rate of the latency runs (issue 4: p99 < 2 ms at 5,000 requests/s). */
const FIXED_RATE = 5_000;

/** Limits lifted for the benchmark key (DECISIONS.md: benchmarks lift limits through config plans). */
const LIFTED = { plans: { scale: { rps: 1_000_000_000, in_flight: 1_000_000, monthly_requests: 1_000_000_000_000 } } };

interface RouteSpec {
  name: string;
  label: string;
  path: string;
}

/** Fetches `path` from both servers until their bodies agree (windows slide with the clock), at most 3 times. */
async function sameBodies(a: string, b: string, path: string, headers: Record<string, string>): Promise<{ same: boolean; detail: string }> {
  let detail = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const [ra, rb] = await Promise.all([fetch(a + path, { headers }), fetch(b + path, { headers })]);
    const [ta, tb] = await Promise.all([ra.text(), rb.text()]);
    if (ra.status === rb.status && ta === tb) return { same: true, detail: `${ta.length} B` };
    let i = 0;
    while (i < ta.length && ta[i] === tb[i]) i++;
    detail = `status ${ra.status}/${rb.status}, ${ta.length}/${tb.length} B, first difference at ${i}: mds …${ta.slice(Math.max(0, i - 40), i + 40)}… fastify …${tb.slice(Math.max(0, i - 40), i + 40)}…`;
    await new Promise((r) => setTimeout(r, 200));
  }
  return { same: false, detail };
}

/** wrk on PATH ("wrk -v" prints its version and exits 1), unless autocannon is asked for. */
function wrkAvailable(): boolean {
  if (process.env.MDS_BENCH_HTTP_CLIENT === 'autocannon') return false;
  const probe = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  return probe.error === undefined && /^wrk /.test(probe.stdout);
}

const benchmark: Benchmark = {
  name: 'http',
  question: 'How many requests/s and what latency do the hot read routes get on one core, mds (uWebSockets.js) against Fastify on the same data?',
  async run({ smoke, log, cpuProfDir }) {
    const dir = mkdtempSync(join(tmpdir(), 'mds-bench-http-'));
    const children: ChildProcess[] = [];
    try {
      const setup = await runChild<HttpSetup>(SETUP, ['--dir', dir, '--minutes', smoke ? '3' : '360', '--trade-rate', '10']);
      log(`data: ${fmt(setup.events)} simulated events (${fmt(setup.swaps)} swaps) ingested in ${setup.seconds.toFixed(1)} s; busiest pool ${setup.pool} (${fmt(setup.poolSwaps)} swaps)`);
      cpSync(join(dir, 'data'), join(dir, 'data-fastify'), { recursive: true });
      const configFile = join(dir, 'config.json');
      writeFileSync(configFile, JSON.stringify(LIFTED));
      const pinned = canPin();
      log(pinned ? 'servers pinned to CPU 0, the load client to CPU 1 (taskset)' : 'taskset or a second CPU missing: processes not pinned');

      const [mdsPort, fastifyPort, ceilingPort] = await Promise.all([freePort(), freePort(), freePort()]);
      if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
      const startedAt = Date.now();
      const mds = startChild(CLI, ['serve', '--data', join(dir, 'data'), '--port', String(mdsPort), '--source', 'none', '--log-level', 'warn', '--config', configFile], {
        cpus: '0',
        cpuProfDir,
      });
      children.push(mds);
      const fastify = startChild(FASTIFY, ['--data', join(dir, 'data-fastify'), '--port', String(fastifyPort)], { cpus: '0' });
      children.push(fastify);
      const servers = { mds: `http://127.0.0.1:${mdsPort}`, fastify: `http://127.0.0.1:${fastifyPort}` };
      await Promise.all([waitForHttp(`${servers.mds}/health`, mds), waitForHttp(`${servers.fastify}/health`, fastify)]);

      const headers = { authorization: `Bearer ${setup.key}` };
      const candidates: RouteSpec[] = [
        { name: 'sol_price', label: '/v1/market/sol-price', path: '/v1/market/sol-price' },
        { name: 'pool', label: '/v1/pools/{pool}', path: `/v1/pools/${setup.pool}` },
        { name: 'candles', label: '/v1/pools/{pool}/candles?limit=300', path: `/v1/pools/${setup.pool}/candles?limit=300` },
        { name: 'token_trades', label: '/v1/tokens/{token}/trades', path: `/v1/tokens/${setup.token}/trades` },
      ];
      const routes: RouteSpec[] = [];
      const bodies: Record<string, string> = {};
      for (const route of candidates) {
        const res = await fetch(servers.mds + route.path, { headers });
        const body = await res.text();
        if (res.status !== 200) {
          log(`${route.label}: mds answers ${res.status} (${body.slice(0, 120)}): not measured`);
          continue;
        }
        bodies[route.name] = body;
        const check = await sameBodies(servers.mds, servers.fastify, route.path, headers);
        if (!check.same) {
          const message = `${route.label}: mds and Fastify bodies differ (${check.detail}); update bench/baselines/schemas.ts`;
          if (smoke) throw new Error(message);
          log(`WARNING ${message}`);
        } else {
          const extra = route.name === 'candles' ? `, ${(JSON.parse(body) as { data: { candles: unknown[] } }).data.candles.length} candles` : '';
          log(`${route.label}: identical bodies from both servers (${check.detail}${extra})`);
        }
        routes.push(route);
      }
      if (!bodies.pool) throw new Error('GET /v1/pools/{pool} did not answer 200: nothing to compare');
      const ceilingBase = `http://127.0.0.1:${ceilingPort}`;
      let ceilingPid: number | undefined;
      // The ceiling is left out of the smoke run (seconds count there).
      if (!smoke) {
        const bodiesFile = join(dir, 'bodies.json');
        writeFileSync(bodiesFile, JSON.stringify(bodies));
        const ceiling = startChild(UWS_STATIC, ['--bodies', bodiesFile, '--port', String(ceilingPort)], { cpus: '0' });
        children.push(ceiling);
        ceilingPid = ceiling.pid;
        await waitForHttp(`${ceilingBase}/pool`, ceiling);
      }
      const setupSeconds = (Date.now() - startedAt) / 1000;

      const client = !smoke && wrkAvailable() ? 'wrk' : 'autocannon';
      log(`load driven by ${client}${client === 'autocannon' && !smoke ? ' (wrk not on PATH: above ~100k req/s, and in every latency, the figures are the client\'s)' : ''}`);
      const repeats = smoke ? 1 : 3;
      const plan = (base: string, serverPid: number | undefined, list: RouteSpec[], r: number): LoadPlan => ({
        base,
        serverPid,
        headers,
        routes: list.map(({ name, path }) => ({ name, path })),
        warmupS: r === 0 && !smoke ? 2 : 0,
        fullS: smoke ? 0.25 : 5,
        // Smoke: few requests in flight, so that a slow route drains fast when a run ends.
        connections: smoke ? 10 : 100,
        pipelining: smoke ? 1 : 10,
        fixedRate: r === repeats - 1 ? (smoke ? 500 : FIXED_RATE) : 0,
        fixedS: smoke ? 0.25 : 10,
        fixedConnections: smoke ? 5 : 20,
        sampleMs: smoke ? 50 : 1000,
        client,
      });
      const runs: Record<'mds' | 'fastify' | 'ceiling', LoadResult[]> = { mds: [], fastify: [], ceiling: [] };
      for (let r = 0; r < repeats; r++) {
        runs.mds.push(await runChild<LoadResult>(LOAD, [JSON.stringify(plan(servers.mds, mds.pid, routes, r))], { cpus: '1' }));
        runs.fastify.push(await runChild<LoadResult>(LOAD, [JSON.stringify(plan(servers.fastify, fastify.pid, routes, r))], { cpus: '1' }));
        // The ceiling once per route: it is there to bound the others, not to be compared.
        if (r === 0 && !smoke) {
          // With its own fixed-rate run: what the client and loopback alone add to a p99.
          const ceilingPlan = { ...plan(ceilingBase, ceilingPid, routes.map(({ name }) => ({ name, label: name, path: `/${name}` })), r), fixedRate: FIXED_RATE };
          runs.ceiling.push(await runChild<LoadResult>(LOAD, [JSON.stringify(ceilingPlan)], { cpus: '1' }));
        }
      }
      log(`servers started and bodies checked in ${setupSeconds.toFixed(1)} s; load runs took ${((Date.now() - startedAt) / 1000 - setupSeconds).toFixed(0)} s`);

      const figures: Record<string, Figure> = {};
      const fullOf = (list: LoadResult[], name: string) => list.map((x) => x[name]?.full).filter((x): x is LoadRun => x !== undefined);
      const fixedOf = (list: LoadResult[], name: string) => list.map((x) => x[name]?.fixed).filter((x): x is LoadRun => x !== undefined);
      const failures = (list: LoadRun[]) => list.reduce((n, x) => n + x.non2xx + x.errors + x.timeouts, 0);
      for (const route of routes) {
        const m = fullOf(runs.mds, route.name);
        const f = fullOf(runs.fastify, route.name);
        const mFixed = fixedOf(runs.mds, route.name);
        const fFixed = fixedOf(runs.fastify, route.name);
        const badMds = failures([...m, ...mFixed]);
        const badFastify = failures([...f, ...fFixed]);
        if (badMds + badFastify) {
          // wrk counts a pipelined batch that waits over 2 s for its answers as a timeout (Fastify's queue at full load).
          const message = `${route.label}: responses that were not 2xx, errors or timeouts: mds ${badMds}, Fastify ${badFastify}`;
          if (smoke) throw new Error(message);
          log(`WARNING ${message}`);
        }
        const rps = compare(summarize(m.map((x) => x.rps), 'req/s', 0, 'higher'), 'Fastify', summarize(f.map((x) => x.rps), 'req/s', 0, 'higher'));
        const p50 = compare(summarize(m.map((x) => x.p50Ms), 'ms', 3, 'lower'), 'Fastify', summarize(f.map((x) => x.p50Ms), 'ms', 3, 'lower'));
        const p99 = compare(summarize(m.map((x) => x.p99Ms), 'ms', 3, 'lower'), 'Fastify', summarize(f.map((x) => x.p99Ms), 'ms', 3, 'lower'));
        // A ceiling run that served nothing (its server gone) bounds nothing.
        const ceilingRuns = fullOf(runs.ceiling, route.name).filter((x) => x.requests > 0 && x.non2xx + x.errors === 0);
        if (!smoke && ceilingRuns.length === 0) log(`  no valid ceiling run for ${route.label} (the bare uWS server failed or answered errors)`);
        const ceilingRps = ceilingRuns.length ? summarize(ceilingRuns.map((x) => x.rps), 'req/s', 0, 'higher') : null;
        figures[`${route.name}_rps`] = rps;
        if (ceilingRps) figures[`${route.name}_ceiling_rps`] = ceilingRps;
        // wrk times a connection's pipelined batch, not each response: not a latency to file.
        if (client === 'autocannon') {
          figures[`${route.name}_p50_ms`] = p50;
          figures[`${route.name}_p99_ms`] = p99;
        }
        const fixedRate = mFixed[0] ? Math.round(mFixed[0].rps) : 0;
        const cpu = (list: LoadRun[]) => median(list.map((x) => x.serverCpu ?? Number.NaN));
        const clientCpu = (list: LoadRun[]) => median(list.map((x) => x.clientCpu));
        if (m.every((x) => x.serverCpu !== null)) {
          figures[`${route.name}_mds_server_cpu`] = summarize(m.map((x) => x.serverCpu!), 'cores', 2);
          figures[`${route.name}_client_cpu`] = summarize(m.map((x) => x.clientCpu), 'cores', 2);
        }
        const ceilingFixed = fixedOf(runs.ceiling, route.name).find((x) => x.requests > 0 && x.non2xx + x.errors === 0);
        if (ceilingFixed) figures[`${route.name}_ceiling_p99_ms_at_fixed_rate`] = { value: Number(ceilingFixed.p99Ms.toFixed(3)), unit: 'ms', better: 'lower' };
        if (mFixed.length && fFixed.length) {
          figures[`${route.name}_p99_ms_at_fixed_rate`] = compare(summarize(mFixed.map((x) => x.p99Ms), 'ms', 3, 'lower'), 'Fastify', summarize(fFixed.map((x) => x.p99Ms), 'ms', 3, 'lower'));
        }
        log(
          `${route.label}: mds ${fmt(rps.value)} req/s (${m.map((x) => fmt(x.rps)).join(', ')}) vs Fastify ${fmt(rps.baseline!.value)} (${f.map((x) => fmt(x.rps)).join(', ')}): ${rps.ratio}x; ` +
            (ceilingRps ? `bare-uWS ceiling ${fmt(ceilingRps.value)}; ` : '') +
            (client === 'autocannon' ? `p50/p99 at full load ${p50.value}/${p99.value} ms vs ${p50.baseline!.value}/${p99.baseline!.value} ms` : 'full-load latency not timed (wrk)') +
            (mFixed[0] && fFixed[0] ? `; at ${fmt(fixedRate)} req/s p99 ${mFixed[0].p99Ms.toFixed(3)} ms vs ${fFixed[0].p99Ms.toFixed(3)} ms` : '') +
            (ceilingFixed ? ` (bare uWS ${ceilingFixed.p99Ms.toFixed(3)} ms)` : ''),
        );
        // Others' share: the whole machine's busy time minus this server and its client (the machine is shared).
        const others = (list: LoadRun[]) => median(list.map((x) => (x.machineCpu ?? Number.NaN) - (x.serverCpu ?? 0) - x.clientCpu));
        const cpuLine = (who: string, list: LoadRun[]) => `${who} server ${cpu(list).toFixed(2)}, client ${clientCpu(list).toFixed(2)}, others ${Math.max(0, others(list)).toFixed(2)}`;
        log(`  CPU at full load (cores of 2): ${cpuLine('mds', m)}; ${cpuLine('Fastify', f)}${ceilingRuns.length ? `; ${cpuLine('bare uWS', ceilingRuns)}` : ''}`);
        if (!smoke && Math.max(others(m), others(f)) > 0.25) {
          log(`  WARNING other processes used ${Math.max(others(m), others(f)).toFixed(2)} cores during these runs: the figures are low and noisy; rerun on a quiet machine`);
        }
        if (m.every((x) => x.machineCpu !== null)) figures[`${route.name}_others_cpu`] = summarize(m.map((x) => Math.max(0, x.machineCpu! - (x.serverCpu ?? 0) - x.clientCpu)), 'cores', 2);
        const target = smoke ? 500 : FIXED_RATE;
        for (const [who, runsAt] of [['mds', mFixed], ['Fastify', fFixed]] as const) {
          if (runsAt[0] && runsAt[0].rps < 0.95 * target) log(`  ${who} reached ${fmt(runsAt[0].rps)} of the ${fmt(target)} req/s asked: saturated, so its "fixed rate" latency is a full-load latency`);
        }
      }
      figures.fixed_rate = { value: smoke ? 500 : FIXED_RATE, unit: 'req/s' };
      // 1: wrk drove the runs; 0: autocannon (see the header comment).
      figures.load_by_wrk = { value: client === 'wrk' ? 1 : 0, unit: 'bool' };

      await Promise.all(children.map((child) => stopChild(child)));
      if (cpuProfDir) {
        const profile = newestProfile(cpuProfDir, startedAt);
        if (profile) for (const line of profileLines(summarizeProfile(profile))) log(`mds server ${line}`);
        else log(`no CPU profile of the mds server found in ${cpuProfDir}`);
      }
      return figures;
    } finally {
      await Promise.all(children.map((child) => stopChild(child)));
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
