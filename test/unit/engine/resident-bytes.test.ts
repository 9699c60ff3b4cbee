import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PERSIST_UNSAVED_AT } from '../../../engine/bounds.ts';
import { PERSIST_PRESSURE, PERSIST_UNSAVED_SHARE } from '../../../engine/supervisor/checkpoint.ts';
import { SimulatedClock } from '../../../engine/clock.ts';
import { createMetrics } from '../../../engine/metrics.ts';
import { ActorHost, evictOverBound, ResidentBytes, Router, StaleEpochs, type ActorBehavior, type ActorEvent } from '../../../engine/supervisor/index.ts';
import { useTempStorage } from '../../helpers/fixtures.ts';

/**
 * Issue 25, the byte bound over resident actors (`actors.residentBytesMax`): an actor
 * holding more than PERSIST_UNSAVED_AT bytes unsaved (a pool's trades not in the trades
 * store yet) is snapshotted after its batch while the shared byte bound is past
 * PERSIST_PRESSURE and the residents' unsaved bytes past PERSIST_UNSAVED_SHARE of it, and
 * stays resident (ActorHost.persistHeavy, run first by evictOverBound); past the bound,
 * among actors used last in the same batch the larger is evicted first (evictOverBytes).
 * Real hosts over real LMDB with a ledger kind whose sizes the test sets: `held` is heap
 * a snapshot keeps, `unsaved` what a snapshot writes and lets go.
 */

interface Ledger {
  held: number;
  unsaved: number;
  saved: number;
}

type LedgerEvent = { type: 'grow'; key: string; held: number; unsaved: number };
type Grow = [key: string, held: number, unsaved: number];

const ledger: ActorBehavior<Ledger> = {
  kind: 'ledger',
  takes: ['grow'],
  route: (e) => (e as unknown as LedgerEvent).key,
  initial: () => ({ held: 0, unsaved: 0, saved: 0 }),
  apply(state, e) {
    const g = e as unknown as LedgerEvent;
    state.held += g.held;
    state.unsaved += g.unsaved;
  },
  sizeOf: (s) => 1_000 + s.held + s.unsaved,
  unsavedBytes: (s) => s.unsaved,
  beforeSnapshot(s) {
    s.saved += s.unsaved;
    s.unsaved = 0;
  },
};

const storage = useTempStorage();

/** The snapshots written so far committed, and what their commit settles (the host's pendingWrite) run. */
async function committed(): Promise<void> {
  await storage.storage.snapshotWrites.committed;
  await new Promise<void>((resolve) => setImmediate(resolve));
}
const BOUND = 100_000;

/** What a host over the test's store takes, sharing `budget` with the other hosts made with it. */
function hostOptions(budget: ResidentBytes, metrics = createMetrics()) {
  const log = pino({ level: 'silent' });
  return {
    storage: storage.storage,
    clock: new SimulatedClock(0),
    log,
    metrics,
    read: () => undefined,
    peek: () => undefined,
    deadLetter: () => undefined,
    router: new Router({ log, history: () => [] }),
    idleMs: 3_600_000,
    budget,
    restartsMax: 10,
    epochs: new StaleEpochs(storage.storage),
  };
}

