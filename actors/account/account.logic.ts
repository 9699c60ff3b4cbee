import { PLAN_NAMES, type PlanLimits, type PlanName } from '../../engine/config.ts';

/**
 * Pure rules of an account's plans and limits (SERVICE.md 3.3 and 8, DECISIONS.md
 * "Plans"): the expiry and grace boundaries, the calendar month, the per-second
 * window and the verdict on one request. No I/O and no clock reads: `now` is passed in.
 */

/** Grace after a paid plan's expiry (SERVICE.md 3.3): the plan keeps working this long, then free. */
export const GRACE_MS = 2 * 3_600_000;

/**
 * Length of the request-rate window. A fixed window aligned to whole seconds of the
 * clock: `rps` requests per key in each second; the count restarts at the next
 * second, so RateLimit-Reset is always 1 (seconds, rounded up).
 */
export const RATE_WINDOW_MS = 1_000;

/** Monthly stream data messages per monthly HTTP request (SERVICE.md 8). */
export const MESSAGES_PER_REQUEST = 20;

/** Streams close past this share of the message allowance, in percent (SERVICE.md 8: 110 %). */
export const MESSAGE_CLOSE_PERCENT = 110;

export const isExpired = (expiresAt: number | null, now: number): boolean => expiresAt !== null && now >= expiresAt;

export const isGraceOver = (expiresAt: number | null, now: number): boolean =>
  expiresAt !== null && now >= expiresAt + GRACE_MS;

/** Order of the plans: a route gated at `pro` admits pro and scale. */
const PLAN_RANK: Record<PlanName, number> = Object.fromEntries(PLAN_NAMES.map((name, i) => [name, i])) as Record<PlanName, number>;

/** True when `plan` is `minPlan` or above it. */
export const planAllows = (plan: PlanName, minPlan: PlanName | undefined): boolean =>
  minPlan === undefined || PLAN_RANK[plan] >= PLAN_RANK[minPlan];

/** 00:00 UTC on the 1st of the month of `at` (Unix ms). */
export function monthStartOf(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** 00:00 UTC on the 1st of the month after the one of `at`. */
export function nextMonthStartOf(at: number): number {
  const d = new Date(at);
  // Date.UTC carries month 12 into January of the next year.
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Whole seconds from `now` until `at`, rounded up, at least 1 (Retry-After, *-Reset). */
export const secondsUntil = (at: number, now: number): number => Math.max(1, Math.ceil((at - now) / 1_000));

/** The messages of a month past which streams close: 110 % of 20 × monthly requests. */
export const messageCloseAt = (limits: PlanLimits): number =>
  // In integers: 1.1 × n in floating point can land just below a whole number.
  Math.floor((limits.monthly_requests * MESSAGES_PER_REQUEST * MESSAGE_CLOSE_PERCENT) / 100);

/** Per-account counters: plain mutable numbers, changed in place on every request. */
export interface Counters {
  /** Start of the current rate window and requests admitted in it. */
  windowStartsAt: number;
  windowCount: number;
  /** Requests admitted and not yet answered (or aborted). */
  inFlight: number;
  /** The calendar month (UTC) the monthly counts are for: [monthStartsAt, monthEndsAt). */
  monthStartsAt: number;
  monthEndsAt: number;
  requests: number;
  messages: number;
}

export function initialCounters(now: number, usage?: { monthStartsAt: number; requests: number; messages: number }): Counters {
  const monthStartsAt = monthStartOf(now);
  const current = usage !== undefined && usage.monthStartsAt === monthStartsAt;
  return {
    windowStartsAt: now - (now % RATE_WINDOW_MS),
    windowCount: 0,
    inFlight: 0,
    monthStartsAt,
    monthEndsAt: nextMonthStartOf(now),
    requests: current ? usage.requests : 0,
    messages: current ? usage.messages : 0,
  };
}

/**
 * Moves the rate window and the month to `now`. Returns true when the month changed
 * (the monthly counts restarted at 0: the caller persists that). A clock set back
 * (tests, an operator fixing the time) restarts the window and the month too.
 */
export function rollCounters(c: Counters, now: number): boolean {
  if (now >= c.windowStartsAt + RATE_WINDOW_MS || now < c.windowStartsAt) {
    c.windowStartsAt = now - (now % RATE_WINDOW_MS);
    c.windowCount = 0;
  }
  if (now >= c.monthEndsAt || now < c.monthStartsAt) {
    c.monthStartsAt = monthStartOf(now);
    c.monthEndsAt = nextMonthStartOf(now);
    c.requests = 0;
    c.messages = 0;
    return true;
  }
  return false;
}

/** What admission decided for one request: 0 admitted, else the error code. */
export type Verdict = 0 | 4033 | 4290 | 4291 | 4292;

/**
 * The verdict on one request, counters already rolled to now. Checked in this order:
 * monthly quota (4291, the longest wait), rate (4290), in flight (4292); a request
 * that passes them counts against the rate and the quota, then the plan gate (4033)
 * may still refuse it, so a client cannot probe gated routes for free. A 429 counts
 * nowhere. Admitted requests (verdict 0) take an in-flight slot.
 */
export function admitRequest(c: Counters, limits: PlanLimits, allowed: boolean): Verdict {
  if (c.requests >= limits.monthly_requests) return 4291;
  if (c.windowCount >= limits.rps) return 4290;
  if (c.inFlight >= limits.in_flight) return 4292;
  c.windowCount++;
  c.requests++;
  if (!allowed) return 4033;
  c.inFlight++;
  return 0;
}
