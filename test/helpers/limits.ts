import { configSchema, type ConfigInput } from '../../engine/config.ts';
import { createLimits, type Limits } from '../../engine/plans/index.ts';
import { createLimitsHook } from '../../transport/http/limits.ts';
import type { Admission, BeforeHandle, Route } from '../../transport/index.ts';
import { startTestServer, type TestServer } from './http.ts';

export interface LimitsServer extends TestServer {
  limits: Limits;
  /** Resolves at the next `done()` of an admission (the dispatcher released a request). */
  nextDone(): Promise<void>;
}

/**
 * A test server (real uWS, real LMDB) with the limits hook over its storage and its
 * simulated clock. The hook needs the storage the server opens, so the server gets a
 * forwarding hook that is pointed at the real one once both exist. Counts are flushed
 * only when a test calls `limits.flush()` or on close (no timer).
 */
export async function startLimitsServer(options: { config?: ConfigInput; routes?: readonly Route[] } = {}): Promise<LimitsServer> {
  let hook: BeforeHandle = () => undefined;
  let doneWaiters: Array<() => void> = [];
  const forward: BeforeHandle = (request) => {
    const admission = hook(request);
    if (!admission?.done) return admission;
    const done = admission.done;
    return {
      ...admission,
      done: () => {
        done();
        const waiters = doneWaiters;
        doneWaiters = [];
        for (const resolve of waiters) resolve();
      },
    } satisfies Admission;
  };
  const t = await startTestServer({ ...options, beforeHandle: [forward] });
  const plans = configSchema.parse({ ...options.config }).plans;
  const limits = createLimits({ plans, clock: t.clock, storage: t.storage, flushMs: 0 });
  hook = createLimitsHook(limits);
  return {
    ...t,
    limits,
    nextDone: () => new Promise<void>((resolve) => doneWaiters.push(resolve)),
    async close() {
      await limits.close();
      await t.close();
    },
  };
}
