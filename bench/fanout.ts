import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { compare, fmt, type Benchmark, type Figure } from './harness.ts';
import { runCase, type CaseResult, type LoadPhase, type Sizes } from './fanout-case.ts';
import { POOLS_PER_CONNECTION, type ServerKind, type Shape } from './fanout-plan.ts';
import { profileLines, profileOfPid, summarizeProfile } from './profile.ts';

/**
 * Question: how many frames per second does mds's /ws deliver to N subscribed
 * connections, how long does a trade take from ingest to a client's socket, and how
 * much server memory does an idle subscribed connection cost, against the `ws`
 * library broadcasting the same frames?
 *
 * Setup, per case (fresh processes each time, bench/fanout-case.ts): a server child
 * with the engine (LMDB in a temp dir), its transport and an event driver writing
 * swaps stamped with the wall time into a named pipe the engine's NDJSON source reads,
 * as `decoder | mds serve --source ndjson:-` (bench/fanout-server.ts); 3 client processes
 * holding the connections, counting frames by their headers and parsing one in N
 * for latency (bench/fanout-client.ts). Unpinned: server and clients share the 2 cores.
 * Shapes: every connection on pool_trades of one busy pool ("one topic"); each
 * connection on its own 10 of 10,000 pools, events round-robin over all 10,000 ("own
 * 10 pools"). Sizes: 100, 1,000 and 10,000 connections. Servers: the `ws` library
 * broadcasting in a loop, attached to the same engine (bench/baselines/ws-server.ts);
 * mds; and, for one topic at 100 and 1,000, bare uWebSockets.js publishing a prebuilt
 * frame (bench/fanout-uws.ts): the ceiling of what the clients can take; at 100
 * connections also with 300-byte frames, the size of issue 5's reference measurement.
 *
 * Latency is taken at half of each server's own full-load event rate, and for mds
 * also at the baseline's half rate: the mds/ws latency ratio compares the two at the
 * same load.
 *
 * Estimate (issue 5): uWS publish costs ~2.4 µs per subscriber per event-loop turn
 * plus the kernel's copies of the bytes; with these ~800-byte frames (the issue's
 * reference measurement used 300-byte ones) a few million frames/s to 100 or 1,000
 * connections, bound by the clients' and the kernel's share of the 2 cores; `ws`
 * makes one write per frame per client, ~0.2-0.3M frames/s. Targets: >= 3M frames/s
 * at 100 and 1,000 connections, >= 5x `ws`, p99 < 10 ms at half load, < 8 KB per idle
 * subscribed connection.
 *
 * One case at a time, repeated, with the engine's latency split by stage, its GC
 * pauses and event-loop delay: bench/fanout-one.ts (`--stages`, bench/fanout-stages.ts).
 */

export const FULL: Sizes = { pools: 10_000, connections: [100, 1_000, 10_000], clients: 3, warmMs: 1_000, fullMs: 4_000, latencyMs: 3_000, settleReadings: 20 };
export const SMOKE: Sizes = { pools: 100, connections: [20], clients: 2, warmMs: 50, fullMs: 250, latencyMs: 200, settleReadings: 1 };

const CORES = availableParallelism();
const label = (shape: Shape) => (shape === 'one-topic' ? 'one topic' : `own ${POOLS_PER_CONNECTION} pools`);
const ms = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(2));

function latencyLine(name: string, p: LoadPhase): string {
  const engine = Number.isNaN(p.publishP50Ms) ? '' : `; ingest to publish p50 ${ms(p.publishP50Ms)} p99 ${ms(p.publishP99Ms)}`;
  return (
    `${name} ${fmt(p.rate)} events/s (${fmt(p.framesPerS)} frames/s, CPU server ${p.serverCpuPct.toFixed(0)}% clients ${p.clientCpuPct.toFixed(0)}%): ` +
    `p50 ${ms(p.p50Ms)} p99 ${ms(p.p99Ms)} max ${ms(p.maxMs)} ms (${fmt(p.samples)} samples${engine})`
  );
}

