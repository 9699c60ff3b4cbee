import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { parseDuration } from '../engine/sources/sim/index.ts';
import { NODE_FLAGS, servingPort, stopChild } from './child.ts';
import { fmt, type Benchmark, type Figure } from './harness.ts';
import { diskBytes } from './market.ts';

/**
 * Question (issue 25): is the memory of `mds serve` flat after warm-up at real-time
 * simulator pace, as a user runs it, and where does it go: the JS heap, anonymous
 * memory (heap and native) or mapped file pages (mostly the LMDB map)?
 *
 * `mds serve` on its defaults (the built-in simulator at speed 1, real time; its own
 * launch and trade rates) on a temp data dir, 127.0.0.1, port 0, with bench/probe.mjs
 * loaded (MDS_PROBE_MS: a sample every 5 s: heapUsed of the main thread, and of worker
 * threads apart, RssAnon, RssFile). A `scale` key
 * with its limits lifted through config plans (DECISIONS.md), as the other benchmarks.
 * Light use, as a user would: `--clients` WebSocket clients, each on the rankings
 * (popular, 5m) and on pool_trades and 1s/1m candles of the 3 busiest pools by volume,
 * following the list every minute (unsubscribe what left it, subscribe what entered);
 * one HTTP client asking one route a second in turn (the pool list by volume, a pool,
 * its 1m candles, its trades). The benchmark's own process samples the data
 * directory's size (allocated blocks) and the resident actors per kind (pools, tokens,
 * wallets: `mds_actors_alive` on /metrics) at the same pace: the simulator's market keeps
 * more pools alive for its first hours (its live tokens: ~85 at 10 minutes, ~130 at 30,
 * ~200 from the fourth hour on), which is workload, not history.
 *
 * Warm-up (default 5 min): the 5m ranking window and 1m/5m candle buckets fill, pools
 * launched at the start have passed the 60 s idle passivation (actors.idleMs) several
 * times and the 30 s checkpoints have run ten times; before that memory rises by design.
 * The rest of the run is cut in three thirds by time; for each: the JS heap's max and
 * its floor (min heapUsed: the post-GC floor, samples land after and between GCs),
 * RssAnon max, RssFile max, data dir max; V8's committed heap at most (its young
 * generation grows to `--max-semi-space-size` and shrinks again: RssAnon follows it) and
 * the native rest (RssAnon less the committed heap and external memory); the resident
 * actors at most. Over the last two thirds: the least-squares
 * slope of RssAnon and of the heap floor (per-minute minima; per-5-s in smoke), in
 * MiB/hour. Flat, by rule: the last third's RssAnon max and heap floor are each within
 * 5 % of the middle third's (or within 2 MiB, for a smoke run's noise on small numbers).
 * Figures only: no assertion on them.
 *
 *   node --import tsx bench/serve-memory.ts [--duration 30m] [--warmup 5m] [--clients 3] [--sample-ms 5000] [--smoke]
 *   (--heap-snapshots DIR: SIGUSR2 takes a heap snapshot at the end of warm-up and at the end, in DIR;
 *   --samples FILE: keeps the probe's samples, one JSON line each;
 *   --node-flags 'FLAGS': mds serve's Node flags in place of bin/mds.js's --max-semi-space-size=64)
 */

