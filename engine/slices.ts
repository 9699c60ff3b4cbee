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
 */
export async function inSlices(steps: Iterator<void>, sliceMs: number, running: () => boolean, took?: (ms: number) => void): Promise<boolean> {
  for (;;) {
    const started = performance.now();
    const done = runUntil(steps, started + sliceMs);
    took?.(performance.now() - started);
    if (done) return true;
    await nextTurn();
    if (!running()) return false;
  }
}
