import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NODE_FLAGS, TSX } from './child.ts';
import { writeMarket } from './fixtures/market.ts';
import { writeSwaps } from './fixtures/swaps.ts';
import { compare, fmt, summarize, type Benchmark, type Figure } from './harness.ts';
import { bytesByDatabase } from './lmdb-stats.ts';

/**
 * Question (issue 25): how fast, at what CPU per event and with how much memory and
 * disk does `mds replay FILE --data DIR` ingest a realistic launchpad market, as a
 * whole process, against the floor of a durable design in the same run; and does it
 * hold as history grows (the last third of the swaps against the first)?
 *
 * Input (bench/fixtures/market.ts, seeded, built before any clock): 1M swaps over
 * 10,000 pools by default, Zipf-like popularity (the busiest pool ~0.8 % of the swaps),
 * pump.fun curves with virtual and real reserves, PumpSwap and CPMM pools, a wSOL price
 * every 10 s, each pool announced right before its first swap, most pools dead after
 * their first minutes. `--shape uniform` runs the engine benchmark's file instead
 * (bench/fixtures/swaps.ts: every pool every 40 s).
 *
 * Baseline, the floor (bench/baselines/floor.ts, same file, alternated): read the
 * lines, JSON.parse, one lmdb-js put per event.
 *
 * Both run as processes of their own with bench/probe.mjs loaded, which samples every
 * 250 ms the JS heap, RssAnon (heap and native memory) and RssFile (mostly the LMDB map's
 * pages) from /proc/self/status, the process's CPU (every thread) and how far it has
 * read the file: swaps/s by thirds of the file and the heap in each third come from
 * those samples. After the run, the data directory's size (allocated blocks) and each
 * LMDB database's pages (lmdb-js getStats()), per 1M swaps.
 *
 * `node --import tsx bench/market.ts [--swaps 1000000] [--pools 10000] [--seed 25]
 * [--shape market|uniform] [--rounds 1] [--cpu-prof DIR] [--other TREE]` (`--other`: a second
 * source tree, e.g. a worktree of an older commit, replayed after this one each round)
 */

const MDS = fileURLToPath(new URL('../bin/mds.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));
const FLOOR = fileURLToPath(new URL('./baselines/floor.ts', import.meta.url));

interface Sample {
  /** 0: the main thread; a worker thread's id otherwise (bench/probe.mjs). */
  thread: number;
  t: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  rssAnon: number;
  rssFile: number;
  hwm: number;
  cpuUs: number;
  pos: number;
  final: boolean;
}

export interface ProcessRun {
  name: string;
  seconds: number;
  events: number;
  swaps: number;
  eventsPerS: number;
  swapsPerS: number;
  cpuUsPerEvent: number;
  peakRssMiB: number;
  heapMaxMiB: number;
  /** The main thread's ArrayBuffer memory (typed arrays, Buffers): outside the JS heap, inside RssAnon. */
  arrayBuffersMaxMiB: number;
  rssAnonMaxMiB: number;
  rssFileMaxMiB: number;
  /** By thirds of the swaps read: swaps/s, the heap's max, RssAnon's max (MiB). */
  thirds: Array<{ swapsPerS: number; heapMaxMiB: number; rssAnonMaxMiB: number }>;
  /** Where the thirds begin and end, ms since the probe loaded (to split a `--cpu-prof` profile by them: bench/profile.ts --split). */
  thirdBoundsMs: number[];
  dataBytes: number;
  /** LMDB bytes in use per database (mds only). */
  dbBytesByName: Record<string, number>;
}

const MiB = 2 ** 20;

/** Bytes the directory's files take on disk (allocated blocks, as du counts: LMDB's map file is sparse). */
export function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? diskBytes(path) : statSync(path).blocks * 512;
  }
  return total;
}

interface Input {
  file: string;
  events: number;
  swaps: number;
  bytes: number;
  /** Byte offset after every `step` swaps. */
  progress: number[];
  step: number;
}

