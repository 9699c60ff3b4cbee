import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { identityOf } from '../../engine/ingest/events.ts';
import { readLog } from '../../engine/ingest/gate.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { KEEP_LOG, OTHER_WALLET, POOL, REQUIRED, TX, WSOL, base58, rng, sampleEvents, swapStream } from '../helpers/fixtures.ts';

// Every engine a test opens is stopped after it, even when an assertion fails first.
const temp = useTempEngine();
// These tests read back what was ingested from the log: all of it kept.
const open = (overrides: Parameters<typeof temp.open>[0] = {}) => temp.open({ ...overrides, ingest: { ...KEEP_LOG, ...overrides.ingest } });

const deadLetters = (engine: Engine) => [...engine.storage.deadLetters.getRange()].map((e) => e.value);
const logged = (engine: Engine) => [...readLog(engine.storage, 1)].map((e) => e.event);

describe('ingest gate', () => {
  it('accepts a valid event of every type and stamps increasing seqs', async () => {
    const engine = await open();
    const seqs: number[] = [];
    for (const event of Object.values(sampleEvents())) {
      const result = await engine.ingest(event);
      expect(result.status, JSON.stringify(result)).toBe('applied');
      if (result.status === 'applied') seqs.push(result.seq);
    }
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(logged(engine).map((e) => e.type)).toEqual(Object.keys(sampleEvents()));
    expect(deadLetters(engine)).toEqual([]);
  });

  it('gives embedders every applied event on events$, with its seq, once its batch is applied', async () => {
    const engine = await open();
    const seen: Array<{ seq: number; type: string; tradeCount: number | undefined }> = [];
    const events = Object.values(sampleEvents());
    const sub = engine.events$.subscribe(({ seq, event }) => {
      // The whole batch is applied by now: the pool has its swap whichever event this is.
      seen.push({ seq, type: event.type, tradeCount: engine.query.market!.pools.pool(POOL)?.totals.trade_count });
    });
    await Promise.all(events.map((e) => engine.ingest(e)));
    sub.unsubscribe();
    await engine.ingest({ ...sampleEvents().swap!, tx_hash: TX.slice(0, 80) + 'AAAAAAAA' });
    expect(seen.map((s) => [s.seq, s.type])).toEqual(events.map((e, i) => [i + 1, e.type]));
    expect(new Set(seen.map((s) => s.tradeCount))).toEqual(new Set([1]));
  });

  it('applies what a check-phase callback submits before the next loop iteration begins', async () => {
    const engine = await open();
    const applied: string[] = [];
    engine.onApplied((events) => {
      for (const e of events) applied.push(e.type);
    });
    const seenByNextTimer = await new Promise<string[]>((resolve) => {
      setImmediate(() => {
        void engine.ingest(sampleEvents().token!);
        setTimeout(() => resolve([...applied]), 0);
        // Past the timer's 1 ms, so that it runs in the next iteration's timers phase,
        // before that iteration's check phase.
        const until = performance.now() + 3;
        while (performance.now() < until);
      });
    });
    expect(seenByNextTimer).toEqual(['token']);
  });

  for (const [type, fields] of Object.entries(REQUIRED)) {
    for (const field of fields) {
      it(`rejects a ${type} without ${field} to dead letters, naming the field`, async () => {
        const engine = await open();
        const event = { ...sampleEvents()[type]! };
        delete event[field];
        const result = await engine.ingest(event);
        expect(result).toEqual({ status: 'rejected', reason: expect.stringContaining(`${type}.${field}`) });
        const letters = deadLetters(engine);
        expect(letters).toHaveLength(1);
        expect(letters[0]!.reason).toContain(field);
        expect(JSON.parse(letters[0]!.raw)).toEqual(event);
        expect(engine.query.status().ingested).toBe(0);
      });
    }
  }

  it('requires decimals and supply_raw on the first token event of a mint only', async () => {
    const engine = await open();
    const { token } = sampleEvents();
    const { decimals: _d, supply_raw: _s, ...update } = token!;
    expect(await engine.ingest({ ...update, slot: 99 })).toEqual({ status: 'rejected', reason: expect.stringContaining('token.decimals') });
    expect((await engine.ingest(token)).status).toBe('applied');
    expect((await engine.ingest({ ...update, slot: 150, name: 'Renamed' })).status).toBe('applied');
  });

  it('rejects malformed values with the field named', async () => {
    const engine = await open();
    const { swap, quote_price } = sampleEvents();
    const cases: Array<[unknown, string]> = [
      [{ ...swap, pool_address: 'not-base58!' }, 'swap.pool_address'],
      [{ ...swap, side: 'hold' }, 'swap.side'],
      [{ ...swap, slot: -1 }, 'swap.slot'],
      [{ ...swap, base_amount_raw: 12 }, 'swap.base_amount_raw'],
      [{ ...swap, tx_hash: 'abc' }, 'swap.tx_hash'],
      [{ ...quote_price, price_usd: 0 }, 'quote_price.price_usd'],
      [{ ...quote_price, price_usd: '150' }, 'quote_price.price_usd'],
      [{ type: 42 }, 'type'],
      [{ no: 'type' }, 'type'],
      [[1, 2], 'event'],
      ['a string', 'event'],
    ];
    for (const [event, field] of cases) {
      const result = await engine.ingest(event);
      expect(result.status).toBe('rejected');
      if (result.status === 'rejected') expect(result.reason.startsWith(field), `${result.reason} names ${field}`).toBe(true);
    }
    expect(deadLetters(engine)).toHaveLength(cases.length);
    expect(engine.query.status()).toMatchObject({ ingested: 0, deadLetters: cases.length });
  });

  it('counts as durable only what is on disk: below ingested until the batch is flushed', async () => {
    const events = Object.values(sampleEvents());
    const engine = await open();
    const pending = events.map((e) => engine.ingest(e));
    // Stamped in this turn, written when it returns, on disk after the fsync.
    expect(engine.query.status().ingested).toBe(events.length);
    expect(engine.query.status().durable).toBe(0);
    await Promise.all(pending);
    expect(engine.query.status()).toMatchObject({ ingested: events.length, durable: events.length });
    await engine.stop();
  });

  it('makes duplicates no-ops, in one batch and across batches and restarts', async () => {
    const events = Object.values(sampleEvents());
    let engine = await open();
    // Same event twice in one event turn: one batch.
    const [first, second] = await Promise.all([engine.ingest(events[2]), engine.ingest(events[2])]);
    expect(first!.status).toBe('applied');
    expect(second).toEqual({ status: 'duplicate' });
    for (const e of events) await engine.ingest(e);
    expect(engine.query.status().ingested).toBe(events.length);
    await engine.stop();
    engine = await open();
    for (const e of events) expect(await engine.ingest(e)).toEqual({ status: 'duplicate' });
    expect(engine.query.status().ingested).toBe(events.length);
    const ids = logged(engine).map(identityOf);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('catches a duplicate in the batch of its first copy after more buckets than the index keeps in memory', async () => {
    // 5,000 pool declarations (a bucket each) in one turn: past the 4,096 buckets the
    // dedup index holds, before any of them is durable.
    const engine = await open();
    const random = rng(77);
    const pools = Array.from({ length: 5_000 }, () => ({ ...sampleEvents().pool!, pool_address: base58(random, 44) }));
    const results = await Promise.all([...pools.map((p) => engine.ingest(p)), engine.ingest(pools[4_999]), engine.ingest(pools[100])]);
    expect(results.filter((r) => r.status === 'applied')).toHaveLength(5_000);
    expect(results.slice(5_000)).toEqual([{ status: 'duplicate' }, { status: 'duplicate' }]);
    expect(logged(engine)).toHaveLength(5_000);
  });

  it('dedups across a restart whatever form the stored identities take: joined, arrays (older data dirs), labels with newlines', async () => {
    const label = { type: 'label', wallet_address: OTHER_WALLET, label: 'line one\nline two', action: 'add', at: 1_767_225_600_000 };
    const events = [...Object.values(sampleEvents()), label];
    let engine = await open();
    for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
    const stored = [...engine.storage.identities.getRange()];
    expect(stored.some(({ value }) => typeof value === 'string')).toBe(true);
    expect(stored.some(({ value }) => Array.isArray(value) && value.some((m) => m.includes('\n')))).toBe(true);
    // Half the buckets rewritten as arrays, the form data directories written before had.
    for (const { key, value } of stored.filter((_, i) => i % 2 === 0)) {
      if (typeof value === 'string') await engine.storage.identities.put(key, value.split('\n'));
    }
    await engine.stop();
    engine = await open();
    for (const e of events) expect(await engine.ingest(e)).toEqual({ status: 'duplicate' });
    expect(engine.query.status().ingested).toBe(events.length);
  });

  it('reads an ingest log written msgpack-encoded (older data dirs) as it reads the raw one', async () => {
    const events = Object.values(sampleEvents());
    let engine = await open();
    for (const e of events) await engine.ingest(e);
    const before = logged(engine);
    expect(before).toHaveLength(events.length);
    const old = engine.storage.env.openDB<Uint8Array, number>({ name: 'ingest_log', encoding: 'msgpack' });
    for (const { key, value } of [...engine.storage.ingestLog.getRange()]) {
      expect(value[0]).toBe(0x7b); // raw NDJSON
      await old.put(key, Buffer.from(value));
    }
    expect([...engine.storage.ingestLog.getRange()].every(({ value }) => value[0] !== 0x7b)).toBe(true);
    await engine.stop();
    engine = await open();
    expect(logged(engine)).toEqual(before);
    expect(engine.query.status().ingested).toBe(events.length);
    const next = { ...sampleEvents().swap, event_index: 9 };
    expect(await engine.ingest(next)).toEqual({ status: 'applied', seq: events.length + 1 });
  });

  it('counts and ignores unknown types and unknown fields', async () => {
    const engine = await open();
    expect(await engine.ingest({ type: 'future_thing', x: 1 })).toMatchObject({ status: 'ignored' });
    expect((await engine.ingest({ ...sampleEvents().quote_price, extra_field: 'x' })).status).toBe('applied');
    const metrics = await engine.metrics.registry.metrics();
    expect(metrics).toContain('mds_ingest_unknown_type_total{type="future_thing"} 1');
    expect(metrics).toContain('mds_ingest_unknown_fields_total{type="quote_price"} 1');
    expect(deadLetters(engine)).toEqual([]);
    // The stored event keeps what the source sent (forward compatibility); actors see the schema's fields.
    expect(engine.query.solPrice()).toEqual({ price_usd: 151.25, updated_at: 1_767_225_600_000 });
  });

  it('serves the latest wSOL price by event time, whatever the arrival order', async () => {
    const engine = await open();
    await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 150, at: 2_000 });
    await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 140, at: 1_000 });
    expect(engine.query.solPrice()).toEqual({ price_usd: 150, updated_at: 2_000 });
    expect(engine.clock.now()).toBe(2_000);
  });

  it('gives the same state for a shuffled file as for the ordered one', async () => {
    const events = [...swapStream(3_000, 20, 3)];
    const shuffled = [...events];
    const random = rng(11);
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const states = [];
    for (const [name, order] of [['ordered', events], ['shuffled', shuffled]] as const) {
      const file = join(temp.dir.path, `${name}.ndjson`);
      writeFileSync(file, order.map((e) => JSON.stringify(e)).join('\n') + '\n');
      const engine = await open({ data: join(temp.dir.path, name) });
      await engine.runSource(engine.createSource(`ndjson:${file}`));
      const ids = new Set(logged(engine).map(identityOf));
      states.push({ ids, price: engine.query.solPrice(), now: engine.clock.now(), count: engine.query.status().ingested });
    }
    expect(states[1]!.count).toBe(events.length);
    expect(states[1]!.price).toEqual(states[0]!.price);
    expect(states[1]!.now).toBe(states[0]!.now);
    expect(states[1]!.ids).toEqual(states[0]!.ids);
  });
});

