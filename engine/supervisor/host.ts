import { ABSENT_MAX, ACTOR_BYTES_DEFAULT } from '../bounds.ts';
import { randomInt } from 'node:crypto';
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { DERIVED_TYPES } from '../model/index.ts';
import type { Metrics } from '../metrics.ts';
import type { Snapshot, Storage } from '../../storage/index.ts';
import type { ResidentBytes } from './budget.ts';
import type { StaleEpochs } from './epochs.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from './behavior.ts';
import type { Router } from './router.ts';
import { LifecycleSteps } from './lifecycle-steps.ts';
import { supervisionMachine } from './supervision.machine.ts';


/** What a host needs to write a dead letter (the gate's writer). */
export type DeadLetterWriter = (stage: string, reason: string, raw: unknown, source: string, extra: { seq?: number; type?: string }) => unknown;

interface Resident<S> {
  key: string;
  id: string;
  state: S;
  /** Every event with a seq up to this one is in `state`. */
  seq: number;
  /**
   * `seq` was reached by a delivery of the seq being delivered (not loaded from a
   * snapshot): the derived events of that seq are still to come to it, no repeats.
   */
  open: boolean;
  lifecycle: AnyMachineSnapshot | null;
  supervision: AnyMachineSnapshot;
  /** performance.now() of the last use: passivation is about memory, not event time. */
  lastUsed: number;
  dirty: boolean;
  /** Its latest snapshot write while uncommitted (LMDB does not show it to reads yet). */
  pendingWrite: Promise<boolean> | null;
  /** Its heap estimate as counted in the host's ResidentBytes (0 while not resident). */
  bytes: number;
  /** In the host's `heavy` list: past `persistAt` bytes not saved (ActorBehavior.unsavedBytes). */
  heavy: boolean;
  /** Its unsaved bytes (ActorBehavior.unsavedBytes) as counted in the host's `unsavedBytes`, taken with `bytes`. */
  unsaved: number;
}

interface PersistedActor {
  state: unknown;
  lifecycle?: { value: unknown; context: unknown };
  /**
   * Its beforeSnapshot held something back (returned true): an actor activated from
   * this snapshot is dirty, so that a checkpoint writes it even if no event comes.
   */
  heldBack?: true;
  /** The host (one engine's run) that wrote it: a snapshot of another run may be stale (see `load`). */
  run?: number;
  /** The stale epoch it was written in (StaleEpochs); absent in snapshots of earlier versions (0). */
  epoch?: number;
}

