import { describe, expect, it } from 'vitest';
import { CommittedBatch } from '../../../engine/ingest/batch.ts';
import type { IngestEvent } from '../../../engine/ingest/events.ts';

const line = (i: number) => JSON.stringify({ type: 'quote_price', quote_address: `q${i}`, price_usd: 100 + i, at: i });

describe('CommittedBatch', () => {
  it('gives each event in order, parsing the lines it holds no object for, as `events` does', () => {
    const object = { type: 'quote_price', quote_address: 'object', price_usd: 1, at: 9 } as IngestEvent;
    const bytes = Buffer.from(`${line(0)}\n${line(1)}\n${line(2)}\n`);
    const batch = new CommittedBatch(7, bytes, [undefined, object, undefined]);
    const seen: Array<[number, unknown]> = [];
    batch.each((event, i) => seen.push([i, event]));
    expect(seen).toEqual([
      [0, JSON.parse(line(0))],
      [1, object],
      [2, JSON.parse(line(2))],
    ]);
    expect(seen[1]![1]).toBe(object);
    expect(batch.events).toEqual(seen.map(([, e]) => e));
    // Once parsed, the same objects.
    const again: unknown[] = [];
    batch.each((event) => again.push(event));
    expect(again.every((e, i) => e === batch.events[i])).toBe(true);
  });

  it('reads a last line without its newline', () => {
    const batch = new CommittedBatch(1, Buffer.from(`${line(0)}\n${line(1)}`), [undefined, undefined]);
    const seen: unknown[] = [];
    batch.each((event) => seen.push(event));
    expect(seen).toEqual([JSON.parse(line(0)), JSON.parse(line(1))]);
  });
});

describe('CommittedBatch.eachUntil', () => {
  it('stops once its deadline has passed, after at least `atLeast` events of the call (1 by default), and goes on where it stopped, each event once, through lines, objects and parsed events', () => {
    const object = { type: 'quote_price', quote_address: 'object', price_usd: 1, at: 9 } as IngestEvent;
    const count = 40;
    const known = Array.from({ length: count }, (_, i) => (i === 20 ? object : undefined));
    const bytes = Buffer.from(Array.from({ length: count }, (_, i) => `${line(i)}\n`).join(''));
    const batch = new CommittedBatch(1, bytes, known);
    const seen: number[] = [];
    const calls: boolean[] = [];
    // A deadline already passed: one event a call.
    const check = (event: IngestEvent, i: number) => {
      seen.push(i);
      expect(event).toEqual(i === 20 ? object : JSON.parse(line(i)));
    };
    while (!batch.done) calls.push(batch.eachUntil(check, 0));
    expect(calls).toEqual([...Array.from({ length: count - 1 }, () => false), true]);
    // `atLeast` 4 (engine/apply.ts, APPLY_EVENTS_MIN): the deadline is looked at after the call's fourth event, so 4 a call.
    const four = new CommittedBatch(1, bytes, known);
    const handed: number[][] = [];
    while (!four.done) {
      const call: number[] = [];
      handed.push(call);
      four.eachUntil((_e, i) => void call.push(i), 0, 4);
    }
    expect(handed.map((c) => c.length)).toEqual(Array.from({ length: count / 4 }, () => 4));
    expect(handed.flat()).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
    // `each` still walks the whole batch, from the first event.
    const again: number[] = [];
    batch.each((_event, i) => again.push(i));
    expect(again).toEqual(seen);
  });

  it('hands out the rest after an event that threw, not that event again', () => {
    const batch = new CommittedBatch(1, Buffer.from(`${line(0)}\n${line(1)}\n${line(2)}\n`), [undefined, undefined, undefined]);
    const seen: number[] = [];
    expect(() => batch.eachUntil((_e, i) => {
      seen.push(i);
      if (i === 1) throw new Error('boom');
    }, Infinity)).toThrow('boom');
    expect(batch.eachUntil((_e, i) => void seen.push(i), Infinity)).toBe(true);
    expect(seen).toEqual([0, 1, 2]);
  });
});
