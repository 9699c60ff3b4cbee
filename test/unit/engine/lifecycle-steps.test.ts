import { describe, expect, it } from 'vitest';
import { assign, initialTransition, setup, transition, type EventObject } from 'xstate';
import { poolMachine } from '../../../actors/pool/pool.machine.ts';
import { LifecycleSteps } from '../../../engine/supervisor/lifecycle-steps.ts';

/** A machine whose context changes: its steps must never come from a kept answer. */
const counting = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'inc' } | { type: 'stop' } },
}).createMachine({
  context: { n: 0 },
  initial: 'counting',
  states: {
    counting: { on: { inc: { actions: assign({ n: ({ context }) => context.n + 1 }) }, stop: [{ guard: ({ context }) => context.n >= 2, target: 'done' }] } },
    done: {},
  },
});

/** pool.machine.ts's creation event (its guard reads `curve`). */
const created = (curve: boolean): EventObject => ({ type: 'pool.created', curve }) as EventObject;

describe('LifecycleSteps', () => {
  it("gives xstate transition()'s answer, the event's fields part of the key (pool.created's curve guard), and the same snapshot for the same step", () => {
    const steps = new LifecycleSteps(poolMachine);
    const initial = initialTransition(poolMachine)[0];
    const curve = steps.step(initial, created(true));
    const amm = steps.step(initial, created(false));
    expect(curve.value).toBe(transition(poolMachine, initial, { type: 'pool.created', curve: true })[0].value);
    expect(curve.value).toBe('curve');
    expect(amm.value).toBe('trading');
    expect(steps.step(initial, created(true))).toBe(curve);
    const complete = steps.step(curve, { type: 'pool.completed' });
    expect(complete.value).toBe('complete');
    // No transition on a repeat: the state stays, as transition() says.
    expect(steps.step(complete, { type: 'pool.completed' }).value).toBe('complete');
    expect(steps.step(complete, { type: 'pool.graduated' }).status).toBe('done');
    // A snapshot loaded from one the host persisted ({ value, context }).
    const loaded = steps.resolve({ value: 'complete', context: undefined });
    expect(loaded.value).toBe('complete');
    expect(steps.resolve({ value: 'complete', context: undefined })).toBe(loaded);
    expect(steps.step(loaded, { type: 'pool.graduated' }).value).toBe('graduated');
  });

  it('computes every step of a snapshot with context (its answer depends on more than the value)', () => {
    const steps = new LifecycleSteps(counting);
    let s = initialTransition(counting)[0];
    s = steps.step(s, { type: 'stop' });
    expect(s.value).toBe('counting');
    s = steps.step(s, { type: 'inc' });
    s = steps.step(s, { type: 'inc' });
    expect(s.context).toEqual({ n: 2 });
    s = steps.step(s, { type: 'stop' });
    expect(s.value).toBe('done');
    const resolved = steps.resolve({ value: 'counting', context: { n: 5 } });
    expect(resolved.context).toEqual({ n: 5 });
    expect(steps.step(resolved, { type: 'stop' }).value).toBe('done');
  });
});
