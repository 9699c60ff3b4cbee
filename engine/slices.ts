import { SLICE_SHARE_MAX_MS } from './bounds.ts';

/**
 * Work in slices: a long pass (a checkpoint over thousands of actors, a live flush over
 * thousands of pools) is a generator of steps, run for about `sliceMs` at a time so that
 * batches, commits and socket writes run between its slices. The budgets are wall time
 * (performance.now()): they bound how long the event loop is held, whatever clock the
 * engine derives state with.
 */

/** A slice length from options: none or 0 or less is all at once (Infinity). */
export const sliceOf = (sliceMs: number | undefined): number => (sliceMs !== undefined && sliceMs > 0 ? sliceMs : Infinity);

/** Runs `steps` until they are done (true) or, checked after each, `deadline` (performance.now()) has passed (false). */
export function runUntil(steps: Iterator<void>, deadline: number): boolean {
  while (!steps.next().done) if (deadline !== Infinity && performance.now() >= deadline) return false;
  return true;
}

/** Resolves in the next event-loop turn, after the I/O callbacks waiting now. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `steps`, holding the event loop about `sliceMs` at most before it lets other work
 * run for a turn (Infinity: all of it now, before the first await). False when
 * `running()` turned false between slices (the engine is stopping). `took` is told how
 * long each slice held the loop (the long-task logger).
 *
 * `share`: a slice may also run up to that fraction of how long other work held the loop
 * since the last one ended, at most SLICE_SHARE_MAX_MS. One turn a slice is a fair share
 * only while the others' turns are short too: `mds replay` applies whole batches of
 * ~200 ms, and a checkpoint of ~45,000 dirty actors at 5 ms a turn (~3 % of the loop)
 * did not end in 170 s, every pool holding its trades until it did. A share keeps such a
 * pass near its own pace, and leaves it at `sliceMs` while the loop's other turns are short.
 */
export async function inSlices(steps: Iterator<void>, sliceMs: number, running: () => boolean, took?: (ms: number) => void, share = 0): Promise<boolean> {
  let ended = NaN;
  for (;;) {
    const started = performance.now();
    const others = started - ended;
    const budget = share > 0 && others > 0 ? Math.max(sliceMs, Math.min(SLICE_SHARE_MAX_MS, share * others)) : sliceMs;
    const done = runUntil(steps, started + budget);
    ended = performance.now();
    took?.(ended - started);
    if (done) return true;
    await nextTurn();
    if (!running()) return false;
  }
}
