import { WSOL } from '../../engine/model/index.ts';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { timeOf, type IngestEvent } from '../../engine/ingest/events.ts';
import { readLog } from '../../engine/ingest/gate.ts';
import { serveSimSource } from '../../engine/serve.ts';
import { shiftEvent, simulate, SIM_FILE_START_AT } from '../../engine/sources/sim/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { openStorage } from '../../storage/lmdb.ts';
import { KEEP_LOG, tempDir, testConfig } from '../helpers/fixtures.ts';

/**
 * `mds serve` restarted on its data directory goes on with the simulated market it was
 * running (engine/serve.ts serveSimSource, engine/sources/sim/state.ts): the same pools
 * keep trading, SOL goes on from its last price, no trade_id is stored twice, and the
 * downtime is skipped. The wall clock the simulator paces against is moved by hand.
 */

const T0 = SIM_FILE_START_AT;
const HOUR = 3_600_000;
const CHILD = fileURLToPath(new URL('../helpers/sim-serve-child.ts', import.meta.url));

/** A wall clock moved by hand. */
function handClock(at: number) {
  const clock = { at, now: () => clock.at };
  return clock;
}

/** Resolves once `engine` has applied an event at `at` or later. */
function appliedUntil(engine: Engine, at: number): Promise<void> {
  return new Promise((resolve) => {
    if (engine.latestEventAt >= at) return resolve();
    const off = engine.onApplied(() => {
      if (engine.latestEventAt < at) return;
      off();
      resolve();
    });
  });
}

const openSim = (data: string) => createEngine({ config: testConfig(data, { source: 'sim', sim: { seed: 42, speed: 1 }, ingest: KEEP_LOG }) });

/**
 * Runs the simulator as `mds serve` does on `data`, from wall time `restartAt` for
 * `forMs` of simulated time, and stops the engine; returns the newest event time the
 * data directory held before and how many events the gate dropped as duplicates.
 */
async function serveFor(data: string, restartAt: number | ((appliedAt: number) => number), forMs: number): Promise<{ appliedBefore: number; restartAt: number; duplicates: number }> {
  const engine = await openSim(data);
  const appliedBefore = engine.latestEventAt;
  const clock = handClock(typeof restartAt === 'number' ? restartAt : restartAt(appliedBefore));
  const started = clock.at;
  void engine.runSource(serveSimSource(engine, { now: clock.now, persist: { everyEvents: 2_000 } }));
  clock.at += forMs;
  // The last slot due; every slot carries events at these rates.
  await appliedUntil(engine, clock.at - 400);
  const duplicates = (await engine.metrics.duplicates.get()).values[0]?.value ?? 0;
  await engine.stop();
  return { appliedBefore, restartAt: started, duplicates };
}

async function loggedEvents(data: string): Promise<IngestEvent[]> {
  const storage = openStorage(data);
  try {
    return [...readLog(storage, 1)].map((e) => e.event);
  } finally {
    await storage.close();
  }
}

const tradeId = (e: IngestEvent) => (e.type === 'swap' ? `${e.tx_hash}:${e.event_index}` : null);

/**
 * The checks common to both restarts: `logged` (the data directory's log) is the
 * uninterrupted market of seed 42 from T0, with the events after `appliedBefore`
 * (the newest before the restart) moved later by one gap that skips the downtime.
 */
function expectContinued(logged: IngestEvent[], appliedBefore: number, restartAt: number): void {
  const first = logged.findIndex((e) => timeOf(e) > appliedBefore);
  expect(first, 'the restart applied events').toBeGreaterThan(0);
  const before = logged.slice(0, first);
  const after = logged.slice(first);

  // No trade_id twice.
  const ids = logged.map(tradeId).filter((id) => id !== null);
  expect(new Set(ids).size).toBe(ids.length);

  // The pools that traded most before the restart trade after it.
  const counts = new Map<string, number>();
  for (const e of before) if (e.type === 'swap') counts.set(e.pool_address, (counts.get(e.pool_address) ?? 0) + 1);
  const main = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([pool]) => pool);
  const tradedAfter = new Set(after.flatMap((e) => (e.type === 'swap' ? [e.pool_address] : [])));
  for (const pool of main) expect(tradedAfter.has(pool), `pool ${pool} trades after the restart`).toBe(true);
  // And no pool is declared again.
  const pools = logged.flatMap((e) => (e.type === 'pool' ? [e.pool_address] : []));
  expect(new Set(pools).size).toBe(pools.length);

  // SOL goes on from its last price (the start level is 150).
  const sol = (events: IngestEvent[]) => events.flatMap((e) => (e.type === 'quote_price' && e.quote_address === WSOL ? [e.price_usd] : []));
  const lastBefore = sol(before).at(-1)!;
  const firstAfter = sol(after)[0]!;
  expect(Math.abs(firstAfter / lastBefore - 1)).toBeLessThan(0.01);

  // The downtime is skipped: nothing in it, and the market is at the present time again.
  const resumedAt = timeOf(after[0]!);
  expect(resumedAt).toBeGreaterThanOrEqual(restartAt);
  expect(resumedAt).toBeLessThan(restartAt + 400);

  // Event for event, the market that would have run without the restart, moved past the gap.
  const expected: IngestEvent[] = [];
  for (const e of simulate({ seed: 42, startAt: T0 })) {
    expected.push(e);
    if (expected.length === logged.length) break;
  }
  const gap = resumedAt - timeOf(expected[first]!);
  expect(gap % 400).toBe(0);
  for (const e of after) shiftEvent(e, -gap);
  const mismatch = logged.findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(expected[i]));
  expect(mismatch, mismatch < 0 ? '' : `event ${mismatch}: ${JSON.stringify(logged[mismatch])} != ${JSON.stringify(expected[mismatch])}`).toBe(-1);
  expect(sol(expected).slice(0, sol(before).length + 1)).toEqual([...sol(before), firstAfter]);
}