/** Swaps read at byte `pos` of the file (by the progress table). */
function swapsAt(input: Input, pos: number): number {
  if (pos < 0) return input.swaps;
  let lo = 0;
  let hi = input.progress.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (input.progress[mid]! <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo * input.step;
}

/** Runs one measured process to its exit; rejects on a non-zero exit. */
async function runMeasured(name: string, args: string[], input: Input, dataDir: string, cpuProfDir?: string): Promise<ProcessRun> {
  const probe = join(dataDir, '..', `${name}-${Date.now()}.probe`);
  const flags = [...NODE_FLAGS, '--import', PROBE];
  if (cpuProfDir) flags.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`);
  const child = spawn(process.execPath, [...flags, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, MDS_PROBE: probe, MDS_PROBE_INPUT: input.file },
  });
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) throw new Error(`${name} exited with ${code}: ${stdout.slice(-500)}`);
  // The main thread's samples (workers, e.g. the wallet indexer, write lines of their own heap and clock).
  const samples = readFileSync(probe, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Sample).filter((s) => !s.thread);
  rmSync(probe, { force: true });
  const last = samples[samples.length - 1]!;
  if (!last.final) throw new Error(`${name}: no final sample`);
  // Thirds of the swaps read: the time each third began and ended (first sample past it).
  const bounds = [0, input.swaps / 3, (2 * input.swaps) / 3, input.swaps];
  const timeAt = (swaps: number) => {
    for (const s of samples) if (s.pos !== 0 && swapsAt(input, s.pos) >= swaps) return s.t;
    return last.t;
  };
  const start = samples.find((s) => s.pos !== 0)?.t ?? 0;
  const ends = bounds.map((b, i) => (i === 0 ? start : timeAt(b)));
  const thirds = [0, 1, 2].map((i) => {
    const inThird = samples.filter((s) => s.t >= ends[i]! && s.t <= ends[i + 1]!);
    const seconds = Math.max(1e-3, (ends[i + 1]! - ends[i]!) / 1000);
    return {
      swapsPerS: input.swaps / 3 / seconds,
      heapMaxMiB: Math.max(0, ...inThird.map((s) => s.heapUsed)) / MiB,
      rssAnonMaxMiB: Math.max(0, ...inThird.map((s) => s.rssAnon)) / 1024,
    };
  });
  const seconds = last.t / 1000;
  const dbBytesByName: Record<string, number> = {};
  if (name !== 'floor') {
    const { openStorage } = await import('../storage/lmdb.ts');
    const storage = openStorage(dataDir);
    Object.assign(dbBytesByName, bytesByDatabase(storage));
    await storage.close();
  }
  return {
    name,
    seconds,
    events: input.events,
    swaps: input.swaps,
    eventsPerS: input.events / seconds,
    swapsPerS: input.swaps / seconds,
    cpuUsPerEvent: last.cpuUs / input.events,
    peakRssMiB: last.hwm / 1024,
    heapMaxMiB: Math.max(...samples.map((s) => s.heapUsed)) / MiB,
    arrayBuffersMaxMiB: Math.max(...samples.map((s) => s.arrayBuffers)) / MiB,
    rssAnonMaxMiB: Math.max(...samples.map((s) => s.rssAnon)) / 1024,
    rssFileMaxMiB: Math.max(...samples.map((s) => s.rssFile)) / 1024,
    thirds,
    thirdBoundsMs: ends.map((t) => Math.round(t)),
    dataBytes: diskBytes(dataDir),
    dbBytesByName,
  };
}

export function runReplay(input: Input, dataDir: string, cpuProfDir?: string, extra: string[] = [], mds = MDS, name = 'mds'): Promise<ProcessRun> {
  return runMeasured(name, [mds, 'replay', input.file, '--data', dataDir, '--clock', 'event', '--log-level', 'warn', ...extra], input, dataDir, cpuProfDir);
}

export function runFloor(input: Input, dataDir: string): Promise<ProcessRun> {
  return runMeasured('floor', ['--import', TSX, FLOOR, input.file, dataDir], input, dataDir);
}

export async function buildInput(dir: string, shape: 'market' | 'uniform', swaps: number, pools: number, seed: number): Promise<Input> {
  const file = join(dir, `${shape}.ndjson`);
  if (shape === 'market') {
    const m = await writeMarket(file, { swaps, pools, seed });
    return { file, events: m.events, swaps, bytes: m.bytes, progress: m.progress, step: m.progressStep };
  }
  const u = await writeSwaps(file, swaps, pools, { declare: true });
  // Uniform lines are near enough one length: offsets by proportion.
  const bytes = statSync(file).size;
  const step = Math.max(1, Math.floor(swaps / 100));
  const progress = Array.from({ length: Math.floor(swaps / step) }, (_, k) => Math.round(((k + 1) * step * bytes) / swaps));
  return { file, events: u.events, swaps, bytes, progress, step };
}

export function describe(run: ProcessRun): string {
  const t = run.thirds;
  return (
    `${run.name}: ${fmt(run.eventsPerS)} events/s (${fmt(run.swapsPerS)} swaps/s, ${run.seconds.toFixed(1)} s), ${run.cpuUsPerEvent.toFixed(1)} µs CPU/event, ` +
    `peak RSS ${fmt(run.peakRssMiB)} MiB (anon max ${fmt(run.rssAnonMaxMiB)}, file max ${fmt(run.rssFileMaxMiB)}), heap max ${fmt(run.heapMaxMiB)} MiB, ArrayBuffers max ${fmt(run.arrayBuffersMaxMiB)} MiB; ` +
    `thirds swaps/s ${t.map((x) => fmt(x.swapsPerS)).join(' / ')} (last/first ${(t[2]!.swapsPerS / t[0]!.swapsPerS).toFixed(2)}), ` +
    `heap max by third ${t.map((x) => fmt(x.heapMaxMiB)).join(' / ')} MiB, anon max by third ${t.map((x) => fmt(x.rssAnonMaxMiB)).join(' / ')} MiB; ` +
    `data dir ${fmt((run.dataBytes / MiB) * (1e6 / run.swaps))} MiB per 1M swaps; thirds at ${run.thirdBoundsMs.join(' / ')} ms`
  );
}

export function describeDbs(run: ProcessRun): string {
  return Object.entries(run.dbBytesByName)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${((bytes / MiB) * (1e6 / run.swaps)).toFixed(1)}`)
    .join(', ');
}

