import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { percentile } from './harness.ts';
import { runWrk, type WrkOptions } from './wrk.ts';

/**
 * The load generator of bench/http.ts, in its own process (pinned apart from the
 * server under test): autocannon's programmatic API against one server, route after
 * route. Input is one JSON argument (LoadPlan), output one IPC message (LoadResult).
 *
 * Latency: autocannon's own histogram keeps whole milliseconds, too coarse for a
 * "p99 under 2 ms" question, so every response's time (autocannon's 'response'
 * event: process.hrtime from request written to response parsed, in ms as a float)
 * is also kept here and the percentiles are taken from those.
 *
 * With `client: 'wrk'`, wrk (C, one thread, on this process's CPU) drives every run
 * instead (bench/wrk.ts): full load with the same connections and pipelining, fixed
 * rate on a schedule (bench/wrk-rate.lua). On one core autocannon tops out near 100k
 * req/s for a 1 KB body and ~20k for a 52 KB one, below what the servers can answer
 * (wrk drove bare uWS to ~420k and ~80k), and its own JS work per response is in every
 * latency it reports (p99 ~2 ms at 5,000 req/s of 52 KB bodies from bare uWS, 0.4-0.6 ms
 * from mds with wrk).
 */

export interface LoadRun {
  /** Mean requests/s over the run (2xx and others alike; non2xx says how many were not). */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Server CPU time / wall time (1 = one core busy); null where /proc is missing. */
  serverCpu: number | null;
  /** This load generator's CPU time / wall time. */
  clientCpu: number;
  /** The whole machine's busy CPU time / wall time (from /proc/stat): minus server and client, what others took. */
  machineCpu: number | null;
}

export interface LoadPlan {
  base: string;
  /** PID of the server under load, for its CPU time. */
  serverPid?: number;
  headers: Record<string, string>;
  routes: Array<{ name: string; path: string }>;
  /** Seconds of untimed load per route before measuring (JIT, caches, connections). */
  warmupS: number;
  /** Full load: as fast as the server answers. 0 skips. */
  fullS: number;
  connections: number;
  pipelining: number;
  /** Fixed rate (requests/s over all connections): latency when not saturated. 0 skips. */
  fixedRate: number;
  fixedS: number;
  fixedConnections: number;
  /** autocannon checks for the end of a run once per sample interval (default 1000 ms): shorter for sub-second smoke runs. */
  sampleMs?: number;
  /** What drives the runs: autocannon (default) or wrk (on PATH; see bench/http.ts). */
  client?: 'autocannon' | 'wrk';
}

export type LoadResult = Record<string, { full?: LoadRun; fixed?: LoadRun }>;

const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100; // Linux's USER_HZ everywhere in practice
  }
})();

/** utime + stime of a process (all threads) in seconds, or null. */
function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state: utime and stime are 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return null;
  }
}

/** Busy (not idle, not iowait) CPU seconds of the whole machine so far, or null. */
function machineBusySeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    return (total - ticks[3]! - ticks[4]!) / TICKS_PER_S;
  } catch {
    return null;
  }
}

function run(url: string, headers: Record<string, string>, serverPid: number | undefined, options: { duration: number; connections: number; pipelining: number; overallRate?: number; sampleInt?: number }): Promise<LoadRun> {
  return new Promise((resolve, reject) => {
    let times = new Float64Array(1 << 16);
    let n = 0;
    const serverBefore = cpuSecondsOf(serverPid);
    const machineBefore = machineBusySeconds();
    const clientBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const instance = autocannon({ url, headers, ...options }, (err, result) => {
      if (err) return reject(err);
      const wall = (performance.now() - wallBefore) / 1000;
      const serverAfter = cpuSecondsOf(serverPid);
      const machineAfter = machineBusySeconds();
      const client = process.cpuUsage(clientBefore);
      const sorted = times.subarray(0, n).sort();
      resolve({
        rps: result.requests.total / result.duration,
        // No response timed: 0, as maxMs: bench/http.ts prints these with toFixed and files their median (NaN would print as NaN, store as null).
        p50Ms: n ? percentile(sorted, 0.5) : 0,
        p99Ms: n ? percentile(sorted, 0.99) : 0,
        maxMs: n ? sorted[n - 1]! : 0,
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        serverCpu: serverBefore === null || serverAfter === null ? null : (serverAfter - serverBefore) / wall,
        clientCpu: (client.user + client.system) / 1e6 / wall,
        machineCpu: machineBefore === null || machineAfter === null ? null : (machineAfter - machineBefore) / wall,
      });
    });
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      if (n === times.length) {
        const grown = new Float64Array(times.length * 2);
        grown.set(times);
        times = grown;
      }
      times[n++] = responseTime;
    });
  });
}

/** One wrk run (bench/wrk.ts), with the CPU figures autocannon's runs get. */
async function runWrkLoad(url: string, headers: Record<string, string>, serverPid: number | undefined, options: WrkOptions): Promise<LoadRun> {
  const serverBefore = cpuSecondsOf(serverPid);
  const machineBefore = machineBusySeconds();
  const wallBefore = performance.now();
  const w = await runWrk(url, headers, options);
  const wall = (performance.now() - wallBefore) / 1000;
  const serverAfter = cpuSecondsOf(serverPid);
  const machineAfter = machineBusySeconds();
  return {
    rps: w.requests / w.seconds,
    p50Ms: w.p50Ms,
    p99Ms: w.p99Ms,
    maxMs: w.maxMs,
    requests: w.requests,
    non2xx: w.non2xx,
    errors: w.errors,
    timeouts: w.timeouts,
    serverCpu: serverBefore === null || serverAfter === null ? null : (serverAfter - serverBefore) / wall,
    clientCpu: w.cpuSeconds / wall,
    machineCpu: machineBefore === null || machineAfter === null ? null : (machineAfter - machineBefore) / wall,
  };
}

const plan = JSON.parse(process.argv[2]!) as LoadPlan;
const full = (url: string, duration: number) =>
  plan.client === 'wrk'
    ? runWrkLoad(url, plan.headers, plan.serverPid, { duration, connections: plan.connections, pipelining: plan.pipelining })
    : run(url, plan.headers, plan.serverPid, { duration, connections: plan.connections, pipelining: plan.pipelining, sampleInt: plan.sampleMs ?? 1000 });
const fixed = (url: string, duration: number) =>
  plan.client === 'wrk'
    ? runWrkLoad(url, plan.headers, plan.serverPid, { duration, connections: plan.fixedConnections, rate: plan.fixedRate })
    : run(url, plan.headers, plan.serverPid, { duration, connections: plan.fixedConnections, pipelining: 1, overallRate: plan.fixedRate, sampleInt: plan.sampleMs ?? 1000 });
const result: LoadResult = {};
for (const route of plan.routes) {
  const url = plan.base + route.path;
  const out: { full?: LoadRun; fixed?: LoadRun } = {};
  if (plan.warmupS > 0) await full(url, plan.warmupS);
  if (plan.fullS > 0) out.full = await full(url, plan.fullS);
  if (plan.fixedRate > 0) {
    // One untimed second at the fixed rate first: the client's own warm-up at this shape
    // (most responses over 2 ms used to come in the first 300 ms of the run, bare uWS's too).
    await fixed(url, 1);
    out.fixed = await fixed(url, plan.fixedS);
  }
  result[route.name] = out;
}
process.send!(result);
process.disconnect();
