import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * Where a profiled process's main thread went in each part of its run: a V8
 * `.cpuprofile` (node --cpu-prof) cut at the given times (ms since the profile began;
 * bench/market.ts prints where its thirds begin and end), with, per part, the busy ms,
 * the top functions by self time and by inclusive time (a function counted once per
 * sample however deep it recurs), and the inclusive time of source files matching
 * `--files` (e.g. what the ranking feeds' recompute costs: actors/feed, topics/rankings).
 *
 * `node --import tsx bench/profile-thirds.ts FILE --at 0,52000,130000,260000 [--top 15]
 * [--files actors/feed/,engine/topics/rankings.ts]`
 */

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const short = (url: string): string => {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  const m = /\/(actors|engine|storage|transport|bench|bin)\//.exec(path);
  return m ? path.slice(m.index + 1) : path;
};

export function profileByParts(file: string, at: number[], top = 15, files: string[] = []): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}`.trim();
  const parts = at.slice(1).map(() => ({ total: 0, busy: 0, self: new Map<string, number>(), incl: new Map<string, number>(), files: new Map<string, number>() }));
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    const ms = t / 1000;
    let p = -1;
    for (let k = 0; k < parts.length; k++) if (ms >= at[k]! && ms < at[k + 1]!) p = k;
    if (p < 0) continue;
    const part = parts[p]!;
    part.total += dt;
    const leaf = byId.get(profile.samples[i]!)!;
    const fn = leaf.callFrame.functionName;
    if (fn === '(idle)' || fn === '(program)') continue;
    part.busy += dt;
    part.self.set(name(leaf), (part.self.get(name(leaf)) ?? 0) + dt);
    const seen = new Set<string>();
    const seenFiles = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      const key = name(n);
      if (!seen.has(key)) {
        seen.add(key);
        part.incl.set(key, (part.incl.get(key) ?? 0) + dt);
      }
      const url = n.callFrame.url;
      for (const f of files) {
        if (!seenFiles.has(f) && url.includes(f)) {
          seenFiles.add(f);
          part.files.set(f, (part.files.get(f) ?? 0) + dt);
        }
      }
    }
  }
  const lines: string[] = [];
  const list = (m: Map<string, number>, busy: number, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${k} ${(us / 1000).toFixed(0)} ms ${((100 * us) / Math.max(1, busy)).toFixed(1)}%`)
      .join('; ');
  parts.forEach((part, k) => {
    lines.push(`part ${k + 1} [${at[k]}-${at[k + 1]} ms]: ${(part.total / 1000).toFixed(0)} ms sampled, ${(part.busy / 1000).toFixed(0)} ms busy`);
    lines.push(`  self: ${list(part.self, part.busy, top)}`);
    lines.push(`  inclusive: ${list(part.incl, part.busy, top * 2)}`);
    if (files.length > 0) lines.push(`  files (inclusive): ${files.map((f) => `${f} ${((part.files.get(f) ?? 0) / 1000).toFixed(0)} ms ${((100 * (part.files.get(f) ?? 0)) / Math.max(1, part.busy)).toFixed(1)}%`).join('; ')}`);
  });
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { at: { type: 'string' }, top: { type: 'string', default: '15' }, files: { type: 'string', default: '' } },
  });
  const at = (values.at ?? '').split(',').map(Number);
  if (positionals.length !== 1 || at.length < 2 || at.some((x) => !Number.isFinite(x))) {
    console.error('usage: bench/profile-thirds.ts FILE --at t0,t1,...(ms) [--top N] [--files a,b]');
    process.exit(2);
  }
  const files = values.files ? values.files.split(',') : [];
  for (const line of profileByParts(positionals[0]!, at, Number(values.top), files)) console.log(line);
}
