import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { NODE_FLAGS, servingPort } from './child.ts';
import { writeMarket, type MarketFile } from './fixtures/market.ts';
import { fmt, median, percentile } from './harness.ts';

/**
 * Question (issue 25): while `mds serve --source ndjson:FILE` ingests a backlog as fast
 * as it can, how long does GET /v1/pools/{pool} take (p50/p99/max), and does a
 * WebSocket client keep receiving (the longest silence between its frames)?
 *
 * Input: the realistic market (bench/fixtures/market.ts), written once per round and
 * given to every tree measured. mds serves with the event clock (the file is dated
 * 2026-01-01) and a `scale` key with its limits lifted through config plans
 * (DECISIONS.md). One HTTP client asks for the first pool of the file, one request at a
 * time, for as long as the source runs (`/health` says when it is done), timed from its
 * first 200 (before the pool is applied a 404 costs nothing); one WebSocket client holds
 * pool_trades and every candle interval of the 20 busiest pools: its longest silence
 * between frames, and how many silences passed SILENCE_MS and their sum, and of those
 * how many were stalled: less event time passed in them (the trades' `created_at`
 * before and after) than wall time, so the file had trades of these pools that a live
 * market would have sent sooner; the others are the file's quiet stretches at the
 * backlog's pace. Same machine,
 * unpinned: the clients share the cores with mds.
 *
 * `node --import tsx bench/backlog.ts [--swaps 200000] [--pools 5000] [--rounds 1]
 *  [--other TREE] [--slice-ab] [--long-tasks MS] [--cpu-prof DIR] [--semi-space MiB]`
 * - `--other TREE`: each round measures this tree, then TREE (another commit's source
 *   tree with its node_modules, e.g. `git archive <commit> | tar -x -C TREE` and a
 *   node_modules link) on the same file, and the last line gives their ratios;
 * - `--slice-ab`: each round runs this tree with `ingest.applySliceMs` 0 (whole batches)
 *   then the default;
 * - `--long-tasks MS`: this tree (and `--other`'s) logs every main-thread task longer than MS
 *   (config `debug.longTaskMs`, engine/long-tasks.ts), summed per task name;
 * - `--cpu-prof DIR`: a V8 CPU profile of each mds child in DIR (bench/hold-profile.ts
 *   says where the ranking recompute's holds went in one);
 * - `--semi-space MiB`: this tree's child runs with `--max-semi-space-size=MiB` instead
 *   of NODE_FLAGS' 64 (`--other` the same tree to compare young-generation sizes).
 */

const HERE = fileURLToPath(new URL('..', import.meta.url));
const HOST = '127.0.0.1';
/** A WebSocket client's silence counted apart past this (ms): what a recompute or a batch's evictions holding the events looks like. */
const SILENCE_MS = 250;
const LIFTED = { plans: { scale: { rps: 1_000_000_000, in_flight: 1_000_000, monthly_requests: 1_000_000_000_000 } } };

export interface BacklogRun {
  /** How the run is named in the output. */
  label: string;
  /** The source tree whose bin/mds.js serves (default: this one). */
  tree?: string;
  /** `ingest.applySliceMs` (0: each committed batch applied whole in its turn; undefined: the default). */
  applySliceMs?: number;
  /** `debug.longTaskMs` (a tree that has it: this one). */
  longTaskMs?: number;
  cpuProfDir?: string;
  /** V8's young-generation semi-space in MiB (`--max-semi-space-size`; default NODE_FLAGS', 64). */
  semiSpaceMiB?: number;
}

/** Long tasks the child logged, per task name: how many, the longest and their sum (ms). */
type LongTaskSums = Map<string, { count: number; maxMs: number; totalMs: number }>;

