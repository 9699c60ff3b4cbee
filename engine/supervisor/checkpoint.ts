import { RESEARCH_SLICES_MAX } from '../bounds.ts';
import { NO_LONG_TASKS, type LongTasks } from '../long-tasks.ts';
import { inSlices, nextTurn, sliceOf } from '../slices.ts';
import type { Storage } from '../../storage/index.ts';
import { evictOverBytes } from './budget.ts';
import type { ActorHost } from './host.ts';

const CHECKPOINT_KEY = 'checkpoint';
/** The latest event time applied, so that an event clock resumes where it was after a restart. */
const LATEST_AT_KEY = 'latest_event_at';

/** The seq the last checkpoint covers (0: none yet): start-up replays the log after it. */
export const checkpointOf = (storage: Storage): number => (storage.meta.get(CHECKPOINT_KEY) as number | undefined) ?? 0;
/** The latest event time the last checkpoint recorded (0: none). */
export const latestAtOf = (storage: Storage): number => (storage.meta.get(LATEST_AT_KEY) as number | undefined) ?? 0;

export interface CheckpointDeps {
  storage: Storage;
  /** Every actor host, in the engine's order. */
  hosts: readonly ActorHost<any>[];
  /**
   * Records derived from the actors and stored with the checkpoint (the research read
   * models): refreshed and written until done or past `deadline` (performance.now()); true when done.
   */
  derived: { persist(deadline?: number): boolean };
  /** Called as a checkpoint begins, before its snapshots (the recent wallets' rotation). */
  beginning(): void;
  /** The seq of the latest event applied, and its time (the checkpoint records both). */
  appliedSeq(): number;
  latestAt(): number;
  /** False once the engine is stopping: a sliced pass gives up between slices (stop() writes its own checkpoint). */
  running(): boolean;
  /** Slices past `debug.longTaskMs` are logged as `checkpoint`, `sweep` and `evict` (engine/long-tasks.ts). */
  longTasks?: LongTasks;
  /** Called as a checkpoint's seq and event time are written, in that transaction (the ingest log's pruning: engine/ingest/log-retention.ts). */
  recording?(seq: number, latestAt: number): void;
}

/** How a checkpoint or sweep runs: all at once (no `sliceMs`), or in slices of `sliceMs` and up to `share` of the loop (engine/slices.ts inSlices). */
export interface SliceOptions {
  sliceMs?: number;
  share?: number;
}

/**
 * Checkpoints and passivation, in slices (the engine's timers) or at once (tests,
 * embedders, stop). Each is a generator of steps over the hosts' keys, run by
 * engine/slices.ts; one sliced checkpoint and one sliced sweep at a time.
 */
export class Checkpointer {
  /** A checkpoint taken in slices, while under way. */
  private checkpointing: Promise<unknown> | null = null;
  /** A sweep of idle actors taken in slices, while under way. */
  private sweeping: Promise<number> | null = null;

  private readonly longTasks: LongTasks;
  private readonly tookCheckpoint: (ms: number) => void;
  private readonly tookSweep: (ms: number) => void;

  constructor(private readonly deps: CheckpointDeps) {
    const longTasks = (this.longTasks = deps.longTasks ?? NO_LONG_TASKS);
    this.tookCheckpoint = (ms) => longTasks.took('checkpoint', ms);
    this.tookSweep = (ms) => longTasks.took('sweep', ms);
  }

