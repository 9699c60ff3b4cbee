import { readFileSync } from 'node:fs';
import type { CpuProfile } from './profile.ts';

/**
 * Where a ranking recompute's hold goes (issue 25), from a V8 CPU profile of `mds serve`
 * (bench/backlog.ts `--cpu-prof DIR`: the main thread's `CPU.*.<pid>.0.*.cpuprofile`).
 * While a recompute holds the events no event is delivered, so a hold is a stretch
 * between two samples under the router's `deliver` that holds samples of the recompute
 * (`readInputs`, `recomputeJob`). Each stretch of at least MIN ms (default 250) is
 * printed with its samples' time by kind, then the sums and the longest stretch's
 * functions by self time:
 * - recompute:peek:unpack / recompute:peek:other: the recompute reading a pool through
 *   `peek` (a passivated pool's snapshot: msgpackr's unpack, or the rest: LMDB, Buffers,
 *   the pool's classes built);
 * - recompute:other: the rest of the recompute (scans of resident pools, the memo, books);
 * - gc, idle, program (V8's pseudo-frames); evict, checkpoint; other: what runs between
 *   the hold's slices (reads, socket writes, the publisher).
 *
 * `node --import tsx bench/hold-profile.ts PROFILE [MIN] [--all]`
 *
 * `--all`: every stretch of at least MIN ms with no event delivered, whether or not it
 * holds recompute samples (what a WebSocket client's silences are made of under `mds
 * serve`, whose recomputes no longer hold the events).
 */

const args = process.argv.slice(2);
const everyStretch = args.includes('--all');
const [file, min = '250'] = args.filter((a) => a !== '--all');
if (!file) throw new Error('usage: bench/hold-profile.ts PROFILE [MIN_MS] [--all]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const names = new Map(profile.nodes.map((n) => [n.id, `${n.callFrame.functionName}@${n.callFrame.url.split('/').slice(-2).join('/')}`]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** A sample's kind, from its stack (memoized per node). */
const kinds = new Map<number, string>();
function kindOf(id: number): string {
  let kind = kinds.get(id);
  if (kind !== undefined) return kind;
  const stack: string[] = [];
  for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) stack.push(names.get(x)!);
  const has = (s: string) => stack.some((n) => n.includes(s));
  if (stack[0]!.startsWith('(garbage collector)')) kind = 'gc';
  else if (stack[0]!.startsWith('(idle)')) kind = 'idle';
  else if (has('deliver@')) kind = 'deliver';
  else if (has('readInputs@') || has('recomputeJob@')) kind = has('peek@') ? (has('unpack@') ? 'recompute:peek:unpack' : 'recompute:peek:other') : 'recompute:other';
  else if (has('evict')) kind = 'evict';
  else if (has('checkpoint') || has('Checkpoint')) kind = 'checkpoint';
  else if (stack[0]!.startsWith('(program)')) kind = 'program';
  else kind = 'other';
  kinds.set(id, kind);
  return kind;
}

const fmt = (sums: Map<string, number>, total: number) =>
  [...sums].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${ms.toFixed(0)} (${((100 * ms) / total).toFixed(0)} %)`).join(', ');

let t = profile.startTime ?? 0;
let since = t;
let stretch: Array<[number, number]> = [];
const totals = new Map<string, number>();
let longest: { ms: number; stretch: Array<[number, number]> } | null = null;
let count = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i] ?? 0;
  const id = profile.samples[i]!;
  if (kindOf(id) !== 'deliver') {
    stretch.push([t, id]);
    continue;
  }
  const ms = (t - since) / 1000;
  if (ms >= Number(min) && (everyStretch || stretch.some(([, s]) => kindOf(s).startsWith('recompute')))) {
    const sums = new Map<string, number>();
    for (let k = 1; k < stretch.length; k++) {
      const kind = kindOf(stretch[k]![1]);
      const d = (stretch[k]![0] - stretch[k - 1]![0]) / 1000;
      sums.set(kind, (sums.get(kind) ?? 0) + d);
      totals.set(kind, (totals.get(kind) ?? 0) + d);
    }
    console.log(`${ms.toFixed(0)} ms with no event delivered: ${fmt(sums, ms)}`);
    count++;
    if (longest === null || ms > longest.ms) longest = { ms, stretch };
  }
  since = t;
  stretch = [];
}
const all = [...totals.values()].reduce((a, b) => a + b, 0);
console.log(`${count} stretches, ${all.toFixed(0)} ms: ${fmt(totals, Math.max(1, all))}`);
if (longest) {
  const self = new Map<string, number>();
  for (let k = 1; k < longest.stretch.length; k++) {
    const name = names.get(longest.stretch[k]![1])!;
    self.set(name, (self.get(name) ?? 0) + (longest.stretch[k]![0] - longest.stretch[k - 1]![0]) / 1000);
  }
  console.log(`the longest, ${longest.ms.toFixed(0)} ms, by self time: ${[...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join('; ')}`);
}
