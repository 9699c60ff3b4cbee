import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import type { ActorBehavior } from '../../engine/supervisor/behavior.ts';
import { topics } from '../../engine/topics/index.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { rng, swapStream } from '../helpers/fixtures.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';

/**
 * The engine's ticker (engine/topics/ticker.ts) on the event clock: ticks fall between
 * the same two events whatever the batches were, so a replay of the same events ticks
 * at the same event times, and the live flush it runs publishes the same frames.
 */

const temp = useTempEngine();

/** Swaps applied so far (one actor), read at each tick. */
const counter: ActorBehavior<{ swaps: number }> = {
  kind: 'swap-total',
  takes: ['swap'],
  route: (e) => (e.type === 'swap' ? 'all' : undefined),
  initial: () => ({ swaps: 0 }),
  apply(state) {
    state.swaps++;
  },
};

/** 600 swaps over 5 declared pools, 0 to 1.5 s apart (irregular: some ticks are skipped over, some events share a second). */
function events(): Array<Record<string, unknown>> {
  const random = rng(21);
  const list = [...swapStream(600, 5, 21, true)];
  let at = list[0]!.at as number;
  for (const e of list) {
    if (e.type !== 'swap' && e.type !== 'quote_price') continue;
    at += Math.floor(random() * 1_500);
    e.at = at;
  }
  return list;
}

/** Ticks every second of event time: each tick's time and the swaps applied before it. */
const EVERY_MS = 1_000;

/** What the ticks must be, from the events alone: a tick at each second an event's time reaches, before that event. */
function expectedTicks(list: Array<Record<string, unknown>>, from: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let due = from - (from % EVERY_MS) + EVERY_MS;
  let swaps = 0;
  let latest = from;
  for (const e of list) {
    latest = Math.max(latest, (e.at ?? e.created_at) as number);
    if (latest >= due) {
      const at = latest - (latest % EVERY_MS);
      out.push([at, swaps]);
      due = at + EVERY_MS;
    }
    if (e.type === 'swap') swaps++;
  }
  return out;
}

interface Run {
  ticks: Array<[number, number]>;
  /** Candle and pool_metrics frames the live flush published, in order (trade frames are not listened on). */
  frames: string[];
}

/** The events into a fresh engine in batches of `size` (each batch submitted in one turn). */
async function run(name: string, list: Array<Record<string, unknown>>, size: number): Promise<Run> {
  const engine: Engine = await temp.open({ data: join(temp.dir.path, name) }, { actors: [counter] });
  const pools = list.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
  const sink = new RecordingSink();
  for (const p of pools) for (const topic of [topics.poolMetrics(p), topics.candles(p, '1s', 'price', 'quote'), topics.candles(p, '1m', 'price', 'usd')]) sink.listen(topic);
  engine.attachTopics(sink);
  const ticks: Array<[number, number]> = [];
  const host = engine.hosts.find((h) => h.kind === counter.kind)!;
  engine.ticker.every('probe', EVERY_MS, (at) => void ticks.push([at, (host.get('all') as { swaps: number } | undefined)?.swaps ?? 0]));
  for (let i = 0; i < list.length; i += size) {
    const results = await Promise.all(list.slice(i, i + size).map((e) => engine.ingest(e)));
    expect(results.every((r) => r.status === 'applied')).toBe(true);
  }
  return { ticks, frames: sink.frames.map((f) => f.frame) };
}

describe('the ticker on the event clock', () => {
  it('ticks at the same event times, between the same events, whatever the batch sizes; the live flush publishes the same frames', async () => {
    const list = events();
    const one = await run('one', list, 1);
    const seven = await run('seven', list, 7);
    const all = await run('all', list, list.length);
    // A fresh data directory: the event clock starts at 0.
    expect(one.ticks).toEqual(expectedTicks(list, 0));
    expect(one.ticks.length).toBeGreaterThan(200);
    expect(seven.ticks).toEqual(one.ticks);
    expect(all.ticks).toEqual(one.ticks);
    expect(one.frames.length).toBeGreaterThan(500);
    expect(seven.frames).toEqual(one.frames);
    expect(all.frames).toEqual(one.frames);
  });

  it('goes on at the same event times after a restart', async () => {
    const list = events();
    const whole = await run('whole', list, 10);
    const engine = await temp.open({ data: join(temp.dir.path, 'halves') }, { actors: [counter] });
    const half = Math.floor(list.length / 2);
    for (const e of list.slice(0, half)) await engine.ingest(e);
    await engine.stop();
    const again = await temp.open({ data: join(temp.dir.path, 'halves') }, { actors: [counter] });
    const ticks: Array<[number, number]> = [];
    const host = again.hosts.find((h) => h.kind === counter.kind)!;
    again.ticker.every('probe', EVERY_MS, (at) => void ticks.push([at, (host.get('all') as { swaps: number } | undefined)?.swaps ?? 0]));
    for (const e of list.slice(half)) await again.ingest(e);
    // The ticks of the second half: those of the run in one go after the last event of the first half.
    const resumedAt = Math.max(...list.slice(0, half).map((e) => (e.at ?? e.created_at) as number));
    expect(ticks.length).toBeGreaterThan(100);
    expect(ticks).toEqual(whole.ticks.filter(([at]) => at > resumedAt));
  });
});
