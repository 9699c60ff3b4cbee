import { OUTBOX_BYTES } from '../../engine/bounds.ts';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Logger } from '../../engine/log.ts';
import type { Channel } from './channel.ts';
import type { AccountEntry } from './allowance.ts';
import type { HubConnection, HubEvents } from './hub.ts';
import { SEND_DROPPED, withMember } from './protocol.ts';

/** A connection's frames waiting for their write, with the channel of each (counted once written). */
export interface Outbox {
  frames: string[];
  channels: Channel[];
  /** Characters of `frames` (the frames are ASCII but for free text). */
  bytes: number;
}

/** What the turn counts per account (transport/ws/allowance.ts). */
export interface TurnCounts {
  /** Moves a channel's published frames onto its accounts' pending counts. */
  settle(channel: Channel): void;
  /** Reports the pending counts; returns the accounts past their allowance that still have connections. */
  report(): AccountEntry[];
}

export interface WriterOptions {
  app: TemplatedApp;
  /** The hub's channels by engine topic (read only here): the first of each topic. */
  topics: ReadonlyMap<string, Channel>;
  log: Logger;
  backpressureBytes: number;
  events: HubEvents;
  counts: TurnCounts;
}

/**
 * How the hub's frames reach the sockets (see the Hub's comment, transport/ws/hub.ts):
 * a shared channel's frame goes to uWS's topic, a channel with one connection's into
 * that connection's outbox, written corked in one write; and once per turn that
 * published anything (a setImmediate), the count of the turn's frames per account and
 * the slow-consumer policy: a connection over the soft limit (`ws.backpressureBytes`),
 * or one uWS dropped a frame for (past the hard cap, see `markDropped`), is stopped
 * with HubEvents.slow. @internal
 */
export class Writer {
  private dirty: Channel[] = [];
  private droppedConnections: HubConnection[] = [];
  /** Connections whose outbox holds frames (a connection may be listed twice: its outbox is then empty). */
  private queued: HubConnection[] = [];
  private spareQueued: HubConnection[] = [];
  /** The connection whose outbox `writeOutbox` writes (a bound method: no closure per write). */
  private writing: HubConnection | null = null;
  private turn = 0;
  private turnScheduled = false;
  private readonly endTurn = () => this.runTurnGuarded();

  /** The hub's channels by engine topic. */
  private readonly topics: ReadonlyMap<string, Channel>;

  constructor(private readonly o: WriterOptions) {
    this.topics = o.topics;
  }

  /**
   * TopicSink.publish (the Hub's, this very function: no call in between): hands one
   * frame to each channel of the topic.
   */
  readonly publish = (topic: string, frame: string): void => {
    const topics = this.topics;
    let first = topics.get(topic);
    if (first === undefined) return;
    // What waits in outboxes was published first: out before uWS queues this frame
    // (uWS's own queue for a socket is written before anything `send` adds).
    if (this.queued.length !== 0 && hasTopic(first)) this.flushQueued();
    if (this.droppedConnections.length) {
      // Stopping them may have removed channels of this topic.
      this.stopDropped();
      first = topics.get(topic);
      if (first === undefined) return;
    }
    for (let channel: Channel | null = first; channel !== null; channel = channel.next) {
      const out = channel.member === null ? frame : withMember(frame, channel.member);
      const only = channel.connection;
      if (only === null) {
        this.o.app.publish(channel.name, out, false, false);
        this.published(channel);
        continue;
      }
      // One connection: no uWS topic; the frame waits in its outbox (counted once written).
      if (only.ws === null || only.dropped) continue;
      let box = only.outbox;
      if (box === null) box = only.outbox = { frames: [], channels: [], bytes: 0 };
      if (box.frames.length === 0) this.queued.push(only);
      box.frames.push(out);
      box.channels.push(channel);
      box.bytes += out.length;
      if (box.bytes >= OUTBOX_BYTES) this.flushOutbox(only);
    }
    // A frame dropped while writing an outbox, or while uWS drained a socket inline (32
    // queued frames): stop that connection's streams before anything else can reach it.
    if (this.droppedConnections.length) this.stopDropped();
    this.scheduleTurn();
  };

