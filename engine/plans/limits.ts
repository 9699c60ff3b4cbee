import { AccountActor } from '../../actors/account/index.ts';
import {
  admitRequest,
  messageCloseAt,
  planAllows,
  RATE_WINDOW_MS,
  rollCounters,
  secondsUntil,
  type Verdict,
} from '../../actors/account/index.ts';
import type { Storage, UsageRecord } from '../../storage/index.ts';
import type { AccountLimits } from './account-limits.ts';
import type { Clock } from '../clock.ts';
import type { PlanLimits, PlanName } from '../config.ts';
import type { Account } from './keys.ts';
import type { Logger } from '../log.ts';

/**
 * Plans and limits of DECISIONS.md "Plans" for HTTP and WebSocket, over one account
 * actor per account (actors/account). Per request: one Map lookup, a few comparisons
 * and additions; nothing is written to LMDB per request.
 *
 * - Rate: a fixed window of 1 s aligned to whole clock seconds (RATE_WINDOW_MS).
 * - Monthly quota: per calendar month, UTC; every request that passes the quota, rate
 *   and in-flight checks counts (400s, 404s and 403s included), 429s never do.
 * - Monthly counts (requests, stream messages) live in the `usage` database, written
 *   in one batch every `flushMs` (1 s) and at `close()`: a crash loses at most the
 *   last `flushMs` of counts, a clean close none.
 * - Connection slots and watched items are in memory: they describe this process's
 *   open sockets and start at 0 with it.
 *
 * The clock must be wall time (or a test's simulated clock), never the event clock:
 * rate windows and expiries are about real time.
 */

/** What `admitRequest` decided. One shared object, valid until the next call (no allocation per request). */
export interface RequestDecision {
  /** 0 admitted; else the error to answer with (4033, 4290, 4291, 4292). */
  verdict: Verdict;
  /** The plan in force, and whether it is in the grace period after expiry. */
  plan: PlanName;
  grace: boolean;
  /** RateLimit-Limit / -Remaining / -Reset (seconds until the window restarts). */
  rateLimit: number;
  rateRemaining: number;
  rateResetSeconds: number;
  /** Monthly quota, what is left of it, and seconds until it resets (next month, UTC). */
  quotaLimit: number;
  quotaRemaining: number;
  quotaResetSeconds: number;
  /** Requests of the key that may be in flight at once. */
  inFlightLimit: number;
  /** On a 429: seconds to wait before retrying (Retry-After); 0 otherwise. */
  retryAfterSeconds: number;
}

/** What the HTTP limits hook (transport/http/limits.ts) needs. */
export interface HttpLimits {
  /** Decide on one authenticated request to a route gated at `minPlan` (undefined: every plan). */
  admitRequest(account: Account, minPlan: PlanName | undefined): RequestDecision;
  /** Give back the in-flight slot of an admitted request (verdict 0), exactly once. */
  releaseRequest(accountId: string): void;
}

/** An account's counters as tests and metrics read them. */
export interface AccountUsage {
  phase: AccountActor['phase'];
  plan: PlanName;
  grace: boolean;
  requests: number;
  messages: number;
  inFlight: number;
  connections: number;
  watchedItems: number;
}

export interface LimitsOptions {
  /** `config.plans`. */
  plans: Readonly<Record<PlanName, PlanLimits>>;
  clock: Clock;
  /** The `usage` database keeps the monthly counts; `accounts` is read to notice revoked keys. */
  storage: Pick<Storage, 'usage' | 'accounts'>;
  log?: Logger;
  /** How often counts are written and expiries looked for, in ms (default 1,000). 0: no timer (call `sweep`/`flush`). */
  flushMs?: number;
}

/** Default batch period: a restart loses at most this much of the counts. */
export const USAGE_FLUSH_MS = 1_000;

