import type { Logger } from 'pino';
import type { IngestEvent } from '../ingest/index.ts';
import type { DerivedEvent } from '../model/index.ts';
import { NO_LONG_TASKS, type LongTasks } from '../long-tasks.ts';
import type { ActorEvent } from './behavior.ts';
import type { ActorHost } from './host.ts';

/** A live-layer consumer of one derived event type (the publisher's trade frames, recent wallets). */
export type DerivedSubscriber = (event: DerivedEvent) => void;

interface Subscription {
  listener: DerivedSubscriber;
  /** Also during start-up replay (the log after the checkpoint); never for a rebuild. */
  replay: boolean;
}

export interface RouterOptions {
  log: Logger;
  /** The ingest events from `fromSeq` to `toSeq` as the actors saw them (the gate's history). */
  history: (fromSeq: number, toSeq: number) => Iterable<{ seq: number; event: IngestEvent }>;
  /** Each host's delivery past `debug.longTaskMs` is logged as `actor:<kind>` (engine/long-tasks.ts). */
  longTasks?: LongTasks;
}

/** Emissions dropped: those of a rebuild's replay of the seq being delivered, which the live queue holds already. */
const DISCARD: DerivedEvent[] = [];

/**
 * The router: a table from event type to the hosts whose kind takes it (ActorBehavior.
 * `takes`), in the order the hosts were given (a token learns of a pool before the pool
 * reads the token; quote prices come before the pools that value trades with them). An
 * event reaches only its hosts.
 *
 * Derived events (engine/model/derived.ts): an actor's apply emits them (ActorContext.
 * emit) into one queue; once every host of the ingest event has it, the router delivers
 * the queue FIFO, each to the hosts that take its type, under the same seq, then to the
 * live-layer subscribers of its type. What those deliveries emit joins the queue's end.
 * A delivery's position within its seq is its index: 0 the ingest event, k the queue's
 * k-th derived event; deterministic, since the actors are.
 *
 * Supervision is the hosts' as for ingest events: an apply that throws has its
 * emissions dropped (the host truncates the queue to where it was), its actor alone is
 * rebuilt and the event tried once more; poison marks name the position (seq and index).
 *
 * Recomputed, never stored, exactly once. An actor's snapshot records a seq s: every
 * delivery of a seq up to s, derived ones included, is in it (snapshots are taken
 * between events). Snapshots are per actor (a sliced checkpoint writes them at its seq C
 * or later, passivation at any seq), so an emitter may be past an event a consumer
 * still needs what it derived from. Hence:
 * - a host skips a delivery its actor already holds (seq below its seq, or the same
 *   seq from a snapshot), and an emitting kind then re-derives it (ActorBehavior.
 *   rederive) from what its state keeps: on start-up replay a pool whose snapshot is at
 *   seq 120 skips swap 110 but emits its `pool.trade` again, looked up by the swap's key
 *   among its stored trades (written with or before that snapshot), for a consumer whose
 *   snapshot is at 105; a consumer at 112 skips it in turn;
 * - the same seq from a live delivery is no repeat: an actor that took ingest event s
 *   takes the derived events of s too (ActorHost's `open`);
 * - a rebuild (`replayInto`) feeds the actor, reloaded from its snapshot, its history:
 *   for a kind that takes derived events each logged event is recomputed (its hosts'
 *   emitters re-derive, FIFO as live, and only the rebuilt actor applies), and the seq
 *   being delivered comes from the live queue up to the delivery that threw.
 * Live-layer subscribers get the deliveries of live batches and, if they ask, of
 * start-up replay; a rebuild's never (they had them).
 */
