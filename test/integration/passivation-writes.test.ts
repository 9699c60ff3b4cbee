import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import type { IngestEvent } from '../../engine/ingest/index.ts';
import { checkpointOf } from '../../engine/supervisor/index.ts';
import { base58, rng, swapStream, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * Issue 25: passivating an actor whose state has not changed since its last snapshot
 * writes nothing (the resident bound passivates actors all the time during a replay; a
 * write each would double the snapshot traffic). Seen in LMDB: a snapshot records the
 * seq the engine had applied when it was written, so one written again after later
 * events (of other actors) records a later seq.
 */

let dir: TempDir;
let engine: Engine | null = null;

afterEach(async () => {
  await engine?.stop();
  engine = null;
  dir.cleanup();
});

describe('passivation of unchanged actors', () => {
  it('writes no snapshot for an actor unchanged since its last one, and one for an actor changed since', async () => {
    dir = tempDir();
    engine = await createEngine({ config: testConfig(dir.path) });
    const events = [...swapStream(40, 2, 5, true)] as unknown as IngestEvent[];
    const [quiet, busy] = events.filter((e) => e.type === 'pool').map((e) => (e as { pool_address: string }).pool_address);
    for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
    const lastAt = (events[events.length - 1] as { at: number }).at;
    // Past the live flush's next tick (event time), so that it has taken every pool's candle changes before the checkpoint.
    await engine.ingest({ type: 'quote_price', quote_address: WSOL, price_usd: 151, at: lastAt + 1_000 } as IngestEvent);
    await engine.checkpoint();
    const checkpoint = checkpointOf(engine.storage);
    const seqOf = (id: string) => (engine!.storage.snapshots.get(id) as { seq: number } | undefined)?.seq;
    const quietToken = (engine.pools.get(quiet!)!.info as { base_address: string }).base_address;
    // Written by the checkpoint or before it (a snapshot holds every seq up to its own).
    const written = { pool: seqOf(`pool:${quiet}`)!, token: seqOf(`token:${quietToken}`)! };
    expect(written.pool).toBeLessThanOrEqual(checkpoint);
    expect(written.token).toBeLessThanOrEqual(checkpoint);

    // One more swap, in the busy pool only; the quiet one is read (a read changes nothing).
    const swap = events.filter((e) => e.type === 'swap' && (e as { pool_address: string }).pool_address === busy).at(-1) as Record<string, unknown>;
    const more = { ...swap, tx_hash: base58(rng(77), 88), slot: (swap.slot as number) + 100, at: lastAt + 2_000 } as unknown as IngestEvent;
    expect((await engine.ingest(more)).status).toBe('applied');
    expect(engine.pools.get(quiet!)?.pool_address).toBe(quiet);
    expect(engine.pools.isResident(quiet!)).toBe(true);

    // Every actor passivated, as the idle sweep (and the resident bound) does.
    expect(await engine.passivateIdle(performance.now() + 1e9)).toBeGreaterThan(0);
    expect(engine.pools.isResident(quiet!)).toBe(false);
    await engine.storage.snapshots.committed;
    expect(seqOf(`pool:${busy}`)).toBeGreaterThan(checkpoint);
    expect(seqOf(`pool:${quiet}`)).toBe(written.pool);
    expect(seqOf(`token:${quietToken}`)).toBe(written.token);
  });
});
