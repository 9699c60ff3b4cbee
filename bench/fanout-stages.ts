import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { Engine } from '../engine/system.ts';
import { wallMs } from './fanout-plan.ts';
import { percentile } from './harness.ts';

/**
 * Where the fan-out benchmark's ingest-to-publish time goes (`bench/fanout-one.ts
 * --stages`): the server child wraps a few of the engine's methods on their instances
 * (nothing in the engine changes) and, for every frame the sampled publish times, splits
 * its stamp-to-publish time into
 *
 * - batch: stamp → the gate's ingest-log put (the open batch is written in a
 *   process.nextTick once the callback that opened it returns, or when it is full);
 * - release: put → the batch's committed$ next (a microtask queued right after the put:
 *   the gate releases a batch without waiting for its commit);
 * - apply: release → this frame's publish (actors applying the batch's earlier events).
 *
 * A batch's commit (put → the put's promise, which lmdb-js resolves after the fsync)
 * comes after its frames are published, so it is no stage of theirs: it is recorded per
 * batch in a list of its own. It also records per batch how long applying it took and
 * how big it was, the publisher's flush slices and checkpoints (their durations: each is one
 * event-loop turn that delays everything behind it), GC pauses and the event loop's
 * delay, all over the same window as the latency samples.
 */

/** perf_hooks `constants.NODE_PERFORMANCE_GC_*`. */
const GC_KINDS: Record<number, string> = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental marking', 8: 'weak callbacks' };

/** One ingest-log batch, filed in `puts` under its first seq (the log's key). */
type Batch = { putAt: number; releasedAt: number };

export interface StageProbe {
  /** A sampled frame of the batch being applied, stamped `stampMs`, published now. */
  sample(stampMs: number): void;
  /** Starts a window (the latency phase). */
  start(): void;
  /** Ends the window: the lines to print. */
  lines(): string[];
}

const ms = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(2));

function dist(name: string, values: number[]): string {
  const s = Float64Array.from(values).sort();
  const sum = values.reduce((a, b) => a + b, 0);
  return `${name}: n ${values.length} p50 ${ms(percentile(s, 0.5))} p90 ${ms(percentile(s, 0.9))} p99 ${ms(percentile(s, 0.99))} max ${ms(s.length ? s[s.length - 1]! : NaN)} sum ${ms(sum)} ms`;
}

export function probeEngine(engine: Engine): StageProbe {
  const puts = new Map<number, Batch>();
  let current: Batch | null = null;
  let on = false;
  const stage = { batch: [] as number[], release: [] as number[], apply: [] as number[], total: [] as number[] };
  /** Per batch put in the window: put → the put's promise (committed and fsynced). */
  const durableMs: number[] = [];
  const applyMs: number[] = [];
  const batchEvents: number[] = [];
  const flushMs: number[] = [];
  const checkpointMs: number[] = [];
  const gcMs: number[] = [];
  /** GC pauses by kind (scavenge, mark-compact, ...). */
  const gcKinds = new Map<string, number[]>();
  const loop = monitorEventLoopDelay({ resolution: 1 });

  const log = engine.storage.ingestLog as unknown as { put: (key: number, value: unknown) => Promise<boolean> };
  const put = log.put.bind(log);
  log.put = (key, value) => {
    const write = put(key, value);
    const putAt = wallMs();
    puts.set(key, { putAt, releasedAt: NaN });
    if (on) {
      // A failed write is the gate's to report (it chains the same promise).
      void write.then(() => {
        if (on) durableMs.push(wallMs() - putAt);
      }, () => undefined);
    }
    return write;
  };

  const committed$ = engine.gate.committed$;
  const next = committed$.next.bind(committed$);
  committed$.next = (b) => {
    const batch = puts.get(b.firstSeq) ?? { putAt: NaN, releasedAt: NaN };
    puts.delete(b.firstSeq);
    batch.releasedAt = wallMs();
    current = batch;
    const t = performance.now();
    next(b);
    if (on) {
      applyMs.push(performance.now() - t);
      batchEvents.push(b.count);
    }
    current = null;
  };

  const timed = (of: object, name: string, into: number[]) => {
    const target = of as Record<string, (...args: unknown[]) => unknown>;
    const original = target[name]!.bind(of);
    target[name] = (...args: unknown[]) => {
      const t = performance.now();
      const out = original(...args);
      if (on) into.push(performance.now() - t);
      return out;
    };
  };
  // The live flush runs in slices (Engine.flushDue): each slice is timed.
  timed(engine, 'flushSlice', flushMs);
  timed(engine, 'checkpoint', checkpointMs);

  new PerformanceObserver((list) => {
    if (!on) return;
    for (const entry of list.getEntries()) {
      gcMs.push(entry.duration);
      const kind = GC_KINDS[(entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      let into = gcKinds.get(kind);
      if (!into) gcKinds.set(kind, (into = []));
      into.push(entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });

  return {
    sample(stampMs) {
      const b = current;
      if (!on || !b) return;
      const now = wallMs();
      stage.batch.push(b.putAt - stampMs);
      stage.release.push(b.releasedAt - b.putAt);
      stage.apply.push(now - b.releasedAt);
      stage.total.push(now - stampMs);
    },
    start() {
      on = true;
      for (const list of [...Object.values(stage), durableMs, applyMs, batchEvents, flushMs, checkpointMs, gcMs]) list.length = 0;
      gcKinds.clear();
      loop.reset();
      loop.enable();
    },
    lines() {
      on = false;
      loop.disable();
      const events = batchEvents.reduce((a, b) => a + b, 0);
      const lines = [
        `stages of sampled frames (stamp → put → released → published):`,
        `  ${dist('batch (stamp → put)', stage.batch)}`,
        `  ${dist('release (put → committed$ next)', stage.release)}`,
        `  ${dist('apply (released → published)', stage.apply)}`,
        `  ${dist('total', stage.total)}`,
        `${dist('durable per batch (put → committed, after its frames)', durableMs)}`,
        `batches: ${batchEvents.length}, ${(events / Math.max(1, batchEvents.length)).toFixed(0)} events each; ${dist('apply per batch', applyMs)}`,
        `${dist('publisher flush slices', flushMs)}; ${dist('checkpoint (sync part)', checkpointMs)}`,
        `${dist('GC pauses', gcMs)}`,
        ...[...gcKinds].map(([kind, list]) => `  ${dist(kind, list)}`),
        `event-loop delay: p50 ${ms(loop.percentile(50) / 1e6)} p99 ${ms(loop.percentile(99) / 1e6)} max ${ms(loop.max / 1e6)} ms`,
      ];
      return lines;
    },
  };
}