function setup(persistAt: number | null = PERSIST_UNSAVED_AT) {
  const metrics = createMetrics();
  const host: ActorHost<Ledger> = new ActorHost(ledger, { ...hostOptions(new ResidentBytes(BOUND), metrics), persistAt: persistAt ?? undefined });
  let seq = 0;
  let now = 0;
  /** One batch: its events delivered, then what follows each applied batch (evictOverBound). */
  const batch = (...events: Grow[]) => {
    host.batch(++now);
    for (const [key, held, unsaved] of events) host.deliver({ type: 'grow', key, held, unsaved } as unknown as ActorEvent, ++seq, 0);
    evictOverBound([host]);
    host.batch(0);
  };
  const early = async () => (await metrics.actorEarlySnapshots.get()).values.find((v) => v.labels.kind === 'ledger')?.value ?? 0;
  const stored = () => (storage.storage.snapshots.get('ledger:busy') as { state: { state: Ledger } } | undefined)?.state.state;
  /**
   * Residents beside the busy one: a filler holding `held`, and QUIET actors each with
   * `unsaved` bytes (under PERSIST_UNSAVED_AT: never heavy themselves). Used twice, since
   * an actor's estimate is taken at its first use in a batch, before its events.
   */
  const fill = (held: number, unsaved: number) => {
    batch(['filler', held, 0], ...Array.from({ length: QUIET }, (_, i) => [`quiet${i}`, 0, unsaved] as Grow));
    batch(['filler', 0, 0], ...Array.from({ length: QUIET }, (_, i) => [`quiet${i}`, 0, 0] as Grow));
  };
  /** `n` events of STEP unsaved bytes to the busy actor, in one batch. */
  const busy = (n: number) => batch(...Array.from({ length: n }, () => ['busy', 0, STEP] as Grow));
  return { host, batch, early, stored, fill, busy };
}

/** Unsaved bytes past the threshold in five events. */
const STEP = Math.ceil(PERSIST_UNSAVED_AT / 5);
/** Quiet residents, and the unsaved bytes of each that put their sum past PERSIST_UNSAVED_SHARE of the bound. */
const QUIET = 4;
const QUIET_UNSAVED = Math.ceil((BOUND * PERSIST_UNSAVED_SHARE) / QUIET);
/** The filler's held bytes that put the estimate past PERSIST_PRESSURE of the bound, with the quiet ones and the busy one (each counted at 1,000 + its bytes). */
const fillFor = (quietUnsaved: number) => Math.ceil(BOUND * PERSIST_PRESSURE) - QUIET * (1_000 + quietUnsaved);

describe('actors snapshotted early while the byte bound fills (ActorHost.persistHeavy)', () => {
  it('snapshots an actor past PERSIST_UNSAVED_AT unsaved once the bound fills with unsaved bytes, and keeps it resident', async () => {
    const { host, early, stored, fill, busy } = setup();
    expect(QUIET_UNSAVED).toBeLessThan(PERSIST_UNSAVED_AT);
    fill(fillFor(QUIET_UNSAVED), QUIET_UNSAVED);
    busy(5);
    expect(host.budget!.bytes).toBeGreaterThanOrEqual(BOUND * PERSIST_PRESSURE);
    expect(host.budget!.over).toBe(0);
    expect(host.unsavedBytes).toBeGreaterThanOrEqual(BOUND * PERSIST_UNSAVED_SHARE);
    expect(await early()).toBe(1);
    // Written and still in memory: nothing was evicted; the busy one is clean, the others not.
    expect(host.size).toBe(2 + QUIET);
    expect(host.dirtyKeys()).not.toContain('busy');
    expect(host.dirtyKeys()).toHaveLength(1 + QUIET);
    expect(host.get('busy')).toEqual({ held: 0, unsaved: 0, saved: 5 * STEP });
    await committed();
    expect(stored()).toEqual({ held: 0, unsaved: 0, saved: 5 * STEP });
  });

  it('leaves it to the checkpoint while the bound has room', async () => {
    const { host, early, fill, busy } = setup();
    fill(0, QUIET_UNSAVED);
    busy(10);
    expect(host.budget!.bytes).toBeLessThan(BOUND * PERSIST_PRESSURE);
    expect(host.unsavedBytes).toBeGreaterThanOrEqual(BOUND * PERSIST_UNSAVED_SHARE);
    expect(await early()).toBe(0);
    expect(host.get('busy')?.unsaved).toBe(10 * STEP);
  });

  it('leaves it to the checkpoint while the bound fills with other bytes than unsaved ones (what evictions are for)', async () => {
    const { host, early, fill, busy } = setup();
    fill(fillFor(0), 0);
    busy(10);
    expect(host.budget!.bytes).toBeGreaterThanOrEqual(BOUND * PERSIST_PRESSURE);
    expect(host.unsavedBytes).toBeLessThan(BOUND * PERSIST_UNSAVED_SHARE);
    expect(await early()).toBe(0);
    expect(host.get('busy')?.unsaved).toBe(10 * STEP);
  });

  it('snapshots it at its next event once the bound fills, not before', async () => {
    const { host, early, stored, fill, busy, batch } = setup();
    fill(0, QUIET_UNSAVED);
    busy(5);
    expect(await early()).toBe(0);
    // The bound fills; the busy actor is not looked at again until an event of its own.
    fill(fillFor(QUIET_UNSAVED) - 1_000, 0);
    expect(host.budget!.bytes).toBeGreaterThanOrEqual(BOUND * PERSIST_PRESSURE);
    expect(await early()).toBe(0);
    batch(['busy', 0, 1]);
    expect(await early()).toBe(1);
    await committed();
    expect(stored()).toEqual({ held: 0, unsaved: 0, saved: 5 * STEP + 1 });
  });

  it('does not snapshot again while its last snapshot is still being written', async () => {
    const { early, stored, fill, busy, batch } = setup();
    fill(fillFor(QUIET_UNSAVED), QUIET_UNSAVED);
    busy(5);
    // Heavy again in the same turn, before that write commits.
    busy(5);
    expect(await early()).toBe(1);
    await committed();
    expect(stored()?.saved).toBe(5 * STEP);
    // Committed: the next event that finds it heavy snapshots it.
    batch(['busy', 0, 0]);
    expect(await early()).toBe(2);
    await committed();
    expect(stored()?.saved).toBe(10 * STEP);
  });

  it('never snapshots early without persistAt', async () => {
    const { host, early, fill, busy } = setup(null);
    fill(fillFor(QUIET_UNSAVED), QUIET_UNSAVED);
    busy(10);
    expect(await early()).toBe(0);
    expect(host.get('busy')?.unsaved).toBe(10 * STEP);
  });
});

