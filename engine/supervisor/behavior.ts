import type { AnyStateMachine, EventObject } from 'xstate';
import type { Clock } from '../clock.ts';
import type { IngestEvent } from '../ingest/index.ts';
import type { DerivedEvent } from '../model/index.ts';

/** What reaches an actor: an ingest event, or a derived event another actor emitted (engine/model/derived.ts). */
export type ActorEvent = IngestEvent | DerivedEvent;

export interface ActorContext {
  clock: Clock;
  /**
   * Reads another actor's state (activating it from its snapshot), or undefined.
   * Deterministic: actors apply events synchronously in seq order, so a read sees
   * every event before the current one and none after it.
   */
  read<T = unknown>(kind: string, key: string): Readonly<T> | undefined;
  /**
   * Reads another actor's state as `read` does, for a read in the background that must
   * not decide what stays resident (ActorHost.peek): a resident actor keeps its place in
   * the LRU order, a passivated one past the resident bound is read from its snapshot and
   * dropped. The same state `read` gives; not to be changed.
   */
  peek<T = unknown>(kind: string, key: string): Readonly<T> | undefined;
  /**
   * Sends the event being applied to dead letters with this reason (the actor keeps
   * going; the event stays in the ingest log). For input the actor cannot take, e.g.
   * a bound on what it holds waiting.
   */
  reject(reason: string): void;
  /**
   * Emits a derived event: the router (router.ts) delivers it after every host of the
   * event being applied, in emission order, under its seq, to the hosts whose kind
   * `takes` its type (and to live-layer subscribers). The event object is handed on as
   * it is: not to be changed afterwards. Emitted by an apply that then throws, it is
   * dropped with the rest of that apply.
   */
  emit(event: DerivedEvent): void;
  /** The seq of the event being applied (a derived event has the seq of the ingest event that caused it). */
  readonly seq: number;
}

/**
 * One kind of actor (pool, token, quote price...). Its numbers live in a plain
 * mutable state object that `apply` changes in place; its lifecycle, if it has one,
 * is an xstate machine that `apply` drives by returning an event. Per-event work
 * never goes through xstate.
 */
export interface ActorBehavior<S = unknown> {
  /** Actor ids are `<kind>:<key>`. */
  readonly kind: string;
  /**
   * The event types this kind takes, ingest (`swap`, `balance`...) and derived
   * (`pool.trade`...): the router's table. An event reaches only the hosts that take
   * its type; `route` sees no other.
   */
  readonly takes: readonly string[];
  /**
   * The derived event types its apply may emit. Optional; when given, the router calls
   * `rederive` only while some host takes one of them.
   */
  readonly emits?: readonly string[];
  /** The keys of the actors of this kind an event goes to; undefined for none. */
  route(event: ActorEvent): string | readonly string[] | undefined;
  /**
   * A new actor's state. `staleGaps` above 0: the actor may have existed before, in an
   * earlier run (it is being built from events that run logged, with no snapshot) or in
   * this one (a rebuild with no snapshot to start from): as for fromSnapshot, a number
   * it hands out and promises never to repeat must start at `staleGaps` gaps, past
   * anything that earlier actor (or an earlier such build) handed out. 0 or undefined:
   * a new actor.
   */
  initial(key: string, staleGaps?: number): S;
  /**
   * Applies one event to the state, in place. Throwing marks the actor broken: the
   * supervisor rebuilds it from its snapshot and the log. May return a lifecycle
   * event for `machine`.
   */
  apply(state: S, event: ActorEvent, ctx: ActorContext): EventObject | void;
  /**
   * For a kind that emits: emits again (ctx.emit), in the same order, exactly what its
   * apply emitted for `event` when it applied it, without changing the state. Called
   * for an event the actor has already applied (its snapshot, or a state past it, holds
   * it) when derived events are recomputed: on start-up replay, for an event at or
   * before the actor's snapshot seq, and when another actor is rebuilt, for the events
   * of its history (router.ts). The state is the actor's current one, which may be past
   * `event`: what was emitted must be found from what the state keeps (a stored trade
   * by its key...), and `ctx.seq` is the event's. A kind with no rederive emits nothing
   * then, and a consumer whose snapshot is older than an emitter's misses what the
   * emitter derived in between.
   */
  rederive?(state: Readonly<S>, event: ActorEvent, ctx: ActorContext): void;
  /** The kind's lifecycle; its state is persisted with the actor's snapshot. */
  readonly machine?: AnyStateMachine;
  /**
   * Called right before the actor's snapshot is written, in the same event turn and so
   * the same LMDB transaction: the place to write what the snapshot stops holding.
   * Returns true when it held something back that a later snapshot must write (e.g. a
   * write of its own still in flight): the host then keeps the actor dirty, so the next
   * checkpoint snapshots it again even if no event comes (one checkpoint snapshots an
   * actor at most once), and an actor passivated so is dirty again when activated.
   */
  beforeSnapshot?(state: S, key: string): boolean | void;
  /**
   * The actor's JS heap in bytes, estimated (the resident bound by bytes, config
   * `actors.residentBytesMax`: engine/supervisor/budget.ts); default ACTOR_BYTES_DEFAULT.
   * Called when the actor becomes resident and at its first use in each batch: cheap
   * (counts of what it holds times sizes measured once), not a walk over its state.
   */
  sizeOf?(state: Readonly<S>): number;
  /**
   * The part of `sizeOf` its next snapshot lets go of (a pool's trades not in the trades
   * store yet, written beside its snapshot), in bytes: past the host's `persistAt` after
   * an event, while the byte bound is filling, the host snapshots it after the batch and
   * keeps it resident (ActorHost.persistHeavy). Called after each event it applies: cheap.
   */
  unsavedBytes?(state: Readonly<S>): number;
  /** Plain data to persist (msgpack); default: the state itself. */
  toSnapshot?(state: S): unknown;
  /**
   * The state from `toSnapshot`'s data. `staleGaps` above 0: the snapshot may be older
   * than the state the actor last had and showed (written by an earlier run of the
   * engine, which may have gone on past it before a crash, or reloaded to rebuild the
   * actor): a number the actor hands out and promises never to repeat must then move
   * `staleGaps` gaps on (one gap is more than one run hands out), past anything it may
   * have handed out since; each later load of the same snapshot gets more gaps.
   */
  fromSnapshot?(data: unknown, staleGaps?: number): S;
}
