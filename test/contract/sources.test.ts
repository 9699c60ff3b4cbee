import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLog } from '../../engine/ingest/gate.ts';
import { ndjsonSource } from '../../engine/sources/ndjson.ts';
import { simSource, simulate } from '../../engine/sources/sim/index.ts';
import type { Source } from '../../engine/sources/source.ts';
import type { Engine } from '../../engine/system.ts';
import { untilApplied, useTempEngine } from '../helpers/engine-server.ts';
import { KEEP_LOG } from '../helpers/fixtures.ts';
import { within } from '../helpers/within.ts';

/**
 * Contract: every source of engine/sources, given the same input (the simulator's
 * events for one seed), delivers it to a real engine in order, reports source_done
 * exactly when its input ended, stops promptly when the engine stops (even with its
 * input still open), and loses no event across a stop: what a stopped run logged is the
 * input's start with no gap, and a second run on the same data directory over the
 * input again carries the log on, with no gap and no event twice. (A pipe's lines read
 * into the stopped process are not there for a second run; what node buffered of a
 * pipe is gone with the stream, so the pipe's writer sends its input again.) The sources: `sim` (live, endless), `ndjson:<file>` (as the engine names it)
 * and `ndjson:-` over a pipe that stays open until the test ends it.
 */

const temp = useTempEngine('mds-contract-');
const SEED = 5;
const START_AT = 1_767_225_600_000;
/** Events a finite input holds. */
const INPUT_EVENTS = 3_000;

/** The first `n` events of the input, as the log holds them (JSON). */
function reference(n: number): unknown[] {
  const out: unknown[] = [];
  if (n === 0) return out;
  for (const event of simulate({ seed: SEED, startAt: START_AT })) {
    out.push(JSON.parse(JSON.stringify(event)));
    if (out.length === n) break;
  }
  return out;
}

const INPUT_LINES = reference(INPUT_EVENTS).map((e) => JSON.stringify(e) + '\n');

/** One input across runs: what a run of the source is made from, and how the input ends. */
interface Input {
  /** A source over the input (again for each run, as after a restart). */
  source(engine: Engine): Source;
  /** Ends the input (a finite one: the writer closes the pipe); false when it never ends. */
  end(): boolean;
}

interface Impl {
  name: string;
  input(dir: string): Input;
}

/**
 * A pipe (stdin) that outlives the source reading it: the lines are queued in chunks
 * of 50, a run takes chunks as it reads, and what a run did not take is there for the
 * next run; it stays open (a read waits) until `end`.
 */
function pipe(lines: string[]) {
  const queue: Buffer[] = [];
  for (let i = 0; i < lines.length; i += 50) queue.push(Buffer.from(lines.slice(i, i + 50).join('')));
  let ended = false;
  /** The run's stream waiting for a chunk, if any. */
  let waiting: Readable | null = null;
  const give = (stream: Readable): void => {
    const chunk = queue.shift();
    if (chunk) stream.push(chunk);
    else if (ended) stream.push(null);
    else waiting = stream;
  };
  return {
    /** A run's view of the pipe: it takes a chunk when it reads (highWaterMark 1: nothing taken ahead). */
    stream: () =>
      new Readable({
        highWaterMark: 1,
        read() {
          give(this);
        },
      }),
    end() {
      ended = true;
      const stream = waiting;
      waiting = null;
      if (stream && !stream.destroyed) give(stream);
    },
  };
}

const IMPLS: Impl[] = [
  {
    name: 'sim (live, endless)',
    input: () => ({ source: () => simSource({ seed: SEED, startAt: START_AT, speed: 600 }), end: () => false }),
  },
  {
    name: 'ndjson:<file>',
    input(dir) {
      const file = join(dir, 'input.ndjson');
      writeFileSync(file, INPUT_LINES.join(''));
      return { source: (engine) => engine.createSource(`ndjson:${file}`)!, end: () => true };
    },
  },
  {
    name: 'ndjson:- (a pipe that stays open)',
    input() {
      const stdin = pipe(INPUT_LINES);
      return {
        source: (engine) => ndjsonSource({ path: '-', lineBytesMax: engine.config.ingest.lineBytesMax, stream: stdin.stream() }),
        end: () => {
          stdin.end();
          return true;
        },
      };
    },
  },
];

