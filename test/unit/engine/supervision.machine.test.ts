import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { supervisionMachine } from '../../../engine/supervisor/supervision.machine.ts';

describe('supervisionMachine', () => {
  const start = () => initialTransition(supervisionMachine, { restartsMax: 2, windowMs: 1_000 })[0];

  it('restarts, then goes back to active', () => {
    let s = start();
    s = transition(supervisionMachine, s, { type: 'actor.crash', at: 0 })[0];
    expect(s.value).toBe('restarting');
    s = transition(supervisionMachine, s, { type: 'actor.restored' })[0];
    expect(s.value).toBe('active');
    expect(s.context.restarts).toEqual([0]);
  });

  it('stops after more than restartsMax crashes within the window', () => {
    let s = start();
    for (const at of [0, 10]) {
      s = transition(supervisionMachine, s, { type: 'actor.crash', at })[0];
      s = transition(supervisionMachine, s, { type: 'actor.restored' })[0];
    }
    s = transition(supervisionMachine, s, { type: 'actor.crash', at: 20 })[0];
    expect(s.value).toBe('stopped');
    expect(s.status).toBe('done');
  });

  it('forgets crashes older than the window', () => {
    let s = start();
    for (const at of [0, 10, 1_500, 1_600]) {
      s = transition(supervisionMachine, s, { type: 'actor.crash', at })[0];
      expect(s.value).toBe('restarting');
      s = transition(supervisionMachine, s, { type: 'actor.restored' })[0];
    }
    expect(s.context.restarts).toEqual([1_500, 1_600]);
  });
});
