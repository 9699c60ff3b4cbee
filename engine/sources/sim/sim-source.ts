import { setTimeout as delay } from 'node:timers/promises';
import type { IngestSink, Source } from '../source.ts';
import { Market } from './market.ts';
import { resolveSimOptions, SLOT_MS, type SimOptions } from './options.ts';
import { encodeSimState, shiftEvent, type SimState } from './state.ts';

export interface SimSourceOptions extends SimOptions {
  /** Simulated milliseconds per wall millisecond (1 = real time). */
  speed: number;
  /** Keeps the market across runs (`mds serve`: LMDB meta); without it each run starts one from `seed`. */
  persist?: SimPersistence;
  /** The wall clock simulated time is paced against, Unix ms (default: a monotonic Date.now). */
  now?: () => number;
}

/**
 * Where the live source saves its market and what it needs to go on with it. A saved
 * state is always between slots and never ahead of what the sink holds durably, so a
 * run that goes on from it sends nothing new twice (see run() below).
 */
export interface SimPersistence {
  /** The state a previous run saved (decodeSimState), to go on with instead of a new market. */
  resume?: SimState;
  /** Time of the newest event the sink already holds (the engine's log; 0: none). */
  appliedAt: number;
  /** Stores an encoded state (encodeSimState). Called one at a time, in order. */
  save(state: Buffer): Promise<unknown>;
  /** Wall ms between saves while running (default 30 s); one more is saved when the source stops. */
  everyMs?: number;
  /** Events between saves, whichever comes first (default 50,000). */
  everyEvents?: number;
}

/** Wall time between pacing rounds: everything due is emitted once per round. */
const PACE_MS = 50;
const SAVE_EVERY_MS = 30_000;
const SAVE_EVERY_EVENTS = 50_000;

const monotonicNow = (): number => performance.timeOrigin + performance.now();

/**
 * The simulator as the service's live source (`--source sim`): simulated time runs
 * `speed` times as fast as wall time. Every PACE_MS it emits all slots that are due,
 * pauses while the sink applies backpressure, never ends by itself and stops when
 * `signal` aborts (at the end of the slot under way). When the sink holds it back,
 * simulated time falls behind and catches up later; it never skips while running.
 *
 * With `persist`, the market outlives the run. A new market is saved before its first
 * event; then, at slot boundaries every `everyMs` or `everyEvents`, a state is taken
 * and saved once everything submitted before it is durable (sink.flush), and once more
 * when the source stops. A run that resumes a state first sends again, at their first
 * times, the slots up to `appliedAt`: the same events with the same identities, which
 * the gate drops as duplicates (after a crash, those past the last durable batch are
 * applied for the first time). Then it skips the downtime: the events that follow are
 * moved later by the gap between the market's clock and the wall clock, in whole slots
 * (state.ts shiftEvent), so the market goes on where it stopped, at the present time,
 * with neither a burst of the missed hours nor a jump back.
 */
export function simSource(options: SimSourceOptions): Source {
  if (!Number.isFinite(options.speed) || options.speed <= 0) throw new Error(`sim speed must be a positive number, got ${options.speed}`);
  const { speed, persist, now = monotonicNow, ...simOptions } = options;
  // A bad option fails here, at startup, not later in run().
  resolveSimOptions(simOptions);
  return {
    name: 'sim',
    finite: false,
    async run(sink: IngestSink, signal: AbortSignal): Promise<void> {
      // The present of this run: the wall time simulated time is paced from.
      const wallStart = now();
      const resume = persist?.resume;
      const market = resume?.market ?? new Market(simOptions);
      let offsetMs = resume?.offsetMs ?? 0;
      let position = resume?.position ?? 0;

      let saving: Promise<unknown> = Promise.resolve();
      let saveError: unknown = null;
      let savedAt = now();
      let savedPosition = position;
      /** Saves the state as of now, once every event submitted so far is durable. */
      const save = (): void => {
        const bytes = encodeSimState({ market, offsetMs, position });
        savedAt = now();
        savedPosition = position;
        saving = saving
          .then(() => sink.flush())
          .then(() => persist!.save(bytes))
          .catch((err: unknown) => {
            saveError ??= err;
          });
      };

      /** Generates the next slot and submits its events, all of them even if aborted meanwhile. */
      const emitSlot = async (): Promise<void> => {
        const events = market.nextSlot();
        const shift = offsetMs;
        for (let i = 0; i < events.length; i++) {
          const event = events[i]!;
          if (shift !== 0) shiftEvent(event, shift);
          sink.submit(event, 'sim', position++);
          if (signal.aborted) continue;
          const wait = sink.writable();
          if (wait !== null) await untilAborted(wait, signal);
        }
      };

      if (persist && !resume) await persist.save(encodeSimState({ market, offsetMs, position }));
      if (resume) {
        // What the previous run sent (and maybe lost in a crash), again at its own times.
        while (!signal.aborted && market.nextAt + offsetMs <= persist!.appliedAt) await emitSlot();
        // The downtime is skipped, in whole slots.
        const behind = wallStart - (market.nextAt + offsetMs);
        if (behind > 0) offsetMs += Math.ceil(behind / SLOT_MS) * SLOT_MS;
      }

      const everyMs = persist?.everyMs ?? SAVE_EVERY_MS;
      const everyEvents = persist?.everyEvents ?? SAVE_EVERY_EVENTS;
      const simStart = market.nextAt + offsetMs;
      while (!signal.aborted) {
        const simNow = simStart + (now() - wallStart) * speed;
        while (market.nextAt + offsetMs <= simNow && !signal.aborted) {
          await emitSlot();
          if (persist && (position - savedPosition >= everyEvents || now() - savedAt >= everyMs)) save();
          if (saveError !== null) throw saveError;
        }
        try {
          await delay(PACE_MS, undefined, { signal });
        } catch (err) {
          if (!signal.aborted) throw err;
        }
      }
      if (persist) {
        save();
        await saving;
        if (saveError !== null) throw saveError;
      }
    },
  };
}

/** Resolves when `promise` does or when `signal` aborts, whichever comes first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