  /**
   * Writes a connection's outbox now, corked (one write), each frame counted for its
   * channel; a frame uWS drops ends it there (the rest is not sent: the connection's
   * streams stop with 4008, see markDropped). Before a control or resume frame goes to
   * the socket (transport/ws/session.ts), so frames keep their order.
   */
  flushOutbox(connection: HubConnection): void {
    const box = connection.outbox;
    if (box === null || box.frames.length === 0) return;
    const ws = connection.ws;
    if (ws === null || connection.dropped) {
      clearOutbox(box);
      return;
    }
    this.writing = connection;
    try {
      ws.cork(this.writeOutbox);
    } finally {
      this.writing = null;
    }
  }

  private readonly writeOutbox = (): void => {
    const connection = this.writing!;
    const ws = connection.ws!;
    const box = connection.outbox!;
    const { frames, channels } = box;
    for (let i = 0; i < frames.length; i++) {
      if (ws.send(frames[i]!, false, false) === SEND_DROPPED) {
        this.markDropped(connection);
        break;
      }
      this.published(channels[i]!);
    }
    clearOutbox(box);
  };

  /** The engine applied a batch; its frames go out now (not at the turn's end). */
  flush(): void {
    this.flushQueued();
    if (this.droppedConnections.length) this.stopDropped();
  }

  /** Writes every outbox (before a topic publish, a join or leave, at a batch's end, at the turn's end). */
  flushQueued(): void {
    const queued = this.queued;
    if (queued.length === 0) return;
    this.queued = this.spareQueued;
    for (let i = 0; i < queued.length; i++) this.flushOutbox(queued[i]!);
    queued.length = 0;
    this.spareQueued = queued;
  }

  /** One frame of the channel reached uWS: counted at the turn's end (settle). */
  private published(channel: Channel): void {
    channel.pending++;
    if (!channel.dirty) {
      channel.dirty = true;
      this.dirty.push(channel);
    }
  }

  /** uWS's `dropped` callback: runs inside uWS's drain, where sockets must not (un)subscribe. */
  markDropped(connection: HubConnection): void {
    if (connection.dropped) return;
    connection.dropped = true;
    this.droppedConnections.push(connection);
    this.scheduleTurn();
  }

  /** Forgets what waits (the server closes its sockets itself). */
  close(): void {
    this.dirty = [];
    this.queued = [];
  }

  scheduleTurn(): void {
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
    this.flushQueued();
    const turn = ++this.turn;
    const dirty = this.dirty;
    this.dirty = [];
    const counts = this.o.counts;
    for (const channel of dirty) {
      channel.dirty = false;
      counts.settle(channel);
    }
    const exceeded = counts.report();
    const slow: HubConnection[] = [];
    const limit = this.o.backpressureBytes;
    for (const channel of dirty) {
      const only = channel.connection;
      if (only !== null) {
        if (isOverLimit(only, turn, limit)) slow.push(only);
      } else if (channel.connections !== null) {
        for (const connection of channel.connections.keys()) if (isOverLimit(connection, turn, limit)) slow.push(connection);
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

/** Whether one of a topic's channels is a uWS topic (shared by two or more connections). */
function hasTopic(first: Channel): boolean {
  for (let channel: Channel | null = first; channel !== null; channel = channel.next) if (channel.connection === null) return true;
  return false;
}

function clearOutbox(box: Outbox): void {
  box.frames.length = 0;
  box.channels.length = 0;
  box.bytes = 0;
}

/** Whether a connection's unsent buffer passed the soft limit; each connection is checked once per turn. */
function isOverLimit(connection: HubConnection, turn: number, limit: number): boolean {
  if (connection.checkedTurn === turn) return false;
  connection.checkedTurn = turn;
  const ws = connection.ws;
  return ws !== null && ws.getBufferedAmount() > limit;
}