  /**
   * Snapshots every changed actor and records the seq they all cover. By default all in
   * the caller's turn (one transaction; the snapshots are queued when this returns).
   * With `sliceMs` (the engine's timer uses `actors.checkpointSliceMs`), in turns of
   * about that long (with a `share`, `actors.checkpointShare`, longer while other work
   * holds the loop longer), so a checkpoint of thousands of pools does not hold every stream
   * and request for most of a second; one such checkpoint at a time. Resolves once the
   * checkpoint's seq is written (false: the engine stopped first).
   *
   * Every actor changed at the start (seq C) is snapshotted, some in later turns: a
   * snapshot records its own seq, C or later, and a restart replays the log after C to
   * each actor from its own snapshot's seq on. An actor changed only after C needs no
   * snapshot for C. C is written last, so it commits after every snapshot it counts on
   * (LMDB commits transactions in order). Research records are derived from the actors:
   * one newer than C is refreshed again by the replay after C.
   */
  checkpoint(options: SliceOptions = {}): Promise<unknown> {
    const sliceMs = sliceOf(options.sliceMs);
    if (sliceMs === Infinity) return this.checkpointNow(sliceMs, 0);
    this.checkpointing ??= this.checkpointNow(sliceMs, options.share ?? 0).finally(() => (this.checkpointing = null));
    return this.checkpointing;
  }

  private async checkpointNow(sliceMs: number, share: number): Promise<unknown> {
    const seq = this.deps.appliedSeq();
    this.deps.beginning();
    if (!(await inSlices(this.snapshotSteps(), sliceMs, this.deps.running, this.tookCheckpoint, share))) return false;
    if (!(await inSlices(this.derivedSteps(sliceMs), sliceMs, this.deps.running, this.tookCheckpoint, share))) return false;
    // What changed since the last slice, in the turn that writes C.
    this.longTasks.time('checkpoint:persist', () => this.deps.derived.persist());
    return this.record(seq);
  }

  /**
   * Snapshots the actors changed now, yielding after each: a slice ends at the first
   * snapshot past its budget (one pool's takes ~0.1 ms, a feed actor's or the
   * leaderboard's several ms; sixteen of them at once held a slice 10-20 times its 5 ms).
   */
  private *snapshotSteps(): Generator<void> {
    const longTasks = this.longTasks;
    for (const host of this.deps.hosts) {
      const keys = host.dirtyKeys();
      const task = `snapshot:${host.kind}`;
      for (let i = 0; i < keys.length; i++) {
        if (longTasks.on) {
          const started = performance.now();
          host.snapshotIfDirty(keys[i]!);
          longTasks.took(task, performance.now() - started);
        } else host.snapshotIfDirty(keys[i]!);
        yield;
      }
    }
  }

  /** Derived records refreshed and written a slice at a time, at most RESEARCH_SLICES_MAX of them (events may dirty records as fast). */
  private *derivedSteps(sliceMs: number): Generator<void> {
    for (let n = 0; n < RESEARCH_SLICES_MAX && !this.deps.derived.persist(performance.now() + sliceMs); n++) yield;
  }

  /** The checkpoint's seq and the latest event time, in the caller's transaction. */
  record(seq: number): Promise<unknown> {
    const { storage } = this.deps;
    const latestAt = this.deps.latestAt();
    storage.meta.put(LATEST_AT_KEY, latestAt);
    this.deps.recording?.(seq, latestAt);
    return storage.meta.put(CHECKPOINT_KEY, seq);
  }

