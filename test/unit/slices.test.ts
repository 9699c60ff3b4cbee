import { describe, expect, it } from 'vitest';
import { SLICE_SHARE_MAX_MS } from '../../engine/bounds.ts';
import { inSlices } from '../../engine/slices.ts';
import { loadConfig } from '../../engine/config.ts';
import { checkpointSlicing } from '../../engine/system.ts';

/** Holds the thread `ms` of wall time (work, as an apply of a batch is). */
const hold = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/**
 * A pass of `steps` steps of ~0.5 ms each in slices of 1 ms, beside a competitor that
 * holds the loop 20 ms in every turn until the pass ends (as `mds replay`'s whole
 * batches do). Resolves with the slices taken and the longest one.
 */
async function run(steps: number, share: number): Promise<{ slices: number; longest: number }> {
  let done = false;
  const competitor = () => {
    if (done) return;
    hold(20);
    setImmediate(competitor);
  };
  setImmediate(competitor);
  function* work(): Generator<void> {
    for (let i = 0; i < steps; i++) {
      hold(0.5);
      yield;
    }
  }
  const took: number[] = [];
  try {
    expect(await inSlices(work(), 1, () => true, (ms) => took.push(ms), share)).toBe(true);
  } finally {
    done = true;
  }
  return { slices: took.length, longest: Math.max(...took) };
}

describe('inSlices with a share of the loop', () => {
  it('takes a slice per turn at sliceMs without one, and longer slices while other work holds the loop long', async () => {
    const alone = await run(60, 0);
    // 1 ms slices of 0.5 ms steps: two steps a slice, one slice per 20 ms turn of the competitor.
    expect(alone.slices).toBeGreaterThanOrEqual(25);
    const shared = await run(60, 0.5);
    // Half of 20 ms a slice: ~20 steps each, the pass over in a few turns.
    expect(shared.slices).toBeLessThanOrEqual(alone.slices / 3);
    expect(shared.longest).toBeLessThan(SLICE_SHARE_MAX_MS + 5);
  });

  it('keeps to sliceMs when nothing else holds the loop, and runs everything at once with an infinite slice', async () => {
    const took: number[] = [];
    function* work(): Generator<void> {
      for (let i = 0; i < 20; i++) {
        hold(0.5);
        yield;
      }
    }
    expect(await inSlices(work(), 1, () => true, (ms) => took.push(ms), 0.5)).toBe(true);
    // Turns between slices are short (no other work): each slice stays about 1 ms.
    expect(took.length).toBeGreaterThanOrEqual(5);
    const once: number[] = [];
    expect(await inSlices(work(), Infinity, () => true, (ms) => once.push(ms), 0.5)).toBe(true);
    expect(once.length).toBe(1);
  });
});

describe("the engine timers' checkpoint slices", () => {
  it('take a share of the loop only while the apply runs whole batches (mds replay), not beside its slices (mds serve)', () => {
    const config = loadConfig();
    expect(config.ingest.applySliceMs).toBeGreaterThan(0);
    expect(checkpointSlicing(config)).toEqual({ sliceMs: config.actors.checkpointSliceMs, share: 0 });
    // As `mds replay` configures its engine (engine/serve.ts).
    const whole = { ...config, ingest: { ...config.ingest, applySliceMs: 0 } };
    expect(checkpointSlicing(whole)).toEqual({ sliceMs: config.actors.checkpointSliceMs, share: config.actors.checkpointShare });
    expect(config.actors.checkpointShare).toBeGreaterThan(0);
    // A share set in the config is kept for whole batches only.
    const set = { ...config, actors: { ...config.actors, checkpointShare: 2 } };
    expect(checkpointSlicing(set).share).toBe(0);
    expect(checkpointSlicing({ ...set, ingest: whole.ingest }).share).toBe(2);
  });
});
