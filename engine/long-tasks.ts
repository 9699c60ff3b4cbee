import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** How often the loop-lag probe expects to run (its lateness past the threshold is a task nobody named). */
const PROBE_MS = 10;

/**
 * The long-task logger (config `debug.longTaskMs`; off by default): every named piece
 * of main-thread work that holds the event loop longer than the threshold is logged at
 * warn as `{ task, ms }` with the message 'long task'. Named: the apply of committed
 * batches (`apply`; within it each event, `event:<type>`, and each host's delivery of
 * it or of what it derived, `actor:<kind>`, the hand-over of the slice's
 * frames, `frames`, and of a batch to embedders, `handOn`), each tick and each later slice of a ticker pass (`tick:<name>`,
 * `slice:<name>`, and the end of a pass a tick ran first, `finish:<name>`), how long a
 * pass that holds the events held them, its slices and what ran between them
 * (`hold:<name>`: no event applied, so no trade frame, meanwhile), each slice of
 * a checkpoint or idle sweep (`checkpoint`, `sweep`; each snapshot, `snapshot:<kind>`),
 * the resident bound's evictions (`evict`; the idle sweep's, `sweep:evict`); V8's garbage collections (`gc:<kind>`, from
 * a `gc` PerformanceObserver); and a probe timer that logs how late it ran (`loop`:
 * whatever held the loop, named or not, HTTP and WebSocket work included).
 * bench/backlog.ts `--long-tasks` turns it on and sums the lines per task.
 *
 * Off, `time` calls its function and nothing else.
 */
export class LongTasks {
  private observer: PerformanceObserver | null = null;
  private probe: NodeJS.Timeout | null = null;

  /** `thresholdMs` 0: off. */
  constructor(
    readonly thresholdMs: number,
    private readonly log: Logger,
  ) {}

  get on(): boolean {
    return this.thresholdMs > 0;
  }

  /** Runs `fn`, logging it as `name` when it took longer than the threshold. */
  time<T>(name: string, fn: () => T): T {
    if (this.thresholdMs <= 0) return fn();
    const started = performance.now();
    try {
      return fn();
    } finally {
      this.took(name, performance.now() - started);
    }
  }

  /** Logs `name` if `ms` is past the threshold. */
  took(name: string, ms: number): void {
    if (this.thresholdMs > 0 && ms > this.thresholdMs) this.log.warn({ task: name, ms: Math.round(ms) }, 'long task');
  }

  /** The GC observer and the loop-lag probe (nothing when off). */
  start(): void {
    if (this.thresholdMs <= 0 || this.probe) return;
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) this.took(`gc:${gcKind(entry)}`, entry.duration);
    });
    this.observer.observe({ entryTypes: ['gc'] });
    let expected = performance.now() + PROBE_MS;
    this.probe = setInterval(() => {
      const now = performance.now();
      this.took('loop', now - expected);
      expected = now + PROBE_MS;
    }, PROBE_MS).unref();
  }

  stop(): void {
    this.observer?.disconnect();
    this.observer = null;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }
}

/** A logger that never logs: for parts built without one (tests). */
export const NO_LONG_TASKS = new LongTasks(0, undefined as unknown as Logger);

const GC_KINDS: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };

function gcKind(entry: PerformanceEntry): string {
  const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return kind === undefined ? 'gc' : (GC_KINDS[kind] ?? String(kind));
}
