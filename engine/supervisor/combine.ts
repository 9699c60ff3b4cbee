import type { EventObject } from 'xstate';
import { ACTOR_BYTES_DEFAULT } from '../bounds.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from './behavior.ts';

/** Where a combined actor keeps the state of its second kind: a field of the first's state. */
export interface CombinedPart<A, B> {
  get(state: A): B;
  set(state: A, part: B): void;
  /** The actor's key, from the first kind's state (to start the second from its initial state). */
  keyOf(state: A): string;
}

/** A combined actor's snapshot: both parts; a snapshot without the marker is one `a` wrote alone. */
interface CombinedSnapshot {
  combined: 1;
  a: unknown;
  b: unknown;
}

/**
 * Two actor kinds keyed alike run as one actor of `a`'s kind, whose state is `a`'s with
 * `b`'s held in it (`part`): one delivery, one resident entry, one snapshot per key
 * where there were two. For kinds that take the same events for the same keys (the
 * token-traders and token-signals actors both take each trade of a token, keyed by the
 * token). An event goes to `a` if `a` takes its type, then to `b` if `b` does; its keys
 * are `a`'s route's for a type both take (their routes must agree on it), `b`'s for a
 * type only `b` takes. Neither may have a lifecycle machine. A snapshot `a` wrote alone
 * (before the two were combined) still reads: `b` then starts from its initial state.
 */
export function combineBehaviors<A, B>(a: ActorBehavior<A>, b: ActorBehavior<B>, part: CombinedPart<A, B>): ActorBehavior<A> {
  if (a.machine || b.machine) throw new Error(`combineBehaviors: ${a.kind} and ${b.kind} must have no lifecycle machine`);
  const aTakes = new Set(a.takes);
  const bTakes = new Set(b.takes);
  const emits = a.emits || b.emits ? [...new Set([...(a.emits ?? []), ...(b.emits ?? [])])] : undefined;
  const read = <S>(kind: ActorBehavior<S>, data: unknown, staleGaps?: number): S => (kind.fromSnapshot ? kind.fromSnapshot(data, staleGaps) : (data as S));
  const combined: ActorBehavior<A> = {
    kind: a.kind,
    takes: [...new Set([...a.takes, ...b.takes])],
    ...(emits ? { emits } : {}),
    route: (e: ActorEvent) => (aTakes.has(e.type) ? a.route(e) : b.route(e)),
    initial(key, staleGaps) {
      const state = a.initial(key, staleGaps);
      part.set(state, b.initial(key, staleGaps));
      return state;
    },
    apply(state, e, ctx: ActorContext): EventObject | void {
      const type = e.type;
      if (aTakes.has(type)) a.apply(state, e, ctx);
      if (bTakes.has(type)) b.apply(part.get(state), e, ctx);
    },
    sizeOf: (state) => (a.sizeOf ? a.sizeOf(state) : ACTOR_BYTES_DEFAULT) + (b.sizeOf ? b.sizeOf(part.get(state)) : ACTOR_BYTES_DEFAULT),
    toSnapshot: (state): CombinedSnapshot => {
      const inner = part.get(state);
      return { combined: 1, a: a.toSnapshot ? a.toSnapshot(state) : state, b: b.toSnapshot ? b.toSnapshot(inner) : inner };
    },
    fromSnapshot(data, staleGaps) {
      const both = data as Partial<CombinedSnapshot> | null;
      if (both !== null && typeof both === 'object' && both.combined === 1) {
        const state = read(a, both.a, staleGaps);
        part.set(state, read(b, both.b, staleGaps));
        return state;
      }
      const state = read(a, data, staleGaps);
      part.set(state, b.initial(part.keyOf(state), staleGaps));
      return state;
    },
  };
  if (a.rederive || b.rederive) {
    combined.rederive = (state, e, ctx) => {
      if (a.rederive && aTakes.has(e.type)) a.rederive(state, e, ctx);
      if (b.rederive && bTakes.has(e.type)) b.rederive(part.get(state), e, ctx);
    };
  }
  if (a.beforeSnapshot || b.beforeSnapshot) {
    combined.beforeSnapshot = (state, key) => {
      const heldA = a.beforeSnapshot?.(state, key) === true;
      const heldB = b.beforeSnapshot?.(part.get(state), key) === true;
      return heldA || heldB;
    };
  }
  return combined;
}