export class Router {
  private readonly table = new Map<string, ActorHost<any>[]>();
  private readonly subscribers = new Map<string, Subscription[]>();
  /**
   * The derived events of the seq being delivered, in emission order: the first `size`
   * entries (the array is reused from seq to seq: emptied by length = 0, V8 would give it
   * a new backing store, an allocation per seq with a trade).
   */
  private readonly queue: Array<DerivedEvent | undefined> = [];
  private size = 0;
  /** Where emissions go while a rebuild recomputes a logged seq (null: the live queue). */
  private recomputing: DerivedEvent[] | null = null;
  /** The seq being delivered, its ingest event, and the index of the delivery under way (0: the ingest event). */
  private seq = 0;
  private ingest: IngestEvent | null = null;
  private index = 0;
  /** Start-up replay: only subscribers that asked get the derived events. */
  replaying = false;

  /** The long-task logger is on: each host's delivery is timed. */
  private readonly timed: boolean;
  private readonly longTasks: LongTasks;

  constructor(private readonly options: RouterOptions) {
    this.longTasks = options.longTasks ?? NO_LONG_TASKS;
    this.timed = this.longTasks.on;
  }

  /** One host's delivery, timed as `actor:<kind>` when the long-task logger is on. */
  private deliverTo(host: ActorHost<any>, event: ActorEvent, seq: number, index: number): void {
    if (!this.timed) return host.deliver(event, seq, index);
    const started = performance.now();
    host.deliver(event, seq, index);
    this.longTasks.took(`actor:${host.kind}`, performance.now() - started);
  }

  /** Builds the table from the hosts' `takes`, in this order. */
  setHosts(hosts: readonly ActorHost<any>[]): void {
    this.table.clear();
    for (const host of hosts) {
      for (const type of host.behavior.takes) {
        let list = this.table.get(type);
        if (!list) this.table.set(type, (list = []));
        if (!list.includes(host)) list.push(host);
      }
    }
    for (const host of hosts) {
      const emits = host.behavior.emits;
      host.rederives = host.behavior.rederive !== undefined && (emits === undefined || emits.some((type) => this.table.has(type)));
    }
  }

  /** The hosts that take `type`, in delivery order. */
  hostsOf(type: string): readonly ActorHost<any>[] {
    return this.table.get(type) ?? [];
  }

  /** Whether any host or subscriber takes `type`. */
  takes(type: string): boolean {
    return this.table.has(type) || this.subscribers.has(type);
  }

  /**
   * A live-layer consumer of `type` (the publisher, recent wallets): called after the
   * hosts of each such derived event, in the event's turn, outside supervision (a
   * throw is logged). `replay`: during start-up replay too. Returns the unsubscribe.
   */
  subscribe(type: DerivedEvent['type'], listener: DerivedSubscriber, { replay = false } = {}): () => void {
    let list = this.subscribers.get(type);
    if (!list) this.subscribers.set(type, (list = []));
    const entry = { listener, replay };
    list.push(entry);
    return () => {
      const current = this.subscribers.get(type);
      const i = current?.indexOf(entry) ?? -1;
      if (i >= 0) current!.splice(i, 1);
      if (current?.length === 0) this.subscribers.delete(type);
    };
  }

  /** Delivers one ingest event to its hosts, then what they derived, FIFO. */
  deliver(seq: number, event: IngestEvent): void {
    this.seq = seq;
    this.ingest = event;
    this.index = 0;
    const hosts = this.table.get(event.type);
    if (hosts !== undefined) for (let h = 0; h < hosts.length; h++) this.deliverTo(hosts[h]!, event, seq, 0);
    if (this.size > 0) this.drain(seq);
    this.ingest = null;
  }

  private drain(seq: number): void {
    const queue = this.queue;
    try {
      for (let i = 0; i < this.size; i++) {
        const derived = queue[i]!;
        this.index = i + 1;
        const hosts = this.table.get(derived.type);
        if (hosts !== undefined) for (let h = 0; h < hosts.length; h++) this.deliverTo(hosts[h]!, derived, seq, i + 1);
        const subscribers = this.subscribers.get(derived.type);
        if (subscribers !== undefined) this.notify(subscribers, derived);
      }
    } finally {
      for (let i = 0; i < this.size; i++) queue[i] = undefined;
      this.size = 0;
      this.index = 0;
    }
  }