/** The lines printed for one case (also by bench/fanout-one.ts). */
export function describe(r: CaseResult): string[] {
  const lines = [
    `${label(r.shape)} x ${fmt(r.connections)} conns, ${r.kind}${r.kind === 'uws' ? ' (bare)' : ''}: ${fmt(r.framesPerS)} frames/s (${fmt(r.eventsPerS)} events/s, ${fmt(r.bytesPerFrame)} B/frame), ` +
      `CPU server ${r.serverCpuPct.toFixed(0)}% clients ${r.clientCpuPct.toFixed(0)}% (of one core; together ${(r.serverCpuPct + r.clientCpuPct).toFixed(0)}% of the machine's ${CORES * 100}%), waits for credit ${fmt(r.creditWaits)}, for the gate ${fmt(r.gateWaits)}; ` +
      `idle ${fmt(r.livePerConnectionBytes)} B/conn live (JS heap ${fmt(r.heapPerConnectionBytes)} B; RSS growth ${fmt(r.rssPerConnectionBytes)} B); ${r.exact ? 'every connection got exactly its frames' : r.problems.join('; ')}`,
    `    latency ${latencyLine('at half load,', r.half)}`,
  ];
  if (r.same) lines.push(`    latency ${latencyLine("at the baseline's half load,", r.same)}`);
  return lines;
}

const one = (value: number, unit: string, digits: number, better: 'higher' | 'lower'): Figure => ({ value: Number(value.toFixed(digits)), unit, better });