export interface HostOptions {
  storage: Storage;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** Reads an actor of any kind (the engine's registry of hosts). */
  read: ActorContext['read'];
  /** Reads an actor of any kind in the background (ActorContext.peek). */
  peek: ActorContext['peek'];
  deadLetter: DeadLetterWriter;
  /**
   * The router: derived events go to it (ctx.emit), and a rebuild takes its history
   * from it (the gate's, committed or not, with the derived events recomputed).
   */
  router: Router;
  idleMs: number;
  /**
   * Resident actors of this kind at most (config `actors.residentMax`): past it,
   * `evictOverBound` passivates the least recently used. Infinity: no bound.
   */
  residentMax?: number;
  /**
   * The estimated heap of the resident actors, shared by the engine's hosts (config
   * `actors.residentBytesMax`): past it, evictOverBytes passivates the least recently used
   * of any kind. Absent: no byte bound.
   */
  budget?: ResidentBytes;
  restartsMax: number;
  /** The window restartsMax counts over, on the engine clock (`clock`: event time in replays, simulated in tests). */
  restartWindowMs?: number;
  /** The engine's stale epochs, shared by its hosts (how far a stale actor's seqs move on). */
  epochs: StaleEpochs;
  /**
   * Bytes an actor may hold unsaved (ActorBehavior.unsavedBytes) before `persistHeavy`
   * snapshots it while the byte bound is filling (engine/bounds.ts PERSIST_UNSAVED_AT).
   * Absent: never (a checkpoint or passivation saves it).
   */
  persistAt?: number;
}

/**
 * Supervises every actor of one kind: activates an actor on first use (from its
 * snapshot), delivers events in seq order, rebuilds an actor that throws from its
 * last snapshot plus the ingest log after it, sends an event that breaks it twice to
 * dead letters, and passivates idle actors (snapshot to LMDB, dropped from memory).
 * One actor's failure never reaches another.
 */
export class ActorHost<S> {
  readonly kind: string;
  /**
   * Resident actors, least recently used first: a use re-inserts an actor at the end
   * when its `lastUsed` changes (once per batch at most, as a batch stamps one reading),
   * so the bound's eviction takes them from the front.
   */
  private readonly residents = new Map<string, Resident<S>>();
  private readonly stopped = new Set<string>();
  /**
   * Passivated actors whose snapshot is not committed yet: LMDB does not show an
   * async put before its commit, so activation takes them from here meanwhile.
   */
  private readonly inTransit = new Map<string, { resident: Resident<S>; write: Promise<boolean> }>();
  /**
   * Poison marks put but not committed: a rebuild before their commit must skip those
   * events too (replaying one would throw out of the rebuild, past the supervisor).
   */
  private readonly poisonPending = new Set<string>();
  /**
   * Keys read (`get`) that have no actor: neither resident, in transit nor snapshotted.
   * Such an actor appears only by activation with `create`, which takes its key out, so
   * a read of a wallet without labels (every trade record and frame reads them) costs
   * a Set lookup instead of an LMDB read.
   */
  private readonly absent = new Set<string>();
  private readonly ctx: ActorContext;
  private readonly initialSupervision: AnyMachineSnapshot;
  private readonly initialLifecycle: AnyMachineSnapshot | null;
  /** The lifecycle machine's transitions, each (state, event) computed once (lifecycle-steps.ts); null without a machine. */
  private readonly lifecycleSteps: LifecycleSteps | null;
  /** The highest seq delivered to this host; snapshots record it. */
  private appliedSeq = 0;
  /** The seq of the last event one of its actors was given (a version of the host's state as a whole). */
  private changedSeq = 0;
  /** The event being applied, for ctx.reject (set only by live delivery, not by rebuilds). */
  private applying: { key: string; event: ActorEvent; seq: number } | null = null;
  /** One object reused for `applying` on live delivery (one per event cost an allocation each). */
  private readonly live: { key: string; event: ActorEvent; seq: number } = { key: '', event: null as unknown as ActorEvent, seq: 0 };
  /** The seq of the event being applied or re-derived (ctx.seq). */
  private seqNow = 0;
  /** The event types its kind takes (behavior.takes). */
  private readonly takes: ReadonlySet<string>;
  /** Its kind takes a derived event type: a rebuild recomputes them (Router.replayInto). */
  readonly takesDerived: boolean;
  /** Its kind re-derives skipped events (it has `rederive` and someone takes what it emits): set by the router. */
  rederives = false;
  /**
   * performance.now() for the batch being applied (0 between batches): actors used in
   * a batch are stamped with one reading, not one per event and per read.
   */
  private batchNow = 0;
  /**
   * Called before the bound passivates an actor (the engine: a pool's pending live flush
   * is taken now, or that flush would activate it again at once); null: nothing.
   */
  beforeEvict: ((key: string) => void) | null = null;
  /**
   * Called right before an actor is passivated for a bound or as idle (its snapshot
   * written), with its state still in memory (the engine: the ranking recompute's memo
   * keeps what it reads of a pool, InputMemo.passivating); null: nothing.
   */
  beforePassivate: ((key: string, state: Readonly<S>) => void) | null = null;
  /**
   * Called right before a live event is applied to an actor, or `update` changes it, the
   * actor in memory and its state still as before (the engine: a ranking recompute
   * reading as events go on reads a pool before it changes, RankingStreams.
   * beforePoolChange); null: nothing. Not for events an actor already holds (start-up
   * replay skips them) nor for a rebuild's replay.
   */
  beforeApply: ((key: string) => void) | null = null;
  /**
   * The engine is replaying events an earlier run logged (after its last checkpoint): an
   * actor created now without a snapshot may have existed in that run (see `load`).
   */
  recovering = false;
  /** This host's run, written into its snapshots (PersistedActor.run). */
  private readonly run = randomInt(1, 2 ** 47);
  /** The byte bound it shares with the engine's other hosts (HostOptions.budget), or null. */
  readonly budget: ResidentBytes | null;
  /** Estimated bytes of its resident actors (its part of `budget`). */
  private residentBytes = 0;
  /** ActorBehavior.unsavedBytes when its kind has one and `persistAt` is set, else null. */
  private readonly unsavedOf: ((state: Readonly<S>) => number) | null;
  private readonly persistAt: number;
  /** Residents whose unsaved bytes passed `persistAt` at an event, for persistHeavy (each once: `heavy`). */
  private readonly heavy: Resident<S>[] = [];
  /** Its residents' unsaved bytes (ActorBehavior.unsavedBytes), each as of its last estimate (`charge`). */
  private unsavedTotal = 0;

