import type { TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { AccountLimits } from '../../engine/plans/index.ts';
import type { Account } from '../../engine/plans/index.ts';
import type { Logger } from '../../engine/log.ts';
import type { Metrics } from '../../engine/metrics.ts';
import type { TopicSink } from '../../engine/topics/index.ts';
import { Allowance, type AccountEntry } from './allowance.ts';
import { Channel, type FramesMetric } from './channel.ts';
import { subscriptionIdMember, type ChannelRef } from './protocol.ts';
import { Writer, type Outbox } from './writer.ts';

/**
 * Fan-out of engine frames to WebSocket connections (ARCHITECTURE.md "Topics").
 *
 * An engine topic (`pool_trades:<pool>`) has one or more channels: the topic itself,
 * and for candles one more per distinct `subscription_id`, whose frames carry the id.
 * A frame is built once per channel, never once per subscriber, and:
 * - a channel with two or more connections is a uWS topic: `publish` hands the frame
 *   to uWS once; uWS queues it for every subscriber and writes everything a socket got
 *   in one event-loop turn in one write;
 * - a channel with one connection (most: a pool watched by one client) has no uWS
 *   topic, whose native memory (~0.55 KB a topic) was most of an idle subscribed
 *   connection's. The frame goes into that connection's outbox, which the hub writes
 *   corked, in one write, like uWS's topic queue: at the turn's end, once it holds
 *   OUTBOX_BYTES, and before anything else reaches the socket (a publish on a uWS
 *   topic, a join or leave, a control frame, a close; the engine also asks for it after
 *   each batch). Sent one by one, each frame was a write of its own and a wake-up of
 *   the client: 1,000 connections on their own 10 pools each got 22k frames/s that
 *   way, 27-28k written per turn.
 *   uWS's `send` first writes what its topics still hold for the socket, so a
 *   connection's frames keep publish order across its channels and across a channel's
 *   changes.
 *
 * Outboxes and the turn are the writer's (transport/ws/writer.ts), the counts per
 * account the allowance's (transport/ws/allowance.ts). Once per turn that published
 * anything (a setImmediate, which runs after uWS has drained the turn's frames into the
 * sockets' buffers), the writer:
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
  account: AccountEntry | null;
  /** The hub turn in which the buffered amount was last checked. */
  checkedTurn: number;
  /** uWS dropped a frame for it (past the hard cap). */
  dropped: boolean;
  /** Frames of the channels it has alone, not written yet (Hub.publish); null until its first. */
  outbox: Outbox | null;
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

/** Longest topic name counted by length in `has`'s filter (candles topics are ~70 characters). */
const LENGTHS_MAX = 255;

export class Hub implements TopicSink {
  /** By engine topic: its first channel; the others follow through `Channel.next`. */
  private readonly topics = new Map<string, Channel>();
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
  /** Channels with a subscription_id, by name (a topic's channel without one is found through `topics`). */
  private readonly idChannels = new Map<string, Channel>();
  /** One prom-client child per stream: `labels()` allocates a bound closure per call. */
  private readonly framesMetrics = new Map<string, FramesMetric>();
  /** The accounts' message counts. */
  private readonly allowance: Allowance;
  /** Outboxes, the turn and the slow-consumer policy. */
  private readonly writer: Writer;

  constructor(private readonly o: HubOptions) {
    this.allowance = new Allowance(o.limits, o.metrics);
    this.writer = new Writer({ app: o.app, topics: this.topics, log: o.log, backpressureBytes: o.backpressureBytes, events: o.events, counts: this.allowance });
    this.publish = this.writer.publish;
  }

  has(topic: string): boolean {
    const length = topic.length;
    if (length <= LENGTHS_MAX && this.byLength[length] === 0) return false;
    return this.topics.has(topic);
  }

  /** TopicSink: the writer's own function (transport/ws/writer.ts), so a frame costs no call more. */
  readonly publish: (topic: string, frame: string) => void;

  /** Writes a connection's outbox now (transport/ws/writer.ts): before a control or resume frame. */
  flushOutbox(connection: HubConnection): void {
    this.writer.flushOutbox(connection);
  }

  /** TopicSink: the engine applied a batch; its frames go out now (not at the turn's end). */
  flush(): void {
    this.writer.flush();
  }

  /** The account's entry, created on its first connection. */
  enter(account: Account, connection: HubConnection): AccountEntry {
    return this.allowance.enter(account, connection);
  }

  /** Leaves the account's set (a closed connection, which has left its channels). */
  exit(connection: HubConnection): void {
    this.allowance.exit(connection);
  }

  /** The connections of an account, for closing them all (4402, 4429). */
  connectionsOf(accountId: string): HubConnection[] {
    return this.allowance.connectionsOf(accountId);
  }

  /**
   * Subscribes an authenticated connection to a channel (reference-counted per
   * connection) and returns the channel: the handle `leave` takes.
   */
  join(connection: HubConnection, ref: ChannelRef): Channel {
    const entry = connection.account;
    if (!entry) throw new Error('ws: a connection joined a channel before authentication');
    // Frames waiting in outboxes are counted for the connections on their channels now.
    this.writer.flushQueued();
    let channel = ref.subscriptionId === null ? this.plainChannel(ref.topic) : this.idChannels.get(ref.name);
    if (channel === undefined) channel = this.createChannel(ref);
    else {
      const held = channel.refsOf(connection);
      if (held > 0) {
        channel.setRefs(connection, held + 1);
        return channel;
      }
    }
    // Frames already published on it were not for this connection.
    this.allowance.settle(channel);
    const only = channel.connection;
    channel.add(connection, entry);
    if (channel.connections !== null) {
      // Shared from now on: a uWS topic, with the connection that had it alone.
      only?.ws?.subscribe(channel.name);
      connection.ws?.subscribe(channel.name);
    }
    return channel;
  }

  /** Drops one reference of a connection to a channel; unsubscribes at zero. */
  leave(connection: HubConnection, channel: Channel): void {
    const held = channel.refsOf(connection);
    if (held !== 1) {
      if (held > 1) channel.setRefs(connection, held - 1);
      return;
    }
    // Frames published while it was on the channel are written and counted for its account.
    this.writer.flushQueued();
    this.allowance.settle(channel);
    const shared = channel.connections !== null;
    const empty = channel.remove(connection);
    if (shared) {
      connection.ws?.unsubscribe(channel.name);
      // One left: it leaves the uWS topic too and gets frames sent again. What the topic
      // still holds for it stays queued, and goes out before its next frame.
      channel.connection?.ws?.unsubscribe(channel.name);
    }
    if (empty) this.removeChannel(channel);
  }

  /** Counts data frames sent to one connection outside a channel (a candles resume frame). */
  countDirect(connection: HubConnection, n: number): void {
    const entry = connection.account;
    if (!entry) return;
    this.allowance.addPending(entry, n);
    this.writer.scheduleTurn();
  }

  /** uWS's `dropped` callback: runs inside uWS's drain, where sockets must not (un)subscribe. */
  markDropped(connection: HubConnection): void {
    this.writer.markDropped(connection);
  }

  /** Stops everything (the server closes its sockets itself). */
  close(): void {
    this.topics.clear();
    this.byLength.fill(0);
    this.idChannels.clear();
    this.writer.close();
  }

  /** The topic's channel without a subscription_id, if any. */
  private plainChannel(topic: string): Channel | undefined {
    let channel = this.topics.get(topic);
    // Only candles topics have more than one channel, one per distinct subscription_id.
    while (channel !== undefined && channel.member !== null) channel = channel.next ?? undefined;
    return channel;
  }

  private createChannel(ref: ChannelRef): Channel {
    const id = ref.subscriptionId;
    const channel = new Channel(ref.name, ref.topic, id === null ? null : subscriptionIdMember(id), ref.item, this.framesMetricOf(ref.topic));
    let last = this.topics.get(ref.topic);
    if (last === undefined) {
      this.topics.set(ref.topic, channel);
      this.countLength(ref.topic, 1);
    } else {
      // Appended: a topic's frames go out in the order its channels were created.
      while (last.next !== null) last = last.next;
      last.next = channel;
    }
    if (id !== null) this.idChannels.set(ref.name, channel);
    return channel;
  }

  private framesMetricOf(topic: string): FramesMetric {
    const colon = topic.indexOf(':');
    const stream = colon < 0 ? topic : topic.slice(0, colon);
    let metric = this.framesMetrics.get(stream);
    if (metric === undefined) {
      metric = this.o.metrics.wsFramesPublished.labels(stream);
      this.framesMetrics.set(stream, metric);
    }
    return metric;
  }

  private removeChannel(channel: Channel): void {
    // By identity: after close() a channel may be gone from the maps already.
    if (channel.member !== null && this.idChannels.get(channel.name) === channel) this.idChannels.delete(channel.name);
    const first = this.topics.get(channel.topic);
    if (first === channel) {
      if (channel.next !== null) this.topics.set(channel.topic, channel.next);
      else {
        this.topics.delete(channel.topic);
        this.countLength(channel.topic, -1);
      }
    } else if (first !== undefined) {
      let previous = first;
      while (previous.next !== null && previous.next !== channel) previous = previous.next;
      if (previous.next === channel) previous.next = channel.next;
    }
    channel.next = null;
  }

  private countLength(name: string, delta: 1 | -1): void {
    if (name.length <= LENGTHS_MAX) this.byLength[name.length]! += delta;
  }
}
