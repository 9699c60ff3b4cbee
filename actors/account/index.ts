/** The entry point of actors/account/: what other folders may import from it (STYLE.md 3). */
export { AccountActor } from './account.actor.ts';
export { GRACE_MS, RATE_WINDOW_MS, admitRequest, isExpired, isGraceOver, messageCloseAt, planAllows, rollCounters, secondsUntil, type Verdict } from './account.logic.ts';