const benchmark: Benchmark = {
  name: 'fanout',
  question: 'How many frames/s does /ws deliver to 100-10,000 subscribed connections, at what ingest-to-client latency and memory per connection, against a `ws` broadcast loop fed the same events?',
  async run({ smoke, log, cpuProfDir }) {
    const sizes = smoke ? SMOKE : FULL;
    const figures: Record<string, Figure> = {};
    const started = performance.now();
    if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
    function record(shape: Shape, connections: number, m: CaseResult, w: CaseResult, ceiling: CaseResult | null, out: (line: string) => void): void {
      const prefix = `${shape === 'one-topic' ? 'one_topic' : 'ten_pools'}_${connections}`;
      const same = m.same!;
      figures[`${prefix}_frames_per_s`] = compare(one(m.framesPerS, 'frames/s', 0, 'higher'), 'ws library', one(w.framesPerS, 'frames/s', 0, 'higher'));
      figures[`${prefix}_p50_ms_same_load`] = compare(one(same.p50Ms, 'ms', 3, 'lower'), 'ws library', one(w.half.p50Ms, 'ms', 3, 'lower'));
      figures[`${prefix}_p99_ms_same_load`] = compare(one(same.p99Ms, 'ms', 3, 'lower'), 'ws library', one(w.half.p99Ms, 'ms', 3, 'lower'));
      figures[`${prefix}_p50_ms_half_load`] = one(m.half.p50Ms, 'ms', 3, 'lower');
      figures[`${prefix}_p99_ms_half_load`] = one(m.half.p99Ms, 'ms', 3, 'lower');
      figures[`${prefix}_max_ms_half_load`] = one(m.half.maxMs, 'ms', 3, 'lower');
      figures[`${prefix}_half_load_frames_per_s`] = one(m.half.framesPerS, 'frames/s', 0, 'higher');
      // A connection weighs a few KB; at 100 connections the reading's noise is as large, so it is floored at 1 byte.
      figures[`${prefix}_idle_bytes_per_connection`] = compare(
        one(Math.max(1, m.livePerConnectionBytes), 'B', 0, 'lower'),
        'ws library',
        one(Math.max(1, w.livePerConnectionBytes), 'B', 0, 'lower'),
      );
      figures[`${prefix}_idle_rss_growth_per_connection`] = compare(
        one(Math.max(1, m.rssPerConnectionBytes), 'B', 0, 'lower'),
        'ws library',
        one(Math.max(1, w.rssPerConnectionBytes), 'B', 0, 'lower'),
      );
      figures[`${prefix}_server_cpu_pct`] = one(m.serverCpuPct, '% of a core', 0, 'lower');
      figures[`${prefix}_client_cpu_pct`] = one(m.clientCpuPct, '% of a core', 0, 'lower');
      if (ceiling) {
        figures[`${prefix}_bare_uws_frames_per_s`] = one(ceiling.framesPerS, 'frames/s', 0, 'higher');
        // What these clients on these cores allow at all: bare uWS's own tail at half its load.
        figures[`${prefix}_bare_uws_p50_ms_half_load`] = one(ceiling.half.p50Ms, 'ms', 3, 'lower');
        figures[`${prefix}_bare_uws_p99_ms_half_load`] = one(ceiling.half.p99Ms, 'ms', 3, 'lower');
      }
      out(
        `=> ${label(shape)} x ${fmt(connections)}: mds ${fmt(m.framesPerS)} frames/s = ${(m.framesPerS / w.framesPerS).toFixed(2)}x ws (${fmt(w.framesPerS)})` +
          (ceiling ? `, ${((100 * m.framesPerS) / ceiling.framesPerS).toFixed(0)}% of bare uWS (${fmt(ceiling.framesPerS)}; its p99 at half its load ${ms(ceiling.half.p99Ms)} ms)` : '') +
          `; at ${fmt(same.rate)} events/s p99 ${ms(same.p99Ms)} ms vs ws ${ms(w.half.p99Ms)} ms; at half its load (${fmt(m.half.framesPerS)} frames/s) p99 ${ms(m.half.p99Ms)} ms; ` +
          `idle ${fmt(m.livePerConnectionBytes)} B/conn live vs ws ${fmt(w.livePerConnectionBytes)} B (RSS growth ${fmt(m.rssPerConnectionBytes)} vs ${fmt(w.rssPerConnectionBytes)} B)`,
      );
    }
    const groups = (['one-topic', 'ten-pools'] as Shape[]).flatMap((shape) => sizes.connections.map((connections) => ({ shape, connections })));
    const runGroup = async ({ shape, connections }: { shape: Shape; connections: number }, out: (line: string) => void) => {
      const run = async (kind: ServerKind, sameRate?: number, smallFrames?: boolean) => {
        const r = await runCase(kind, shape, connections, sizes, { sameRate, smallFrames, cpuProfDir: kind === 'mds' ? cpuProfDir : undefined });
        for (const line of describe(r)) out(line);
        if (r.problems.length && smoke) throw new Error(`${kind}, ${label(shape)} x ${connections}: ${r.problems.join('; ')}`);
        if (kind === 'mds' && cpuProfDir) {
          const profile = profileOfPid(cpuProfDir, r.serverPid);
          if (profile) for (const line of profileLines(summarizeProfile(profile))) out(`    mds server ${line}`);
        }
        return r;
      };
      // The baseline first: mds's latency is then also taken at the baseline's half load.
      const w = await run('ws');
      const m = await run('mds', w.half.rate);
      const ceiling = !smoke && shape === 'one-topic' && connections <= 1_000 ? await run('uws') : null;
      // Issue 5's reference (bare uWS, 5.9M frames/s) used 300-byte frames: the same here, to read this machine against it.
      const small = ceiling && connections === 100 ? await run('uws', undefined, true) : null;
      if (small) figures[`one_topic_100_bare_uws_300_byte_frames_per_s`] = one(small.framesPerS, 'frames/s', 0, 'higher');
      record(shape, connections, m, w, ceiling, out);
    };
    if (smoke) {
      // Smoke sizes measure nothing worth keeping: the groups run side by side to stay within seconds.
      const outputs = groups.map(() => [] as string[]);
      await Promise.all(groups.map((g, i) => runGroup(g, (line) => outputs[i]!.push(line))));
      for (const line of outputs.flat()) log(line);
    } else {
      for (const g of groups) await runGroup(g, log);
    }
    log(`fan-out cases took ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return figures;
  },
};

export default benchmark;
