import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { NO_LONG_TASKS, type LongTasks } from '../long-tasks.ts';
import { runUntil } from '../slices.ts';

/** What a tick begins: the steps of a pass to run in slices, or nothing (null, or a tick done in one go). */
export type TickPass = Iterator<void> | null | void;

/** A subscriber of the ticker: the live layer's periodic refreshes (publisher flush, search indexing, ranking feeds). */
export interface TickSubscriber {
  /** A tick at `at`, a multiple of the subscriber's everyMs on the engine clock: begins a pass over what was touched since the last. */
  onTick(at: number): TickPass;
  /**
   * The subscriber's pass still under way, whoever began it (a tick, or a whole flush
   * that was asked for): it goes on after each batch and in the next turns. Absent: the
   * pass the last tick returned.
   */
  underWay?(): Iterator<void> | null;
}

/** How a subscriber's passes meet the events (`every`'s options). */
export interface TickOptions {
  /**
   * The pass reads state at its tick's engine time (the ranking recompute): while it is
   * under way no event is applied (`holding`; the Applier waits for `whenReleased`),
   * and its slices run in the next event-loop turns with reads and socket writes
   * between them, so a sliced pass gives what the whole one gave at the same time.
   * Only for a pass `onTick` returns (not `underWay`).
   */
  holds?: boolean;
  /**
   * A tick that comes while the pass is under way lets it go on (`onTick` is called all
   * the same and may hand the same pass back) instead of running it to its end first: a
   * pass over what was touched since the last (the publisher's flush), where a fast
   * replay's ticks, every few wall milliseconds, ended each pass in one go.
   */
  joins?: boolean;
}

/** A subscription: `stop()` ends its ticks (a pass under way is dropped). */
export interface Tick {
  readonly name: string;
  readonly everyMs: number;
  stop(): void;
}

interface Subscription extends Tick {
  readonly subscriber: TickSubscriber;
  readonly holds: boolean;
  readonly joins: boolean;
  /** The next tick's time on the engine clock (Infinity: not started). */
  dueAt: number;
  /** The pass the last tick began, when the subscriber does not say (`underWay`). */
  pass: Iterator<void> | null;
  /** When its pass that holds the events began (performance.now(); the long-task logger's `hold:<name>`). */
  heldSince: number;
  stopped: boolean;
}

export interface TickerOptions {
  clock: Clock;
  /** Longest stretch of one slice of a pass before it goes on after the next batch or in the next event-loop turn (0: one step). */
  sliceMs: number;
  log: Logger;
  /** Ticks and slices past `debug.longTaskMs` are logged (engine/long-tasks.ts). */
  longTasks?: LongTasks;
}

/**
 * The engine's one ticker: touched keys → a sliced refresh, on the engine clock.
 *
 * A subscriber registers `every(name, everyMs, onTick)` and ticks at every multiple of
 * `everyMs` on the engine clock (engine/clock.ts), once, when the clock has reached it;
 * a clock that jumps past several multiples gives one tick, at the latest. Under a clock
 * that moves with the events (`--clock event`, and the simulated clock of tests) the
 * engine asks before each event it applies (`observe`), so a tick falls between the
 * same two events whatever the batches were: a replay of the same events ticks at the
 * same event times. Under the wall clock it asks after each batch and on a wall timer.
 * `everyMs` 0 ticks after every batch (and timer turn).
 *
 * A tick's pass runs in slices of about `sliceMs` (engine/slices.ts): the first at the
 * tick, the rest after each batch and in the next event-loop turns, so that batches,
 * commits and socket writes run between them. A tick that comes while the
 * subscriber's previous pass is still under way runs that pass to its end first, so each
 * pass begins at its tick with what was touched since the one before; a subscriber that
 * `joins` lets it go on instead. While a pass of a subscriber that `holds` is under way,
 * no event is applied (`holding`, `whenReleased`: engine/apply.ts), so a pass in
 * slices reads the state of its tick's time, as a whole one did.
 *
 * Start-up replay does not tick (the ticker starts after it); the engine flushes once at
 * its end.
 */
