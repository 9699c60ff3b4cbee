import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * wrk (https://github.com/wg/wrk; Debian's package `wrk`, optional) as the load
 * generator of bench/http.ts: one thread, `connections` connections, and its report
 * read back. Full load: each connection writes `pipelining` requests at once
 * (bench/wrk-pipeline.lua). Fixed rate: the thread sends `rate` requests/s in all, one
 * at a time per connection, on a schedule (bench/wrk-rate.lua).
 */

export type WrkOptions = { duration: number; connections: number } & ({ pipelining: number } | { rate: number });

export interface WrkResult {
  requests: number;
  /** The run's length as wrk measured it. */
  seconds: number;
  /**
   * wrk's latencies, from a request's write to its response. With pipelining, of a
   * connection's batch as a whole (wrk records one per batch): not a per-response time.
   */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  /** Socket errors: connect, read and write. */
  errors: number;
  timeouts: number;
  /** wrk's CPU time (user + system), from bash's `times` after it exits. */
  cpuSeconds: number;
}

const PIPELINE = fileURLToPath(new URL('./wrk-pipeline.lua', import.meta.url));
const RATE = fileURLToPath(new URL('./wrk-rate.lua', import.meta.url));

/** A wrk time ("812.00us", "1.21ms", "5.00s", "1.00m") in ms. */
export function wrkMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) throw new Error(`wrk: unreadable time ${JSON.stringify(text)}`);
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1_000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
}

/**
 * Reads what `wrk --latency ...; times` printed: wrk's report, then bash's `times`
 * (the shell's user and system time, then its children's: wrk's). Throws, naming what
 * is missing, on anything else.
 */
export function parseWrk(stdout: string): WrkResult {
  const find = (re: RegExp, what: string): RegExpExecArray => {
    const m = re.exec(stdout);
    if (!m) throw new Error(`wrk: no ${what} in its output: ${stdout.slice(0, 500)}`);
    return m;
  };
  const total = find(/(\d+) requests in ([\d.]+\w+),/, 'request count');
  const percentile = (p: number) => wrkMs(find(new RegExp(`^\\s+${p}%\\s+(\\S+)\\s*$`, 'm'), `${p}% latency`)[1]!);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  // bash's times: two lines (the shell's, then its children's), each user and system time.
  const [shell, children] = stdout.trim().split('\n').slice(-2);
  const TIMES = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/;
  const cpu = TIMES.exec(children ?? '');
  if (!cpu || !TIMES.test(shell ?? '')) throw new Error(`wrk: no CPU times (bash's times) at the end of its output: ${stdout.slice(-80)}`);
  return {
    requests: Number(total[1]),
    seconds: wrkMs(total[2]!) / 1000,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    maxMs: wrkMs(find(/^\s+Latency\s+\S+\s+\S+\s+(\S+)/m, 'latency row')[1]!),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    errors: socket ? Number(socket[1]) + Number(socket[2]) + Number(socket[3]) : 0,
    timeouts: socket ? Number(socket[4]) : 0,
    cpuSeconds: 60 * Number(cpu[1]) + Number(cpu[2]) + 60 * Number(cpu[3]) + Number(cpu[4]),
  };
}

/** Runs wrk against `url` (on this process's CPUs) and reads its report. */
export function runWrk(url: string, headers: Record<string, string>, options: WrkOptions): Promise<WrkResult> {
  const paced = 'rate' in options;
  const args = ['-t1', `-c${options.connections}`, `-d${options.duration}s`, '--latency', '-s', paced ? RATE : PIPELINE];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url, '--', String(paced ? options.rate : options.pipelining));
  return new Promise((resolve, reject) => {
    // The arguments reach wrk as bash's positional parameters: nothing to quote.
    execFile('bash', ['-c', 'wrk "$@" && times', 'bash', ...args], { encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`wrk failed: ${err.message} ${stderr}`));
      try {
        resolve(parseWrk(stdout));
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}
