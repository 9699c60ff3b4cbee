import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { AccountActor } from '../../../actors/account/account.actor.ts';
import {
  admitRequest,
  GRACE_MS,
  initialCounters,
  messageCloseAt,
  monthStartOf,
  nextMonthStartOf,
  planAllows,
  rollCounters,
  secondsUntil,
} from '../../../actors/account/account.logic.ts';
import { accountMachine } from '../../../actors/account/account.machine.ts';
import { DEFAULT_PLANS } from '../../../engine/config.ts';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const tick = (now: number, expiresAt: number | null) => ({ type: 'account.tick' as const, now, expiresAt });

describe('accountMachine', () => {
  const start = () => initialTransition(accountMachine)[0];
  const run = (events: Parameters<typeof transition<typeof accountMachine>>[2][]) =>
    events.reduce((s, e) => transition(accountMachine, s, e)[0], start());

  it('stays active without an expiry or before it', () => {
    expect(run([tick(T0, null)]).value).toBe('active');
    expect(run([tick(T0, T0 + 1)]).value).toBe('active');
  });

  it('goes active → grace at expiry → free when the 2 hours of grace end', () => {
    const expiresAt = T0 + 1_000;
    let s = run([tick(T0, expiresAt)]);
    s = transition(accountMachine, s, tick(expiresAt, expiresAt))[0];
    expect(s.value).toBe('grace');
    s = transition(accountMachine, s, tick(expiresAt + GRACE_MS - 1, expiresAt))[0];
    expect(s.value).toBe('grace');
    s = transition(accountMachine, s, tick(expiresAt + GRACE_MS, expiresAt))[0];
    expect(s.value).toBe('free');
  });

  it('goes straight to free when first seen after the grace', () => {
    expect(run([tick(T0 + GRACE_MS, T0)]).value).toBe('free');
  });

  it('comes back to active when the expiry moves into the future (a renewal)', () => {
    expect(run([tick(T0, T0 - 1), tick(T0, T0 + 10)]).value).toBe('active');
    expect(run([tick(T0 + GRACE_MS, T0), tick(T0 + GRACE_MS, T0 + GRACE_MS + 10)]).value).toBe('active');
    // An expiry moved to one hour ago: back into grace, not active.
    expect(run([tick(T0 + GRACE_MS, T0), tick(T0 + GRACE_MS, T0 + GRACE_MS - 3_600_000)]).value).toBe('grace');
  });

  it('revoked is final from every state', () => {
    for (const before of [[], [tick(T0, T0)], [tick(T0 + GRACE_MS, T0)]]) {
      const s = run([...before, { type: 'account.revoked' }]);
      expect(s.value).toBe('revoked');
      expect(s.status).toBe('done');
      expect(transition(accountMachine, s, tick(T0, T0 + 1e9))[0].value).toBe('revoked');
    }
  });
});

