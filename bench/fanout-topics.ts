import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// Loaded here, in the parent, so that the client children inherit its wall-clock offset (wallMs).
import { wallMs } from './fanout-plan.ts';
import { Peer } from './fanout-procs.ts';
import type { TopicClientCommand, TopicClientPlan, TopicClientReport } from './fanout-topic-client.ts';
import { fmt, percentile, type Benchmark, type Figure } from './harness.ts';
import { markersCase, rankingsCase, type TopicCase } from './fanout-topic-cases.ts';

/**
 * Question: when the engine publishes one event on a topic that 1,000 WebSocket
 * connections follow (a `rankings` snapshot of one feed and window: DECISIONS.md's
 * depth of 100 entries, ~100 KB), how long until the last connection has it, is it
 * serialized once, and does every connection get every publish?
 *
 * Setup: the engine (LMDB in a temp dir, event clock) served by `startService` (real
 * uWS on 127.0.0.1, the /ws of `mds serve`) in this process; client processes
 * (bench/fanout-topic-client.ts) open the connections over loopback, subscribe once
 * each, and read every frame whole. A round ingests the case's events (for rankings:
 * one trade per pool, then the engine clock to the next minute, where popular's 5m
 * feed recomputes and publishes a snapshot). Timed: from the engine's publish call on
 * the topic (the sink, wrapped) to the first and the last connection's arrival of
 * that frame, on one clock for every process (wallMs). Counted: the JSON.stringify
 * calls on the stream's events (the case's `isEvent`) during the run, which must be
 * one per publish plus one for the snapshot every subscriber gets first; publishes on
 * the topic, one per round. Every connection must have every round, else the run
 * fails. Bounded: each round waits at most `roundTimeoutMs`.
 *
 * Estimate: 1,000 × 100 KB = 100 MB through loopback per round; at ~1-2 GB/s of
 * kernel copies on the 2 shared cores, and clients that must read all of it, the last
 * arrival ~0.1-0.3 s after the publish; the first within a few ms.
 *
 * Cases are a table (`CASES`; each case in bench/fanout-topic-cases.ts): one line adds
 * a topic (markers once its stream exists). Part of `npm run bench` (smoke: 20
 * connections, 3 rounds, inside `npm test`); one case alone, sizes changed:
 *
 *   node --import tsx bench/fanout-topics.ts [--case rankings] [--connections 1000] [--rounds 30] [--pools 100] [--smoke]
 */

export interface TopicSizes {
  connections: number;
  clients: number;
  pools: number;
  rounds: number;
  roundTimeoutMs: number;
}

export const FULL: TopicSizes = { connections: 1_000, clients: 2, pools: 100, rounds: 30, roundTimeoutMs: 30_000 };
export const SMOKE: TopicSizes = { connections: 20, clients: 1, pools: 10, rounds: 3, roundTimeoutMs: 15_000 };

/** The topics measured: one line each. */
export const CASES: Record<string, TopicCase> = {
  rankings: rankingsCase,
  markers: markersCase,
};

export interface TopicResult {
  name: string;
  connections: number;
  rounds: number;
  frameBytes: number;
  /** Publish to the last (first) connection's arrival, per round, ascending. */
  lastMs: number[];
  firstMs: number[];
  /** JSON.stringify calls on the stream's events during the run, and publishes on the topic. */
  serializations: number;
  publishes: number;
  /** Serializations the case makes for what subscribers get on subscribing (TopicCase.subscribeSerializations). */
  subscribeSerializations: number;
  missed: number;
  wrong: number;
  closed: number;
}

const CLIENT = fileURLToPath(new URL('./fanout-topic-client.ts', import.meta.url));