  constructor(readonly behavior: ActorBehavior<S>, private readonly options: HostOptions) {
    this.kind = behavior.kind;
    this.budget = options.budget ?? null;
    this.persistAt = options.persistAt ?? Infinity;
    this.unsavedOf = behavior.unsavedBytes && this.persistAt !== Infinity ? behavior.unsavedBytes : null;
    this.takes = new Set(behavior.takes);
    this.takesDerived = behavior.takes.some((type) => (DERIVED_TYPES as readonly string[]).includes(type));
    const router = options.router;
    const host = this;
    this.ctx = {
      clock: options.clock,
      read: options.read,
      peek: options.peek,
      reject: (reason) => {
        const current = this.applying;
        // A rebuild replays events already judged live: their rejections are on record.
        if (!current) return;
        const id = this.idOf(current.key);
        this.options.deadLetter('actor', reason, current.event, `actor:${id}`, { seq: current.seq, type: current.event.type });
      },
      emit: (event) => router.emit(event),
      get seq() {
        return host.seqNow;
      },
    };
    this.initialSupervision = initialTransition(supervisionMachine, {
      restartsMax: options.restartsMax,
      windowMs: options.restartWindowMs ?? 60_000,
    })[0];
    this.initialLifecycle = behavior.machine ? initialTransition(behavior.machine)[0] : null;
    this.lifecycleSteps = behavior.machine ? new LifecycleSteps(behavior.machine as AnyStateMachine) : null;
  }

  get size(): number {
    return this.residents.size;
  }

  /** Marks the start (a performance.now() reading) and the end (0) of a batch of deliveries. */
  batch(now: number): void {
    this.batchNow = now;
  }

  /** Whether its kind takes events of this type. */
  takesType(type: string): boolean {
    return this.takes.has(type);
  }

  /**
   * Routes one event of a type its kind takes to the actors it concerns (the router
   * calls it): `index` 0 for the ingest event of `seq`, k for the k-th derived event
   * of that seq.
   */
  deliver(event: ActorEvent, seq: number, index: number): void {
    if (seq > this.appliedSeq) this.appliedSeq = seq;
    const keys = this.behavior.route(event);
    if (keys === undefined) return;
    if (typeof keys === 'string') this.deliverTo(keys, event, seq, index);
    else for (const key of keys) this.deliverTo(key, event, seq, index);
  }

  /** The state of one actor for reading, activated from its snapshot; undefined if it never existed. */
  get(key: string): Readonly<S> | undefined {
    const resident = this.residents.get(key) ?? this.activate(key, false);
    if (!resident) return undefined;
    this.touch(resident);
    return resident.state;
  }

  /**
   * The state of one actor for a read in the background (the ranking feeds' recompute,
   * the research refresh), which must not decide what stays resident: a resident actor
   * is read where it is, its place in the LRU order kept (so that what only such reads
   * reach is what `evictOverBound` takes first, not the pools trades keep changing); a
   * passivated one is activated while the kind is under `residentMax`, past it read
   * from its snapshot (or its passivation still in transit) and dropped after the read.
   * What the read changes in a state so read is not kept. Undefined if it never existed.
   */
  peek(key: string): Readonly<S> | undefined {
    const resident = this.residents.get(key);
    if (resident) return resident.state;
    const moving = this.inTransit.get(key);
    if (moving) return moving.resident.state;
    if (this.residents.size < (this.options.residentMax ?? Infinity) && (this.budget === null || this.budget.bytes < this.budget.max)) return this.activate(key, false)?.state;
    if (this.absent.has(key)) return undefined;
    const id = this.idOf(key);
    const snapshot = this.options.storage.snapshots.get(id) as Snapshot<PersistedActor> | undefined;
    if (!snapshot) return this.activate(key, false)?.state;
    const transient = this.newResident(key, id, snapshot);
    this.load(transient, snapshot);
    return transient.state;
  }

  /** Stamps a use and moves the actor to the recent end of `residents` (once per stamp). */
  private touch(resident: Resident<S>): void {
    const now = this.batchNow || performance.now();
    if (resident.lastUsed === now) return;
    resident.lastUsed = now;
    this.residents.delete(resident.key);
    this.residents.set(resident.key, resident);
    // Once per batch: what the previous batches made of it (a wallet's new positions).
    this.charge(resident);
  }

  /** Counts the actor's heap estimate now (ActorBehavior.sizeOf) in place of the one counted before. */
  private charge(resident: Resident<S>): void {
    if (this.unsavedOf !== null) {
      const unsaved = this.unsavedOf(resident.state);
      this.unsavedTotal += unsaved - resident.unsaved;
      resident.unsaved = unsaved;
    }
    const bytes = this.behavior.sizeOf ? this.behavior.sizeOf(resident.state) : ACTOR_BYTES_DEFAULT;
    const change = bytes - resident.bytes;
    if (change === 0) return;
    resident.bytes = bytes;
    this.residentBytes += change;
    if (this.budget !== null) this.budget.bytes += change;
  }