  /**
   * Snapshots and drops actors unused for `actors.idleMs` at `now`. By default all in
   * the caller's turn; with `sliceMs` (the engine's sweep timer), in turns like a sliced
   * checkpoint, one such sweep at a time. Resolves with the count.
   */
  passivateIdle(now = performance.now(), options: SliceOptions = {}): Promise<number> {
    const sliceMs = sliceOf(options.sliceMs);
    if (sliceMs === Infinity) return this.passivateNow(now, sliceMs, 0);
    this.sweeping ??= this.passivateNow(now, sliceMs, options.share ?? 0).finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async passivateNow(now: number, sliceMs: number, share: number): Promise<number> {
    // Reads (HTTP, the research refresh) activate actors outside batches: past the bound,
    // the sweep evicts them too, in slices as the rest (one snapshot each: hundreds at
    // once held the event loop up to 169 ms during a backlog).
    for (;;) {
      const started = performance.now();
      const done = evictOverBound(this.deps.hosts, sliceMs === Infinity ? Infinity : started + sliceMs);
      this.longTasks.took('sweep:evict', performance.now() - started);
      if (done) break;
      await nextTurn();
      if (!this.deps.running()) return 0;
    }
    const count = { passivated: 0 };
    await inSlices(this.passivationSteps(now, count), sliceMs, this.deps.running, this.tookSweep, share);
    return count.passivated;
  }

  /** Passivates the actors idle at `now` (and still idle when their turn comes), yielding after each (see snapshotSteps). */
  private *passivationSteps(now: number, count: { passivated: number }): Generator<void> {
    for (const host of this.deps.hosts) {
      const keys = host.idleKeys(now);
      for (let i = 0; i < keys.length; i++) {
        if (host.passivateIfIdle(keys[i]!, now)) count.passivated++;
        yield;
      }
    }
  }
}

/**
 * Heavy actors (engine/bounds.ts PERSIST_UNSAVED_AT) are snapshotted early only while
 * the resident estimate is past this share of `actors.residentBytesMax` (below it
 * nothing is evicted soon) and the residents' unsaved bytes are past
 * PERSIST_UNSAVED_SHARE of it (they are then what a write frees without an eviction).
 * Otherwise an early snapshot is a write the next checkpoint makes anyway, later and
 * larger: on the market benchmark (1M swaps over 10,000 pools, Zipf-like) early
 * snapshots whenever the bound was at 0.75 gave 0.77x events/s and 1.47x the trades
 * database (busy pools stay resident there; the wallets fill the bound).
 */
export const PERSIST_PRESSURE = 0.75;
/** See PERSIST_PRESSURE: 1/8 of the bound, 32 MiB of the default 256. */
export const PERSIST_UNSAVED_SHARE = 1 / 8;

/**
 * Passivates the least recently used actors of each kind past `actors.residentMax`
 * (ActorHost.evictOverBound), then those of any kind past `actors.residentBytesMax`
 * (evictOverBytes, over the budget the hosts share): what keeps memory bounded when
 * nothing is idle by wall time. First, while the bound fills with unsaved bytes
 * (PERSIST_PRESSURE), each host snapshots its heavy actors and keeps them
 * (ActorHost.persistHeavy). Between two events, as the idle sweep's slices are.
 * With a `deadline` (performance.now()) it stops there: false when the deadline left
 * some kind over its bound, or the budget over its bytes.
 */
export function evictOverBound(hosts: readonly ActorHost<any>[], deadline = Infinity): boolean {
  let done = true;
  const stopped = () => deadline !== Infinity && performance.now() >= deadline;
  const budget = hosts[0]?.budget;
  // First what a snapshot shrinks in place (a pool's unsaved trades), so that less must
  // go: once the bound is filling and such bytes are a large part of it.
  let pressure = false;
  if (budget != null && budget.bytes >= budget.max * PERSIST_PRESSURE) {
    let unsaved = 0;
    for (const host of hosts) unsaved += host.unsavedBytes;
    pressure = unsaved >= budget.max * PERSIST_UNSAVED_SHARE;
  }
  for (const host of hosts) host.persistHeavy(pressure, deadline);
  for (const host of hosts) {
    if (host.overBound === 0) continue;
    host.evictOverBound(deadline);
    // Stopped by the deadline (one it must keep for now is no reason to come back).
    if (host.overBound > 0 && stopped()) done = false;
  }
  if (budget && budget.over > 0) {
    evictOverBytes(hosts, budget, deadline);
    if (budget.over > 0 && stopped()) done = false;
  }
  return done;
}

/**
 * Whether some kind is past `actors.residentMax`, or the budget past
 * `actors.residentBytesMax`, by more than `lag` (a fraction) of that bound: how far the
 * Applier lets the evictions of applied batches lag behind later events (config
 * `actors.evictionLag`). 0: past the bound at all.
 */
export function farOverBound(hosts: readonly ActorHost<any>[], lag: number): boolean {
  for (const host of hosts) {
    const over = host.overBound;
    if (over > 0 && over > (host.size - over) * lag) return true;
  }
  const budget = hosts[0]?.budget;
  return budget != null && budget.over > 0 && budget.over > budget.max * lag;
}