export class Limits implements AccountLimits, HttpLimits {
  private readonly actors = new Map<string, AccountActor>();
  private dirty: AccountActor[] = [];
  private readonly listeners = new Set<(accountId: string, plan: PlanName) => void>();
  private readonly decision: RequestDecision = {
    verdict: 0, plan: 'free', grace: false, rateLimit: 0, rateRemaining: 0, rateResetSeconds: 1,
    quotaLimit: 0, quotaRemaining: 0, quotaResetSeconds: 1, inFlightLimit: 0, retryAfterSeconds: 0,
  };
  /** Open connections over all accounts: the sweep reads `accounts` only while some exist. */
  private openConnections = 0;
  private readonly timer: NodeJS.Timeout | null;
  private closed = false;

  constructor(private readonly options: LimitsOptions) {
    const flushMs = options.flushMs ?? USAGE_FLUSH_MS;
    this.timer = flushMs > 0 ? setInterval(() => this.periodic(), flushMs) : null;
    // Counting must never keep the process alive.
    this.timer?.unref();
  }

  /** The actor of an account, activated on first use with its month's counts from LMDB, synced to now. */
  private actorOf(account: Account, now: number): AccountActor {
    let actor = this.actors.get(account.id);
    if (actor === undefined) {
      const usage = this.options.storage.usage.get(account.id) as UsageRecord | undefined;
      actor = new AccountActor(account.id, account, now, usage);
      this.actors.set(account.id, actor);
    } else if (actor.sync(account.plan, account.expiresAt, account.revokedAt !== null, now)) {
      this.notify(actor);
    }
    return actor;
  }

  private markDirty(actor: AccountActor): void {
    if (actor.dirty) return;
    actor.dirty = true;
    this.dirty.push(actor);
  }

  /**
   * Listeners run in a microtask, never inside the call that noticed the change: the
   * transport may be iterating its connections when it calls countMessages.
   */
  private notify(actor: AccountActor): void {
    if (this.listeners.size === 0) return;
    const plan = actor.planInForce;
    queueMicrotask(() => {
      for (const listener of this.listeners) {
        try {
          listener(actor.id, plan);
        } catch (err) {
          this.options.log?.error({ err, account: actor.id }, 'onPlanChange listener threw');
        }
      }
    });
  }

  admitRequest(account: Account, minPlan: PlanName | undefined): RequestDecision {
    const now = this.options.clock.now();
    const actor = this.actorOf(account, now);
    const c = actor.counters;
    rollCounters(c, now);
    const limits = this.options.plans[actor.planInForce];
    const verdict = admitRequest(c, limits, planAllows(actor.planInForce, minPlan));
    if (verdict === 0 || verdict === 4033) this.markDirty(actor);
    const d = this.decision;
    d.verdict = verdict;
    d.plan = actor.planInForce;
    d.grace = actor.grace;
    d.rateLimit = limits.rps;
    d.rateRemaining = Math.max(0, limits.rps - c.windowCount);
    d.rateResetSeconds = secondsUntil(c.windowStartsAt + RATE_WINDOW_MS, now);
    d.quotaLimit = limits.monthly_requests;
    d.quotaRemaining = Math.max(0, limits.monthly_requests - c.requests);
    d.quotaResetSeconds = secondsUntil(c.monthEndsAt, now);
    d.inFlightLimit = limits.in_flight;
    // A slot frees when any request of the key ends; a second is a fair first wait.
    d.retryAfterSeconds = verdict === 4290 ? d.rateResetSeconds : verdict === 4291 ? d.quotaResetSeconds : verdict === 4292 ? 1 : 0;
    return d;
  }

  releaseRequest(accountId: string): void {
    const actor = this.actors.get(accountId);
    if (actor !== undefined) actor.counters.inFlight--;
  }

  planOf(account: Account): { plan: PlanName; grace: boolean } {
    const actor = this.actorOf(account, this.options.clock.now());
    return { plan: actor.planInForce, grace: actor.grace };
  }

  openConnection(account: Account): boolean {
    const actor = this.actorOf(account, this.options.clock.now());
    if (actor.phase === 'revoked' || actor.connections >= this.options.plans[actor.planInForce].ws_connections) return false;
    actor.connections++;
    this.openConnections++;
    return true;
  }

