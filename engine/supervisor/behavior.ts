import type { AnyStateMachine, EventObject } from 'xstate';
import type { Clock } from '../clock.ts';
import type { IngestEvent } from '../ingest/events.ts';

export interface ActorContext {
  clock: Clock;
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
  /** The keys of the actors of this kind an event goes to; undefined for none. */
  route(event: IngestEvent): string | readonly string[] | undefined;
  initial(key: string): S;
  /**
   * Applies one event to the state, in place. Throwing marks the actor broken: the
   * supervisor rebuilds it from its snapshot and the log. May return a lifecycle
   * event for `machine`.
   */
  apply(state: S, event: IngestEvent, ctx: ActorContext): EventObject | void;
  /** The kind's lifecycle; its state is persisted with the actor's snapshot. */
  readonly machine?: AnyStateMachine;
  /** Plain data to persist (msgpack); default: the state itself. */
  toSnapshot?(state: S): unknown;
  fromSnapshot?(data: unknown): S;
}