export class Ticker {
  private readonly subscriptions: Subscription[] = [];
  /** The earliest dueAt of a subscription with everyMs > 0 (Infinity: none, or not started). */
  private nextAt = Infinity;
  private started = false;
  private readonly eventDriven: boolean;
  private timer: NodeJS.Timeout | null = null;
  private turnScheduled = false;
  /** Passes under way of subscriptions that hold the events (TickOptions.holds). */
  private held = 0;
  /** Called once no pass holds the events. */
  private releaseWaiters: Array<() => void> = [];

  constructor(private readonly options: TickerOptions) {
    this.eventDriven = options.clock.kind !== 'wall';
  }

  /** Ticks `onTick` every `everyMs` of the engine clock from `start()` on (see the class comment). */
  every(name: string, everyMs: number, onTick: TickSubscriber | ((at: number) => TickPass), options: TickOptions = {}): Tick {
    const subscriber = typeof onTick === 'function' ? { onTick } : onTick;
    const subscription: Subscription = {
      name,
      everyMs: Math.max(0, everyMs),
      subscriber,
      holds: options.holds === true,
      joins: options.joins === true,
      dueAt: Infinity,
      pass: null,
      heldSince: 0,
      stopped: false,
      stop: () => {
        subscription.stopped = true;
        this.setPass(subscription, null);
        const i = this.subscriptions.indexOf(subscription);
        if (i >= 0) this.subscriptions.splice(i, 1);
        this.plan();
      },
    };
    this.subscriptions.push(subscription);
    if (this.started) this.arm(subscription);
    this.plan();
    return subscription;
  }

  /** Starts ticking, from the engine clock's now on, and the wall timer. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const s of this.subscriptions) this.arm(s);
    this.plan();
    let timerMs = Infinity;
    for (const s of this.subscriptions) if (s.everyMs > 0) timerMs = Math.min(timerMs, s.everyMs);
    if (timerMs !== Infinity) this.timer = setInterval(() => this.advance(), Math.min(timerMs, 2 ** 31 - 1)).unref();
  }

  /**
   * No tick and no slice from now on; what is under way stays as it is (the caller
   * flushes), but a pass that holds the events runs to its end now, so that the events
   * waiting for it are applied.
   */
  stop(): void {
    this.started = false;
    this.nextAt = Infinity;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.finishHolding();
  }

  /** Runs the passes that hold the events to their end now (stop; an Applier of whole batches, which has no reads to let through). */
  finishHolding(): void {
    if (this.held === 0) return;
    for (const s of [...this.subscriptions]) {
      if (!s.holds || !s.pass) continue;
      try {
        runUntil(s.pass, Infinity);
      } catch (err) {
        this.options.log.error({ err, tick: s.name }, 'a tick failed');
      }
      this.setPass(s, null);
    }
  }

  /** Whether a pass that holds the events is under way (TickOptions.holds): the next event waits. Cheap: asked before each event. */
  get holding(): boolean {
    return this.held > 0;
  }

  /** Calls `wake` once no pass holds the events (at once if none does). */
  whenReleased(wake: () => void): void {
    if (this.held === 0) wake();
    else this.releaseWaiters.push(wake);
  }