  closeConnection(accountId: string): void {
    const actor = this.actors.get(accountId);
    // An unmatched close is the caller's bug; never let the count go below 0 for it.
    if (actor === undefined || actor.connections === 0) {
      this.options.log?.warn({ account: accountId }, 'closeConnection without an open connection');
      return;
    }
    actor.connections--;
    this.openConnections--;
  }

  watch(account: Account, items: readonly string[]): boolean {
    const actor = this.actorOf(account, this.options.clock.now());
    const watched = actor.watched;
    let added = 0;
    let seen: Set<string> | null = null;
    for (const item of items) {
      if (watched.has(item)) continue;
      seen ??= new Set();
      if (seen.has(item)) continue;
      seen.add(item);
      added++;
    }
    if (added > 0 && watched.size + added > this.options.plans[actor.planInForce].watched_items) return false;
    for (const item of items) watched.set(item, (watched.get(item) ?? 0) + 1);
    return true;
  }

  unwatch(accountId: string, items: readonly string[]): void {
    const watched = this.actors.get(accountId)?.watched;
    if (watched === undefined) return;
    for (const item of items) {
      const refs = watched.get(item);
      if (refs === undefined) continue;
      if (refs <= 1) watched.delete(item);
      else watched.set(item, refs - 1);
    }
  }

  countMessages(account: Account, n: number): boolean {
    const now = this.options.clock.now();
    const actor = this.actorOf(account, now);
    const c = actor.counters;
    rollCounters(c, now);
    // NaN and negative counts are ignored, not allowed to corrupt the month's count.
    if (n > 0) {
      c.messages += n;
      this.markDirty(actor);
    }
    return c.messages <= messageCloseAt(this.options.plans[actor.planInForce]);
  }

  onPlanChange(listener: (accountId: string, plan: PlanName) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Notices expiries and grace ends of accounts that make no calls (their open streams
   * must still close), and, while connections are open, revoked or changed keys in
   * LMDB (one read of the accounts database, which holds the operator's keys).
   */
  sweep(): void {
    const now = this.options.clock.now();
    if (this.openConnections > 0) {
      for (const { value } of this.options.storage.accounts.getRange()) {
        const actor = this.actors.get(value.id);
        if (actor === undefined || actor.connections === 0) continue;
        if (actor.sync(value.plan, value.expiresAt, value.revokedAt !== null, now)) this.notify(actor);
      }
    }
    for (const actor of this.actors.values()) if (actor.tick(now)) this.notify(actor);
  }

  /** Writes the monthly counts changed since the last flush: all puts in one event turn, so one LMDB transaction. */
  flush(): Promise<void> {
    const dirty = this.dirty;
    if (dirty.length === 0) return Promise.resolve();
    this.dirty = [];
    const writes: Promise<boolean>[] = [];
    for (const actor of dirty) {
      actor.dirty = false;
      const c = actor.counters;
      const record: UsageRecord = { monthStartsAt: c.monthStartsAt, requests: c.requests, messages: c.messages };
      writes.push(this.options.storage.usage.put(actor.id, record));
    }
    return Promise.all(writes).then(() => undefined);
  }

  /** Stops the timer and writes what is left. Call before the storage is closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  /** An account's state in this process, or null if it was not seen. */
  usageOf(accountId: string): AccountUsage | null {
    const actor = this.actors.get(accountId);
    if (actor === undefined) return null;
    const c = actor.counters;
    return {
      phase: actor.phase,
      plan: actor.planInForce,
      grace: actor.grace,
      requests: c.requests,
      messages: c.messages,
      inFlight: c.inFlight,
      connections: actor.connections,
      watchedItems: actor.watched.size,
    };
  }

  private periodic(): void {
    try {
      this.sweep();
      this.flush().catch((err: unknown) => this.options.log?.error({ err }, 'usage counters could not be written'));
    } catch (err) {
      this.options.log?.error({ err }, 'limits sweep failed');
    }
  }
}

/** The plans and limits of one process, over its storage and clock. */
export function createLimits(options: LimitsOptions): Limits {
  return new Limits(options);
}
