import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a profiled child's CPU went: the self time of a V8 `.cpuprofile` (written by
 * `node --cpu-prof`) summed per function and per source file, for the lines a
 * benchmark prints when it is run with `--profile DIR`.
 */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  startTime?: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Share of samples outside idle/program/GC pseudo-frames. */
  busyPct: number;
  functions: Array<{ name: string; pct: number }>;
  files: Array<{ name: string; pct: number }>;
}

/** `/work/main/node_modules/lmdb/read.js` → `lmdb/read.js`; project files relative to the repo. */
function shortUrl(url: string): string {
  if (!url) return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  const repo = path.indexOf('/main/');
  return repo >= 0 ? path.slice(repo + '/main/'.length) : path;
}

function top(map: Map<string, number>, total: number, n: number) {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, pct: Number(((100 * us) / total).toFixed(1)) }));
}

export function summarizeProfile(file: string, n = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    total += us;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') {
      idle += us;
      continue;
    }
    const where = shortUrl(frame.url);
    // tsx-compiled project files are one line to V8 (no source maps in profiles): the name alone says more.
    const name = `${frame.functionName || '(anonymous)'} ${where}${frame.url && frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    files.set(where, (files.get(where) ?? 0) + us);
  }
  const busy = total - idle;
  return {
    file,
    totalMs: Math.round(total / 1000),
    busyPct: Number(((100 * busy) / Math.max(1, total)).toFixed(1)),
    functions: top(functions, Math.max(1, busy), n),
    files: top(files, Math.max(1, busy), n),
  };
}

/** Node names profiles CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread. */
const MAIN_THREAD_PROFILE = /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/;

/**
 * The newest main-thread `.cpuprofile` in `dir` written after `since` (ms), if any
 * (worker threads, tsx's loader thread among them, write their own files).
 */
export function newestProfile(dir: string, since: number): string | null {
  let best: { path: string; at: number } | null = null;
  for (const name of readdirSync(dir)) {
    if (!MAIN_THREAD_PROFILE.test(name)) continue;
    const path = join(dir, name);
    const at = statSync(path).mtimeMs;
    if (at >= since && (!best || at > best.at)) best = { path, at };
  }
  return best?.path ?? null;
}

/** The main-thread `.cpuprofile` the process `pid` wrote in `dir`, if any (tsx's loader thread writes one too). */
export function profileOfPid(dir: string, pid: number): string | null {
  const name = readdirSync(dir).find((n) => MAIN_THREAD_PROFILE.test(n) && n.split('.')[3] === String(pid));
  return name === undefined ? null : join(dir, name);
}

/** The summary as report lines: busy share, then the top functions and files by self time (% of busy). */
export function profileLines(summary: ProfileSummary): string[] {
  return [
    `profile ${summary.file}: ${summary.totalMs} ms sampled, ${summary.busyPct}% busy (not idle/program)`,
    `  top functions by self time: ${summary.functions.map((f) => `${f.name} ${f.pct}%`).join('; ')}`,
    `  top files by self time: ${summary.files.map((f) => `${f.name} ${f.pct}%`).join('; ')}`,
  ];
}