describe('the simulator of mds serve across restarts', () => {
  it('goes on with the same market after a stop and an hour down: same pools, SOL from its last price, no trade_id twice, the downtime skipped', async () => {
    const dir = tempDir();
    try {
      const data = join(dir.path, 'data');
      const first = await serveFor(data, T0, 180_000);
      expect(first.appliedBefore).toBe(0);
      const second = await serveFor(data, (appliedAt) => appliedAt + HOUR, 120_000);
      expect(second.appliedBefore).toBeGreaterThanOrEqual(T0 + 180_000 - 400);
      // A stopped run saved its market after its last event: nothing is sent again.
      expect(second.duplicates).toBe(0);
      expectContinued(await loggedEvents(data), second.appliedBefore, second.restartAt);
      // And once more: the second run's state (with its gap) goes on too.
      const third = await serveFor(data, (appliedAt) => appliedAt + 10 * 60_000, 60_000);
      const logged = await loggedEvents(data);
      const ids = logged.map(tradeId).filter((id) => id !== null);
      expect(new Set(ids).size).toBe(ids.length);
      const resumed = logged.find((e) => timeOf(e) > third.appliedBefore)!;
      expect(timeOf(resumed)).toBeGreaterThanOrEqual(third.restartAt);
    } finally {
      dir.cleanup();
    }
  }, 120_000);

  it('goes on with the same market after a SIGKILL: what the killed run applied is not applied again', async () => {
    const dir = tempDir();
    try {
      const data = join(dir.path, 'data');
      await new Promise<void>((resolve, reject) => {
        // 60 simulated ms per wall ms: ~5,000 events a second; killed after 8,000 applied (8 states saved).
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD, data, String(T0), '60'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        let pending = '';
        child.stdout.on('data', (chunk: Buffer) => {
          pending += chunk.toString();
          const lines = pending.split('\n');
          pending = lines.pop()!;
          for (const line of lines) if (line.startsWith('applied ') && Number(line.slice(8)) >= 8_000) child.kill('SIGKILL');
        });
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('error', reject);
        child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code} ${signal}: ${stderr}`))));
      });
      // The killed run's last saved state is older than its last durable events (saved
      // every 1,000 events, once those before it are durable): the restart sends the
      // events between again (500-1,400 in trials), and the gate drops the ones it holds.
      const restart = await serveFor(data, (appliedAt) => appliedAt + HOUR, 60_000);
      expect(restart.appliedBefore).toBeGreaterThan(T0);
      expectContinued(await loggedEvents(data), restart.appliedBefore, restart.restartAt);
    } finally {
      dir.cleanup();
    }
  }, 120_000);

  it('starts a market of its own on a data directory whose simulator kept no state (sim:runs only), as before', async () => {
    const dir = tempDir();
    try {
      const data = join(dir.path, 'data');
      const engine = await openSim(data);
      engine.storage.meta.putSync('sim:runs', 1);
      await engine.stop();
      await serveFor(data, T0, 20_000);
      const logged = await loggedEvents(data);
      const txs = new Set(logged.flatMap((e) => (e.type === 'swap' ? [e.tx_hash] : [])));
      expect(txs.size).toBeGreaterThan(100);
      // Seed 42's market (what that directory's first run sent) has none of them.
      let shared = 0;
      for (const e of simulate({ seed: 42, startAt: T0 })) {
        if (e.type === 'swap' && txs.has(e.tx_hash)) shared++;
        if (timeOf(e) > T0 + 20_000) break;
      }
      expect(shared).toBe(0);
    } finally {
      dir.cleanup();
    }
  });
});
