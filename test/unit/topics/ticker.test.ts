import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../../engine/clock.ts';
import { silentLogger } from '../../../engine/log.ts';
import { Ticker } from '../../../engine/topics/ticker.ts';

/** The engine's ticker alone, on a hand-moved clock: when it ticks, and how a pass goes on. */

const ticker = (clock: SimulatedClock, sliceMs = 0) => new Ticker({ clock, sliceMs, log: silentLogger() });
/** A pass of `steps` steps that counts the steps it ran. */
function* pass(steps: number, ran: { steps: number }): Generator<void> {
  for (let i = 0; i < steps; i++) {
    ran.steps++;
    yield;
  }
}

describe('the ticker on the simulated clock', () => {
  it('ticks at each multiple of everyMs the clock reaches, once for a jump over several, never before start', () => {
    const clock = new SimulatedClock(500);
    const t = ticker(clock);
    const ticks: number[] = [];
    t.every('a', 1_000, (at) => void ticks.push(at));
    clock.set(1_000);
    t.observe();
    expect(ticks).toEqual([]); // not started
    t.start();
    t.observe();
    expect(ticks).toEqual([]); // the first multiple after the start's now: 2,000
    clock.set(1_999);
    t.observe();
    clock.set(2_000);
    t.observe();
    t.observe();
    expect(ticks).toEqual([2_000]);
    clock.set(5_500);
    t.observe();
    expect(ticks).toEqual([2_000, 5_000]);
    clock.set(5_999);
    t.advance();
    clock.set(6_000);
    t.advance();
    expect(ticks).toEqual([2_000, 5_000, 6_000]);
    t.stop();
    clock.set(9_000);
    t.observe();
    t.advance();
    expect(ticks).toEqual([2_000, 5_000, 6_000]);
  });

  it('ticks subscribers in the order they subscribed, each on its own period; everyMs 0 after every batch only', () => {
    const clock = new SimulatedClock(0);
    const t = ticker(clock);
    const ticks: string[] = [];
    t.every('fast', 250, (at) => void ticks.push(`fast ${at}`));
    t.every('slow', 1_000, (at) => void ticks.push(`slow ${at}`));
    t.every('batch', 0, (at) => void ticks.push(`batch ${at}`));
    t.start();
    for (const at of [100, 250, 999, 1_000, 1_100]) {
      clock.set(at);
      t.observe();
    }
    t.advance();
    expect(ticks).toEqual(['fast 250', 'fast 750', 'fast 1000', 'slow 1000', 'batch 1100']);
  });

  it("runs a tick's pass a slice at the tick, then a slice after each batch, and ends it before the next tick begins another", async () => {
    const clock = new SimulatedClock(0);
    const t = ticker(clock, 0);
    const runs: Array<{ steps: number }> = [];
    t.every('p', 1_000, () => {
      const ran = { steps: 0 };
      runs.push(ran);
      return pass(5, ran);
    });
    t.start();
    clock.set(1_000);
    t.observe();
    // Slices of no time: one step each.
    expect(runs.map((r) => r.steps)).toEqual([1]);
    t.advance();
    expect(runs.map((r) => r.steps)).toEqual([2]);
    clock.set(2_000);
    t.observe();
    expect(runs.map((r) => r.steps)).toEqual([5, 1]);
    // The rest in the following event-loop turns.
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(runs.map((r) => r.steps)).toEqual([5, 5]);
  });

  it('under the wall clock ticks after batches and on its timer only, not as each event is applied', () => {
    // The wall clock's kind, moved by hand.
    const clock = new SimulatedClock(0);
    const wall = { kind: 'wall' as const, now: () => clock.now(), observe: () => {} };
    const t = new Ticker({ clock: wall, sliceMs: 0, log: silentLogger() });
    const ticks: number[] = [];
    t.every('a', 250, (at) => void ticks.push(at));
    t.start();
    clock.set(600);
    t.observe();
    expect(ticks).toEqual([]);
    t.advance();
    expect(ticks).toEqual([500]);
    t.stop();
  });

  it('logs a tick that throws and goes on ticking; a stopped subscription ticks no more', () => {
    const clock = new SimulatedClock(0);
    const errors: unknown[] = [];
    const log = { ...silentLogger(), error: (o: unknown) => void errors.push(o) } as unknown as ReturnType<typeof silentLogger>;
    const t = new Ticker({ clock, sliceMs: 0, log });
    const ticks: number[] = [];
    const sub = t.every('bad', 100, (at) => {
      ticks.push(at);
      if (at === 100) throw new Error('bad tick');
    });
    t.start();
    clock.set(100);
    t.observe();
    clock.set(200);
    t.observe();
    expect(ticks).toEqual([100, 200]);
    expect(errors).toHaveLength(1);
    sub.stop();
    clock.set(300);
    t.observe();
    expect(ticks).toEqual([100, 200]);
  });

  it('with joins, a tick that finds the pass under way lets it go on instead of running it to its end', () => {
    const clock = new SimulatedClock(0);
    const t = ticker(clock, 0);
    const ran = { steps: 0 };
    let current: Generator<void> | null = null;
    const ticked: number[] = [];
    t.every('flush', 250, (at) => {
      ticked.push(at);
      // As the publisher's flushPass: the pass under way, else a new one.
      current ??= pass(10, ran);
      return current;
    }, { joins: true });
    t.start();
    clock.set(250);
    t.observe();
    expect(ran.steps).toBe(1);
    clock.set(500);
    t.observe();
    // One more slice (one step), not the other eight.
    expect(ticked).toEqual([250, 500]);
    expect(ran.steps).toBe(2);
  });

  it('with holds, says it is holding while the pass is under way, wakes the waiters at its end, and stop() ends it', async () => {
    const clock = new SimulatedClock(0);
    const t = ticker(clock, 0);
    const ran = { steps: 0 };
    t.every('recompute', 1_000, () => pass(4, ran), { holds: true });
    t.every('other', 1_000, () => pass(100, { steps: 0 }));
    t.start();
    expect(t.holding).toBe(false);
    clock.set(1_000);
    t.observe();
    expect(t.holding).toBe(true);
    let woken = 0;
    t.whenReleased(() => woken++);
    expect(woken).toBe(0);
    // The rest in the next event-loop turns, a step each; the pass that does not hold is no reason to wait.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(ran.steps).toBe(4);
    expect(t.holding).toBe(false);
    expect(woken).toBe(1);
    t.whenReleased(() => woken++);
    expect(woken).toBe(2);
    // A pass that holds, under way when the ticker stops: run to its end, so that nothing waits for ever.
    clock.set(2_000);
    t.observe();
    expect(t.holding).toBe(true);
    t.stop();
    expect(t.holding).toBe(false);
    expect(ran.steps).toBe(8);
  });
});
