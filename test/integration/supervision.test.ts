import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../engine/clock.ts';
import type { ConfigInput } from '../../engine/config.ts';
import type { ActorBehavior } from '../../engine/supervisor/behavior.ts';
import type { Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { WALLET, OTHER_WALLET, WSOL } from '../helpers/fixtures.ts';

/**
 * A label-counting actor kind per wallet that throws on the label `poison`, and on
 * `flaky` only the first time it sees it (a transient fault a restart cures).
 */
interface LabelState {
  labels: string[];
}
let flakyThrown = false;
let brittleSeen = 0;
const labelCounter: ActorBehavior<LabelState> = {
  kind: 'label-counter',
  takes: ['label'],
  route: (e) => (e.type === 'label' ? e.wallet_address : undefined),
  initial: () => ({ labels: [] }),
  apply(state, e) {
    if (e.type !== 'label') return;
    state.labels.push(e.label); // mutate first: a rebuild must undo a half-applied event
    if (e.label === 'poison') throw new Error('cannot digest poison');
    if (e.label === 'flaky' && !flakyThrown) {
      flakyThrown = true;
      throw new Error('transient');
    }
    // Applies once, then throws every time after: a rebuild that replays it throws.
    if (e.label === 'brittle' && brittleSeen++ > 0) throw new Error('brittle on replay');
  },
};

const label = (wallet: string, name: string, at: number) => ({ type: 'label', wallet_address: wallet, label: name, action: 'add', at });

const temp = useTempEngine();
/** An engine with the label counter beside the built-in kinds; not started (no timers, no replay). */
const start = (overrides: Partial<ConfigInput> = {}) => temp.open(overrides, { actors: [labelCounter] });
const hostOf = (e: Engine) => e.hosts.find((h) => h.kind === 'label-counter')!;

/**
 * Counts the real LMDB reads of actor snapshots (calls to `e.storage.snapshots.get`,
 * still made) until `restore()`, which puts the store's own method back.
 */
function countSnapshotReads(e: Engine): { readonly count: number; restore(): void } {
  const snapshots = e.storage.snapshots;
  const own = Object.hasOwn(snapshots, 'get');
  const get = snapshots.get;
  let count = 0;
  snapshots.get = function (this: unknown, ...args: unknown[]) {
    count++;
    return (get as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof get;
  return {
    get count() {
      return count;
    },
    restore() {
      if (own) snapshots.get = get;
      else delete (snapshots as { get?: unknown }).get;
    },
  };
}

describe('supervision', () => {
  it('restarts an actor that throws, dead-letters an event that breaks it twice, and keeps the others serving', async () => {
    flakyThrown = false;
    const e = await start();
    await e.ingest(label(WALLET, 'kol', 1));
    await e.ingest(label(OTHER_WALLET, 'whale', 1));
    await e.checkpoint(); // snapshot covers 'kol'
    await e.ingest(label(WALLET, 'smart_money', 2)); // after the snapshot: must come back from the log
    await e.ingest(label(WALLET, 'poison', 3));
    await e.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 99, at: 4 });
    await e.ingest(label(OTHER_WALLET, 'bot', 5));
    await e.ingest(label(WALLET, 'flaky', 6));
    await e.ingest(label(WALLET, 'sniper', 7));

    const host = hostOf(e);
    expect(host.get(WALLET)).toEqual({ labels: ['kol', 'smart_money', 'flaky', 'sniper'] });
    expect(host.get(OTHER_WALLET)).toEqual({ labels: ['whale', 'bot'] });
    expect(host.supervision(WALLET)).toBe('active');
    expect(e.query.solPrice()).toEqual({ price_usd: 99, updated_at: 4 });

    const letters = [...e.storage.deadLetters.getRange()].map((l) => l.value);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ reason: expect.stringContaining('threw twice: cannot digest poison'), source: `actor:label-counter:${WALLET}`, seq: 4, type: 'label' });
    const metrics = await e.metrics.registry.metrics();
    expect(metrics).toContain('mds_actor_restarts_total{kind="label-counter"} 2');
  });

  // Batches go to the actors before they commit, and LMDB reads show only committed
  // data: a rebuild must also replay the events of batches the actors saw but the log
  // does not show yet (the batch being applied, and earlier ones when a batch holds one event).
  it.each([
    ['one batch', 2_000],
    ['one batch per event', 1],
  ])('rebuilds an actor from events not yet committed (%s)', async (_, batchMax) => {
    flakyThrown = false;
    const e = await start({ ingest: { batchMax } });
    // One turn, no await between: both are released to the actors before either commits.
    const results = await Promise.all([e.ingest(label(WALLET, 'kol', 1)), e.ingest(label(WALLET, 'flaky', 2))]);
    expect(results).toEqual([{ status: 'applied', seq: 1 }, { status: 'applied', seq: 2 }]);
    expect(flakyThrown).toBe(true);
    expect(hostOf(e).get(WALLET)).toEqual({ labels: ['kol', 'flaky'] });
    // The snapshot written afterwards holds both, too.
    await e.passivateIdle(performance.now() + 10 * 60_000);
    await e.storage.env.flushed;
    expect(e.storage.snapshots.get(`label-counter:${WALLET}`)).toMatchObject({ seq: 2, state: { state: { labels: ['kol', 'flaky'] } } });
  });

  it('gives every released event once and in seq order while earlier batches commit', async () => {
    flakyThrown = true;
    const e = await start({ ingest: { batchMax: 1 } });
    const seen: string[] = [];
    const sub = e.gate.committed$.subscribe((batch) => {
      const seqs = [...e.gate.history(1)].map((h) => h.seq);
      const expected = Array.from({ length: batch.firstSeq + batch.count - 1 }, (_, i) => i + 1);
      seen.push(seqs.join() === expected.join() ? 'ok' : `at ${batch.firstSeq}: ${seqs.join()}`);
    });
    let at = 1;
    for (let round = 0; round < 6; round++) {
      const pending = Array.from({ length: 5 }, () => e.ingest(label(WALLET, `l${at}`, at++)));
      // Only the first of a round is awaited: later batches of it may still be in flight.
      await pending[0];
    }
    // Committed (LMDB reads show them) but not yet durable, so the gate still holds them:
    // each must come once, from one place or the other.
    const last = Array.from({ length: 5 }, () => e.ingest(label(WALLET, `l${at}`, at++)));
    await e.storage.ingestLog.committed;
    expect([...e.gate.history(1)].map((h) => h.seq)).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    await Promise.all(last);
    await e.gate.flush();
    sub.unsubscribe();
    expect(seen).toEqual(Array(35).fill('ok'));
    expect([...e.gate.history(3, 5)].map((h) => (h.event as { label: string }).label)).toEqual(['l3', 'l4', 'l5']);
    expect(hostOf(e).get(WALLET)!.labels).toHaveLength(35);
  });

  it('rebuilds from the committed snapshot when a newer one is still in flight', async () => {
    flakyThrown = false;
    const e = await start();
    await e.ingest(label(WALLET, 'kol', 1));
    await e.checkpoint(); // committed snapshot: ['kol'] at seq 1
    await e.ingest(label(WALLET, 'smart_money', 2));
    // One turn: a newer snapshot (seq 2) is put but not committed when 'flaky' throws,
    // so the rebuild starts from the seq 1 snapshot and needs seq 2 from the released batch.
    const checkpoint = e.checkpoint();
    const results = Promise.all([e.ingest(label(WALLET, 'whale', 3)), e.ingest(label(WALLET, 'flaky', 4))]);
    await Promise.all([checkpoint, results]);
    expect(flakyThrown).toBe(true);
    expect(hostOf(e).get(WALLET)).toEqual({ labels: ['kol', 'smart_money', 'whale', 'flaky'] });
  });

  it('skips a poison event whose mark is not committed yet when a later event forces a rebuild', async () => {
    flakyThrown = false;
    const e = await start();
    const results = await Promise.all([
      e.ingest(label(WALLET, 'poison', 1)),
      e.ingest(label(WALLET, 'flaky', 2)),
      e.ingest(label(WALLET, 'kol', 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['applied', 'applied', 'applied']);
    expect(hostOf(e).get(WALLET)).toEqual({ labels: ['flaky', 'kol'] });
    expect(hostOf(e).supervision(WALLET)).toBe('active');
    await e.gate.flush();
    const letters = [...e.storage.deadLetters.getRange()].map((l) => l.value);
    expect(letters).toEqual([expect.objectContaining({ reason: expect.stringContaining('threw twice: cannot digest poison'), seq: 1 })]);
  });

  it('stops an actor whose rebuild throws, dead-letters its events, and keeps ingesting for the others', async () => {
    flakyThrown = true;
    brittleSeen = 0;
    const e = await start();
    await e.ingest(label(WALLET, 'brittle', 1));
    // Throws: the rebuild replays 'brittle', which throws too. Before, that escaped the
    // supervisor and the batch's apply, and so the process.
    const results = [await e.ingest(label(WALLET, 'poison', 2)), await e.ingest(label(WALLET, 'kol', 3)), await e.ingest(label(OTHER_WALLET, 'whale', 4))];
    expect(results.map((r) => r.status)).toEqual(['applied', 'applied', 'applied']);
    const host = hostOf(e);
    expect(host.supervision(WALLET)).toBe('stopped');
    expect(host.get(OTHER_WALLET)).toEqual({ labels: ['whale'] });
    await e.gate.flush();
    const letters = [...e.storage.deadLetters.getRange()].map((l) => l.value);
    expect(letters).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('its rebuild threw: brittle on replay'), seq: 2, source: `actor:label-counter:${WALLET}` }),
      expect.objectContaining({ reason: expect.stringContaining('is stopped after repeated crashes'), seq: 3 }),
    ]);
    expect(e.query.status().status).toBe('ready');
  });

  it('skips a known poison event when the log is replayed after a restart of the process', async () => {
    flakyThrown = true;
    let e = await start();
    await e.ingest(label(WALLET, 'kol', 1));
    await e.ingest(label(WALLET, 'poison', 2));
    await e.ingest(label(WALLET, 'whale', 3));
    // Simulate a crash: nothing snapshotted, the checkpoint stays at 0.
    await temp.crash(e);
    e = await start();
    expect(hostOf(e).get(WALLET)).toEqual({ labels: ['kol', 'whale'] });
    expect(e.storage.deadLetters.getCount()).toBe(1);
  });

  it('answers a read of an actor that does not exist from memory, until an event creates it', async () => {
    flakyThrown = true;
    const e = await start();
    const host = hostOf(e);
    const reads = countSnapshotReads(e);
    try {
      // Absent, twice: the first asks LMDB, the second answers from the host's memory of it.
      expect(host.get(WALLET)).toBeUndefined();
      expect(reads.count).toBe(1);
      expect(host.get(WALLET)).toBeUndefined();
      expect(reads.count).toBe(1);
      await e.ingest(label(WALLET, 'kol', 1));
      expect(host.get(WALLET)).toEqual({ labels: ['kol'] });
      // Passivated: a read finds its snapshot in LMDB, not the remembered absence.
      await e.passivateIdle(performance.now() + 10 * 60_000);
      await e.storage.env.flushed;
      expect(host.isResident(WALLET)).toBe(false);
      const before = reads.count;
      expect(host.get(WALLET)).toEqual({ labels: ['kol'] });
      expect(reads.count - before).toBe(1);
    } finally {
      reads.restore();
    }
  });

  it('passivates idle actors to snapshots and activates them again on use', async () => {
    flakyThrown = true;
    const e = await start();
    await e.ingest(label(WALLET, 'kol', 1));
    await e.ingest(label(OTHER_WALLET, 'bot', 1));
    const host = hostOf(e);
    expect(host.size).toBe(2);
    expect(await e.passivateIdle(performance.now() + 10 * 60_000)).toBeGreaterThanOrEqual(2);
    expect(host.size).toBe(0);
    await e.storage.env.flushed;
    expect(e.storage.snapshots.get(`label-counter:${WALLET}`)).toMatchObject({ state: { state: { labels: ['kol'] } } });
    expect(await e.metrics.registry.metrics()).toContain('mds_actor_passivations_total{kind="label-counter"} 2');
    // Passivated and used again before its snapshot commits: nothing is lost. (Each
    // sweep is awaited only after the use, so that the use comes before the commit.)
    const first = e.passivateIdle(performance.now() + 10 * 60_000);
    await e.ingest(label(OTHER_WALLET, 'whale', 2));
    const second = e.passivateIdle(performance.now() + 10 * 60_000);
    expect(host.get(OTHER_WALLET)).toEqual({ labels: ['bot', 'whale'] });
    await Promise.all([first, second]);
    // An event activates it from the snapshot; a read activates it too.
    await e.ingest(label(WALLET, 'whale', 2));
    expect(host.isResident(WALLET)).toBe(true);
    expect(host.get(WALLET)).toEqual({ labels: ['kol', 'whale'] });
    expect(host.get(OTHER_WALLET)).toEqual({ labels: ['bot', 'whale'] });
    expect(host.get('never-seen')).toBeUndefined();
    // The quote-price actor's lifecycle machine survives passivation.
    await e.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 10, at: 3 });
    const quotes = e.hosts.find((h) => h.kind === 'quote-price')!;
    expect(quotes.lifecycle(WSOL)).toBe('priced');
    await e.passivateIdle(performance.now() + 10 * 60_000);
    expect(quotes.isResident(WSOL)).toBe(false);
    expect(quotes.lifecycle(WSOL)).toBe('priced');
    expect(quotes.lifecycle(WALLET)).toBeUndefined();
  });

  it('a change through update (not an ingest event) reaches the snapshot: after a checkpoint, passivation writes it; a passivated actor is activated for it', async () => {
    flakyThrown = true;
    const e = await start();
    await e.ingest(label(WALLET, 'kol', 1));
    await e.checkpoint();
    const host = hostOf(e);
    expect(host.update(WALLET, (s) => s.labels.push('tended'))).toBe(2);
    expect(host.dirtyKeys()).toEqual([WALLET]);
    await e.passivateIdle(Number.POSITIVE_INFINITY);
    expect(host.isResident(WALLET)).toBe(false);
    await e.storage.env.flushed;
    expect(host.get(WALLET)).toEqual({ labels: ['kol', 'tended'] });
    // Passivated clean, it is brought back for the change, which its next snapshot holds.
    await e.passivateIdle(Number.POSITIVE_INFINITY);
    host.update(WALLET, (s) => s.labels.push('again'));
    expect(host.isResident(WALLET)).toBe(true);
    await e.passivateIdle(Number.POSITIVE_INFINITY);
    await e.storage.env.flushed;
    expect(e.storage.snapshots.get(`label-counter:${WALLET}`)).toMatchObject({ state: { state: { labels: ['kol', 'tended', 'again'] } } });
    expect(host.update('never-seen', () => 1)).toBeUndefined();
  });

  it('tells fromSnapshot when a snapshot may be stale: from another run, or reloaded by a rebuild; never at activation after its own passivation', async () => {
    interface Probe {
      labels: string[];
      /** fromSnapshot's `staleGaps` when this state was loaded; null for a new actor. */
      gaps: number | null;
    }
    let thrown = false;
    const probe: ActorBehavior<Probe> = {
      kind: 'restore-probe',
      takes: ['label'],
      route: (e) => (e.type === 'label' ? e.wallet_address : undefined),
      initial: () => ({ labels: [], gaps: null }),
      apply(state, e) {
        if (e.type !== 'label') return;
        state.labels.push(e.label);
        if (e.label === 'flaky' && !thrown) {
          thrown = true;
          throw new Error('transient');
        }
      },
      fromSnapshot: (data, gaps) => ({ ...(data as Probe), gaps: gaps ?? null }),
    };
    const probeOf = (e: Engine) => e.hosts.find((h) => h.kind === 'restore-probe')!;
    const e = await temp.open({}, { actors: [probe] });
    await e.ingest(label(WALLET, 'kol', 1));
    expect(probeOf(e).get(WALLET)).toEqual({ labels: ['kol'], gaps: null });
    await e.passivateIdle(performance.now() + 10 * 60_000);
    await e.storage.env.flushed;
    expect(probeOf(e).isResident(WALLET)).toBe(false);
    expect(probeOf(e).get(WALLET)).toEqual({ labels: ['kol'], gaps: 0 });
    await e.checkpoint();
    await e.ingest(label(WALLET, 'flaky', 2));
    expect(probeOf(e).get(WALLET)).toEqual({ labels: ['kol', 'flaky'], gaps: 1 });
    await e.stop();
    const again = await temp.open({}, { actors: [probe] });
    expect(probeOf(again).get(WALLET)!.gaps).toBeGreaterThan(0);
  });

  it('moves a snapshot loaded twice on by more gaps the second time: a restart, a crash before the next snapshot, another restart', async () => {
    const probe: ActorBehavior<{ labels: string[]; gaps: number | null }> = {
      kind: 'reload-probe',
      takes: ['label'],
      route: (e) => (e.type === 'label' ? e.wallet_address : undefined),
      initial: () => ({ labels: [], gaps: null }),
      apply(state, e) {
        if (e.type === 'label') state.labels.push(e.label);
      },
      fromSnapshot: (data, gaps) => ({ ...(data as { labels: string[] }), gaps: gaps ?? null }),
    };
    const probeOf = (e: Engine) => e.hosts.find((h) => h.kind === 'reload-probe')!;
    const first = await temp.open({}, { actors: [probe] });
    await first.ingest(label(WALLET, 'kol', 1));
    await first.checkpoint();
    await temp.crash(first);
    const second = await temp.open({}, { actors: [probe] });
    const gaps = probeOf(second).get(WALLET)!.gaps!;
    expect(gaps).toBeGreaterThan(0);
    await temp.crash(second);
    // The same snapshot again: what the second run handed out must be passed too.
    const third = await temp.open({}, { actors: [probe] });
    expect(probeOf(third).get(WALLET)!.gaps).toBeGreaterThan(gaps);
  });

  it('tells initial when a new actor may have existed before: built from an earlier run\'s log, or rebuilt with no snapshot; never for one new in this run', async () => {
    let throwOn = '';
    const probe: ActorBehavior<{ labels: string[]; gaps: number | null }> = {
      kind: 'initial-probe',
      takes: ['label'],
      route: (e) => (e.type === 'label' ? e.wallet_address : undefined),
      initial: (_key, gaps) => ({ labels: [], gaps: gaps ?? null }),
      apply(state, e) {
        if (e.type !== 'label') return;
        if (e.label === throwOn) {
          throwOn = '';
          throw new Error('transient');
        }
        state.labels.push(e.label);
      },
    };
    const probeOf = (e: Engine) => e.hosts.find((h) => h.kind === 'initial-probe')!;
    const e = await temp.open({}, { actors: [probe] });
    await e.ingest(label(WALLET, 'kol', 1));
    expect(probeOf(e).get(WALLET)).toEqual({ labels: ['kol'], gaps: 0 });
    // A throw before any snapshot: the rebuild starts from `initial` again and replays the log.
    throwOn = 'flaky';
    await e.ingest(label(WALLET, 'flaky', 2));
    const rebuilt = probeOf(e).get(WALLET)!;
    expect(rebuilt.labels).toEqual(['kol', 'flaky']);
    expect(rebuilt.gaps).toBeGreaterThan(0);
    await temp.crash(e);
    // No checkpoint was taken: the next run builds the actor from the log, past the rebuild's numbers.
    const again = await temp.open({}, { actors: [probe] });
    expect(probeOf(again).get(WALLET)!.labels).toEqual(['kol', 'flaky']);
    expect(probeOf(again).get(WALLET)!.gaps).toBeGreaterThan(rebuilt.gaps!);
    // An actor the new run creates from a new event is new.
    await again.ingest(label(OTHER_WALLET, 'kol', 3));
    expect(probeOf(again).get(OTHER_WALLET)).toEqual({ labels: ['kol'], gaps: 0 });
  });

  it('stops an actor that keeps crashing and sends its events to dead letters', async () => {
    flakyThrown = true;
    const e = await start({ actors: { restartsMax: 2 } });
    for (let i = 0; i < 3; i++) await e.ingest(label(WALLET, 'poison', 10 + i));
    await e.ingest(label(WALLET, 'kol', 20));
    await e.ingest(label(OTHER_WALLET, 'kol', 20));
    const host = hostOf(e);
    expect(host.supervision(WALLET)).toBe('stopped');
    expect(host.get(OTHER_WALLET)).toEqual({ labels: ['kol'] });
    const reasons = [...e.storage.deadLetters.getRange()].map((l) => l.value.reason);
    expect(reasons.filter((r) => r.includes('threw twice'))).toHaveLength(2);
    expect(reasons.filter((r) => r.includes('stopped'))).toHaveLength(2);
  });

  describe('restart window on the engine clock (60 s, restartsMax 2)', () => {
    const T = 1_767_225_600_000;
    const open = (clock: SimulatedClock) => temp.open({ actors: { restartsMax: 2 } }, { actors: [labelCounter], clock });
    const crashes = async (e: Engine, count: number, at: number) => {
      for (let i = 0; i < count; i++) await e.ingest(label(WALLET, 'poison', at + i));
    };

    it('forgets the restarts older than the window: two more are allowed once the clock has moved past it', async () => {
      const clock = new SimulatedClock(T);
      const e = await open(clock);
      await crashes(e, 2, 10);
      expect(hostOf(e).supervision(WALLET)).toBe('active');
      clock.increment(60_001);
      await crashes(e, 2, 20);
      expect(hostOf(e).supervision(WALLET)).toBe('active');
      // A third within the window of the last two: stopped.
      await crashes(e, 1, 30);
      expect(hostOf(e).supervision(WALLET)).toBe('stopped');
    });

    it('stops the actor at the crash after restartsMax within the window, however close to its end', async () => {
      const clock = new SimulatedClock(T);
      const e = await open(clock);
      await crashes(e, 2, 10);
      clock.increment(59_999);
      await crashes(e, 1, 20);
      expect(hostOf(e).supervision(WALLET)).toBe('stopped');
    });
  });
});
