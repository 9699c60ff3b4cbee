import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../../storage/lmdb.ts';

let dir: string;

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A snapshot as the host writes one (Snapshot of PersistedActor), small enough to be stored uncompressed. */
const snapshot = (seq: number, n: number) => ({
  seq,
  state: { state: { pool_address: `pool${n}`, totals: { trade_count: n, volume_quote: n * 1.5 }, windows: [{ head: n, rows: [n, n + 1] }] }, run: 'r1', epoch: 0 },
});

/** The stored bytes of one snapshot (a handle reading binary). */
function storedBytes(path: string, key: string): Buffer {
  const env = open({ path, readOnly: true, maxDbs: 32, noSubdir: false });
  try {
    return Buffer.from(env.openDB({ name: 'snapshots', encoding: 'binary' }).get(key) as Uint8Array);
  } finally {
    void env.close();
  }
}

describe('actor snapshots share their msgpack record structures', () => {
  it('stores a record shape once for the database, not in every snapshot, and reads back what it wrote and what was written without shared structures', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-structures-'));
    // A snapshot as an mds before shared structures wrote it: msgpack records defined inline.
    const plain = open({ path: dir, maxDbs: 32, noSubdir: false });
    await plain.openDB<unknown, string>({ name: 'snapshots', encoding: 'msgpack' }).put('pool:old', snapshot(1, 1));
    await plain.close();
    expect(storedBytes(dir, 'pool:old').includes('trade_count'), 'a record defined inline names its fields').toBe(true);

    let storage = openStorage(dir);
    expect(storage.snapshots.get('pool:old')).toEqual(snapshot(1, 1));
    for (let n = 2; n <= 5; n++) await storage.snapshotWrites.put(`pool:${n}`, snapshot(n, n));
    expect(storage.snapshots.get('pool:5')).toEqual(snapshot(5, 5));
    await storage.close();
    // Its fields' names are in the shared structures, not in the snapshot.
    for (const name of ['pool_address', 'trade_count', 'epoch']) expect(storedBytes(dir, 'pool:5').includes(name), name).toBe(false);
    expect(storedBytes(dir, 'pool:5').length).toBeLessThan(storedBytes(dir, 'pool:old').length);

    // Another process reads both kinds, and the key ranges the engine walks hold snapshots only.
    storage = openStorage(dir);
    expect(storage.snapshots.get('pool:old')).toEqual(snapshot(1, 1));
    for (let n = 2; n <= 5; n++) expect(storage.snapshots.get(`pool:${n}`)).toEqual(snapshot(n, n));
    expect([...storage.snapshots.getKeys({ start: 'pool:', end: 'pool;' })]).toEqual(['pool:2', 'pool:3', 'pool:4', 'pool:5', 'pool:old']);
    await storage.close();
  });

  it('keeps the shared structures readable by both handles whichever one encodes a new record shape (the reading one compresses with a dictionary)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-structures-'));
    const storage = openStorage(dir);
    await storage.snapshotWrites.put('pool:1', snapshot(1, 1));
    // New shapes through the reading handle (as the legacy feed snapshots' split at start-up
    // writes), enough of them that the structures entry passes the compression threshold.
    const shapes = Array.from({ length: 24 }, (_, k) => ({ [`position_field_${k}_a`]: k, [`position_field_${k}_b`]: [k], [`position_field_${k}_c`]: `x${k}` }));
    const wallet = { seq: 1, state: { wallet_address: 'w', positions_packed: [1, 2, 3], shapes } };
    await storage.snapshots.put('wallet:1', wallet);
    // Then another through the writing handle, which reads the structures the other saved.
    const token = { seq: 2, state: { token_address: 't', holders_count: 7 } };
    await storage.snapshotWrites.put('token:1', token);
    expect(storage.snapshotWrites.get('wallet:1')).toEqual(wallet);
    expect(storage.snapshots.get('token:1')).toEqual(token);
    await storage.close();
    const again = openStorage(dir);
    expect(again.snapshots.get('pool:1')).toEqual(snapshot(1, 1));
    expect(again.snapshots.get('wallet:1')).toEqual(wallet);
    expect(again.snapshots.get('token:1')).toEqual(token);
    await again.snapshotWrites.put('token:2', { seq: 3, state: { token_address: 'u', supply: 1 } });
    expect(again.snapshots.get('token:2')).toEqual({ seq: 3, state: { token_address: 'u', supply: 1 } });
    await again.close();
  });
});

describe('putSnapshot: compressed on the calling thread, stored as lmdb-js stores its own', () => {
  it('writes what the database`s handles read back, a large value as lmdb-js`s LZ4 header and block, a small one as its msgpack, new record shapes included, and another process reads them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-put-snapshot-'));
    const storage = openStorage(dir);
    // Over the threshold (a pool's windows of hundreds of numbers), under it, and one of a new record shape.
    const large = { seq: 7, state: { state: { pool_address: 'big', rows: Array.from({ length: 400 }, (_, i) => i * 1.25) }, run: 'r1', epoch: 0 } };
    const small = snapshot(8, 8);
    const shaped = { seq: 9, state: { state: { token_address: 't', never_seen_field: [1, 2] }, run: 'r1', epoch: 0 } };
    await storage.putSnapshot('pool:big', large);
    await storage.putSnapshot('pool:small', small);
    await storage.putSnapshot('token:t', shaped);
    for (const handle of [storage.snapshots, storage.snapshotWrites]) {
      expect(handle.get('pool:big')).toEqual(large);
      expect(handle.get('pool:small')).toEqual(small);
      expect(handle.get('token:t')).toEqual(shaped);
    }
    // The same as the writing handle stores a small value; the LZ4 header on a large one,
    // its length the msgpack's, more than what is stored.
    await storage.snapshotWrites.put('pool:small-too', small);
    await storage.close();
    expect(storedBytes(dir, 'pool:small')).toEqual(storedBytes(dir, 'pool:small-too'));
    const stored = storedBytes(dir, 'pool:big');
    expect(stored[0]).toBe(254);
    const length = (stored[1]! << 16) | (stored[2]! << 8) | stored[3]!;
    expect(length).toBeGreaterThan(stored.length);
    const again = openStorage(dir);
    expect((again.snapshots.get('pool:big') as typeof large).state.state.rows).toEqual(large.state.state.rows);
    expect(again.snapshots.get('token:t')).toEqual(shaped);
    await again.close();
  });
});
