import { transition, type AnyMachineSnapshot, type AnyStateMachine, type EventObject } from 'xstate';

/** Distinct (state, event) answers kept per machine: past it, further ones are computed each time (still right). */
const STEPS_MAX = 256;

/**
 * An actor kind's lifecycle transitions (ActorBehavior.machine), each (state, event)
 * computed once by xstate's pure `transition()` and its answer kept. That call builds an
 * inert actor and the machine's initial snapshot every time (15 µs warm, ~60 µs cold
 * here), where a pool steps its lifecycle once when created and on every trade of a
 * complete curve: 1,000 pools created cost 40-57 ms of a 100,000-swap engine benchmark.
 *
 * An answer is reused only from a snapshot that is its state value and nothing else:
 * active, no context, no children, no history. From such a snapshot the next one is a
 * function of the value and the event (guards read only those, actions are returned,
 * not run, and the host keeps none), so the event is part of the key, as JSON (a guard
 * may read its fields: `pool.created`'s `curve`). Snapshots are never changed in place:
 * one answer is shared by every actor that reaches it. A snapshot with context or
 * children always goes to `transition()`.
 */
export class LifecycleSteps {
  private readonly steps = new Map<string, AnyMachineSnapshot>();
  private readonly resolved = new Map<string, AnyMachineSnapshot>();

  constructor(private readonly machine: AnyStateMachine) {}

  /** The snapshot after `event` from `from` (xstate `transition(machine, from, event)[0]`). */
  step(from: AnyMachineSnapshot, event: EventObject): AnyMachineSnapshot {
    if (!valueOnly(from)) return transition(this.machine, from, event)[0];
    const key = `${JSON.stringify(from.value)}|${JSON.stringify(event)}`;
    let to = this.steps.get(key);
    if (to === undefined) {
      to = transition(this.machine, from, event)[0];
      if (this.steps.size < STEPS_MAX) this.steps.set(key, to);
    }
    return to;
  }

  /** The snapshot of a persisted lifecycle (`machine.resolveState`), once per value when it has no context. */
  resolve(persisted: { value: unknown; context: unknown }): AnyMachineSnapshot {
    if (!isEmpty(persisted.context)) return this.machine.resolveState(persisted as never);
    const key = JSON.stringify(persisted.value);
    let snapshot = this.resolved.get(key);
    if (snapshot === undefined) {
      snapshot = this.machine.resolveState(persisted as never);
      if (this.resolved.size < STEPS_MAX && valueOnly(snapshot)) this.resolved.set(key, snapshot);
    }
    return snapshot;
  }
}

function isEmpty(x: unknown): boolean {
  if (x === undefined || x === null) return true;
  for (const _ in x as object) return false;
  return true;
}

/** A snapshot that is its value alone: active, no context, children or history. */
function valueOnly(s: AnyMachineSnapshot): boolean {
  return s.status === 'active' && isEmpty(s.context) && isEmpty(s.children) && isEmpty((s as { historyValue?: unknown }).historyValue);
}