  private notify(subscribers: Subscription[], derived: DerivedEvent): void {
    for (let s = 0; s < subscribers.length; s++) {
      const subscriber = subscribers[s]!;
      if (this.replaying && !subscriber.replay) continue;
      try {
        subscriber.listener(derived);
      } catch (err) {
        this.options.log.error({ err, type: derived.type }, 'a derived-event subscriber threw');
      }
    }
  }

  /** ActorContext.emit: into the live queue, or a rebuild's recomputation. */
  emit(event: DerivedEvent): void {
    const recomputing = this.recomputing;
    if (recomputing !== null) recomputing.push(event);
    else this.queue[this.size++] = event;
  }

  /** How many emissions are queued: an apply that throws has its own dropped (`dropEmitted`). */
  get emitted(): number {
    return this.recomputing !== null ? this.recomputing.length : this.size;
  }

  /** Drops the emissions after `mark` (those of an apply that threw). */
  dropEmitted(mark: number): void {
    const recomputing = this.recomputing;
    if (recomputing !== null) {
      if (recomputing.length > mark) recomputing.length = mark;
      return;
    }
    while (this.size > mark) this.queue[--this.size] = undefined;
  }

  /**
   * A rebuild: feeds the actor `key` of `host`, just reloaded from its snapshot at
   * `fromSeq`, every delivery it takes from after that snapshot up to (not including)
   * the one under way, in delivery order, through `host.replayDelivery`. For a kind that
   * takes only ingest events, the logged events; for one that takes derived events,
   * each logged seq recomputed (every host of each delivery re-derives, the rebuilt
   * actor alone applies), then the seq under way: its ingest event and the derived
   * events delivered before the one that threw, from the live queue.
   */
  replayInto(host: ActorHost<any>, key: string, fromSeq: number): void {
    const current = this.seq;
    const index = this.index;
    const derived = host.takesDerived;
    // Before any delivery (a rebuild outside one, as in tests), the whole history.
    const last = current === 0 ? Number.MAX_SAFE_INTEGER : current - 1;
    const saved = this.recomputing;
    try {
      // A kind that takes no derived event: what it emits was delivered when it applied live.
      if (!derived) this.recomputing = DISCARD;
      for (const { seq, event } of this.options.history(fromSeq + 1, last)) {
        if (!derived) {
          if (host.takesType(event.type)) host.replayDelivery(key, event, seq, 0, false);
          DISCARD.length = 0;
          continue;
        }
        const queue: DerivedEvent[] = [];
        this.recomputing = queue;
        this.recompute(host, key, event, seq, 0);
        for (let i = 0; i < queue.length; i++) this.recompute(host, key, queue[i]!, seq, i + 1);
      }
      if (current === 0 || current <= fromSeq || index === 0 || !this.ingest) return;
      // What the seq under way delivered before the delivery that threw; what the
      // actor emits meanwhile is in the live queue already.
      this.recomputing = DISCARD;
      if (host.takesType(this.ingest.type)) host.replayDelivery(key, this.ingest, current, 0, false);
      for (let i = 0; i < index - 1; i++) {
        const event = this.queue[i]!;
        if (host.takesType(event.type)) host.replayDelivery(key, event, current, i + 1, false);
      }
    } finally {
      this.recomputing = saved;
      DISCARD.length = 0;
    }
  }

  /** One delivery of a logged seq, recomputed for the rebuild of `key` of `target`. */
  private recompute(target: ActorHost<any>, key: string, event: ActorEvent, seq: number, index: number): void {
    const hosts = this.table.get(event.type);
    if (hosts === undefined) return;
    for (const host of hosts) {
      if (host === target) host.replayDelivery(key, event, seq, index, host.rederives);
      else if (host.rederives) host.rederiveAll(event, seq);
    }
  }
}
