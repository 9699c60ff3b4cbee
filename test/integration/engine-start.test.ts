import { describe, expect, it } from 'vitest';
import type { IngestEvent } from '../../engine/index.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { swapStream } from '../helpers/fixtures.ts';

/**
 * createEngine starts the engine (the log replayed after the checkpoint, the timers, the
 * research feed); Engine.start() called again is a no-op, not a second replay.
 */

const temp = useTempEngine();

describe('Engine.start()', () => {
  it('a second call replays nothing and leaves the applied state as it was', async () => {
    // No checkpoint while the test runs: the log after seq 0 is what a second start would replay.
    const engine = await temp.open({ actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    const events = [...swapStream(200, 4, 3, true)];
    for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    const market = engine.query.market!;
    const before = JSON.stringify(pools.map((p) => [market.pools.pool(p), market.trades.poolTrades(p, { order: 'asc', limit: 1_000, startTime: 0 })?.items.length]));

    const replayed: IngestEvent[] = [];
    engine.onApplied((batch) => replayed.push(...batch));
    await engine.start();
    await engine.start();

    expect(replayed).toEqual([]);
    expect(engine.query.status().status).toBe('ready');
    expect(JSON.stringify(pools.map((p) => [market.pools.pool(p), market.trades.poolTrades(p, { order: 'asc', limit: 1_000, startTime: 0 })?.items.length]))).toBe(before);
    // Still live: the next event is applied once.
    const next = [...swapStream(201, 4, 3, true)].at(-1)!;
    expect((await engine.ingest(next)).status).toBe('applied');
    expect(replayed).toHaveLength(1);
  });
});