export async function measureBacklog(file: string, market: MarketFile, run: BacklogRun, log: (line: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-backlog-'));
  try {
    const mds = join(run.tree ?? HERE, 'bin/mds.js');
    const first = /"pool_address":"(\w+)"/.exec(readFileSync(file, 'utf8').slice(0, 4096))![1]!;
    const data = join(dir, 'data');
    const created = spawnSync(process.execPath, [mds, 'keys', 'create', '--plan', 'scale', '--data', data], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`mds keys create: ${created.stderr}`);
    const key = created.stdout.trim();
    const configFile = join(dir, 'config.json');
    const config: Record<string, unknown> = { ...LIFTED };
    if (run.applySliceMs !== undefined) config.ingest = { applySliceMs: run.applySliceMs };
    if (run.longTaskMs !== undefined) config.debug = { longTaskMs: run.longTaskMs };
    writeFileSync(configFile, JSON.stringify(config));
    const v8 = run.semiSpaceMiB === undefined ? NODE_FLAGS : [`--max-semi-space-size=${run.semiSpaceMiB}`];
    const flags = [...v8, ...(run.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${run.cpuProfDir}`] : [])];
    const child = spawn(process.execPath, [...flags, mds, 'serve', '--data', data, '--port', '0', '--host', HOST, '--clock', 'event', '--source', `ndjson:${file}`, '--log-level', 'info', '--config', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const longTasks: LongTaskSums = new Map();
    let partial = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (!line.includes('"msg":"long task"')) continue;
        const { task, ms } = JSON.parse(line) as { task: string; ms: number };
        const sum = longTasks.get(task) ?? { count: 0, maxMs: 0, totalMs: 0 };
        sum.count++;
        sum.maxMs = Math.max(sum.maxMs, ms);
        sum.totalMs += ms;
        longTasks.set(task, sum);
      }
    });
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
    let silences = 0;
    let silentMs = 0;
    // Silences in which the file's event time moved on less than wall time: these pools
    // traded in the file meanwhile, and a live market would have sent them sooner. The
    // others are the file's quiet stretches at the backlog's pace (~15 times real time).
    let stalled = 0;
    let stalledMs = 0;
    /** The latest trade time (`created_at`) a pool_trades frame carried, and a silence waiting for the next one to be told apart. */
    let lastTradeAt = NaN;
    let open: { gap: number; since: number } | null = null;
    let problems = 0;
    ws.on('message', (raw) => {
      const now = performance.now();
      const frame = JSON.parse(raw.toString()) as { stream?: string; type?: string; data?: { created_at?: number } };
      if (frame.type === 'error') problems++;
      if (!frame.stream) return;
      frames++;
      if (frames > 1) {
        const gap = now - lastFrame;
        longestGap = Math.max(longestGap, gap);
        if (gap > SILENCE_MS) {
          silences++;
          silentMs += gap;
          if (open === null && Number.isFinite(lastTradeAt)) open = { gap, since: lastTradeAt };
        }
      }
      const at = frame.stream === 'pool_trades' ? frame.data?.created_at : undefined;
      if (typeof at === 'number') {
        if (open !== null && at - open.since < open.gap) {
          stalled++;
          stalledMs += open.gap;
        }
        open = null;
        if (!(at <= lastTradeAt)) lastTradeAt = at;
      }
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
      label: run.label,
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
      silences,
      silentMs,
      stalled,
      stalledMs,
      problems,
      longTasks,
    };
    log(
      `${run.label}: backlog of ${fmt(market.events)} events ingested in ${ingestSeconds.toFixed(1)} s (${fmt(result.eventsPerS)} events/s, as served: first request to source done); ` +
        `GET /v1/pools/{pool} one at a time: ${fmt(result.requests)} answers (${result.requestsPerS.toFixed(1)}/s, statuses ${JSON.stringify(result.statuses)}), ` +
        `p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, max ${result.maxMs.toFixed(1)} ms; ` +
        `WebSocket: ${fmt(frames)} frames (${fmt(result.framesPerS)}/s), longest silence ${longestGap.toFixed(0)} ms, ${silences} silences over ${SILENCE_MS} ms (${fmt(silentMs)} ms in all), ${stalled} of them stalled (event time moved less than wall time: ${fmt(stalledMs)} ms), ${problems} errors or closes`,
    );
    if (run.longTaskMs !== undefined) {
      const rows = [...longTasks].sort((a, b) => b[1].maxMs - a[1].maxMs);
      log(`${run.label}: tasks over ${run.longTaskMs} ms (name: count, longest, sum): ${rows.length ? rows.map(([task, t]) => `${task}: ${t.count}, ${t.maxMs} ms, ${t.totalMs} ms`).join('; ') : 'none'}`);
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type BacklogResult = Awaited<ReturnType<typeof measureBacklog>>;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      swaps: { type: 'string', default: '200000' },
      pools: { type: 'string', default: '5000' },
      rounds: { type: 'string', default: '1' },
      'slice-ab': { type: 'boolean', default: false },
      other: { type: 'string' },
      'long-tasks': { type: 'string' },
      'cpu-prof': { type: 'string' },
      'semi-space': { type: 'string' },
    },
  });
  const semiSpaceMiB = values['semi-space'] === undefined ? undefined : Number(values['semi-space']);
  const longTaskMs = values['long-tasks'] === undefined ? undefined : Number(values['long-tasks']);
  const cpuProfDir = values['cpu-prof'];
  // The runs of a round, on the same file: this tree first, then what it is compared with.
  const plan: BacklogRun[] = values['slice-ab']
    ? [{ label: 'whole batches (applySliceMs 0)', applySliceMs: 0 }, { label: 'sliced (applySliceMs default)', longTaskMs, cpuProfDir }]
    : [{ label: semiSpaceMiB === undefined ? 'this tree' : `this tree, semi-space ${semiSpaceMiB} MiB`, longTaskMs, cpuProfDir, semiSpaceMiB }];
  if (values.other) plan.push({ label: `other (${values.other})`, tree: values.other, cpuProfDir, longTaskMs });
  const results = new Map<string, BacklogResult[]>(plan.map((r) => [r.label, []]));
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-backlog-file-'));
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      const file = join(dir, 'market.ndjson');
      const market = await writeMarket(file, { swaps: Number(values.swaps), pools: Number(values.pools) });
      for (const run of plan) results.get(run.label)!.push(await measureBacklog(file, market, run, (line) => console.log(`#${round + 1} ${line}`)));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (plan.length === 2) {
    const [a, b] = plan as [BacklogRun, BacklogRun];
    // Compared: the new (this tree, or the sliced run) against the baseline (the other tree, or whole batches).
    const [now, before] = values['slice-ab'] && !values.other ? [b, a] : [a, b];
    // The harness's median: of an even count, the mean of the middle two (this took the higher of 2 rounds).
    const pick = (run: BacklogRun, f: (r: BacklogResult) => number) => median(results.get(run.label)!.map(f));
    const both = (name: string, f: (r: BacklogResult) => number, unit: string, digits = 1) =>
      `${name} ${pick(now, f).toFixed(digits)} against ${pick(before, f).toFixed(digits)}${unit} (${(pick(now, f) / pick(before, f)).toFixed(3)}x)`;
    console.log(
      `${now.label} against ${before.label} (medians of ${values.rounds} round(s)): ` +
        [
          both('events/s', (r) => r.eventsPerS, '', 0),
          both('answers/s', (r) => r.requestsPerS, ''),
          both('p50', (r) => r.p50Ms, ' ms'),
          both('p99', (r) => r.p99Ms, ' ms'),
          both('max', (r) => r.maxMs, ' ms'),
          both('WebSocket frames/s', (r) => r.framesPerS, '', 0),
          both('longest silence', (r) => r.longestGapMs, ' ms', 0),
          both(`silences over ${SILENCE_MS} ms`, (r) => r.silences, '', 0),
          both(`their sum`, (r) => r.silentMs, ' ms', 0),
          both(`stalled silences`, (r) => r.stalled, '', 0),
          both(`their sum`, (r) => r.stalledMs, ' ms', 0),
        ].join('; '),
    );
  }
}
