import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { createServer as createNetServer, type AddressInfo } from 'node:net';

/** The V8 flags of `npm start` and bin/mds.js: a young generation large enough for ingest's garbage. */
export const NODE_FLAGS = ['--max-semi-space-size=64'];

/**
 * Child processes of the benchmarks: TypeScript run by Node through tsx's ESM hooks,
 * optionally pinned to CPUs with taskset and CPU-profiled. A benchmark that measures
 * a process apart from its load generator (HTTP) or wants a clean peak RSS (ingest)
 * runs it here.
 */

/** The tsx loader as an absolute path, so children resolve it wherever they start. */
export const TSX = createRequire(import.meta.url).resolve('tsx');

let tasksetChecked: boolean | null = null;

/** Whether `taskset` exists and this machine has at least 2 CPUs we may use. */
export function canPin(): boolean {
  if (tasksetChecked !== null) return tasksetChecked;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    tasksetChecked = availableParallelism() >= 2;
  } catch {
    tasksetChecked = false;
  }
  return tasksetChecked;
}

export interface ChildOptions {
  /** CPU list for taskset (`0`, `1`, `0-1`); ignored when taskset is missing. */
  cpus?: string;
  /** Write a V8 CPU profile of the child into this directory when it exits. */
  cpuProfDir?: string;
  /** Extra Node flags. */
  nodeFlags?: string[];
  env?: NodeJS.ProcessEnv;
}

function nodeArgs(script: string, options: ChildOptions): string[] {
  // Every child, mds or baseline, runs with the V8 flags `npm start` uses (package.json).
  const flags = ['--import', TSX, ...NODE_FLAGS, ...(options.nodeFlags ?? [])];
  if (options.cpuProfDir) flags.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`);
  return [...flags, script];
}

/** Starts `script` (a .ts file path) with `args`, output inherited; pinned with taskset when asked and possible. */
export function startChild(script: string, args: string[], options: ChildOptions = {}): ChildProcess {
  const argv = [...nodeArgs(script, options), ...args];
  const env = { ...process.env, ...options.env };
  if (options.cpus && canPin()) return spawn('taskset', ['-c', options.cpus, process.execPath, ...argv], { stdio: 'inherit', env });
  return spawn(process.execPath, argv, { stdio: 'inherit', env });
}

/** Runs `script` to its end and resolves with the one message it sends over IPC. */
export function runChild<T>(script: string, args: string[], options: ChildOptions = {}): Promise<T> {
  const flags = nodeArgs(script, options).slice(0, -1);
  const child = fork(script, args, { execArgv: flags, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...options.env } });
  return new Promise<T>((resolve, reject) => {
    let result: T | undefined;
    child.once('message', (message) => {
      result = message as T;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (result !== undefined && code === 0) resolve(result);
      else reject(new Error(`${script} ${args.join(' ')} exited with ${signal ?? code} ${result === undefined ? 'before reporting' : ''}`));
    });
  });
}

/** A port free on 127.0.0.1 right now (the OS picks it; the child binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers (any status); rejects if `child` exits or after `timeoutMs`. */
export async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`child ${child.pid} exited (${child.exitCode ?? child.signalCode}) before serving ${url}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${url} did not answer in ${timeoutMs} ms`, { cause: err });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends SIGTERM and waits for the exit (SIGKILL after `graceMs`). */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The port `mds serve` (a child with stderr piped, logging at info) reports in its
 * "mds serving" line; rejects if it exits first. `tail()` gives the end of its log so far.
 */
export function servingPort(child: ChildProcess, exited: Promise<number | null>, name = 'mds'): { port: Promise<number>; tail(): string } {
  let log = '';
  const port = new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /"msg":"mds serving"[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"msg":"mds serving"/.exec(log);
      if (match) resolve(Number(match[1] ?? match[2]));
      if (log.length > 1 << 20) log = log.slice(-4096);
    });
    void exited.then((code) => reject(new Error(`${name} exited ${code}: ${log.slice(-2000)}`)));
  });
  return { port, tail: () => log.slice(-2000) };
}