/** The events of the engine's log, in order. */
const logged = (engine: Engine) => [...readLog(engine.storage, 1)].map((e) => e.event as unknown);

const DATA = () => join(temp.dir.path, 'data');

describe.each(IMPLS)('source contract: $name', (impl) => {
  it('delivers its input to the engine in order, each event once', async () => {
    const input = impl.input(temp.dir.path);
    const engine = await temp.open({ data: DATA(), ingest: KEEP_LOG });
    const running = engine.runSource(input.source(engine));
    await untilApplied(engine, 500);
    await within(engine.stop(), 10_000, 'engine.stop()');
    await running;
    const reopened = await temp.open({ data: DATA(), ingest: KEEP_LOG });
    const log = logged(reopened);
    expect(log.length).toBeGreaterThanOrEqual(500);
    expect(log).toEqual(reference(log.length));
    expect(reopened.query.status().deadLetters).toBe(0);
  });

  it('stops promptly when the engine stops, its input still open, and reports no source_done then', async () => {
    const input = impl.input(temp.dir.path);
    const engine = await temp.open({ data: DATA(), ingest: KEEP_LOG });
    const source = input.source(engine);
    const running = engine.runSource(source);
    await untilApplied(engine, 1);
    const before = engine.query.status();
    if (before.sourceDone === true) {
      // It read its whole input already (a file is fast): it ended, it was not stopped.
      expect(source.finite).toBe(true);
      expect(before.ingested).toBe(INPUT_EVENTS);
    } else {
      expect(before.sourceDone).toBe(source.finite ? false : null);
    }
    await within(engine.stop(), 5_000, 'engine.stop() with the source running');
    await within(running, 5_000, 'the source run after stop()');
    if (before.sourceDone !== true) expect(engine.query.status().sourceDone).toBe(source.finite ? false : null);
  });

  it('loses no event across a stop: a second run carries the log on, no gap, nothing twice', async () => {
    const first = await temp.open({ data: DATA(), ingest: KEEP_LOG });
    const run1 = first.runSource(impl.input(temp.dir.path).source(first));
    await untilApplied(first, 200);
    await within(first.stop(), 10_000, 'engine.stop()');
    await run1;
    const second = await temp.open({ data: DATA(), ingest: KEEP_LOG });
    // What the first run logged is the input's start, with no gap.
    const afterFirst = logged(second).length;
    expect(afterFirst).toBeGreaterThanOrEqual(200);
    expect(logged(second)).toEqual(reference(afterFirst));
    // The input again from its start (the file read again, the writer sending again, the market from its seed).
    const input = impl.input(temp.dir.path);
    const run2 = second.runSource(input.source(second));
    if (input.end()) {
      // Finite: the rest of the input, to its end.
      await within(run2, 30_000, 'the second run to the end of its input');
      expect(second.query.status()).toMatchObject({ ingested: INPUT_EVENTS, sourceDone: true, deadLetters: 0 });
      expect(logged(second)).toEqual(reference(INPUT_EVENTS));
    } else {
      // Endless: well past where the first run stopped.
      await untilApplied(second, afterFirst + 300);
      await within(second.stop(), 10_000, 'engine.stop()');
      await run2;
      const third = await temp.open({ data: DATA(), ingest: KEEP_LOG });
      const log = logged(third);
      expect(log.length).toBeGreaterThanOrEqual(afterFirst + 300);
      expect(log).toEqual(reference(log.length));
    }
  });

  it('reports source_done exactly when its input ended (finite), never for an endless one', async () => {
    const input = impl.input(temp.dir.path);
    const engine = await temp.open({ data: DATA(), ingest: KEEP_LOG });
    const source = input.source(engine);
    const running = engine.runSource(source);
    if (input.end()) {
      expect(source.finite).toBe(true);
      await within(running, 30_000, 'the run to the end of its input');
      expect(engine.query.status()).toMatchObject({ ingested: INPUT_EVENTS, sourceDone: true });
    } else {
      expect(source.finite).toBe(false);
      await untilApplied(engine, 100);
      expect(engine.query.status().sourceDone).toBeNull();
      await within(engine.stop(), 5_000, 'engine.stop()');
      await running;
      expect(engine.query.status().sourceDone).toBeNull();
    }
  });
});