  /** A subscription's pass begins or ends; the waiters wake when the last holding one ends. */
  private setPass(s: Subscription, pass: Iterator<void> | null): void {
    if (s.holds && (s.pass === null) !== (pass === null)) {
      this.held += pass === null ? -1 : 1;
      // How long the events waited for it (wall time, its slices and what ran between them).
      const longTasks = this.options.longTasks;
      if (longTasks?.on) {
        if (pass !== null) s.heldSince = performance.now();
        else longTasks.took(`hold:${s.name}`, performance.now() - s.heldSince);
      }
    }
    s.pass = pass;
    if (this.held === 0 && this.releaseWaiters.length > 0) {
      const waiters = this.releaseWaiters;
      this.releaseWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  /**
   * Before each event is applied, with the clock already told of its time: under a clock
   * that moves with the events, the ticks it has reached run now. One comparison when
   * none is due.
   */
  observe(): void {
    if (this.eventDriven && this.options.clock.now() >= this.nextAt) this.tickDue(false);
  }

  /** After a batch and on the timer: the ticks due run, and every other pass under way goes on for a slice. */
  advance(): void {
    if (!this.started) return;
    this.tickDue(true);
  }

  private arm(s: Subscription): void {
    const now = this.options.clock.now();
    s.dueAt = s.everyMs > 0 ? nextMultiple(now, s.everyMs) : -Infinity;
  }

  private plan(): void {
    let next = Infinity;
    if (this.started) for (const s of this.subscriptions) if (s.everyMs > 0 && s.dueAt < next) next = s.dueAt;
    this.nextAt = next;
  }

  /**
   * Ticks the subscriptions due at the clock's now, in the order they subscribed.
   * `afterBatch` (a batch's end, the timer): those of everyMs 0 tick too, and the
   * passes under way that did not tick go on for a slice.
   */
  private tickDue(afterBatch: boolean): void {
    const now = this.options.clock.now();
    let left = false;
    // A copy: a tick may stop a subscription.
    for (const s of [...this.subscriptions]) {
      if (s.stopped) continue;
      if (s.everyMs === 0 ? afterBatch : now >= s.dueAt) {
        const at = s.everyMs === 0 ? now : now - (now % s.everyMs);
        if (s.everyMs > 0) s.dueAt = at + s.everyMs;
        left = this.tick(s, at) || left;
      } else if (afterBatch) {
        left = this.slice(s) || left;
      }
    }
    this.plan();
    if (left) this.scheduleTurn();
  }

  /** Ends the subscriber's pass under way, begins the tick's and runs its first slice; true when it has more. */
  private tick(s: Subscription, at: number): boolean {
    const longTasks = this.options.longTasks ?? NO_LONG_TASKS;
    if (!longTasks.on) return this.tickNow(s, at);
    const started = performance.now();
    const left = this.tickNow(s, at);
    longTasks.took(`tick:${s.name}`, performance.now() - started);
    return left;
  }

  private tickNow(s: Subscription, at: number): boolean {
    try {
      const previous = this.passOf(s);
      if (previous && !s.joins) (this.options.longTasks ?? NO_LONG_TASKS).time(`finish:${s.name}`, () => runUntil(previous, Infinity));
      this.setPass(s, s.subscriber.onTick(at) ?? null);
    } catch (err) {
      return this.failed(s, err);
    }
    return this.slice(s);
  }

  /** One slice of the subscriber's pass under way, if any; true when it has more. */
  private slice(s: Subscription): boolean {
    const pass = this.passOf(s);
    if (!pass) return false;
    const started = performance.now();
    try {
      if (!runUntil(pass, started + this.options.sliceMs)) return true;
    } catch (err) {
      return this.failed(s, err);
    } finally {
      this.options.longTasks?.took(`slice:${s.name}`, performance.now() - started);
    }
    this.setPass(s, null);
    return false;
  }

  /** A tick or a slice threw: its pass ends there, the next tick begins afresh. */
  private failed(s: Subscription, err: unknown): false {
    this.setPass(s, null);
    this.options.log.error({ err, tick: s.name }, 'a tick failed');
    return false;
  }

  private passOf(s: Subscription): Iterator<void> | null {
    return s.subscriber.underWay ? s.subscriber.underWay() : s.pass;
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(this.nextSlice);
  }

  /** The next turn: one slice of each pass under way, and another turn while any is left. */
  private readonly nextSlice = (): void => {
    this.turnScheduled = false;
    if (!this.started) return;
    let left = false;
    for (const s of [...this.subscriptions]) left = this.slice(s) || left;
    if (left) this.scheduleTurn();
  };
}

/** The first multiple of `everyMs` after `now`. */
const nextMultiple = (now: number, everyMs: number): number => now - (now % everyMs) + everyMs;
