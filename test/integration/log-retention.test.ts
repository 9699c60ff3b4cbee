import { describe, expect, it } from 'vitest';
import { readLog } from '../../engine/ingest/gate.ts';
import { checkpointOf } from '../../engine/supervisor/index.ts';
import type { Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { swapStream } from '../helpers/fixtures.ts';

/**
 * The ingest log before the last checkpoint (issue 25: ~12 % of the data directory) is
 * deleted as each checkpoint is recorded, once `ingest.logRetentionMs` of event time has
 * passed since that checkpoint; the newest batch always stays. The crash test
 * (test/integration/crash.test.ts) kills a pruning engine mid-ingest.
 */

const QUIET = { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 };
const temp = useTempEngine();

const batchKeys = (engine: Engine) => [...engine.storage.ingestLog.getKeys({})] as number[];
const loggedSeqs = (engine: Engine) => [...readLog(engine.storage, 1)].map((e) => e.seq);
const marketOf = (engine: Engine, pools: string[]) => {
  const market = engine.query.market!;
  return JSON.stringify(pools.map((p) => [market.pools.pool(p), market.trades.poolTrades(p, { order: 'asc', limit: 1_000, startTime: 0 })?.items]));
};

describe('ingest log retention', () => {
  it('with 0, keeps only what the checkpoint does not cover and the newest batch; a restart goes on from the next seq with the same state', async () => {
    const events = [...swapStream(300, 4, 7, true)];
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    let engine = await temp.open({ actors: QUIET, ingest: { logRetentionMs: 0 } });
    // One batch per event (each waits for its commit).
    for (const e of events.slice(0, 200)) expect((await engine.ingest(e)).status).toBe('applied');
    expect(batchKeys(engine)).toHaveLength(200);
    await engine.checkpoint();
    await engine.storage.meta.committed;
    const checkpoint = checkpointOf(engine.storage);
    expect(checkpoint).toBe(200);
    expect(batchKeys(engine), 'the newest batch only').toEqual([200]);
    // After the checkpoint: kept until the next one.
    for (const e of events.slice(200, 250)) await engine.ingest(e);
    expect(loggedSeqs(engine)).toEqual(Array.from({ length: 51 }, (_, i) => 200 + i));
    const before = marketOf(engine, pools);
    await temp.crash(engine);

    // The restart replays seqs 201-250 after the checkpoint, and the next event is seq 251.
    engine = await temp.open({ actors: QUIET, ingest: { logRetentionMs: 0 } });
    expect(engine.query.status().ingested).toBe(250);
    expect(marketOf(engine, pools)).toBe(before);
    for (const e of events.slice(250)) expect((await engine.ingest(e)).status).toBe('applied');
    expect(loggedSeqs(engine).at(-1)).toBe(events.length);
    await engine.stop();
    engine = await temp.open({ actors: QUIET, ingest: { logRetentionMs: 0 } });
    expect(batchKeys(engine), 'stop() records a checkpoint, which prunes').toEqual([events.length]);
    expect(engine.query.status().ingested).toBe(events.length);
    // A duplicate is still known (identities are kept apart from the log).
    expect((await engine.ingest(events[10]!)).status).toBe('duplicate');
  });

  it('keeps the log covered by a checkpoint until logRetentionMs of event time has passed since it', async () => {
    // 10 ms of event time between swaps: 300 swaps span 3 s.
    const events = [...swapStream(300, 4, 9, true)];
    const engine = await temp.open({ actors: QUIET, ingest: { logRetentionMs: 1_000 } });
    const atOf = (i: number) => (events[i] as { at: number }).at;
    let first = -1;
    for (const [i, e] of events.entries()) {
      await engine.ingest(e);
      if (i === 100) {
        await engine.checkpoint();
        first = atOf(i);
        expect(batchKeys(engine)[0], 'nothing pruned at once').toBe(1);
      }
      if (i > 100 && i % 10 === 0) {
        await engine.checkpoint();
        const firstKey = batchKeys(engine)[0]!;
        // The checkpoint at event 100 (seq 101) is pruned through once 1 s of event time has passed since it.
        if (atOf(i) - first < 1_000) expect(firstKey, `event ${i}`).toBe(1);
        else expect(firstKey, `event ${i}`).toBeGreaterThanOrEqual(101);
      }
    }
    expect(batchKeys(engine)[0]).toBeGreaterThan(101);
  });
});
