import { Observable, Subject } from 'rxjs';
import type { Logger } from 'pino';
import type { Storage } from '../storage/index.ts';
import type { Clock } from './clock.ts';
import { NO_LONG_TASKS, type LongTasks } from './long-tasks.ts';
import { APPLY_EVENTS_MIN } from './bounds.ts';
import { timeOf, type IngestEvent } from './ingest/index.ts';
import { readLog, type CommittedBatch } from './ingest/index.ts';
import { evictOverBound, farOverBound } from './supervisor/index.ts';
import type { ActorHost } from './supervisor/index.ts';
import type { Router } from './supervisor/index.ts';
import type { TopicSink } from './topics/index.ts';
import type { Ticker } from './topics/index.ts';

/** A batch's frames are handed on (TopicSink.flush) after every 64 of its events and at its end. */
const FRAMES_FLUSH_MASK = 63;
/** Start-up replay hands its events to onApplied listeners, and evicts past the resident bound, every this many events. */
const REPLAY_CHUNK = 4096;
/** The share of a slice that evictions lagging behind applied batches take before the slice's events (Applier.evictionsBehind). */
const EVICT_SHARE = 0.5;

/** One event as applied to the actors: in ingest seq order. */
export interface StampedEvent {
  seq: number;
  event: IngestEvent;
}

export interface ApplierOptions {
  storage: Storage;
  clock: Clock;
  log: Logger;
  router: Router;
  hosts: readonly ActorHost<any>[];
  ticker: Ticker;
  /** Where live frames go now (the transport attaches its sink later). */
  sink: () => TopicSink;
  /** Read models that follow every applied event, start-up replay included (the token search and pool list). */
  follow: (event: IngestEvent) => void;
  /** Longest the apply of batches holds the event loop at once, in ms (config `ingest.applySliceMs`); Infinity or absent: a whole batch in its turn. */
  applySliceMs?: number;
  /** Slices past `debug.longTaskMs` are logged as `apply`, evictions past the bound as `evict` (engine/long-tasks.ts). */
  longTasks?: LongTasks;
  /**
   * How far past a resident bound, as a fraction of it, the evictions of applied batches
   * may lag while later events are applied (config `actors.evictionLag`; absent: 0, every
   * batch's evictions done before the next event).
   */
  evictionLag?: number;
}

/**
 * How events reach the actors, live and at start-up: each committed batch applied in a
 * plain loop (no per-event objects or operators on the hot path), each event first
 * moving the engine clock and the ticks it reached, then through the router to the
 * hosts that take it and the derived events they emit; the log after the checkpoint
 * replayed the same way at start-up. Keeps the applied seq and the newest event time,
 * and hands applied events to embedders (onApplied, events$), only while someone listens.
 */
export class Applier {
  /** The seq of the last event applied. */
  appliedSeq = 0;
  /** Time of the newest event applied (Unix ms; 0 before any). */
  latestAt = 0;
  private readonly listeners: Array<(events: readonly IngestEvent[]) => void> = [];
  private readonly stamped = new Subject<StampedEvent>();
  /** Every event applied live, in seq order (start-up replay is not re-emitted). */
  readonly events$: Observable<StampedEvent> = this.stamped.asObservable();

  constructor(private readonly options: ApplierOptions) {}

  /** Replays the log after `checkpoint` into the actors (start-up), as events of a run that may have gone past its snapshots. Returns the count. */
  replay(checkpoint: number): number {
    const { hosts, router } = this.options;
    let replayed = 0;
    let chunk: IngestEvent[] = [];
    const listening = this.listeners.length > 0;
    // Actors these events create without a snapshot may have existed in the run that logged them.
    for (const host of hosts) host.recovering = true;
    router.replaying = true;
    try {
      for (const { seq, event } of readLog(this.options.storage, checkpoint + 1)) {
        this.apply(seq, event);
        if (listening) chunk.push(event);
        if (chunk.length === REPLAY_CHUNK) {
          this.notify(chunk);
          chunk = [];
        }
        replayed++;
        if (replayed % REPLAY_CHUNK === 0) evictOverBound(hosts);
      }
      if (chunk.length) this.notify(chunk);
    } finally {
      for (const host of hosts) host.recovering = false;
      router.replaying = false;
    }
    return replayed;
  }

  /** Committed batches not applied yet, in seq order: the first may be under way. */
  private readonly pending: CommittedBatch[] = [];
  /** A turn to go on applying is queued (setImmediate). */
  private resumeQueued = false;
  /** Called once nothing is pending (settled()). */
  private settledWaiters: Array<() => void> = [];
  /** Slices run so far (a turn that applied events and then let other work run). */
  slices = 0;

  /**
   * Applies one committed batch, in this turn when nothing is pending and it takes less
   * than `applySliceMs`; otherwise what is left is applied in later turns, about that
   * long each, with the event loop free between them (HTTP, WebSocket writes, commits),
   * and batches that come meanwhile wait their turn in seq order. Events are applied one
   * at a time as they are parsed (CommittedBatch.each); the batch's events are kept
   * (parsed once) only for embedders.
   */
  applyBatch(batch: CommittedBatch): void {
    this.pending.push(batch);
    if (this.pending.length === 1 && !this.resumeQueued) this.applyTimed();
  }