  /** Takes a resident leaving memory out of the byte count. */
  private release(resident: Resident<S>): void {
    this.unsavedTotal -= resident.unsaved;
    resident.unsaved = 0;
    this.residentBytes -= resident.bytes;
    if (this.budget !== null) this.budget.bytes -= resident.bytes;
    resident.bytes = 0;
  }

  /** Estimated heap of its resident actors, in bytes (ActorBehavior.sizeOf; for tests and diagnostics). */
  get bytes(): number {
    return this.residentBytes;
  }

  /** The part of `bytes` its residents hold unsaved (ActorBehavior.unsavedBytes; 0 without `persistAt`). */
  get unsavedBytes(): number {
    return this.unsavedTotal;
  }

  /** Its residents' keys and last uses, least recently used first (evictOverBytes merges the hosts' orders). */
  leastRecentlyUsed(): Iterator<{ readonly key: string; readonly lastUsed: number; readonly bytes: number }> {
    return this.residents.values();
  }

  /** Resident actors past the bound (`residentMax`); 0 when within it. */
  get overBound(): number {
    const max = this.options.residentMax ?? Infinity;
    return this.residents.size > max ? this.residents.size - max : 0;
  }

  /**
   * Residents evictOverBound must leave for now: changed since a snapshot of theirs that
   * is still being written (see there). What the bound may be overshot by until those
   * writes commit (a count over the residents: for tests and diagnostics, not per event).
   */
  heldInFlight(): number {
    let held = 0;
    for (const resident of this.residents.values()) if (resident.pendingWrite !== null && resident.dirty) held++;
    return held;
  }

  /** heldInFlight's actors' heap estimates: what the byte bound may be overshot by until their writes commit. */
  heldInFlightBytes(): number {
    let held = 0;
    for (const resident of this.residents.values()) if (resident.pendingWrite !== null && resident.dirty) held += resident.bytes;
    return held;
  }

  /**
   * Passivates the least recently used actors until the kind is within `residentMax`,
   * as an idle sweep would (snapshot, then dropped; in transit until it commits). One
   * whose snapshot holds something back stays, as in passivateIfIdle. Safe between any
   * two deliveries: a batch's events are committed before they are applied, and a
   * snapshot records the seq applied so far. Returns how many were passivated. With a
   * `deadline` (performance.now()), checked before each but the first (so that each call
   * gets on), it stops there: the rest are evicted by a later call (Applier: in the next
   * turns).
   */
  evictOverBound(deadline = Infinity): number {
    let excess = this.overBound;
    if (excess === 0) return 0;
    let evicted = 0;
    for (const resident of this.residents.values()) {
      if (excess === 0) break;
      if (deadline !== Infinity && evicted > 0 && performance.now() >= deadline) break;
      if (!this.evictResident(resident)) continue;
      excess--;
      evicted++;
    }
    return evicted;
  }

  /**
   * Passivates one resident for a bound (evictOverBound, evictOverBytes), unless it must
   * stay for now (see evictResident). True when it was passivated.
   */
  evictOne(key: string): boolean {
    const resident = this.residents.get(key);
    return resident !== undefined && this.evictResident(resident);
  }

  private evictResident(resident: Resident<S>): boolean {
    // Changed since its last snapshot, which is still in flight (it was passivated and
    // came back from inTransit, or a checkpoint wrote it): what that snapshot wrote
    // beside it (a pool's trades) is not committed either, so a snapshot now would
    // hold the new changes back. It goes at a later batch, once committed; one not
    // changed since goes now (into inTransit until the commit), as after a checkpoint.
    if (resident.pendingWrite !== null && resident.dirty) return false;
    this.beforeEvict?.(resident.key);
    if (resident.dirty) {
      this.writeSnapshot(resident);
      if (resident.dirty) return false;
    }
    this.beforePassivate?.(resident.key, resident.state);
    this.passivate(resident);
    this.options.metrics.actorEvictions.inc({ kind: this.kind });
    return true;
  }

  /**
   * Runs `change` on one actor's state (activated from its snapshot if need be) and marks
   * the actor dirty, so that its next snapshot, at a checkpoint or at passivation, holds
   * the change: the one way code outside `apply` changes an actor's state. For changes
   * that are not ingest events, as the publisher's periodic taking of a pool's candle
   * changes (each taking a `seq` handed to clients). Changed in place behind the host's
   * back, an actor snapshotted just before and passivated clean would write nothing and
   * come back without it. `change` is one of the actor kind's own functions; what it
   * returns is handed back. Undefined when the actor never existed (unless `create`: it
   * is made from `initial`, for actors no event reaches, as the ranking books the
   * ticker's recompute fills) or is stopped.
   */
  update<R>(key: string, change: (state: S) => R, create = false): R | undefined {
    if (this.stopped.size > 0 && this.stopped.has(key)) return undefined;
    const resident = this.residents.get(key) ?? this.activate(key, create);
    if (!resident) return undefined;
    this.beforeApply?.(key);
    // First: should it throw part-way, what it changed is snapshotted all the same.
    resident.dirty = true;
    return change(resident.state);
  }

