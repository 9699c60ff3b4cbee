/**
 * One clock for the engine. Wall time in production; event time in replays and
 * tests, so that replaying the same events gives identical derived state.
 */
export interface Clock {
  readonly kind: 'wall' | 'event' | 'simulated';
  /** Current time in Unix milliseconds. */
  now(): number;
  /** Told about every applied event's time; only the event clock moves with it. */
  observe(at: number): void;
}

export class WallClock implements Clock {
  readonly kind = 'wall' as const;
  now(): number {
    return Date.now();
  }
  observe(_at: number): void {}
}

/** now() is the latest event time seen (0 before any event), never going back. */
export class EventClock implements Clock {
  readonly kind = 'event' as const;
  private latest = 0;
  now(): number {
    return this.latest;
  }
  observe(at: number): void {
    if (at > this.latest) this.latest = at;
  }
}

/** A clock tests move by hand. */
export class SimulatedClock implements Clock {
  readonly kind = 'simulated' as const;
  constructor(private current = 0) {}
  now(): number {
    return this.current;
  }
  observe(_at: number): void {}
  set(at: number): void {
    this.current = at;
  }
  increment(ms: number): void {
    this.current += ms;
  }
}

export function createClock(kind: 'wall' | 'event'): Clock {
  return kind === 'event' ? new EventClock() : new WallClock();
}