describe('NDJSON source and bad input', () => {
  it('dead-letters a malformed line, a 10 MB line and invalid UTF-8, and applies the rest', async () => {
    const { quote_price, token } = sampleEvents();
    const good = (at: number) => JSON.stringify({ ...quote_price, at });
    const file = join(temp.dir.path, 'bad.ndjson');
    const parts: Buffer[] = [
      Buffer.from(good(1) + '\n'),
      Buffer.from('{"type":"quote_price", nope\n'),
      Buffer.from(`{"type":"token","name":"${'x'.repeat(10 * 1024 * 1024)}"}\n`),
      Buffer.from(good(2) + '\n'),
      Buffer.concat([Buffer.from(JSON.stringify({ ...token, name: 'bad' }).slice(0, -2)), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]),
      Buffer.from('\n\r\n'),
      Buffer.from(good(3)), // no trailing newline
    ];
    writeFileSync(file, Buffer.concat(parts));
    const engine = await open({ data: join(temp.dir.path, 'data'), ingest: { lineBytesMax: 1_048_576 } });
    await engine.runSource(engine.createSource(`ndjson:${file}`));
    expect(engine.query.status()).toMatchObject({ ingested: 3, deadLetters: 3, sourceDone: true });
    const letters = deadLetters(engine);
    expect(letters.map((l) => l.reason)).toEqual([
      expect.stringMatching(/^json: /),
      'line: longer than 1048576 bytes',
      'line: invalid UTF-8',
    ]);
    expect(letters.map((l) => l.source)).toEqual([`ndjson:${file}:2`, `ndjson:${file}:3`, `ndjson:${file}:5`]);
    expect(letters[1]!.raw.length).toBeLessThanOrEqual(4096);
    expect(engine.query.solPrice()).toEqual({ price_usd: quote_price!.price_usd, updated_at: 3 });
  });
});
