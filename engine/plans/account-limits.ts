import type { PlanName } from '../config.ts';
import type { Account } from './keys.ts';

/**
 * What the WebSocket transport asks of the plans and limits (DECISIONS.md, "Plans";
 * SERVICE.md 3.3, 8). Implemented by engine/plans/limits.ts over the account actors; the
 * transport only sees this interface. Account ids are `Account.id`.
 */
export interface AccountLimits {
  /**
   * The plan in force for an account now: its own plan while active or in the 2-hour
   * grace after expiry (`grace: true`), `free` after that.
   */
  planOf(account: Account): { plan: PlanName; grace: boolean };
  /** Claims a WebSocket connection slot; false when the plan's `ws_connections` are all taken. */
  openConnection(account: Account): boolean;
  /** Releases a slot taken by openConnection (exactly once per successful open). */
  closeConnection(accountId: string): void;
  /**
   * Adds watched items (a pool, wallet, token or feed key named by a subscription),
   * counted once per account however many connections and subscriptions name them;
   * reference-counted. All or nothing: false, and nothing added, when the account's
   * distinct items would pass the plan's `watched_items`.
   */
  watch(account: Account, items: readonly string[]): boolean;
  /** Drops one reference to each item (an unsubscribe or a closed connection). */
  unwatch(accountId: string, items: readonly string[]): void;
  /**
   * Counts stream data messages delivered to an account (control frames do not
   * count). Returns false once the month's count is past 110 % of its allowance
   * (20 × monthly requests): the caller closes its streams with 4429.
   */
  countMessages(account: Account, n: number): boolean;
  /**
   * Listens for accounts whose plan in force changes (grace ended → free, revoked):
   * the transport closes their open streams with 4402. Returns the unsubscribe.
   */
  onPlanChange(listener: (accountId: string, plan: PlanName) => void): () => void;
}
