import type { AccountLimits } from '../../engine/plans/index.ts';
import type { Account } from '../../engine/plans/index.ts';
import type { Metrics } from '../../engine/metrics.ts';
import type { Channel } from './channel.ts';
import type { HubConnection } from './hub.ts';
import type { TurnCounts } from './writer.ts';

/** An account with open connections. */
export interface AccountEntry {
  readonly account: Account;
  readonly connections: Set<HubConnection>;
  /** Data frames delivered and not yet reported to countMessages. */
  pending: number;
  touched: boolean;
}

/**
 * The message allowance of the accounts with open connections (SERVICE.md 8): data
 * frames are counted per account, each channel's frames since the last count times the
 * account's connections on it (not per socket), and reported once per hub turn, one
 * `countMessages` call per account (transport/ws/writer.ts runs the turn). @internal
 */
export class Allowance implements TurnCounts {
  private readonly accounts = new Map<string, AccountEntry>();
  private touchedAccounts: AccountEntry[] = [];

  constructor(
    private readonly limits: AccountLimits,
    private readonly metrics: Metrics,
  ) {}

  /** The account's entry, created on its first connection. */
  enter(account: Account, connection: HubConnection): AccountEntry {
    let entry = this.accounts.get(account.id);
    if (!entry) {
      entry = { account, connections: new Set(), pending: 0, touched: false };
      this.accounts.set(account.id, entry);
    }
    entry.connections.add(connection);
    connection.account = entry;
    return entry;
  }

  /** Leaves the account's set (a closed connection, which has left its channels). */
  exit(connection: HubConnection): void {
    const entry = connection.account;
    if (!entry) return;
    entry.connections.delete(connection);
    // Kept while frames are uncounted: the turn reports them, then the entry goes.
    if (entry.connections.size === 0 && !entry.touched) this.accounts.delete(entry.account.id);
  }

  /** The connections of an account, for closing them all (4402, 4429). */
  connectionsOf(accountId: string): HubConnection[] {
    return [...(this.accounts.get(accountId)?.connections ?? [])];
  }

  /** Moves a channel's published frames onto its accounts' pending counts. */
  settle(channel: Channel): void {
    const n = channel.pending;
    if (n === 0) return;
    channel.pending = 0;
    channel.framesMetric.inc(n);
    let delivered = 0;
    const perAccount = channel.perAccount;
    if (perAccount === null) {
      const only = channel.connection;
      if (only !== null) {
        this.addPending(only.account!, n);
        delivered = n;
      }
    } else {
      for (const [entry, connections] of perAccount) {
        this.addPending(entry, n * connections);
        delivered += n * connections;
      }
    }
    this.metrics.wsMessagesDelivered.inc(delivered);
  }

  addPending(entry: AccountEntry, n: number): void {
    entry.pending += n;
    if (!entry.touched) {
      entry.touched = true;
      this.touchedAccounts.push(entry);
    }
  }

  /**
   * Reports every account's pending frames to countMessages (the turn's end); returns
   * the accounts past their allowance that still have connections.
   */
  report(): AccountEntry[] {
    const touched = this.touchedAccounts;
    this.touchedAccounts = [];
    const exceeded: AccountEntry[] = [];
    for (const entry of touched) {
      const n = entry.pending;
      entry.pending = 0;
      entry.touched = false;
      if (!this.limits.countMessages(entry.account, n) && entry.connections.size) exceeded.push(entry);
      if (entry.connections.size === 0) this.accounts.delete(entry.account.id);
    }
    return exceeded;
  }
}
