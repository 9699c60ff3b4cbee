import { EngineError } from '../../engine/errors.ts';
import type { HttpLimits, RequestDecision } from '../../engine/plans/index.ts';
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

/** A number's decimal text, made again only when the number changes (limits and resets rarely do). */
class NumberText {
  private n = Number.NaN;
  private text = '';
  of(n: number): string {
    if (n !== this.n) {
      this.n = n;
      this.text = String(n);
    }
    return this.text;
  }
}

/**
 * The limits hook: pass it in `createServer({ beforeHandle: [createLimitsHook(limits)] })`.
 * Per request it fills one headers object that it reuses for the next request (the
 * dispatcher turns headers into head lines at admission, before anything else runs);
 * the rare grace and rejection answers get their own object.
 */
export function createLimitsHook(limits: HttpLimits): BeforeHandle {
  const headers: Record<string, string> = {
    'RateLimit-Limit': '',
    'RateLimit-Remaining': '',
    'RateLimit-Reset': '',
    'X-Quota-Limit': '',
    'X-Quota-Remaining': '',
    'X-Quota-Reset': '',
  };
  const rateLimit = new NumberText();
  const rateReset = new NumberText();
  const quotaLimit = new NumberText();
  const quotaReset = new NumberText();
  // One release function per account (at most one per key in use), made once: a closure
  // per request cost 6 % of a cached GET's CPU in a profile (tsx keeps function names,
  // so every function made also gets a defineProperty).
  const releases = new Map<string, () => void>();
  const releaseOf = (id: string): (() => void) => {
    let release = releases.get(id);
    if (release === undefined) {
      release = () => limits.releaseRequest(id);
      releases.set(id, release);
    }
    return release;
  };
  return ({ account, route }): Admission | void => {
    if (account === null) return;
    const d = limits.admitRequest(account, route.minPlan);
    headers['RateLimit-Limit'] = rateLimit.of(d.rateLimit);
    headers['RateLimit-Remaining'] = String(d.rateRemaining);
    headers['RateLimit-Reset'] = rateReset.of(d.rateResetSeconds);
    headers['X-Quota-Limit'] = quotaLimit.of(d.quotaLimit);
    headers['X-Quota-Remaining'] = String(d.quotaRemaining);
    headers['X-Quota-Reset'] = quotaReset.of(d.quotaResetSeconds);
    if (d.verdict === 0) {
      const done = releaseOf(account.id);
      if (!d.grace) return { headers, done, plan: d.plan };
      return { headers: { ...headers, 'X-Subscription-Grace': 'true' }, done, plan: d.plan };
    }
    const own: Record<string, string> = { ...headers };
    if (d.grace) own['X-Subscription-Grace'] = 'true';
    if (d.retryAfterSeconds > 0) own['Retry-After'] = String(d.retryAfterSeconds);
    // Rejected requests took no in-flight slot: nothing to release.
    return { headers: own, reject: rejection(d, route) };
  };
}