const MDS = fileURLToPath(new URL('../bin/mds.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));
const HOST = '127.0.0.1';
const LIFTED = { plans: { scale: { rps: 1_000_000_000, in_flight: 1_000_000, monthly_requests: 1_000_000_000_000 } } };
const MiB = 2 ** 20;

interface Sample {
  /** 0: the main thread; a worker thread's id otherwise (bench/probe.mjs). */
  thread: number;
  t: number;
  heapUsed: number;
  /** V8's heap as committed (its young generation grows to --max-semi-space-size and shrinks again). */
  heapTotal: number;
  /** V8's external memory (ArrayBuffers, mostly) in bytes. */
  external: number;
  rssAnon: number;
  rssFile: number;
  final: boolean;
}

/** Actor kinds whose resident counts the benchmark follows (mds_actors_alive on /metrics). */
const KINDS = ['pool', 'token', 'wallet'] as const;
type Resident = Record<(typeof KINDS)[number], number>;

/** The resident actors of each followed kind in a /metrics text (0 for a kind not listed). */
export function residentActors(metrics: string): Resident {
  const out: Resident = { pool: 0, token: 0, wallet: 0 };
  for (const kind of KINDS) {
    const m = new RegExp(`^mds_actors_alive\\{kind="${kind}"\\} (\\d+)`, 'm').exec(metrics);
    if (m) out[kind] = Number(m[1]);
  }
  return out;
}

export interface ServeMemoryOptions {
  durationMs: number;
  warmupMs: number;
  clients: number;
  sampleMs: number;
  /** Per-window minima of the heap for its floor's slope. */
  floorWindowMs: number;
  heapSnapshotDir?: string;
  /** Node flags of `mds serve` in place of bin/mds.js's (NODE_FLAGS), to compare V8 settings. */
  nodeFlags?: string[];
  /** Copy the probe's samples (JSON lines) here before the temp dir goes. */
  samplesFile?: string;
}

export interface Third {
  fromS: number;
  toS: number;
  heapMaxMiB: number;
  heapFloorMiB: number;
  rssAnonMaxMiB: number;
  rssFileMaxMiB: number;
  dataDirMaxMiB: number;
  /** V8's committed heap at most: how far the young generation had grown. */
  heapTotalMaxMiB: number;
  /**
   * RssAnon less V8's committed heap and external memory at most: malloc'd memory of
   * lmdb-js, uWebSockets.js, worker threads, Node. A lower bound (RssAnon counts touched
   * pages only, V8 commits its young generation ahead): negative early in a run.
   */
  nativeMaxMiB: number;
  /** Resident actors at most (mds_actors_alive): what the simulator's market keeps alive, not history. */
  residentMax: Resident;
}

/** Least-squares slope of y over x (per unit of x); 0 under two points. */
export function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (const [x, y] of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const within = (last: number, middle: number) => last <= middle * 1.05 || last - middle <= 2;

export async function measureServeMemory(opts: ServeMemoryOptions, log: (line: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-serve-memory-'));
  try {
    const data = join(dir, 'data');
    const created = spawnSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'scale', '--data', data], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`mds keys create: ${created.stderr}`);
    const key = created.stdout.trim();
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(LIFTED));
    const probe = join(dir, 'serve.probe');
    const child = spawn(process.execPath, [...(opts.nodeFlags ?? NODE_FLAGS), '--import', PROBE, ...(opts.heapSnapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${opts.heapSnapshotDir}`] : []), MDS, 'serve', '--data', data, '--port', '0', '--host', HOST, '--log-level', 'info', '--config', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, MDS_PROBE: probe, MDS_PROBE_MS: String(opts.sampleMs) },
    });
    const spawnedAt = performance.now();
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const served = servingPort(child, exited);
    const port = await served.port;
    const base = `http://${HOST}:${port}`;
    const headers = { authorization: `Bearer ${key}` };
    let stopping = false;
    const problems: string[] = [];
    const problem = (p: string) => {
      if (problems.length < 20) log(`PROBLEM ${p}`);
      problems.push(p);
    };

    // The data directory's size, sampled by this process (t from the child's spawn).
    const dirSamples: Array<[number, number]> = [];
    const dirTimer = setInterval(() => dirSamples.push([performance.now() - spawnedAt, existsSync(data) ? diskBytes(data) : 0]), opts.sampleMs);
    // Resident actors per kind, from /metrics at the same pace.
    const actorSamples: Array<[number, Resident]> = [];
    const actorTimer = setInterval(() => {
      const t = performance.now() - spawnedAt;
      fetch(`${base}/metrics`)
        .then((res) => res.text())
        .then((text) => actorSamples.push([t, residentActors(text)]))
        .catch((err: Error) => !stopping && problem(`GET /metrics: ${err.message}`));
    }, opts.sampleMs);

    const get = async (path: string): Promise<any> => {
      try {
        const res = await fetch(`${base}${path}`, { headers });
        const body = await res.json().catch(() => null);
        stats.requests++;
        if (res.status !== 200 && res.status !== 404) problem(`GET ${path}: ${res.status}`);
        return res.status === 200 ? body : null;
      } catch (err) {
        if (!stopping) problem(`GET ${path}: ${(err as Error).message}`);
        return null;
      }
    };
    const stats = { requests: 0, frames: 0 };
    let busiest: string[] = [];
    const refreshBusiest = async () => {
      const body = await get('/v1/pools?sort=volume_usd&limit=3');
      const pools = ((body?.data ?? []) as Array<{ pool_address?: string; address?: string }>).map((p) => p.pool_address ?? p.address).filter((p): p is string => typeof p === 'string');
      if (pools.length) busiest = pools;
    };
    await refreshBusiest();

    // The WebSocket clients: rankings and the busiest pools' trades and candles, following the list.
    const sockets: WebSocket[] = [];
    const followed = new Map<WebSocket, string[]>();
    const follow = (ws: WebSocket) => {
      const had = followed.get(ws) ?? [];
      const send = (frame: object) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(frame));
      for (const pool of had.filter((p) => !busiest.includes(p))) {
        send({ type: 'unsubscribe', stream: 'pool_trades', payload: { pool_address: pool } });
        for (const interval of ['1s', '1m']) send({ type: 'unsubscribe', stream: 'candles', payload: { pool_address: pool, interval } });
      }
      for (const pool of busiest.filter((p) => !had.includes(p))) {
        send({ type: 'subscribe', stream: 'pool_trades', payload: { pool_address: pool } });
        for (const interval of ['1s', '1m']) send({ type: 'subscribe', stream: 'candles', payload: { pool_address: pool, interval } });
      }
      followed.set(ws, [...busiest]);
    };
    for (let i = 0; i < opts.clients; i++) {
      const ws = new WebSocket(`ws://${HOST}:${port}/ws`, { headers, perMessageDeflate: false });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.on('message', (raw) => {
        stats.frames++;
        const frame = JSON.parse(raw.toString()) as { type?: string; code?: number; message?: string };
        if (frame.type === 'error') problem(`WebSocket error frame ${frame.code}: ${frame.message}`);
      });
      ws.on('close', (code) => {
        if (!stopping) problem(`WebSocket closed by the server: ${code}`);
      });
      ws.send(JSON.stringify({ type: 'subscribe', stream: 'rankings', payload: { feed: 'popular', window: '5m' } }));
      follow(ws);
      sockets.push(ws);
    }

    // The HTTP client: one route a second, in turn; the busiest pools followed every minute.
    let tick = 0;
    let snapshotTaken = false;
    const heapSnapshot = () => opts.heapSnapshotDir && child.kill('SIGUSR2');
    while (performance.now() - spawnedAt < opts.durationMs) {
      const t = performance.now();
      const pool = busiest[tick % Math.max(1, busiest.length)];
      const turn = tick % 4;
      if (turn === 0 || !pool) await get('/v1/pools?sort=volume_usd&limit=10');
      else if (turn === 1) await get(`/v1/pools/${pool}`);
      else if (turn === 2) await get(`/v1/pools/${pool}/candles?interval=1m&limit=100`);
      else await get(`/v1/pools/${pool}/trades?limit=50`);
      if (++tick % 60 === 0 || busiest.length === 0) {
        await refreshBusiest();
        for (const ws of sockets) follow(ws);
      }
      if (!snapshotTaken && performance.now() - spawnedAt >= opts.warmupMs) {
        snapshotTaken = true;
        heapSnapshot();
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - t))));
    }
    const loopEndMs = performance.now() - spawnedAt;
    heapSnapshot();
    if (opts.heapSnapshotDir) await new Promise((r) => setTimeout(r, 20_000)); // the snapshot is written synchronously by the child; give it time before the stop
    clearInterval(dirTimer);
    clearInterval(actorTimer);
    stopping = true;
    for (const ws of sockets) ws.close();
    await stopChild(child, 30_000);
    const code = await exited;
    if (code !== 0) problem(`mds serve exited ${code}: ${served.tail()}`);

    // Samples up to the end of the load (the probe's clock starts a little after the spawn): not the stop, nor the last heap snapshot.
    if (opts.samplesFile) copyFileSync(probe, opts.samplesFile);
    const lines = readFileSync(probe, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Sample).filter((s) => !s.final);
    const samples = lines.filter((s) => !s.thread && s.t <= loopEndMs);
    // Worker threads (the wallet indexer) sample their own heap on their own clock: their max over the whole run.
    const workerHeapMaxMiB = Math.max(0, ...lines.filter((s) => s.thread).map((s) => s.heapUsed)) / MiB;
    const endMs = samples[samples.length - 1]!.t;
    const span = (endMs - opts.warmupMs) / 3;
    if (span <= 0) throw new Error(`the run (${endMs} ms of samples, ${samples.length} samples up to ${loopEndMs.toFixed(0)} ms of load) is no longer than its warm-up (${opts.warmupMs} ms)`);
    const bounds = [0, 1, 2, 3].map((k) => opts.warmupMs + k * span);
    const thirds: Third[] = [0, 1, 2].map((k) => {
      const inThird = samples.filter((s) => s.t >= bounds[k]! && s.t <= bounds[k + 1]!);
      if (inThird.length === 0) throw new Error(`no sample in third ${k + 1}`);
      const dirs = dirSamples.filter(([t]) => t >= bounds[k]! && t <= bounds[k + 1]!).map(([, b]) => b);
      const actors = actorSamples.filter(([t]) => t >= bounds[k]! && t <= bounds[k + 1]!).map(([, r]) => r);
      const residentMax = { pool: 0, token: 0, wallet: 0 };
      for (const r of actors) for (const kind of KINDS) residentMax[kind] = Math.max(residentMax[kind], r[kind]);
      return {
        fromS: bounds[k]! / 1000,
        toS: bounds[k + 1]! / 1000,
        heapMaxMiB: Math.max(...inThird.map((s) => s.heapUsed)) / MiB,
        heapFloorMiB: Math.min(...inThird.map((s) => s.heapUsed)) / MiB,
        rssAnonMaxMiB: Math.max(...inThird.map((s) => s.rssAnon)) / 1024,
        rssFileMaxMiB: Math.max(...inThird.map((s) => s.rssFile)) / 1024,
        dataDirMaxMiB: Math.max(0, ...dirs) / MiB,
        heapTotalMaxMiB: Math.max(...inThird.map((s) => s.heapTotal)) / MiB,
        nativeMaxMiB: Math.max(...inThird.map((s) => s.rssAnon / 1024 - (s.heapTotal + s.external) / MiB)),
        residentMax,
      };
    });
    // Slopes over the last two thirds, in MiB per hour.
    const lastTwo = samples.filter((s) => s.t >= bounds[1]!);
    const hours = (ms: number) => ms / 3_600_000;
    const rssAnonSlope = slope(lastTwo.map((s) => [hours(s.t), s.rssAnon / 1024]));
    const floors = new Map<number, Sample>();
    for (const s of lastTwo) {
      const w = Math.floor((s.t - bounds[1]!) / opts.floorWindowMs);
      const had = floors.get(w);
      if (!had || s.heapUsed < had.heapUsed) floors.set(w, s);
    }
    const heapFloorSlope = slope([...floors.values()].map((s) => [hours(s.t), s.heapUsed / MiB]));
    const [, middle, last] = thirds as [Third, Third, Third];
    const anonFlat = within(last.rssAnonMaxMiB, middle.rssAnonMaxMiB);
    const heapFlat = within(last.heapFloorMiB, middle.heapFloorMiB);
    for (const [k, t] of thirds.entries()) {
      log(
        `third ${k + 1} (${fmt(t.fromS)}-${fmt(t.toS)} s): heap max ${t.heapMaxMiB.toFixed(1)} MiB, heap floor ${t.heapFloorMiB.toFixed(1)} MiB, ` +
          `RssAnon max ${t.rssAnonMaxMiB.toFixed(1)} MiB, RssFile max ${t.rssFileMaxMiB.toFixed(1)} MiB, data dir ${t.dataDirMaxMiB.toFixed(1)} MiB; ` +
          `V8 heap committed max ${t.heapTotalMaxMiB.toFixed(1)} MiB, native (RssAnon - committed heap - external) max ${t.nativeMaxMiB.toFixed(1)} MiB; ` +
          `resident at most: ${fmt(t.residentMax.pool)} pools, ${fmt(t.residentMax.token)} tokens, ${fmt(t.residentMax.wallet)} wallets`,
      );
    }
    log(
      `over the last two thirds: RssAnon ${rssAnonSlope.toFixed(1)} MiB/h, heap floor ${heapFloorSlope.toFixed(1)} MiB/h; ` +
        `flat (last third within 5 % or 2 MiB of the middle's): RssAnon ${anonFlat ? 'yes' : 'NO'} (${(last.rssAnonMaxMiB / middle.rssAnonMaxMiB).toFixed(3)}x), heap floor ${heapFlat ? 'yes' : 'NO'} (${(last.heapFloorMiB / middle.heapFloorMiB).toFixed(3)}x)`,
    );
    log(`worker threads' JS heap max over the run: ${workerHeapMaxMiB.toFixed(1)} MiB (in RssAnon, not in the heap figures)`);
    log(`load: ${opts.clients} WebSocket clients following ${busiest.length} pools, ${fmt(stats.frames)} frames received, ${fmt(stats.requests)} HTTP answers, ${problems.length} problems; ${samples.length} samples every ${opts.sampleMs} ms over ${(endMs / 1000).toFixed(0)} s (warm-up ${(opts.warmupMs / 1000).toFixed(0)} s)`);
    if (problems.length) throw new Error(`serve-memory: ${problems.length} problems, first: ${problems[0]}`);
    return { thirds, workerHeapMaxMiB, rssAnonSlope, heapFloorSlope, anonFlat, heapFlat, frames: stats.frames, requests: stats.requests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const benchmark: Benchmark = {
  name: 'serve-memory',
  question: 'Is the memory of `mds serve` (simulator at real-time pace, light WebSocket and HTTP use) flat after warm-up: the JS heap, anonymous RSS and the LMDB map separately?',
  async run({ smoke, log }) {
    const r = await measureServeMemory(
      smoke
        ? { durationMs: 20_000, warmupMs: 5_000, clients: 2, sampleMs: 500, floorWindowMs: 2_000 }
        : { durationMs: 30 * 60_000, warmupMs: 5 * 60_000, clients: 3, sampleMs: 5_000, floorWindowMs: 60_000 },
      log,
    );
    const figures: Record<string, Figure> = {};
    for (const [k, t] of r.thirds.entries()) {
      const n = k + 1;
      figures[`heap_max_third_${n}`] = { value: Number(t.heapMaxMiB.toFixed(1)), unit: 'MiB', better: 'lower' };
      figures[`heap_floor_third_${n}`] = { value: Number(t.heapFloorMiB.toFixed(1)), unit: 'MiB', better: 'lower' };
      figures[`rss_anon_max_third_${n}`] = { value: Number(t.rssAnonMaxMiB.toFixed(1)), unit: 'MiB', better: 'lower' };
      figures[`rss_file_max_third_${n}`] = { value: Number(t.rssFileMaxMiB.toFixed(1)), unit: 'MiB', better: 'lower' };
      figures[`data_dir_third_${n}`] = { value: Number(t.dataDirMaxMiB.toFixed(1)), unit: 'MiB', better: 'lower' };
      figures[`heap_total_max_third_${n}`] = { value: Number(t.heapTotalMaxMiB.toFixed(1)), unit: 'MiB', better: 'lower' };
      figures[`native_max_third_${n}`] = { value: Number(t.nativeMaxMiB.toFixed(1)), unit: 'MiB', better: 'lower', signed: true };
      figures[`resident_pools_third_${n}`] = { value: t.residentMax.pool, unit: 'actors', better: 'lower' };
      figures[`resident_wallets_third_${n}`] = { value: t.residentMax.wallet, unit: 'actors', better: 'lower' };
    }
    figures.rss_anon_slope = { value: Number(r.rssAnonSlope.toFixed(1)), unit: 'MiB/h', better: 'lower', signed: true };
    figures.heap_floor_slope = { value: Number(r.heapFloorSlope.toFixed(1)), unit: 'MiB/h', better: 'lower', signed: true };
    figures.rss_anon_last_over_middle = { value: Number((r.thirds[2]!.rssAnonMaxMiB / r.thirds[1]!.rssAnonMaxMiB).toFixed(3)), unit: 'x', better: 'lower' };
    figures.heap_floor_last_over_middle = { value: Number((r.thirds[2]!.heapFloorMiB / r.thirds[1]!.heapFloorMiB).toFixed(3)), unit: 'x', better: 'lower' };
    figures.worker_heap_max = { value: Number(r.workerHeapMaxMiB.toFixed(1)), unit: 'MiB', better: 'lower' };
    figures.ws_frames = { value: r.frames, unit: 'frames', better: 'higher' };
    return figures;
  },
};

export default benchmark;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '30m' },
      warmup: { type: 'string', default: '5m' },
      clients: { type: 'string', default: '3' },
      'sample-ms': { type: 'string', default: '5000' },
      'heap-snapshots': { type: 'string' },
      'node-flags': { type: 'string' },
      samples: { type: 'string' },
      smoke: { type: 'boolean', default: false },
    },
  });
  if (values.smoke) {
    console.log(`# serve-memory (smoke): ${benchmark.question}`);
    console.log(JSON.stringify(await benchmark.run({ smoke: true, log: (line) => console.log(`  ${line}`) })));
  } else {
    const durationMs = parseDuration(values.duration!);
    console.log(`# serve-memory: ${benchmark.question}`);
    await measureServeMemory(
      { durationMs, warmupMs: parseDuration(values.warmup!), clients: Number(values.clients), sampleMs: Number(values['sample-ms']), floorWindowMs: 60_000, heapSnapshotDir: values['heap-snapshots'], samplesFile: values.samples, nodeFlags: values['node-flags']?.split(' ').filter(Boolean) },
      (line) => console.log(`  ${line}`),
    );
  }
}