describe('the byte bound among actors used last in the same batch (evictOverBytes)', () => {
  it('passivates the larger first, so that fewer go', () => {
    const budget = new ResidentBytes(10_000);
    const options = hostOptions(budget);
    // The small kind first, as tokens come before pools: a tie used to go to the first host.
    const small = new ActorHost<Ledger>({ ...ledger, kind: 'small' }, options);
    const large = new ActorHost<Ledger>({ ...ledger, kind: 'large' }, options);
    const hosts = [small, large];
    let seq = 0;
    let now = 0;
    const batch = (...events: Array<[host: ActorHost<Ledger>, key: string, held: number]>) => {
      now++;
      for (const h of hosts) h.batch(now);
      for (const [h, key, held] of events) h.deliver({ type: 'grow', key, held, unsaved: 0 } as unknown as ActorEvent, ++seq, 0);
      evictOverBound(hosts);
      for (const h of hosts) h.batch(0);
    };
    batch([small, 's1', 0], [small, 's2', 0], [small, 's3', 0], [large, 'l1', 5_000]);
    // Estimates are taken at an actor's first use in a batch, before its events: all four again, in one batch.
    batch([small, 's1', 0], [small, 's2', 0], [small, 's3', 0], [large, 'l1', 0]);
    expect(budget.bytes).toBe(3 * 1_000 + 6_000);
    // A later batch takes the estimate 4,000 past the bound.
    batch([small, 's4', 4_000]);
    batch([small, 's4', 0]);
    // One eviction: the large actor of the older batch (6,000), not the three small ones of it and then it.
    expect(large.isResident('l1')).toBe(false);
    expect(['s1', 's2', 's3', 's4'].filter((k) => small.isResident(k))).toEqual(['s1', 's2', 's3', 's4']);
    expect(budget.bytes).toBe(3 * 1_000 + 5_000);
  });
});
