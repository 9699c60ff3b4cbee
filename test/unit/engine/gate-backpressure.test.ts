import { describe, expect, it } from 'vitest';
import { IngestGate } from '../../../engine/ingest/gate.ts';
import { silentLogger } from '../../../engine/log.ts';
import { createMetrics } from '../../../engine/metrics.ts';
import { WSOL, useTempStorage } from '../../helpers/fixtures.ts';

const temp = useTempStorage();

const gate = () => new IngestGate({ storage: temp.storage, metrics: createMetrics(), log: silentLogger(), batchMax: 2_000, batchesInFlightMax: 8 });

/** A quote_price line of about `bytes` bytes (padded with an unknown field). */
const line = (at: number, bytes = 0) => JSON.stringify({ type: 'quote_price', quote_address: WSOL, price_usd: 150, at, pad: 'p'.repeat(bytes) });

/**
 * Writes `batches` batches of `perBatch` lines each in this turn: `flush` writes the open
 * batch at once, and none can be durable before this turn ends.
 */
function writeBatches(g: IngestGate, batches: number, perBatch: number, bytes: number): Promise<void> {
  let at = 1;
  let flushed: Promise<void> = Promise.resolve();
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < perBatch; i++) g.submitLine(line(at++, bytes), 'test');
    flushed = g.flush();
  }
  return flushed;
}

describe('ingest gate backpressure', () => {
  it('lets a source go on while many small batches (a live pipe, a line each) wait for their commit', async () => {
    const g = gate();
    const durable = writeBatches(g, 50, 1, 100);
    expect(g.writable()).toBeNull();
    await durable;
    expect(g.ingested).toBe(50);
  });

  it('pauses a source once batchesInFlightMax batches holding 1 MiB or more wait for their commit, until one is durable', async () => {
    const g = gate();
    // 8 batches of ~190 KB: 1.5 MiB uncommitted.
    const durable = writeBatches(g, 8, 500, 300);
    const wait = g.writable();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(g.writable()).toBeNull();
    await durable;
    expect(g.ingested).toBe(4_000);
  });
});
