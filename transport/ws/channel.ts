import type { AccountEntry } from './allowance.ts';
import type { HubConnection } from './hub.ts';

/** prom-client child of the frames counter for one stream. */
export type FramesMetric = { inc(n: number): void };

/**
 * One stream of frames, a uWS topic while shared (see Hub). Most channels have one
 * connection (a pool watched by one client), so that connection is held inline, with
 * how many of its subscriptions name the channel (pool_metrics subscriptions may
 * overlap). Only while two or more connections are on it does the channel have maps,
 * and it drops them when one is left again: `connections === null` exactly when fewer
 * than two are on it. @internal
 */
export class Channel {
  /** The only connection on the channel, or null (none, or shared). */
  connection: HubConnection | null = null;
  /** Subscriptions of `connection` that name the channel. */
  refs = 0;
  /** While shared: every connection on it, with how many of its subscriptions name it. */
  connections: Map<HubConnection, number> | null = null;
  /** While shared: connections per account, how many frames one publish delivers to each account. */
  perAccount: Map<AccountEntry, number> | null = null;
  /** The next channel of the same engine topic (candles: one per distinct subscription_id), in creation order. */
  next: Channel | null = null;
  /** Frames published since the last count. */
  pending = 0;
  dirty = false;

  constructor(
    /** Its uWS topic while shared: the engine topic, or `<topic>#<subscription_id>`. */
    readonly name: string,
    readonly topic: string,
    /** `"subscription_id":"..."`, or null for frames as the engine built them. */
    readonly member: string | null,
    /** The watched item(s) its topic names (SERVICE.md 8), the same for every subscription on it. */
    readonly item: string | readonly string[] | null,
    readonly framesMetric: FramesMetric,
  ) {}

  /** How many of the connection's subscriptions name the channel (0: it is not on it). */
  refsOf(connection: HubConnection): number {
    if (this.connections === null) return this.connection === connection ? this.refs : 0;
    return this.connections.get(connection) ?? 0;
  }

  /** For a connection on the channel. */
  setRefs(connection: HubConnection, refs: number): void {
    if (this.connections === null) this.refs = refs;
    else this.connections.set(connection, refs);
  }

  /** Puts a connection not on the channel yet on it: inline if alone; the second one makes the maps. */
  add(connection: HubConnection, entry: AccountEntry): void {
    const only = this.connection;
    if (this.connections === null && only === null) {
      this.connection = connection;
      this.refs = 1;
      return;
    }
    if (only !== null) {
      this.connections = new Map([[only, this.refs]]);
      this.perAccount = new Map([[only.account!, 1]]);
      this.connection = null;
      this.refs = 0;
    }
    this.connections!.set(connection, 1);
    this.perAccount!.set(entry, (this.perAccount!.get(entry) ?? 0) + 1);
  }

  /** Takes a connection on the channel off it; one left is held inline again. True: the channel is empty. */
  remove(connection: HubConnection): boolean {
    const connections = this.connections;
    if (connections === null) {
      this.connection = null;
      this.refs = 0;
      return true;
    }
    connections.delete(connection);
    const perAccount = this.perAccount!;
    const n = perAccount.get(connection.account!)! - 1;
    if (n > 0) perAccount.set(connection.account!, n);
    else perAccount.delete(connection.account!);
    if (connections.size === 1) {
      for (const [last, refs] of connections) {
        this.connection = last;
        this.refs = refs;
      }
      this.connections = null;
      this.perAccount = null;
    }
    return false;
  }
}
