import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as bounds from '../../../engine/bounds.ts';
import { configSchema } from '../../../engine/config.ts';

const SOURCE = readFileSync(new URL('../../../engine/bounds.ts', import.meta.url), 'utf8');

describe('engine/bounds.ts', () => {
  it('documents every bound: each export is a positive integer with a doc comment of its own', () => {
    const exported = [...SOURCE.matchAll(/^export const (\w+) = /gm)].map((m) => m[1]!);
    expect(exported.sort()).toEqual(Object.keys(bounds).sort());
    for (const name of exported) {
      expect(Number.isInteger(bounds[name as keyof typeof bounds]) && bounds[name as keyof typeof bounds] > 0, name).toBe(true);
      expect(SOURCE, name).toMatch(new RegExp(`\\*/\\nexport const ${name} = `));
    }
  });

  it('holds the defaults of the configuration', () => {
    const config = configSchema.parse({});
    expect(config.ingest).toMatchObject({ batchMax: bounds.INGEST_BATCH_MAX, batchesInFlightMax: bounds.INGEST_BATCHES_IN_FLIGHT_MAX, lineBytesMax: bounds.INGEST_LINE_BYTES_MAX, applySliceMs: bounds.APPLY_SLICE_MS });
    expect(config.http.queryBytesMax).toBe(bounds.HTTP_QUERY_BYTES_MAX);
    expect(config.solanaWsBackfillMaxPages).toBe(bounds.SOLANA_WS_BACKFILL_MAX_PAGES);
    expect(config.ws).toMatchObject({
      frameBytesMax: bounds.WS_FRAME_BYTES_MAX,
      backpressureBytes: bounds.WS_BACKPRESSURE_BYTES,
      backpressureHardBytes: bounds.WS_BACKPRESSURE_HARD_BYTES,
      heldBytesMax: bounds.WS_HELD_BYTES_MAX,
      subscriptionsMax: bounds.WS_SUBSCRIPTIONS_MAX,
    });
    // The figures DECISIONS.md and SERVICE.md state.
    expect([bounds.WS_FRAME_BYTES_MAX, bounds.WS_BACKPRESSURE_BYTES, bounds.WS_HELD_BYTES_MAX]).toEqual([16 * 1024, 1024 * 1024, 64 * 1024]);
    expect([bounds.WAITING_MAX, bounds.TRADE_BLOCK_TRADES_MAX]).toEqual([10_000, 512]);
  });
});
