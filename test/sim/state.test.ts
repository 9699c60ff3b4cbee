import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { validateObject } from '../../engine/ingest/validate.ts';
import { decodeSimState, encodeSimState, shiftEvent, SIM_FILE_START_AT, STATE_VERSION } from '../../engine/sources/sim/index.ts';
import { Market } from '../../engine/sources/sim/market.ts';

/** The live source's saved market (engine/sources/sim/state.ts): what a restart goes on with. */

const slotsOf = (market: Market, n: number) => Array.from({ length: n }, () => JSON.stringify(market.nextSlot()));

describe('the simulator state', () => {
  it('goes on, event for event, as the market it was saved from', () => {
    const options = { seed: 5, startAt: SIM_FILE_START_AT, launchRate: 30 };
    const running = new Market(options);
    // 13 simulated minutes: launches, graduations, dead tokens, actions scheduled ahead.
    slotsOf(running, 2_000);
    const bytes = encodeSimState({ market: running, offsetMs: 1_200, position: 77 });
    const saved = decodeSimState(bytes);
    expect(saved).toMatchObject({ offsetMs: 1_200, position: 77 });
    expect(saved.market.options).toEqual({ ...options, tradeRate: 40, solPriceUsd: 150 });
    // Saving does not disturb the running market, and the saved one is the same market.
    const reference = new Market(options);
    slotsOf(reference, 2_000);
    const next = slotsOf(reference, 1_000);
    expect(slotsOf(running, 1_000)).toEqual(next);
    expect(slotsOf(saved.market, 1_000)).toEqual(next);
    // A state of a restored market restores too.
    const again = decodeSimState(encodeSimState(saved)).market;
    expect(slotsOf(again, 200)).toEqual(slotsOf(reference, 200));
  });

  it('refuses a state of another version', () => {
    const other = serialize({ version: STATE_VERSION + 1, offsetMs: 0, position: 0, world: {} });
    expect(() => decodeSimState(other)).toThrow(/version/);
  });

  it('moves every kind of event later by whole slots, valid and with the same identity shape', () => {
    const market = new Market({ seed: 8, startAt: SIM_FILE_START_AT, launchRate: 60 });
    const kinds = new Set<string>();
    let xPosts = 0;
    for (let i = 0; i < 6_000 && (kinds.size < 8 || xPosts === 0); i++) {
      for (const event of market.nextSlot()) {
        if (kinds.has(event.type) && !(event.type === 'social_post' && event.platform === 'x')) continue;
        kinds.add(event.type);
        const moved = structuredClone(event);
        shiftEvent(moved, 3_600_000);
        expect(validateObject(moved).ok, JSON.stringify(moved)).toBe(true);
        const before = event as Record<string, unknown>;
        const after = moved as Record<string, unknown>;
        for (const key of ['at', 'created_at', 'launched_at']) if (typeof before[key] === 'number') expect(after[key]).toBe((before[key] as number) + 3_600_000);
        if ('slot' in before) expect(after.slot).toBe((before.slot as number) + 9_000);
        if (event.type === 'social_post' && event.platform === 'x') {
          xPosts++;
          // A snowflake: its time is in the bits above the 22nd.
          expect((BigInt(after.post_id as string) >> 22n) - (BigInt(event.post_id) >> 22n)).toBe(3_600_000n);
          expect(after.url).toBe(`https://x.com/${event.author}/status/${after.post_id}`);
        }
        shiftEvent(moved, -3_600_000);
        expect(moved).toEqual(event);
      }
    }
    expect(xPosts).toBeGreaterThan(0);
    expect([...kinds].sort()).toEqual(['balance', 'label', 'migration', 'pool', 'quote_price', 'social_post', 'swap', 'token']);
  });
});
