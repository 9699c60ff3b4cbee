import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { identityOf, type IngestEvent } from '../../engine/ingest/events.ts';
import { readLog } from '../../engine/ingest/gate.ts';
import { createEngine } from '../../engine/system.ts';
import { openStorage } from '../../storage/lmdb.ts';
import { KEEP_LOG, rng, swapStream, tempDir, testConfig } from '../helpers/fixtures.ts';
import { swapCounter } from '../helpers/swap-counter.ts';
import { countsOf, storedTradesByWallet, tradeCounter } from '../helpers/trade-counter.ts';

const CHILD = fileURLToPath(new URL('../helpers/crash-child.ts', import.meta.url));
const SEED = Number(process.env.SEED ?? 20261120);

interface Run {
  acked: number;
  /** Rebuilds of its trade counter (armed to throw every 1,000 lines). */
  thrown: number;
  done: boolean;
}

/**
 * Runs the child; kills it with SIGKILL as soon as it has acknowledged line `killAtAck`
 * (never, if null): the child is ingesting the lines after it then, so the kill lands
 * part-way through its next 500 lines (their writes, a checkpoint or a passivation).
 */
function runChild(data: string, file: string, killAtAck: number | null, logRetentionMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, data, file, String(logRetentionMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run: Run = { acked: 0, thrown: 0, done: false };
    let stderr = '';
    let killed = false;
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const l of lines) {
        if (l.startsWith('ack ')) run.acked = Math.max(run.acked, Number(l.slice(4)));
        if (l.startsWith('thrown ')) run.thrown = Math.max(run.thrown, Number(l.slice(7)));
        if (l === 'done') run.done = true;
        if (killAtAck !== null && !killed && run.acked >= killAtAck) killed = child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' || code === 0) resolve(run);
      else reject(new Error(`child exited ${code} ${signal}: ${stderr}`));
    });
  });
}

/** The whole log kept (test/helpers/fixtures.ts). */
const KEEP_LOG_MS = KEEP_LOG.logRetentionMs;

/**
 * Ingests the stream in a child killed with SIGKILL part-way, five times at most, then to
 * its end, and checks the engine that opens the data directory after. With the whole log
 * kept, every acknowledged event is read back from it after each kill; with
 * `logRetentionMs` 0 the log before each checkpoint is deleted as it is recorded, and the
 * state after the kills (which replay and rebuild from the pruned log) is the same.
 */
async function crashRuns(logRetentionMs: number, count: number) {
  const dir = tempDir();
  try {
    const events = [...swapStream(count, 40, 5, process.env.CRASH_UNDECLARED ? false : true)];
    const file = join(dir.path, 'events.ndjson');
    writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const ids = events.map((e) => identityOf(e as IngestEvent));
    const data = join(dir.path, 'data');
    const random = rng(SEED);
    let kills = 0;
    let thrown = 0;
    /** The most events found deleted from the head of the log after a kill. */
    let pruned = 0;
    for (let round = 0; round < 5; round++) {
      // At an ack of the first 80% of the file (the child acks every 500 lines).
      const run = await runChild(data, file, 500 * (1 + Math.floor(random() * ((events.length * 0.8) / 500))), logRetentionMs);
      thrown += run.thrown;
      if (run.done) break;
      kills++;
      const storage = openStorage(data);
      const logged = [...readLog(storage, 1)].map((e) => identityOf(e.event));
      const firstLogged = [...storage.ingestLog.getKeys({ limit: 1 })][0] ?? 0;
      await storage.close();
      const seen = new Set(logged);
      expect(seen.size, 'no event is in the log twice').toBe(logged.length);
      if (logRetentionMs === KEEP_LOG_MS) {
        const missing = ids.slice(0, run.acked).filter((id) => !seen.has(id));
        expect(missing, `acknowledged up to line ${run.acked}`).toEqual([]);
      } else pruned = Math.max(pruned, firstLogged - 1);
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    // Pruned: the ack the kills came after was at least 500 lines in, with checkpoints every 20 ms.
    if (logRetentionMs !== KEEP_LOG_MS) expect(pruned, 'events pruned from the log before a kill').toBeGreaterThan(0);
    const last = await runChild(data, file, null, logRetentionMs);
    expect(last.done).toBe(true);
    thrown += last.thrown;
    if (!process.env.CRASH_UNDECLARED) expect(thrown, 'rebuilds of the trade counter').toBeGreaterThan(0);

    const engine = await createEngine({ config: testConfig(data), actors: [swapCounter, tradeCounter] });
    try {
      expect(engine.query.status().ingested).toBe(events.length);
      const expected = new Map<string, number>();
      for (const e of events) if (e.type === 'swap') expected.set(e.pool_address as string, (expected.get(e.pool_address as string) ?? 0) + 1);
      const counter = engine.hosts.find((h) => h.kind === 'swap-counter')!;
      for (const [pool, count] of expected) expect((counter.get(pool) as { swaps: number }).swaps, pool).toBe(count);
      // A consumer of derived events (each run's trade counter threw now and then: rebuilds):
      // exactly the trades stored, per wallet, across the kills.
      const wallets = new Set(events.filter((e) => e.type === 'swap').map((e) => e.wallet_address as string));
      const stored = storedTradesByWallet(engine, expected.keys());
      expect([...stored.values()].reduce((a, b) => a + b, 0)).toBe(process.env.CRASH_UNDECLARED ? 0 : [...expected.values()].reduce((a, b) => a + b, 0));
      expect(countsOf(engine, tradeCounter.kind, wallets), 'pool.trade events per wallet against the stored trades').toEqual(stored);
    } finally {
      await engine.stop();
    }
  } finally {
    dir.cleanup();
  }
}

describe('crash safety', () => {
  it(`loses no acknowledged event and applies none twice across SIGKILLs (seed ${SEED})`, () => crashRuns(KEEP_LOG_MS, 60_000), 180_000);

  it(`gives the same state across SIGKILLs with the log before each checkpoint pruned (ingest.logRetentionMs 0, seed ${SEED})`, () => crashRuns(0, 30_000), 180_000);
});