  /**
   * The seq of the last event a resident actor applied (a version of its state for
   * caches); undefined when it is not in memory (reading it would activate it).
   */
  versionOf(key: string): number | undefined {
    return this.residents.get(key)?.seq;
  }

  /**
   * The seq of the last event any of its actors was given: unchanged, no actor of the
   * host changed (for caches that read many of them, as trade records read labels).
   */
  get version(): number {
    return this.changedSeq;
  }

  /** The lifecycle state value of an actor, if its kind has a machine. */
  lifecycle(key: string): unknown {
    const resident = this.residents.get(key) ?? this.activate(key, false);
    return resident?.lifecycle?.value;
  }

  /** The supervision state of an actor: active, restarting or stopped. */
  supervision(key: string): string {
    if (this.stopped.has(key)) return 'stopped';
    return String(this.residents.get(key)?.supervision.value ?? 'active');
  }

  isResident(key: string): boolean {
    return this.residents.has(key);
  }

  /** Keys of the actors unused for idleMs at `now` (the engine passivates them, in slices or not). */
  idleKeys(now: number): string[] {
    const keys: string[] = [];
    for (const resident of this.residents.values()) if (now - resident.lastUsed >= this.options.idleMs) keys.push(resident.key);
    return keys;
  }

  /**
   * Passivates one actor if it is still resident and still idle at `now` (it may have
   * been used since it was listed). One whose snapshot holds something back (a write
   * of its own still in flight) stays until a later checkpoint has written it: dropped,
   * that would wait in its snapshot until something activated the actor again, and
   * what reads stored data alone (the wallet order of trades) would not see it.
   */
  passivateIfIdle(key: string, now: number): boolean {
    const resident = this.residents.get(key);
    if (!resident || now - resident.lastUsed < this.options.idleMs) return false;
    if (resident.dirty) {
      this.writeSnapshot(resident);
      if (resident.dirty) return false;
    }
    this.beforePassivate?.(resident.key, resident.state);
    this.passivate(resident);
    return true;
  }

  /**
   * Keys of the actors changed since their last snapshot, or whose last snapshot held
   * something back (the engine's checkpoint snapshots them, each once per checkpoint).
   */
  dirtyKeys(): string[] {
    const keys: string[] = [];
    for (const resident of this.residents.values()) if (resident.dirty) keys.push(resident.key);
    return keys;
  }

  /**
   * Snapshots one actor if it is still resident and changed (between the slices of a
   * checkpoint it may have been passivated, which wrote its snapshot, or snapshotted).
   */
  snapshotIfDirty(key: string): boolean {
    const resident = this.residents.get(key);
    if (!resident?.dirty) return false;
    this.writeSnapshot(resident);
    return true;
  }

  /**
   * Snapshots the residents whose unsaved bytes passed `persistAt` at an event since the
   * last call (a pool's trades not in the trades store yet), and keeps them resident:
   * their estimate falls at their next use (sizeOf), where waiting for a checkpoint let
   * a fast replay's unsaved trades grow by tens of MiB between two, past the byte bound,
   * and the bound then passivated actors that trade again at once (each read back from
   * its snapshot). Only under `pressure` (evictOverBound decides: the byte bound filling
   * and unsaved bytes a large part of it); otherwise an early snapshot is a write the
   * next checkpoint makes anyway, and the list is let go (each comes back at its next
   * event). One whose last snapshot is still being written waits for a later event (its
   * trades would be held back: the pool's beforeSnapshot). Between two events, as
   * evictions are. With a `deadline` (performance.now()), checked before each but the
   * first, it stops there and the rest wait for the next call.
   */
  persistHeavy(pressure: boolean, deadline = Infinity): void {
    const heavy = this.heavy;
    if (heavy.length === 0) return;
    let i = 0;
    for (; i < heavy.length; i++) {
      const resident = heavy[i]!;
      if (pressure) {
        if (deadline !== Infinity && i > 0 && performance.now() >= deadline) break;
        if (resident.dirty && resident.pendingWrite === null && this.residents.get(resident.key) === resident) {
          this.writeSnapshot(resident);
          this.options.metrics.actorEarlySnapshots.inc({ kind: this.kind });
        }
      }
      resident.heavy = false;
    }
    heavy.splice(0, i);
  }

  /** Snapshots and drops every actor, for shutdown. */
  passivateAll(): void {
    for (const resident of this.residents.values()) this.passivate(resident);
  }

