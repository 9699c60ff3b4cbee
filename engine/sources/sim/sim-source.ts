import { setTimeout as delay } from 'node:timers/promises';
import type { IngestSink, Source } from '../source.ts';
import { Market } from './market.ts';
import { resolveSimOptions, type SimOptions } from './options.ts';

export interface SimSourceOptions extends SimOptions {
  /** Simulated milliseconds per wall millisecond (1 = real time). */
  speed: number;
}

/** Wall time between pacing rounds: everything due is emitted once per round. */
const PACE_MS = 50;

/**
 * The simulator as the service's live source (`--source sim`): simulated time runs
 * `speed` times as fast as wall time from `startAt` (the service passes Date.now()).
 * Every PACE_MS it emits all slots that are due, pauses while the sink applies
 * backpressure, never ends by itself and stops when `signal` aborts. When the sink
 * holds it back, simulated time falls behind and catches up later; it never skips.
 */
export function simSource(options: SimSourceOptions): Source {
  if (!Number.isFinite(options.speed) || options.speed <= 0) throw new Error(`sim speed must be a positive number, got ${options.speed}`);
  const { speed, ...simOptions } = options;
  // A bad option fails here, at startup, not later in run().
  resolveSimOptions(simOptions);
  return {
    name: 'sim',
    finite: false,
    async run(sink: IngestSink, signal: AbortSignal): Promise<void> {
      const market = new Market(simOptions);
      const wallStart = performance.now();
      let position = 0;
      while (!signal.aborted) {
        const simNow = simOptions.startAt + (performance.now() - wallStart) * speed;
        while (market.nextAt <= simNow && !signal.aborted) {
          const events = market.nextSlot();
          for (let i = 0; i < events.length; i++) {
            sink.submit(events[i], 'sim', position++);
            const wait = sink.writable();
            if (wait !== null) await untilAborted(wait, signal);
            if (signal.aborted) return;
          }
        }
        try {
          await delay(PACE_MS, undefined, { signal });
        } catch (err) {
          if (signal.aborted) return;
          throw err;
        }
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
