import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { NODE_FLAGS, servingPort } from './child.ts';
import { writeMarket } from './fixtures/market.ts';
import { fmt, percentile } from './harness.ts';

/**
 * Question (issue 25): while `mds serve --source ndjson:FILE` ingests a backlog as fast
 * as it can, how long does GET /v1/pools/{pool} take (p50/p99/max), and does a
 * WebSocket client keep receiving (the longest silence between its frames)?
 *
 * Input: the realistic market (bench/fixtures/market.ts). mds serves with the event
 * clock (the file is dated 2026-01-01) and a `scale` key with its limits lifted through
 * config plans (DECISIONS.md). One HTTP client asks for the first pool of the file, one
 * request at a time, for as long as the source runs (`/health` says when it is done),
 * timed from its first 200 (before the pool is applied a 404 costs nothing);
 * one WebSocket client holds pool_trades and every candle interval of the 20 busiest
 * pools. Same machine, unpinned: the clients share the cores with mds.
 *
 * `node --import tsx bench/backlog.ts [--swaps 200000] [--pools 5000] [--rounds 1] [--slice-ab]`
 */

const MDS = fileURLToPath(new URL('../bin/mds.js', import.meta.url));
const HOST = '127.0.0.1';
const LIFTED = { plans: { scale: { rps: 1_000_000_000, in_flight: 1_000_000, monthly_requests: 1_000_000_000_000 } } };

/**
 * `applySliceMs`: the engine's `ingest.applySliceMs` (0: each committed batch applied
 * whole in its turn, as before issue 25's slices; undefined: the default).
 */
export async function measureBacklog(swaps: number, pools: number, log: (line: string) => void, applySliceMs?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-backlog-'));
  try {
    const file = join(dir, 'market.ndjson');
    const market = await writeMarket(file, { swaps, pools });
    const first = /"pool_address":"(\w+)"/.exec(readFileSync(file, 'utf8').slice(0, 4096))![1]!;
    const data = join(dir, 'data');
    const created = spawnSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'scale', '--data', data], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`mds keys create: ${created.stderr}`);
    const key = created.stdout.trim();
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(applySliceMs === undefined ? LIFTED : { ...LIFTED, ingest: { applySliceMs } }));
    const child = spawn(process.execPath, [...NODE_FLAGS, MDS, 'serve', '--data', data, '--port', '0', '--host', HOST, '--clock', 'event', '--source', `ndjson:${file}`, '--log-level', 'info', '--config', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const port = await servingPort(child, exited).port;
    const started = performance.now();
    const base = `http://${HOST}:${port}`;
    const headers = { authorization: `Bearer ${key}` };

    // The WebSocket client: pool_trades and 1s/1m candles of the 20 busiest pools.
    const ws = new WebSocket(`ws://${HOST}:${port}/ws`, { headers, perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let frames = 0;
    let lastFrame = performance.now();
    let longestGap = 0;
    let problems = 0;
    ws.on('message', (raw) => {
      const now = performance.now();
      const frame = JSON.parse(raw.toString()) as { stream?: string; type?: string };
      if (frame.type === 'error') problems++;
      if (!frame.stream) return;
      frames++;
      if (frames > 1) longestGap = Math.max(longestGap, now - lastFrame);
      lastFrame = now;
    });
    let closing = false;
    ws.on('close', () => {
      if (!closing) problems++;
    });
    for (const pool of market.pools.slice(0, 20)) {
      ws.send(JSON.stringify({ type: 'subscribe', stream: 'pool_trades', payload: { pool_address: pool } }));
      for (const interval of ['1s', '1m']) ws.send(JSON.stringify({ type: 'subscribe', stream: 'candles', payload: { pool_address: pool, interval } }));
    }

    // The HTTP client, one request at a time until the source is done.
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    let done = false;
    let checks = 0;
    while (!done) {
      const t = performance.now();
      const res = await fetch(`${base}/v1/pools/${first}`, { headers });
      await res.arrayBuffer();
      // Timed from the first 200: before the pool's event is applied, a 404 costs nothing.
      if (res.status === 200 || latencies.length > 0) latencies.push(performance.now() - t);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (++checks % 20 === 0) {
        const health = (await (await fetch(`${base}/health`)).json()) as { data?: { source_done?: boolean } };
        done = health.data?.source_done === true;
      }
    }
    const ingestSeconds = (performance.now() - started) / 1000;
    closing = true;
    ws.close();
    child.kill('SIGTERM');
    await exited;
    const sorted = Float64Array.from(latencies).sort();
    const result = {
      swaps,
      events: market.events,
      ingestSeconds,
      eventsPerS: market.events / ingestSeconds,
      requests: latencies.length,
      requestsPerS: latencies.length / ingestSeconds,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1]!,
      statuses: Object.fromEntries(statuses),
      frames,
      framesPerS: frames / ingestSeconds,
      longestGapMs: longestGap,
      problems,
    };
    log(
      `applySliceMs ${applySliceMs ?? 'default'}: backlog of ${fmt(market.events)} events ingested in ${ingestSeconds.toFixed(1)} s (${fmt(result.eventsPerS)} events/s, as served: first request to source done); ` +
        `GET /v1/pools/{pool} one at a time: ${fmt(result.requests)} answers (${result.requestsPerS.toFixed(1)}/s, statuses ${JSON.stringify(result.statuses)}), ` +
        `p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, max ${result.maxMs.toFixed(1)} ms; ` +
        `WebSocket: ${fmt(frames)} frames (${fmt(result.framesPerS)}/s), longest silence ${longestGap.toFixed(0)} ms, ${problems} errors or closes`,
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { swaps: { type: 'string', default: '200000' }, pools: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '1' }, 'slice-ab': { type: 'boolean', default: false } },
  });
  // --slice-ab: each round runs applySliceMs 0 (whole batches, as before) then the default, on the same file.
  const modes = values['slice-ab'] ? [0, undefined] : [undefined];
  const runs: Array<{ mode: number | undefined; r: Awaited<ReturnType<typeof measureBacklog>> }> = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const mode of modes) runs.push({ mode, r: await measureBacklog(Number(values.swaps), Number(values.pools), console.log, mode) });
  }
  if (values['slice-ab']) {
    const med = (xs: number[]) => Float64Array.from(xs).sort()[Math.floor(xs.length / 2)]!;
    const pick = (mode: number | undefined, f: (r: Awaited<ReturnType<typeof measureBacklog>>) => number) => med(runs.filter((x) => x.mode === mode).map((x) => f(x.r)));
    console.log(
      `sliced / whole batches (medians): events/s ${(pick(undefined, (r) => r.eventsPerS) / pick(0, (r) => r.eventsPerS)).toFixed(3)}x; ` +
        `p50 ${pick(undefined, (r) => r.p50Ms).toFixed(1)} against ${pick(0, (r) => r.p50Ms).toFixed(1)} ms, p99 ${pick(undefined, (r) => r.p99Ms).toFixed(1)} against ${pick(0, (r) => r.p99Ms).toFixed(1)} ms; ` +
        `WebSocket ${fmt(pick(undefined, (r) => r.framesPerS))} against ${fmt(pick(0, (r) => r.framesPerS))} frames/s, longest silence ${pick(undefined, (r) => r.longestGapMs).toFixed(0)} against ${pick(0, (r) => r.longestGapMs).toFixed(0)} ms`,
    );
  }
}
