import { describe, expect, it } from 'vitest';
import { IdentityIndex } from '../../engine/ingest/identities.ts';
import { useTempStorage } from '../helpers/fixtures.ts';

const temp = useTempStorage();

/** Adds one identity in each of `count` new buckets, as batch `batchSeq`, and queues their write. */
function addBuckets(index: IdentityIndex, from: number, count: number, batchSeq: number): void {
  for (let b = from; b < from + count; b++) {
    expect(index.has(`p${b}`, '')).toBe(false);
    index.add(`p${b}`, '', batchSeq);
    // A copy of the event in the same batch is a duplicate, past the cap too.
    expect(index.has(`p${b}`, '')).toBe(true);
  }
  index.writeStaged(batchSeq);
}

describe('identity index eviction', () => {
  it('keeps every bucket while none is durable, with one pass per durable step, and evicts down to 7/8 of the cap once they are', async () => {
    const index = new IdentityIndex(temp.storage, 8);
    addBuckets(index, 0, 40, 1);
    // Nothing durable: every bucket stays (a dedup must not forget what is not on disk),
    // and the map is not rescanned for each new bucket.
    expect(index.evictionPasses).toBe(1);
    for (let b = 0; b < 40; b++) expect(index.has(`p${b}`, '')).toBe(true);
    expect(index.evictionPasses).toBe(1);

    await temp.storage.identities.flushed;
    index.markDurable(1);
    addBuckets(index, 40, 1, 2);
    expect(index.evictionPasses).toBe(2);
    // Down to 7 (7/8 of 8): the oldest went, the new one (not yet written) stayed.
    expect(index.has('p40', '')).toBe(true);
    expect(index.has('p39', '')).toBe(true);
    // A bucket evicted is read back from LMDB: its identity is still known.
    expect(index.has('p0', '')).toBe(true);
    expect(index.has('p0', 'other')).toBe(false);
  });
});
