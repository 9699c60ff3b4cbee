import { EngineError } from '../../engine/errors.ts';
import type { HttpLimits, RequestDecision } from '../../engine/limits.ts';
import type { Admission, BeforeHandle, Route } from './route.ts';

/**
 * Plans and limits on HTTP (SERVICE.md 4.1, 7.1, 8): a BeforeHandle for every route
 * with `auth`. Every response of such a route (200, 400, 403, 404, 429, 5xx) carries
 * RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (seconds), X-Quota-Limit,
 * X-Quota-Remaining and X-Quota-Reset (seconds until the next month, UTC); a 429 adds
 * Retry-After (seconds); the grace period after expiry adds X-Subscription-Grace: true.
 * A 401 carries none: there is no key to count against. Open routes (/health,
 * /metrics) are not limited.
 */

function rejection(d: RequestDecision, route: Route): EngineError {
  switch (d.verdict) {
    case 4290:
      return new EngineError(4290, `rate limit of ${d.rateLimit} requests per second reached; retry after ${d.retryAfterSeconds} s`);
    case 4291:
      return new EngineError(4291, `monthly quota of ${d.quotaLimit} requests used; it resets at the start of next month (UTC)`);
    case 4292:
      return new EngineError(4292, `${d.inFlightLimit} requests of this key are already in flight; wait for one to finish`);
    default:
      return new EngineError(4033, `${route.pattern} needs the ${route.minPlan} plan or above; this key is on ${d.plan}`);
  }
}

/** The limits hook: pass it in `createServer({ beforeHandle: [createLimitsHook(limits)] })`. */
export function createLimitsHook(limits: HttpLimits): BeforeHandle {
  return ({ account, route }): Admission | void => {
    if (account === null) return;
    const d = limits.admitRequest(account, route.minPlan);
    const headers: Record<string, string> = {
      'RateLimit-Limit': String(d.rateLimit),
      'RateLimit-Remaining': String(d.rateRemaining),
      'RateLimit-Reset': String(d.rateResetSeconds),
      'X-Quota-Limit': String(d.quotaLimit),
      'X-Quota-Remaining': String(d.quotaRemaining),
      'X-Quota-Reset': String(d.quotaResetSeconds),
    };
    if (d.grace) headers['X-Subscription-Grace'] = 'true';
    if (d.verdict === 0) {
      const id = account.id;
      return { headers, done: () => limits.releaseRequest(id) };
    }
    if (d.retryAfterSeconds > 0) headers['Retry-After'] = String(d.retryAfterSeconds);
    // Rejected requests took no in-flight slot: nothing to release.
    return { headers, reject: rejection(d, route) };
  };
}