/** Runs one case at `sizes`: the engine and its server here, the connections in client processes. */
export async function runTopicCase(name: string, c: TopicCase, sizes: TopicSizes): Promise<TopicResult> {
  const [{ configSchema }, { createEngine }, { startService }] = await Promise.all([
    import('../engine/config.ts'),
    import('../engine/system.ts'),
    import('../engine/serve.ts'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), `mds-fanout-${name}-`));
  // DECISIONS.md: benchmarks lift plan limits through the config; nothing else changes.
  const lifted = { rps: 1_000_000, in_flight: 1_000_000, monthly_requests: 1_000_000_000_000, ws_connections: 1_000_000, watched_items: 10_000_000 };
  const config = configSchema.parse({ data: dir, host: '127.0.0.1', port: 0, source: 'none', clock: 'event', logLevel: 'silent', plans: { scale: lifted } });
  const engine = await createEngine({ config });
  const clients: Array<Peer<TopicClientCommand, TopicClientReport>> = [];
  const stringify = JSON.stringify;
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  try {
    const ingest = async (events: readonly unknown[]) => {
      for (const e of events) {
        const outcome = await engine.ingest(e);
        if (outcome.status !== 'applied') throw new Error(`${name}: event not applied: ${JSON.stringify(outcome)}`);
      }
    };
    await ingest(c.setup(sizes.pools));
    service = await startService(engine);
    const key = (await service.keys.create({ plan: 'scale' })).key;
    // The publishes on the topic, timed at the engine's call.
    const published: number[] = [];
    const sink = engine.topics;
    engine.attachTopics({
      has: (topic) => sink.has(topic),
      publish(topic, frame) {
        if (topic === c.topic) published.push(wallMs());
        sink.publish(topic, frame);
      },
      flush: sink.flush ? () => sink.flush!() : undefined,
    });
    // Serializations of the stream's events, from the first subscriber on.
    let serializations = 0;
    JSON.stringify = function (value: unknown, ...rest: unknown[]) {
      if (c.isEvent(value)) serializations++;
      return (stringify as (...args: unknown[]) => string)(value, ...rest);
    } as typeof JSON.stringify;

    const per = Math.ceil(sizes.connections / sizes.clients);
    for (let i = 0; i < sizes.clients; i++) {
      const count = Math.min(per, sizes.connections - i * per);
      const plan: TopicClientPlan = {
        host: '127.0.0.1', port: service.port, key, count, subscribe: { type: 'subscribe', stream: c.stream, payload: c.payload }, stream: c.stream, roundField: c.roundField, concurrency: 50,
      };
      clients.push(new Peer(`client ${i}`, CLIENT, plan));
    }
    const ready = await Promise.all(clients.map((p) => p.ask('ready', undefined, sizes.roundTimeoutMs * 2)));
    const connected = ready.reduce((n, r) => n + r.connections, 0);
    if (connected !== sizes.connections) throw new Error(`${name}: ${connected} of ${sizes.connections} connections subscribed`);

    const lastMs: number[] = [];
    const firstMs: number[] = [];
    let frameBytes = 0;
    let previous = ready[0]!.round;
    for (let round = 1; round <= sizes.rounds; round++) {
      const before = published.length;
      const reports = Promise.all(clients.map((p) => p.ask('round', undefined, sizes.roundTimeoutMs)));
      await ingest(c.round(round, sizes.pools));
      const got = await reports;
      if (published.length !== before + 1) throw new Error(`${name}: round ${round} published ${published.length - before} times on ${c.topic}, not once`);
      // Every client's report is of this round's frame: one value of the round field, new.
      if (got.some((r) => r.round !== got[0]!.round) || got[0]!.round === previous) throw new Error(`${name}: round ${round}: clients report rounds ${got.map((r) => r.round).join(', ')} after ${previous}`);
      previous = got[0]!.round;
      const at = published[before]!;
      lastMs.push(Math.max(...got.map((r) => r.lastMs)) - at);
      firstMs.push(Math.min(...got.map((r) => r.firstMs)) - at);
      frameBytes = got[0]!.bytes;
    }
    JSON.stringify = stringify;
    const finals = await Promise.all(clients.map((p) => p.ask('final', { type: 'final' }, sizes.roundTimeoutMs)));
    const sum = (k: 'missed' | 'wrong' | 'closed') => finals.reduce((n, f) => n + f[k], 0);
    return {
      name, connections: connected, rounds: sizes.rounds, frameBytes,
      lastMs: lastMs.sort((a, b) => a - b), firstMs: firstMs.sort((a, b) => a - b),
      serializations, publishes: published.length, subscribeSerializations: c.subscribeSerializations, missed: sum('missed'), wrong: sum('wrong'), closed: sum('closed'),
    };
  } finally {
    JSON.stringify = stringify;
    await Promise.all(clients.map((p) => p.stop({ type: 'exit' })));
    await service?.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a case's result must show: else the run throws (a smoke run fails `npm test`). */
export function problems(r: TopicResult): string[] {
  const out: string[] = [];
  // One serialization per publish, and the case's for what every subscriber gets on subscribing (rankings: one snapshot; markers: none, stored frames).
  const want = r.publishes + r.subscribeSerializations;
  if (r.serializations !== want) out.push(`${r.serializations} serializations for ${r.publishes} publishes (want ${want})`);
  if (r.missed > 0) out.push(`${r.missed} snapshots missed`);
  if (r.wrong > 0) out.push(`${r.wrong} unexpected frames`);
  if (r.closed > 0) out.push(`${r.closed} connections closed`);
  return out;
}

const ms = (v: number) => v.toFixed(2);

export function describeTopic(r: TopicResult): string {
  return (
    `${r.name} x ${fmt(r.connections)} conns, ${r.rounds} publishes of ${fmt(r.frameBytes)} B: publish to last connection p50 ${ms(percentile(r.lastMs, 0.5))} p99 ${ms(percentile(r.lastMs, 0.99))} max ${ms(r.lastMs[r.lastMs.length - 1]!)} ms, ` +
    `to first p50 ${ms(percentile(r.firstMs, 0.5))} ms; ${r.serializations} serializations for ${r.publishes} publishes + ${r.subscribeSerializations} on subscribe; ` +
    `${r.missed === 0 ? 'every connection got every snapshot' : `${r.missed} missed`}`
  );
}

const one = (value: number, unit: string, digits: number, better: 'higher' | 'lower'): Figure => ({ value: Number(value.toFixed(digits)), unit, better });

const benchmark: Benchmark = {
  name: 'fanout-topics',
  question: 'How long from the publish of a rankings snapshot (one feed and window, 100 entries) or a markers mark (one token) to its arrival at the last of 1,000 subscribed WebSocket connections, serialized once, with none missed?',
  async run({ smoke, log }) {
    const sizes = smoke ? SMOKE : FULL;
    const figures: Record<string, Figure> = {};
    for (const [name, c] of Object.entries(CASES)) {
      const r = await runTopicCase(name, c, sizes);
      log(describeTopic(r));
      const bad = problems(r);
      if (bad.length) throw new Error(`${name}: ${bad.join('; ')}`);
      figures[`${name}_publish_to_last_p50_ms`] = one(percentile(r.lastMs, 0.5), 'ms', 2, 'lower');
      figures[`${name}_publish_to_last_p99_ms`] = one(percentile(r.lastMs, 0.99), 'ms', 2, 'lower');
      figures[`${name}_publish_to_first_p50_ms`] = one(percentile(r.firstMs, 0.5), 'ms', 2, 'lower');
      figures[`${name}_frame_bytes`] = one(r.frameBytes, 'B', 0, 'lower');
      figures[`${name}_serializations_per_publish`] = one((r.serializations - r.subscribeSerializations) / r.publishes, 'serializations', 2, 'lower');
      figures[`${name}_subscribers`] = one(r.connections, 'connections', 0, 'higher');
    }
    return figures;
  },
};

export default benchmark;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { case: { type: 'string', default: 'rankings' }, connections: { type: 'string' }, rounds: { type: 'string' }, pools: { type: 'string' }, smoke: { type: 'boolean', default: false } },
  });
  const c = CASES[values.case!];
  if (!c) throw new Error(`--case: one of ${Object.keys(CASES).join(', ')}, not ${values.case}`);
  const base = values.smoke ? SMOKE : FULL;
  const sizes: TopicSizes = {
    ...base,
    connections: Number(values.connections ?? base.connections),
    rounds: Number(values.rounds ?? base.rounds),
    pools: Number(values.pools ?? base.pools),
  };
  const r = await runTopicCase(values.case!, c, sizes);
  console.log(describeTopic(r));
  const bad = problems(r);
  if (bad.length) throw new Error(bad.join('; '));
}