  /** Batches committed and not applied yet (the gate holds sources back past a few), one more while evictions lag behind those applied. */
  get backlog(): number {
    return this.pending.length + (this.evictionsBehind ? 1 : 0);
  }

  /**
   * The evictions past the resident bounds that applied batches left are under way
   * (within `evictionLag` of the bound: the batch was handed on): EVICT_SHARE of each
   * slice first, then later events; whole slices, events waiting, past the lag.
   */
  evictionsBehind = false;

  /** Resolves once every batch handed over so far is applied and the bounds kept (at once when none is pending). */
  settled(): Promise<void> {
    if (this.backlog === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Waiting for the backlog to come down to a number (whenBacklogAtMost). */
  private backlogWaiters: Array<{ atMost: number; resolve: () => void }> = [];

  /**
   * Resolves once `backlog` is at most `atMost` (at once when it is): the gate's sources,
   * held back past APPLY_BACKLOG_MAX, go on as soon as a batch is applied, not once every
   * batch is and the evictions behind them are done (`settled`), so that the next batches
   * are read, parsed and logged while the actors apply those left: a source that waited
   * for `settled` left the actors with no event to apply from the last batch's end until
   * its next batch came, a WebSocket client with no frame meanwhile (bench/README.md, backlog).
   */
  whenBacklogAtMost(atMost: number): Promise<void> {
    if (this.backlog <= atMost) return Promise.resolve();
    return new Promise((resolve) => this.backlogWaiters.push({ atMost, resolve }));
  }

  /** Waiting for a seq to be applied, in the order asked (seqs of one caller come in order). */
  private seqWaiters: Array<{ seq: number; resolve: () => void }> = [];

  /**
   * Resolves once the event of `seq` is applied (an embedded `ingest`): with a steady
   * stream of batches the queue may never be empty, but every seq handed over is reached.
   */
  whenApplied(seq: number): Promise<void> {
    if (this.appliedSeq >= seq) return Promise.resolve();
    return new Promise((resolve) => this.seqWaiters.push({ seq, resolve }));
  }

  private readonly resume = () => {
    this.resumeQueued = false;
    this.applyTimed();
  };

  /** applyPending, timed when the long-task logger is on. */
  private applyTimed(): void {
    const longTasks = this.options.longTasks ?? NO_LONG_TASKS;
    if (!longTasks.on) return this.applyPending();
    const started = performance.now();
    this.applyPending();
    longTasks.took('apply', performance.now() - started);
  }

  /** Batches applied whole, each in its turn (`mds replay`, applySliceMs 0): a pass that holds the events ends before the next, at once. */
  private get wholeBatches(): boolean {
    return this.options.applySliceMs === undefined || this.options.applySliceMs === Infinity;
  }

  /** A pass that holds the events ended (Ticker.whenReleased): applying goes on in the next turn. */
  private waitingRelease = false;
  private readonly released = () => {
    this.waitingRelease = false;
    if (this.resumeQueued || this.backlog === 0) return;
    this.resumeQueued = true;
    setImmediate(this.resume);
  };

  /** Applies pending batches for one slice; queues the next turn if some are left. */
  private applyPending(): void {
    const { hosts, ticker } = this.options;
    // A pass that must see the state at its tick is under way (the ranking recompute):
    // the next event waits for its end, with the event loop free between its slices.
    if (ticker.holding && this.wholeBatches) ticker.finishHolding();
    if (ticker.holding) {
      if (!this.waitingRelease) {
        this.waitingRelease = true;
        ticker.whenReleased(this.released);
      }
      return;
    }
    const sliceMs = this.options.applySliceMs ?? Infinity;
    const now = performance.now();
    const deadline = sliceMs === Infinity ? Infinity : now + sliceMs;
    for (const host of hosts) host.batch(now);
    const sink = this.options.sink();
    const longTasks = this.options.longTasks ?? NO_LONG_TASKS;
    /** Each event timed (and the frames' hand-over): the long-task logger is on. */
    const timed = longTasks.on;
    let finished = true;
    try {
      if (this.evictionsBehind) {
        // What applied batches left past the bounds goes first: part of the slice while
        // within the lag (actors.evictionLag), so that events and their frames go on
        // meanwhile; all of it, and the events wait, past the lag.
        const lag = this.options.evictionLag ?? 0;
        const far = farOverBound(hosts, lag);
        const until = far ? deadline : now + sliceMs * EVICT_SHARE;
        if (longTasks.time('evict', () => evictOverBound(hosts, until))) this.evictionsBehind = false;
        else if (far || farOverBound(hosts, lag)) finished = false;
      }
      while (finished && this.pending.length) {
        const batch = this.pending[0]!;
        const firstSeq = batch.firstSeq;
        // Parsed once, before the actors see them, for embedders (handOn) that listen.
        if (this.listeners.length > 0 || this.stamped.observed) void batch.events;
        finished = batch.eachUntil((event, i) => {
          if (timed) {
            const started = performance.now();
            if (!this.apply(firstSeq + i, event)) return false;
            longTasks.took(`event:${event.type}`, performance.now() - started);
          } else if (!this.apply(firstSeq + i, event)) return false;
          // The frames of a long batch (a burst after a stall: 1,000 swaps take ~30-40 ms)
          // go out as it goes, not all at its end.
          if ((i & FRAMES_FLUSH_MASK) === FRAMES_FLUSH_MASK) sink.flush?.();
        }, deadline, APPLY_EVENTS_MIN);
        if (!finished) {
          // A batch longer than a slice (a backlog's: up to 2,000 events, hundreds of ms):
          // its evictions do not wait for its end, by when its actors could be several
          // times past the bound; past the lag they begin the next slice (evictionsBehind,
          // above), the batch's events going on once they are back within it.
          if (sliceMs !== Infinity && farOverBound(hosts, this.options.evictionLag ?? 0)) this.evictionsBehind = true;
          break;
        }
        // The bound is kept within the slice if it can be. What is left to evict is
        // evicted first in the next slices: beside the next batch's events (above) once
        // within the lag, when the batch counts as applied; before any more events past it.
        if (!longTasks.time('evict', () => evictOverBound(hosts, deadline))) {
          finished = false;
          if (farOverBound(hosts, this.options.evictionLag ?? 0)) break;
          this.evictionsBehind = true;
        }
        this.pending.shift();
        // To embedders now, within the bound or its lag, before the next batch activates more.
        if (timed) longTasks.time('handOn', () => this.handOn(batch));
        else this.handOn(batch);
        if (!finished) break;
        if (this.pending.length && performance.now() >= deadline) {
          finished = false;
          break;
        }
      }
    } finally {
      for (const host of hosts) host.batch(0);
      // The slice's frames go out now, not after the live flush's slice below.
      if (timed) longTasks.time('frames', () => sink.flush?.());
      else sink.flush?.();
      if (this.seqWaiters.length) this.wakeApplied();
      if (this.backlogWaiters.length) this.wakeBacklog();
      // Ticks due (the live flush) and a slice of each pass under way (engine/topics/ticker.ts).
      ticker.advance();
      if (this.pending.length || this.evictionsBehind) {
        if (!finished) this.slices++;
        this.resumeQueued = true;
        setImmediate(this.resume);
      } else if (this.settledWaiters.length) {
        const waiters = this.settledWaiters;
        this.settledWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
  }

  private wakeApplied(): void {
    const left = this.seqWaiters.filter((w) => w.seq > this.appliedSeq);
    if (left.length === this.seqWaiters.length) return;
    const done = this.seqWaiters.filter((w) => w.seq <= this.appliedSeq);
    this.seqWaiters = left;
    for (const w of done) w.resolve();
  }

  private wakeBacklog(): void {
    const backlog = this.backlog;
    const left: typeof this.backlogWaiters = [];
    for (const w of this.backlogWaiters) {
      if (w.atMost >= backlog) w.resolve();
      else left.push(w);
    }
    this.backlogWaiters = left;
  }

  /** A batch fully applied: its events to embedders, in seq order. */
  private handOn(batch: CommittedBatch): void {
    const listening = this.listeners.length > 0;
    if (!listening && !this.stamped.observed) return;
    const events = batch.events;
    const firstSeq = batch.firstSeq;
    if (listening) this.notify(events);
    if (this.stamped.observed) for (let i = 0; i < events.length; i++) this.stamped.next({ seq: firstSeq + i, event: events[i]! });
  }

  /** False: not applied, a pass its time began holds it (Ticker.holding); it is handed out again once released. */
  private apply(seq: number, event: IngestEvent): boolean {
    const at = timeOf(event);
    this.options.clock.observe(at);
    // Ticks the event's time reached run before it, under a clock that moves with events.
    const ticker = this.options.ticker;
    ticker.observe();
    if (ticker.holding) {
      // Whole batches (`mds replay`): nothing reads meanwhile, the pass ends now.
      if (this.wholeBatches) ticker.finishHolding();
      else return false;
    }
    if (at > this.latestAt) this.latestAt = at;
    // To the hosts that take it, then what they derived from it (supervisor/router.ts).
    this.options.router.deliver(seq, event);
    this.appliedSeq = seq;
    this.options.follow(event);
    return true;
  }

  /**
   * Calls `listener` with the events of every batch once the actors have applied them,
   * start-up replay included (in chunks), in seq order. For derived indexes (search)
   * that follow the actors; the listener must not throw and should be cheap.
   */
  onApplied(listener: (events: readonly IngestEvent[]) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  private notify(events: readonly IngestEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events);
      } catch (err) {
        this.options.log.error({ err }, 'an applied-events listener threw');
      }
    }
  }
}
