import type { MdsSocket, SocketEvent, SocketTimers } from '../../transport/client/ws.ts';

/** Resolves at the first event of the SDK socket that `match` accepts. */
export const when = (socket: MdsSocket, match: (e: SocketEvent) => boolean): Promise<SocketEvent> =>
  new Promise((resolve) => {
    const stop = socket.on((e) => {
      if (match(e)) {
        stop();
        resolve(e);
      }
    });
  });

/**
 * Timers for the SDK socket that the test runs: a reconnect waits until `fire()`, the
 * ping interval runs when the test calls `intervals[i]()`; random() is 0.5.
 */
export function testTimers() {
  const due: Array<() => void> = [];
  const delays: number[] = [];
  const intervals: Array<() => void> = [];
  let scheduled: (() => void) | null = null;
  const timers: SocketTimers = {
    setTimeout(fn, ms) {
      delays.push(ms);
      due.push(fn);
      scheduled?.();
      return fn;
    },
    clearTimeout(handle) {
      const i = due.indexOf(handle as () => void);
      if (i >= 0) due.splice(i, 1);
    },
    setInterval(fn) {
      intervals.push(fn);
      return fn;
    },
    clearInterval(handle) {
      const i = intervals.indexOf(handle as () => void);
      if (i >= 0) intervals.splice(i, 1);
    },
    random: () => 0.5,
  };
  return {
    timers,
    /** The delay of every reconnect scheduled, in order. */
    delays,
    due,
    intervals,
    /** Runs the reconnect timers due now, waiting for one to be scheduled if none is. */
    async fire(): Promise<void> {
      if (due.length === 0) await new Promise<void>((resolve) => (scheduled = resolve));
      scheduled = null;
      for (const fn of due.splice(0)) fn();
    },
  };
}