describe('account logic', () => {
  it('months are calendar months in UTC, December rolling into January', () => {
    expect(monthStartOf(T0)).toBe(Date.UTC(2026, 0, 1));
    expect(nextMonthStartOf(T0)).toBe(Date.UTC(2026, 1, 1));
    expect(nextMonthStartOf(Date.UTC(2025, 11, 31, 23, 59, 59, 999))).toBe(Date.UTC(2026, 0, 1));
    expect(monthStartOf(Date.UTC(2026, 1, 1))).toBe(Date.UTC(2026, 1, 1));
  });

  it('secondsUntil rounds up and is at least 1', () => {
    expect(secondsUntil(T0 + 1, T0)).toBe(1);
    expect(secondsUntil(T0 + 1_001, T0)).toBe(2);
    expect(secondsUntil(T0, T0)).toBe(1);
  });

  it('plan gates: pro admits pro and scale only', () => {
    expect(['free', 'starter', 'pro', 'scale'].map((p) => planAllows(p as 'free', 'pro'))).toEqual([false, false, true, true]);
    expect(planAllows('free', undefined)).toBe(true);
  });

  it('the message close threshold is 110 % of 20 × monthly requests, in integers', () => {
    expect(messageCloseAt({ ...DEFAULT_PLANS.starter, monthly_requests: 100 })).toBe(2_200);
    expect(messageCloseAt({ ...DEFAULT_PLANS.starter, monthly_requests: 7 })).toBe(154);
    expect(messageCloseAt(DEFAULT_PLANS.pro)).toBe(440_000_000);
  });

  it('takes the stored counts of the current month only', () => {
    const month = monthStartOf(T0);
    expect(initialCounters(T0, { monthStartsAt: month, requests: 7, messages: 9 })).toMatchObject({ requests: 7, messages: 9 });
    expect(initialCounters(T0, { monthStartsAt: monthStartOf(month - 1), requests: 7, messages: 9 })).toMatchObject({ requests: 0, messages: 0 });
  });

  it('checks quota, then rate, then in flight; counts what passes them; the plan gate refuses after counting', () => {
    const limits = { ...DEFAULT_PLANS.starter, rps: 3, in_flight: 2, monthly_requests: 10 };
    const c = initialCounters(T0);
    expect(admitRequest(c, limits, true)).toBe(0);
    expect(admitRequest(c, limits, true)).toBe(0);
    expect(admitRequest(c, limits, true)).toBe(4292);
    expect(c).toMatchObject({ windowCount: 2, requests: 2, inFlight: 2 });
    c.inFlight = 0;
    expect(admitRequest(c, limits, false)).toBe(4033);
    expect(c).toMatchObject({ windowCount: 3, requests: 3, inFlight: 0 });
    expect(admitRequest(c, limits, true)).toBe(4290);
    expect(c.requests).toBe(3);
    // A new second restarts the window, not the month.
    expect(rollCounters(c, T0 + 1_000)).toBe(false);
    expect(c.windowCount).toBe(0);
    c.requests = 10;
    expect(admitRequest(c, limits, true)).toBe(4291);
    // A new month restarts both counts.
    expect(rollCounters(c, nextMonthStartOf(T0))).toBe(true);
    expect(c).toMatchObject({ requests: 0, messages: 0, monthStartsAt: Date.UTC(2026, 1, 1), monthEndsAt: Date.UTC(2026, 2, 1) });
    expect(admitRequest(c, limits, true)).toBe(0);
  });

  it('the rate window is aligned to whole clock seconds', () => {
    const c = initialCounters(T0 + 999);
    expect(c.windowStartsAt).toBe(T0);
    rollCounters(c, T0 + 999);
    expect(c.windowStartsAt).toBe(T0);
    rollCounters(c, T0 + 1_000);
    expect(c.windowStartsAt).toBe(T0 + 1_000);
  });
});

describe('AccountActor', () => {
  const account = (over: Partial<{ plan: 'pro' | 'free'; expiresAt: number | null; revokedAt: number | null }> = {}) => ({
    plan: 'pro' as const,
    expiresAt: null,
    revokedAt: null,
    ...over,
  });

  it('applies its own plan while active and in grace, then free; tells only the drop to free', () => {
    const expiresAt = T0 + 1_000;
    const a = new AccountActor('a', account({ expiresAt }), T0);
    expect([a.phase, a.planInForce, a.grace]).toEqual(['active', 'pro', false]);
    expect(a.tick(expiresAt - 1)).toBe(false);
    expect(a.tick(expiresAt)).toBe(false);
    expect([a.phase, a.planInForce, a.grace]).toEqual(['grace', 'pro', true]);
    expect(a.tick(expiresAt + GRACE_MS)).toBe(true);
    expect([a.phase, a.planInForce, a.grace]).toEqual(['free', 'free', false]);
    expect(a.tick(expiresAt + 2 * GRACE_MS)).toBe(false);
  });

  it('first sight of an account already past its grace is no change to tell', () => {
    const a = new AccountActor('a', account({ expiresAt: T0 - GRACE_MS }), T0);
    expect([a.phase, a.planInForce]).toEqual(['free', 'free']);
  });

  it('a renewal seen in the record brings the plan back', () => {
    const a = new AccountActor('a', account({ expiresAt: T0 - GRACE_MS }), T0);
    expect(a.sync('pro', T0 + 10_000, false, T0)).toBe(false);
    expect([a.phase, a.planInForce]).toEqual(['active', 'pro']);
  });

  it('a revocation is told once, even for a free key', () => {
    const a = new AccountActor('a', account({ plan: 'free' }), T0);
    expect(a.sync('free', null, true, T0)).toBe(true);
    expect(a.phase).toBe('revoked');
    expect(a.sync('free', null, true, T0 + 1)).toBe(false);
    expect(a.tick(T0 + 2)).toBe(false);
  });
});