  private passivate(resident: Resident<S>): void {
    // A snapshot that held something back (still dirty) drops the actor all the same:
    // activated again, from inTransit or from that snapshot, it is dirty.
    if (resident.dirty) this.writeSnapshot(resident);
    // Its latest snapshot, from now or from a checkpoint just before, may not be
    // committed yet: until it is, activation takes the actor from here, not LMDB.
    const write = resident.pendingWrite;
    if (write) {
      const entry = { resident, write };
      this.inTransit.set(resident.key, entry);
      // Only this entry: the actor may come back and be passivated again meanwhile,
      // and its newer snapshot is then the one in transit.
      const settle = () => {
        if (this.inTransit.get(resident.key) === entry) this.inTransit.delete(resident.key);
      };
      write.then(settle, settle);
    }
    this.residents.delete(resident.key);
    this.release(resident);
    this.options.metrics.actorPassivations.inc({ kind: this.kind });
    this.options.metrics.actorsAlive.dec({ kind: this.kind });
  }

  private writeSnapshot(resident: Resident<S>): Promise<boolean> {
    const heldBack = this.behavior.beforeSnapshot?.(resident.state, resident.key) === true;
    const persisted: PersistedActor = {
      state: this.behavior.toSnapshot ? this.behavior.toSnapshot(resident.state) : resident.state,
      run: this.run,
      epoch: this.options.epochs.current,
    };
    if (heldBack) persisted.heldBack = true;
    if (resident.lifecycle && resident.lifecycle !== this.initialLifecycle) {
      persisted.lifecycle = { value: resident.lifecycle.value, context: resident.lifecycle.context };
    }
    resident.seq = Math.max(resident.seq, this.appliedSeq);
    resident.open = false;
    const write = this.options.storage.putSnapshot(resident.id, { seq: resident.seq, state: persisted } satisfies Snapshot);
    // Still dirty when something was held back: the next checkpoint snapshots it again.
    resident.dirty = heldBack;
    resident.pendingWrite = write;
    const settle = () => {
      if (resident.pendingWrite === write) resident.pendingWrite = null;
    };
    write.then(settle, settle);
    return write;
  }

  private idOf(key: string): string {
    return `${this.kind}:${key}`;
  }

  /** Loads an actor from its snapshot, or creates it when `create`; undefined otherwise. */
  private activate(key: string, create: boolean): Resident<S> | undefined {
    const id = this.idOf(key);
    const moving = this.inTransit.get(key);
    if (moving) {
      this.inTransit.delete(key);
      this.residents.set(key, moving.resident);
      this.charge(moving.resident);
      this.options.metrics.actorsAlive.inc({ kind: this.kind });
      return moving.resident;
    }
    if (!create && this.absent.has(key)) return undefined;
    const snapshot = this.options.storage.snapshots.get(id) as Snapshot<PersistedActor> | undefined;
    if (!snapshot && !create) {
      // Bounded: past the bound it starts over (a miss costs one LMDB read again).
      if (this.absent.size >= ABSENT_MAX) this.absent.clear();
      this.absent.add(key);
      return undefined;
    }
    this.absent.delete(key);
    const resident = this.newResident(key, id, snapshot);
    this.load(resident, snapshot);
    this.residents.set(key, resident);
    this.charge(resident);
    this.options.metrics.actorsAlive.inc({ kind: this.kind });
    return resident;
  }

  private newResident(key: string, id: string, snapshot: Snapshot<PersistedActor> | undefined): Resident<S> {
    return {
      key,
      id,
      state: undefined as S,
      seq: 0,
      open: false,
      lifecycle: this.initialLifecycle,
      supervision: this.initialSupervision,
      lastUsed: this.batchNow || performance.now(),
      dirty: snapshot?.state.heldBack === true,
      pendingWrite: null,
      bytes: 0,
      heavy: false,
      unsaved: 0,
    };
  }

  /**
   * The actor from its snapshot, or new. The snapshot is stale (older than the state the
   * actor last had, and showed) when another run wrote it, since that run may have gone
   * on past it before it crashed, or when `rebuilding`; one this run wrote at
   * passivation is the actor's latest state. A stale load moves the actor's
   * never-repeated numbers on by the epochs passed since the snapshot (StaleEpochs).
   */
  private load(resident: Resident<S>, snapshot: Snapshot<PersistedActor> | undefined, rebuilding = false): void {
    const { behavior } = this;
    const { epochs } = this.options;
    resident.open = false;
    if (!snapshot) {
      // Built again from the log: past every seq an earlier build may have handed out.
      const gaps = rebuilding ? epochs.advance() : this.recovering ? epochs.current : 0;
      resident.state = behavior.initial(resident.key, gaps);
      resident.seq = 0;
      resident.lifecycle = this.initialLifecycle;
      return;
    }
    const data = snapshot.state.state;
    const stale = rebuilding || snapshot.state.run !== this.run;
    // As many gaps as epochs have passed since it was written: two loads of one snapshot never move it on alike.
    const gaps = stale ? Math.max(1, (rebuilding ? epochs.advance() : epochs.current) - (snapshot.state.epoch ?? 0)) : 0;
    resident.state = behavior.fromSnapshot ? behavior.fromSnapshot(data, gaps) : (data as S);
    resident.seq = snapshot.seq;
    resident.lifecycle = this.lifecycleSteps && snapshot.state.lifecycle ? this.lifecycleSteps.resolve(snapshot.state.lifecycle) : this.initialLifecycle;
  }

