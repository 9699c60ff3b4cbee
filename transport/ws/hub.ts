import type { TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { AccountLimits } from '../../engine/account-limits.ts';
import type { Account } from '../../engine/keys.ts';
import type { Logger } from '../../engine/log.ts';
import type { Metrics } from '../../engine/metrics.ts';
import { CANDLES_FRAME_PREFIX, type TopicSink } from '../../engine/topics.ts';
import { subscriptionIdMember, type ChannelRef } from './protocol.ts';

/**
 * Fan-out of engine frames to WebSocket connections (ARCHITECTURE.md "Topics").
 *
 * An engine topic (`pool_trades:<pool>`) has one or more channels, each a uWS topic:
 * the topic itself, and for candles one more per distinct `subscription_id`, whose
 * frames carry the id. `publish` hands each channel's frame to uWS once: uWS queues it
 * for every subscriber and writes everything a socket got in one event-loop turn in
 * one write. So a frame is built once per channel, never once per subscriber.
 *
 * Once per turn that published anything (a setImmediate, which runs after uWS has
 * drained the turn's frames into the sockets' buffers), the hub:
 * - counts data frames per account: each channel's frames since the last count times
 *   the account's connections on it (not per socket), one `countMessages` call per
 *   account; false closes the account's connections with 4429;
 * - checks the buffered amount of every connection on the channels that published:
 *   over the soft limit (`ws.backpressureBytes`), the connection is a slow consumer.
 *   uWS's own cap (`maxBackpressure`) is set well above it, so nothing is dropped
 *   before the hub sees the connection past the soft limit; if a burst passes the
 *   hard cap anyway, uWS's `dropped` callback marks the connection, and the hub stops
 *   its streams before anything else is published (see `markDropped`).
 */

/** The part of a connection the hub works with (transport/ws/session.ts). */
export interface HubConnection {
  readonly ws: WebSocket<unknown> | null;
  /** Channels this connection is on, with how many of its subscriptions name each. */
  readonly channels: Map<Channel, number>;
  account: AccountEntry | null;
  /** The hub turn in which the buffered amount was last checked. */
  checkedTurn: number;
  /** uWS dropped a frame for it (past the hard cap). */
  dropped: boolean;
}

/** An account with open connections. */
export interface AccountEntry {
  readonly account: Account;
  readonly connections: Set<HubConnection>;
  /** Data frames delivered and not yet reported to countMessages. */
  pending: number;
  touched: boolean;
}

/** One uWS topic. @internal */
export class Channel {
  readonly connections = new Set<HubConnection>();
  /** Connections on the channel per account: how many frames one publish delivers to each account. */
  readonly perAccount = new Map<AccountEntry, number>();
  /** Frames published since the last count. */
  pending = 0;
  dirty = false;

  constructor(
    readonly name: string,
    readonly topic: TopicEntry,
    /** `"subscription_id":"..."`, or null for frames as the engine built them. */
    readonly member: string | null,
  ) {}
}

/** @internal */
interface TopicEntry {
  readonly name: string;
  readonly channels: Channel[];
  /** prom-client child of the frames counter for the topic's stream. */
  readonly framesMetric: { inc(n: number): void };
}

export interface HubEvents {
  /** A connection past the soft limit, or with a dropped frame: stop it and close with 4008. */
  slow(connection: HubConnection): void;
  /** An account past 110 % of its message allowance: close its connections with 4429. */
  allowanceExceeded(entry: AccountEntry): void;
}

export interface HubOptions {
  app: TemplatedApp;
  limits: AccountLimits;
  metrics: Metrics;
  log: Logger;
  backpressureBytes: number;
  events: HubEvents;
}

const PREFIX_LENGTH = CANDLES_FRAME_PREFIX.length;
/** Longest topic name counted by length in `has`'s filter (candles topics are ~70 characters). */
const LENGTHS_MAX = 255;
const CLOSE_BRACE = 125; // '}'

export class Hub implements TopicSink {
  private readonly topics = new Map<string, TopicEntry>();
  /**
   * Topics per length of their name (names up to LENGTHS_MAX; longer ones are not
   * counted and always looked up). The engine asks `has` for every pool it flushes (28
   * candle series, pool_metrics) and for the token topics of every trade, with names it
   * has just built by concatenation: the Map must flatten and hash such a name (~0.2 µs;
   * even reading its first character flattens it), and most answers are no. A length
   * is read without touching the characters, so a name of a length no topic has (no
   * candles topic at all, say) is answered in a few nanoseconds.
   */
  private readonly byLength = new Uint32Array(LENGTHS_MAX + 1);
  private readonly channels = new Map<string, Channel>();
  private readonly accounts = new Map<string, AccountEntry>();
  private dirty: Channel[] = [];
  private touchedAccounts: AccountEntry[] = [];
  private droppedConnections: HubConnection[] = [];
  private turn = 0;
  private turnScheduled = false;
  private readonly endTurn = () => this.runTurnGuarded();

  constructor(private readonly o: HubOptions) {}

  has(topic: string): boolean {
    const length = topic.length;
    if (length <= LENGTHS_MAX && this.byLength[length] === 0) return false;
    return this.topics.has(topic);
  }

  publish(topic: string, frame: string): void {
    const entry = this.topics.get(topic);
    if (entry === undefined) return;
    if (this.droppedConnections.length) this.stopDropped();
    const channels = entry.channels;
    for (let i = 0; i < channels.length; i++) {
      const channel = channels[i]!;
      this.o.app.publish(channel.name, channel.member === null ? frame : withMember(frame, channel.member), false, false);
      channel.pending++;
      if (!channel.dirty) {
        channel.dirty = true;
        this.dirty.push(channel);
      }
    }
    // uWS may have dropped a frame while draining a socket inline (32 queued frames):
    // stop that connection's streams before anything else can reach it.
    if (this.droppedConnections.length) this.stopDropped();
    this.scheduleTurn();
  }

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

  /** Leaves every channel and the account's set (a closed connection). */
  exit(connection: HubConnection): void {
    this.leaveAll(connection);
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

  /** Subscribes a connection to a channel (reference-counted per connection). */
  join(connection: HubConnection, ref: ChannelRef): void {
    const ws = connection.ws;
    const entry = connection.account;
    if (!ws || !entry) return;
    const name = ref.subscriptionId === null ? ref.topic : `${ref.topic}#${ref.subscriptionId}`;
    let channel = this.channels.get(name);
    const held = channel ? connection.channels.get(channel) : undefined;
    if (channel && held !== undefined) {
      connection.channels.set(channel, held + 1);
      return;
    }
    if (!channel) channel = this.createChannel(name, ref);
    // Frames already published on it were not for this connection.
    this.settle(channel);
    connection.channels.set(channel, 1);
    channel.connections.add(connection);
    channel.perAccount.set(entry, (channel.perAccount.get(entry) ?? 0) + 1);
    ws.subscribe(name);
  }

  /** Drops one reference of a connection to a channel; unsubscribes at zero. */
  leave(connection: HubConnection, ref: ChannelRef): void {
    const name = ref.subscriptionId === null ? ref.topic : `${ref.topic}#${ref.subscriptionId}`;
    const channel = this.channels.get(name);
    const held = channel ? connection.channels.get(channel) : undefined;
    if (!channel || held === undefined) return;
    if (held > 1) connection.channels.set(channel, held - 1);
    else this.detach(connection, channel);
  }

  /** Leaves every channel: a closed connection, or a slow one whose streams stop. */
  leaveAll(connection: HubConnection): void {
    for (const channel of [...connection.channels.keys()]) this.detach(connection, channel);
  }

  /** Counts data frames sent to one connection outside a channel (a candles resume frame). */
  countDirect(connection: HubConnection, n: number): void {
    const entry = connection.account;
    if (!entry) return;
    this.addPending(entry, n);
    this.scheduleTurn();
  }

  /** uWS's `dropped` callback: runs inside uWS's drain, where sockets must not (un)subscribe. */
  markDropped(connection: HubConnection): void {
    if (connection.dropped) return;
    connection.dropped = true;
    this.droppedConnections.push(connection);
    this.scheduleTurn();
  }

  /** Stops everything (the server closes its sockets itself). */
  close(): void {
    this.topics.clear();
    this.byLength.fill(0);
    this.channels.clear();
    this.dirty = [];
  }

  private createChannel(name: string, ref: ChannelRef): Channel {
    let topic = this.topics.get(ref.topic);
    if (!topic) {
      const colon = ref.topic.indexOf(':');
      const stream = colon < 0 ? ref.topic : ref.topic.slice(0, colon);
      topic = { name: ref.topic, channels: [], framesMetric: this.o.metrics.wsFramesPublished.labels(stream) };
      this.topics.set(ref.topic, topic);
      this.countLength(ref.topic, 1);
    }
    const channel = new Channel(name, topic, ref.subscriptionId === null ? null : subscriptionIdMember(ref.subscriptionId));
    topic.channels.push(channel);
    this.channels.set(name, channel);
    return channel;
  }

  private detach(connection: HubConnection, channel: Channel): void {
    // Frames published while it was on the channel are counted for its account.
    this.settle(channel);
    connection.channels.delete(channel);
    channel.connections.delete(connection);
    const entry = connection.account!;
    const n = channel.perAccount.get(entry)! - 1;
    if (n > 0) channel.perAccount.set(entry, n);
    else channel.perAccount.delete(entry);
    connection.ws?.unsubscribe(channel.name);
    if (channel.connections.size === 0) this.removeChannel(channel);
  }

  private removeChannel(channel: Channel): void {
    this.channels.delete(channel.name);
    const topic = channel.topic;
    const i = topic.channels.indexOf(channel);
    if (i >= 0) topic.channels.splice(i, 1);
    // Counted down only if still counted (close() forgets every topic at once).
    if (topic.channels.length === 0 && this.topics.delete(topic.name)) this.countLength(topic.name, -1);
  }

  private countLength(name: string, delta: 1 | -1): void {
    if (name.length <= LENGTHS_MAX) this.byLength[name.length]! += delta;
  }

  /** Moves a channel's published frames onto its accounts' pending counts. */
  private settle(channel: Channel): void {
    const n = channel.pending;
    if (n === 0) return;
    channel.pending = 0;
    channel.topic.framesMetric.inc(n);
    let delivered = 0;
    for (const [entry, connections] of channel.perAccount) {
      this.addPending(entry, n * connections);
      delivered += n * connections;
    }
    this.o.metrics.wsMessagesDelivered.inc(delivered);
  }

  private addPending(entry: AccountEntry, n: number): void {
    entry.pending += n;
    if (!entry.touched) {
      entry.touched = true;
      this.touchedAccounts.push(entry);
    }
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(this.endTurn);
  }

  /** The turn runs outside any uWS handler: a throw here must be logged, not crash the process. */
  private runTurnGuarded(): void {
    try {
      this.runTurn();
    } catch (err) {
      this.o.log.error({ err }, 'ws: counting or backpressure check failed');
    }
  }

  /** After uWS has drained the turn's frames: count messages, find slow consumers. */
  private runTurn(): void {
    this.turnScheduled = false;
    const turn = ++this.turn;
    const dirty = this.dirty;
    this.dirty = [];
    for (const channel of dirty) {
      channel.dirty = false;
      this.settle(channel);
    }
    const touched = this.touchedAccounts;
    this.touchedAccounts = [];
    const exceeded: AccountEntry[] = [];
    for (const entry of touched) {
      const n = entry.pending;
      entry.pending = 0;
      entry.touched = false;
      if (!this.o.limits.countMessages(entry.account, n) && entry.connections.size) exceeded.push(entry);
      if (entry.connections.size === 0) this.accounts.delete(entry.account.id);
    }
    const slow: HubConnection[] = [];
    const limit = this.o.backpressureBytes;
    for (const channel of dirty) {
      for (const connection of channel.connections) {
        if (connection.checkedTurn === turn) continue;
        connection.checkedTurn = turn;
        const ws = connection.ws;
        if (ws && ws.getBufferedAmount() > limit) slow.push(connection);
      }
    }
    if (this.droppedConnections.length) this.stopDropped();
    for (const connection of slow) this.o.events.slow(connection);
    for (const entry of exceeded) this.o.events.allowanceExceeded(entry);
  }

  private stopDropped(): void {
    const dropped = this.droppedConnections;
    this.droppedConnections = [];
    this.o.log.warn({ connections: dropped.length }, 'ws: frames dropped past the hard backpressure cap');
    for (const connection of dropped) this.o.events.slow(connection);
  }
}

/** The frame with `"subscription_id":"..."` as the first member of `data`. */
function withMember(frame: string, member: string): string {
  // Every candles frame starts with the prefix (engine/topics.ts); anything else is
  // passed on unchanged rather than corrupted.
  if (!frame.startsWith(CANDLES_FRAME_PREFIX)) return frame;
  const rest = frame.slice(PREFIX_LENGTH);
  return CANDLES_FRAME_PREFIX + member + (rest.charCodeAt(0) === CLOSE_BRACE ? '' : ',') + rest;
}
