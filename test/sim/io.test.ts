import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { timeOf, type IngestEvent } from '../../engine/ingest/events.ts';
import { parseDuration, SIM_FILE_START_AT, simSource, simulate, simulate$, writeSimFile } from '../../engine/sources/sim/index.ts';
import type { IngestSink } from '../../engine/sources/source.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-sim-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('writeSimFile', () => {
  it('writes the same bytes twice for the same seed, and the generator’s events', async () => {
    const a = path.join(dir, 'a.ndjson');
    const b = path.join(dir, 'b.ndjson');
    const options = { durationMs: 5 * 60_000, seed: 99, tradeRate: 30 };
    const first = await writeSimFile({ out: a, ...options });
    const second = await writeSimFile({ out: b, ...options });
    const bytes = fs.readFileSync(a);
    expect(bytes.equals(fs.readFileSync(b))).toBe(true);
    expect(second).toEqual(first);
    expect(first.bytes).toBe(bytes.length);
    const lines = bytes.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.length).toBe(first.events);
    expect(first.events).toBeGreaterThan(10_000);
    // Same as the generator from the files' fixed start, cut at the duration.
    const expected: string[] = [];
    for (const event of simulate({ seed: 99, startAt: SIM_FILE_START_AT, tradeRate: 30 })) {
      if (timeOf(event) >= SIM_FILE_START_AT + options.durationMs) break;
      expected.push(JSON.stringify(event));
    }
    expect(lines).toEqual(expected);
    const other = await writeSimFile({ out: b, ...options, seed: 100 });
    expect(fs.readFileSync(b).equals(bytes)).toBe(false);
    expect(other.events).toBeGreaterThan(0);
  });

  it('rejects when it cannot write', async () => {
    await expect(writeSimFile({ out: path.join(dir, 'missing', 'x.ndjson'), durationMs: 1_000, seed: 1 })).rejects.toThrow(/ENOENT/);
  });
});

describe('parseDuration', () => {
  it('reads units and plain milliseconds', () => {
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('3600000')).toBe(3_600_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('2d')).toBe(172_800_000);
  });

  it('throws a clear error otherwise', () => {
    for (const bad of ['', 'h', '1 hour', '-5m', '1x', '1e3', 'abc']) expect(() => parseDuration(bad)).toThrow(/invalid duration/);
  });
});

describe('simulate$', () => {
  it('emits the generator’s events up to the duration, then completes', async () => {
    const options = { seed: 5, startAt: 1_700_000_000_000 };
    const events = await firstValueFrom(simulate$(options, 30_000).pipe(toArray()));
    const expected: IngestEvent[] = [];
    for (const event of simulate(options)) {
      if (timeOf(event) >= options.startAt + 30_000) break;
      expected.push(event);
    }
    expect(events).toEqual(expected);
    expect(timeOf(events[events.length - 1]!)).toBeLessThan(options.startAt + 30_000);
  });

  it('stops generating when unsubscribed', async () => {
    const firstTen = await firstValueFrom(simulate$({ seed: 5, startAt: 0 }, 365 * 86_400_000).pipe(take(10), toArray()));
    expect(firstTen.length).toBe(10);
  });
});

/** A sink that records submissions and can hold the source back. */
function recordingSink(): IngestSink & { events: IngestEvent[]; origins: Set<string>; hold: Promise<void> | null; reached(n: number): Promise<void> } {
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sink = {
    events: [] as IngestEvent[],
    origins: new Set<string>(),
    hold: null as Promise<void> | null,
    submit(event: unknown, origin: string) {
      sink.events.push(event as IngestEvent);
      sink.origins.add(origin);
      for (const w of waiters.filter((w) => sink.events.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    },
    submitLine() {
      throw new Error('the simulator submits objects');
    },
    submitParsed() {
      throw new Error('the simulator submits objects');
    },
    writable() {
      return sink.hold;
    },
    flush: async () => undefined,
    reached(n: number) {
      return new Promise<void>((resolve) => {
        if (sink.events.length >= n) resolve();
        else waiters.push({ n, resolve });
      });
    },
  };
  return sink;
}

describe('simSource', () => {
  it('is an endless source named sim that paces simulated time and stops on abort', async () => {
    const startAt = 1_767_225_600_000;
    const source = simSource({ seed: 3, startAt, speed: 600 });
    expect(source.name).toBe('sim');
    expect(source.finite).toBe(false);
    const sink = recordingSink();
    const controller = new AbortController();
    const wallStart = performance.now();
    const running = source.run(sink, controller.signal);
    // 600× wall time: 50 ms of wall time is 30 s simulated, well past the first slot.
    await sink.reached(3_000);
    controller.abort();
    await running;
    const wallMs = performance.now() - wallStart;
    expect([...sink.origins]).toEqual(['sim']);
    const last = timeOf(sink.events[sink.events.length - 1]!);
    // Never ahead of the pace (one slot of slack).
    expect(last - startAt).toBeLessThanOrEqual(wallMs * 600 + 400);
    const expected: IngestEvent[] = [];
    for (const event of simulate({ seed: 3, startAt })) {
      expected.push(event);
      if (expected.length === sink.events.length) break;
    }
    expect(sink.events).toEqual(expected);
  });

  it('waits while the sink holds it back, and stops if aborted meanwhile', async () => {
    const sink = recordingSink();
    let release!: () => void;
    sink.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const controller = new AbortController();
    const running = simSource({ seed: 4, startAt: 0, speed: 100 }).run(sink, controller.signal);
    await sink.reached(1);
    // Let the source run as far as it would: it must stay at the first event.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.events.length).toBe(1);
    sink.hold = null;
    release();
    await sink.reached(50);
    // Held again: the next submission is the last until released (never, here).
    sink.hold = new Promise<void>(() => undefined);
    const held = sink.events.length;
    await sink.reached(held + 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.events.length).toBe(held + 1);
    controller.abort();
    await running;
  });

  it('rejects a speed that is not positive', () => {
    expect(() => simSource({ seed: 1, startAt: 0, speed: 0 })).toThrow(/speed/);
  });
});