  private deliverTo(key: string, event: ActorEvent, seq: number, index: number): void {
    this.changedSeq = seq;
    if (this.stopped.size > 0 && this.stopped.has(key)) {
      this.options.deadLetter('actor', `actor ${this.idOf(key)} is stopped after repeated crashes`, event, `actor:${this.idOf(key)}`, { seq, type: event.type });
      return;
    }
    const resident = this.residents.get(key) ?? this.activate(key, true)!;
    this.touch(resident);
    // Already in its state: an earlier seq, or this one from its snapshot (a snapshot is
    // taken between seqs, so it holds the seq's derived events too). A derived event of
    // the seq a live delivery brought it to is no repeat.
    if (seq < resident.seq || (seq === resident.seq && (index === 0 || !resident.open))) {
      // Start-up replay of an event its snapshot holds: what it derived, once more.
      if (this.rederives) this.rederiveOne(resident, event, seq);
      return;
    }
    this.beforeApply?.(key);
    const live = this.live;
    live.key = key;
    live.event = event;
    live.seq = seq;
    this.applying = live;
    const router = this.options.router;
    const mark = router.emitted;
    try {
      this.seqNow = seq;
      this.applyOne(resident, event);
      resident.seq = seq;
      resident.open = true;
      resident.dirty = true;
      const unsavedOf = this.unsavedOf;
      if (unsavedOf !== null && !resident.heavy && unsavedOf(resident.state) >= this.persistAt) {
        resident.heavy = true;
        this.heavy.push(resident);
      }
    } catch (err) {
      // What the failed apply emitted goes with it.
      router.dropEmitted(mark);
      this.recover(resident, event, seq, index, mark, err as Error);
    } finally {
      this.applying = null;
      live.event = null as unknown as ActorEvent;
    }
  }

  /** Re-derives one event the actor already holds (ActorBehavior.rederive); a throw loses only what it emitted. */
  private rederiveOne(resident: Resident<S>, event: ActorEvent, seq: number): void {
    const router = this.options.router;
    const mark = router.emitted;
    try {
      this.seqNow = seq;
      this.behavior.rederive!(resident.state, event, this.ctx);
    } catch (err) {
      router.dropEmitted(mark);
      this.options.log.error({ actor: resident.id, seq, type: event.type, err }, 'actor threw re-deriving an event; what it derived from it is lost');
    }
  }

  /** For a rebuild of another actor (Router.replayInto): every actor of this kind `event` goes to re-derives it. */
  rederiveAll(event: ActorEvent, seq: number): void {
    const keys = this.behavior.route(event);
    if (keys === undefined) return;
    if (typeof keys === 'string') this.rederiveAt(keys, event, seq);
    else for (const key of keys) this.rederiveAt(key, event, seq);
  }

  private rederiveAt(key: string, event: ActorEvent, seq: number): void {
    if (this.stopped.size > 0 && this.stopped.has(key)) return;
    const resident = this.residents.get(key) ?? this.activate(key, false);
    if (resident) this.rederiveOne(resident, event, seq);
  }

  /**
   * For a rebuild (Router.replayInto): applies `event` to the actor `key` being rebuilt
   * if it goes to it (and is no poison there); with `others`, every other actor of this
   * kind it goes to re-derives it.
   */
  replayDelivery(key: string, event: ActorEvent, seq: number, index: number, others: boolean): void {
    const keys = this.behavior.route(event);
    if (keys === undefined) return;
    if (typeof keys === 'string') this.replayTo(keys, key, event, seq, index, others);
    else for (const k of keys) this.replayTo(k, key, event, seq, index, others);
  }

  private replayTo(to: string, key: string, event: ActorEvent, seq: number, index: number, others: boolean): void {
    if (to !== key) {
      if (others) this.rederiveAt(to, event, seq);
      return;
    }
    const resident = this.residents.get(key)!;
    if (this.isPoison(this.poisonKey(resident.id, seq, index))) return;
    this.seqNow = seq;
    this.applyOne(resident, event);
  }

