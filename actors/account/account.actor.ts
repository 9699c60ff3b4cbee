import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import type { PlanName } from '../../engine/config.ts';
import { GRACE_MS, initialCounters, type Counters } from './account.logic.ts';
import { accountMachine, type AccountPhase } from './account.machine.ts';

type Lifecycle = SnapshotFrom<typeof accountMachine>;

/** Every account starts active; its first sync moves it where its expiry says. */
const INITIAL: Lifecycle = initialTransition(accountMachine)[0];

/**
 * One API account as engine/plans/limits.ts keeps it in memory: the lifecycle (an xstate
 * snapshot, advanced with the pure `transition()` only when the key's expiry changes or
 * a boundary passes) and plain mutable numbers for everything counted per request or
 * per message. It describes one account in this process; the monthly counts are
 * persisted by its owner.
 */
export class AccountActor {
  /** The key's own plan and expiry as last seen (a verify reads them fresh from LMDB). */
  plan: PlanName;
  expiresAt: number | null;
  lifecycle: Lifecycle = INITIAL;
  /** The plan whose limits apply now: the key's own while active or in grace, else free. */
  planInForce: PlanName;
  /** In the 2-hour grace after expiry (responses carry X-Subscription-Grace: true). */
  grace = false;
  /** The clock time at which the lifecycle must next be ticked: an expiry or a grace end. */
  private checkAt = -Infinity;
  readonly counters: Counters;
  /** Queued for the next write of the monthly counts. */
  dirty = false;
  /** Open WebSocket connections (in memory: they describe this process's sockets). */
  connections = 0;
  /** Watched item → references across the account's connections and subscriptions. */
  readonly watched = new Map<string, number>();

  constructor(
    readonly id: string,
    account: { plan: PlanName; expiresAt: number | null; revokedAt: number | null },
    now: number,
    usage?: { monthStartsAt: number; requests: number; messages: number },
  ) {
    this.plan = account.plan;
    this.expiresAt = account.expiresAt;
    this.planInForce = account.plan;
    this.counters = initialCounters(now, usage);
    // First sight: where the account already is is no change to tell anyone about.
    this.sync(account.plan, account.expiresAt, account.revokedAt !== null, now);
  }

  get phase(): AccountPhase {
    return this.lifecycle.value as AccountPhase;
  }

  /**
   * Brings the lifecycle up to date with the key's record and `now`. Three comparisons
   * when nothing changed, so it runs on every request. Returns true when the account
   * just became unable to keep paid streams: its plan in force dropped from a paid plan
   * to free (grace ended), or it was revoked.
   */
  sync(plan: PlanName, expiresAt: number | null, revoked: boolean, now: number): boolean {
    if (!revoked && expiresAt === this.expiresAt && plan === this.plan && now < this.checkAt) return false;
    const phaseBefore = this.phase;
    const planBefore = this.planInForce;
    this.plan = plan;
    this.expiresAt = expiresAt;
    this.lifecycle = transition(accountMachine, this.lifecycle, revoked ? { type: 'account.revoked' } : { type: 'account.tick', now, expiresAt })[0];
    const phase = this.phase;
    this.planInForce = phase === 'active' || phase === 'grace' ? plan : 'free';
    this.grace = phase === 'grace';
    this.checkAt =
      phase === 'active' && expiresAt !== null && now < expiresAt ? expiresAt : phase === 'grace' ? expiresAt! + GRACE_MS : Infinity;
    if (phase === 'revoked') return phaseBefore !== 'revoked';
    return planBefore !== 'free' && this.planInForce === 'free';
  }

  /** Ticks the lifecycle with the record last seen (the periodic sweep). */
  tick(now: number): boolean {
    if (this.phase === 'revoked') return false;
    return this.sync(this.plan, this.expiresAt, false, now);
  }
}