/**
 * `other`: a second source tree (an older commit's worktree, with its node_modules),
 * whose `mds replay` runs after this tree's in each round: an A/B in the same run.
 */
async function measure(shape: 'market' | 'uniform', swaps: number, pools: number, rounds: number, log: (line: string) => void, cpuProfDir?: string, other?: string) {
  const dir = mkdtempSync(join(tmpdir(), `mds-bench-market-`));
  try {
    const input = await buildInput(dir, shape, swaps, pools, 25);
    log(`input (${shape}): ${fmt(swaps)} swaps over ${fmt(pools)} pools, ${fmt(input.events)} events, ${fmt(input.bytes / MiB)} MiB`);
    const mds: ProcessRun[] = [];
    const floor: ProcessRun[] = [];
    for (let r = 0; r < rounds; r++) {
      const f = await runFloor(input, join(dir, `floor-${r}`));
      rmSync(join(dir, `floor-${r}`), { recursive: true, force: true });
      floor.push(f);
      log(`#${r + 1} ${describe(f)}`);
      const m = await runReplay(input, join(dir, `mds-${r}`), r === 0 ? cpuProfDir : undefined);
      rmSync(join(dir, `mds-${r}`), { recursive: true, force: true });
      mds.push(m);
      log(`#${r + 1} ${describe(m)}`);
      log(`#${r + 1} mds LMDB per 1M swaps by database (MiB): ${describeDbs(m)}`);
      if (other) {
        const o = await runReplay(input, join(dir, `other-${r}`), undefined, [], join(other, 'bin/mds.js'), 'mds-other');
        rmSync(join(dir, `other-${r}`), { recursive: true, force: true });
        log(`#${r + 1} ${describe(o)}`);
        log(`#${r + 1} mds-other LMDB per 1M swaps by database (MiB): ${describeDbs(o)}`);
        log(`#${r + 1} this tree / other: ${(m.eventsPerS / o.eventsPerS).toFixed(3)}x events/s, ${(m.cpuUsPerEvent / o.cpuUsPerEvent).toFixed(3)}x CPU/event, heap max ${(m.heapMaxMiB / o.heapMaxMiB).toFixed(3)}x, ArrayBuffers max ${(m.arrayBuffersMaxMiB / o.arrayBuffersMaxMiB).toFixed(3)}x, anon max ${(m.rssAnonMaxMiB / o.rssAnonMaxMiB).toFixed(3)}x`);
      }
    }
    const floorName = 'floor: JSON.parse + one lmdb-js put per event';
    const figure = (pick: (r: ProcessRun) => number, unit: string, digits: number, better: 'higher' | 'lower') =>
      compare(summarize(mds.map(pick), unit, digits, better), floorName, summarize(floor.map(pick), unit, digits, better));
    const figures: Record<string, Figure> = {
      [`${shape}_events_per_s`]: figure((r) => r.eventsPerS, 'events/s', 0, 'higher'),
      [`${shape}_cpu_us_per_event`]: figure((r) => r.cpuUsPerEvent, 'µs', 1, 'lower'),
      [`${shape}_peak_rss`]: figure((r) => r.peakRssMiB, 'MiB', 0, 'lower'),
      [`${shape}_heap_max`]: summarize(mds.map((r) => r.heapMaxMiB), 'MiB', 0, 'lower'),
      [`${shape}_rss_anon_max`]: summarize(mds.map((r) => r.rssAnonMaxMiB), 'MiB', 0, 'lower'),
      [`${shape}_rss_file_max`]: summarize(mds.map((r) => r.rssFileMaxMiB), 'MiB', 0, 'lower'),
      [`${shape}_last_third_over_first`]: summarize(mds.map((r) => r.thirds[2]!.swapsPerS / r.thirds[0]!.swapsPerS), 'x', 2, 'higher'),
      [`${shape}_data_dir_per_million_swaps`]: figure((r) => (r.dataBytes / MiB) * (1e6 / r.swaps), 'MiB', 0, 'lower'),
    };
    const e = figures[`${shape}_events_per_s`]!;
    const c = figures[`${shape}_cpu_us_per_event`]!;
    log(`median: ${fmt(e.value)} events/s = ${e.ratio}x the floor's ${fmt(e.baseline!.value)} (target >= 0.5x); CPU ${c.value} µs/event, ${(c.value / c.baseline!.value).toFixed(2)}x the floor's ${c.baseline!.value} (target <= 3x)`);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const benchmark: Benchmark = {
  name: 'market',
  question: 'How fast, at what CPU per event, memory and disk does `mds replay` ingest a realistic launchpad market (and the uniform fixture), against the floor of one lmdb-js put per event?',
  async run({ smoke, log, cpuProfDir }) {
    const market = await measure('market', smoke ? 5_000 : 1_000_000, smoke ? 100 : 10_000, 1, log, cpuProfDir);
    const uniform = await measure('uniform', smoke ? 5_000 : 1_000_000, smoke ? 100 : 10_000, 1, log);
    return { ...market, ...uniform };
  },
};

export default benchmark;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      swaps: { type: 'string', default: '1000000' },
      pools: { type: 'string', default: '10000' },
      shape: { type: 'string', default: 'market' },
      rounds: { type: 'string', default: '1' },
      'cpu-prof': { type: 'string' },
      other: { type: 'string' },
    },
  });
  const shape = values.shape === 'uniform' ? 'uniform' : 'market';
  if (values['cpu-prof'] && !existsSync(values['cpu-prof'])) (await import('node:fs')).mkdirSync(values['cpu-prof'], { recursive: true });
  await measure(shape, Number(values.swaps), Number(values.pools), Number(values.rounds), console.log, values['cpu-prof'], values.other);
}