  /** The poison mark of a delivery: its seq, and for a derived event its index within the seq. */
  private poisonKey(id: string, seq: number, index: number): string {
    return index === 0 ? `poison|${id}|${seq}` : `poison|${id}|${seq}.${index}`;
  }

  private applyOne(resident: Resident<S>, event: ActorEvent): void {
    const lifecycleEvent = this.behavior.apply(resident.state, event, this.ctx);
    if (lifecycleEvent && resident.lifecycle) {
      resident.lifecycle = this.lifecycleSteps!.step(resident.lifecycle, lifecycleEvent);
    }
  }

  /**
   * The actor threw on `event`: rebuild it from its last snapshot plus its events before
   * `seq` (history) and try the event once more; if it throws again, the event goes to dead
   * letters and the actor goes on without it.
   */
  private recover(resident: Resident<S>, event: ActorEvent, seq: number, index: number, mark: number, err: Error): void {
    const { log, metrics, storage } = this.options;
    metrics.actorRestarts.inc({ kind: this.kind });
    resident.supervision = transition(supervisionMachine, resident.supervision, { type: 'actor.crash', at: this.options.clock.now() })[0];
    if (resident.supervision.value === 'stopped') {
      log.error({ actor: resident.id, seq, err }, 'actor stopped: too many restarts');
      this.stop(resident, event, seq, `actor ${resident.id} stopped after repeated crashes: ${err.message}`);
      return;
    }
    const poisonKey = this.poisonKey(resident.id, seq, index);
    const knownPoison = this.isPoison(poisonKey);
    log.error({ actor: resident.id, seq, type: event.type, err }, knownPoison ? 'actor threw on a known poison event; skipping it' : 'actor threw; restarting from its snapshot and the log');
    if (!this.tryRebuild(resident, event, seq)) return;
    let poisoned = knownPoison;
    if (!knownPoison) {
      try {
        this.seqNow = seq;
        this.applyOne(resident, event);
      } catch (again) {
        this.options.router.dropEmitted(mark);
        poisoned = true;
        if (!this.tryRebuild(resident, event, seq)) return;
        this.options.deadLetter('actor', `actor ${resident.id} threw twice: ${(again as Error).message}`, event, `actor:${resident.id}`, { seq, type: event.type });
        this.poisonPending.add(poisonKey);
        const settle = () => this.poisonPending.delete(poisonKey);
        storage.meta.put(poisonKey, true).then(settle, settle);
      }
    }
    if (poisoned) log.warn({ actor: resident.id, seq }, 'poison event skipped');
    resident.seq = seq;
    resident.open = true;
    resident.dirty = true;
    resident.supervision = transition(supervisionMachine, resident.supervision, { type: 'actor.restored' })[0];
  }

  /**
   * Rebuilds the actor; false when the rebuild itself threw (an unreadable snapshot, or
   * an event that applied live but throws on replay): the actor is then stopped like one
   * that crashed too often, and `event` goes to dead letters. Nothing escapes to the
   * caller, which is the gate applying a batch: one actor's failure never stops ingest.
   */
  private tryRebuild(resident: Resident<S>, event: ActorEvent, seq: number): boolean {
    try {
      this.rebuild(resident, seq);
      return true;
    } catch (err) {
      this.options.log.error({ actor: resident.id, seq, err }, 'actor stopped: its rebuild threw');
      this.stop(resident, event, seq, `actor ${resident.id} stopped: its rebuild threw: ${(err as Error).message}`);
      return false;
    }
  }

  /** Drops a broken actor for good (until restart); later events for it go to dead letters. */
  private stop(resident: Resident<S>, event: ActorEvent, seq: number, reason: string): void {
    this.residents.delete(resident.key);
    this.release(resident);
    this.stopped.add(resident.key);
    this.options.metrics.actorsAlive.dec({ kind: this.kind });
    this.options.deadLetter('actor', reason, event, `actor:${resident.id}`, { seq, type: event.type });
  }

  private isPoison(poisonKey: string): boolean {
    return this.poisonPending.has(poisonKey) || this.options.storage.meta.doesExist(poisonKey);
  }

  /**
   * Reloads the actor's last committed snapshot and replays what it took after it, up
   * to the delivery under way (Router.replayInto: its events, and for a kind that takes
   * derived events those recomputed). A newer snapshot still in flight (pendingWrite) is
   * not needed: the committed one is older, and the gate's history holds every event
   * after it, committed or not.
   */
  private rebuild(resident: Resident<S>, _beforeSeq: number): void {
    const applying = this.applying;
    this.applying = null;
    try {
      this.load(resident, this.options.storage.snapshots.get(resident.id) as Snapshot<PersistedActor> | undefined, true);
      this.options.router.replayInto(this, resident.key, resident.seq);
    } finally {
      this.applying = applying;
    }
  }
}
