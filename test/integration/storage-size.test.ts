import { open } from 'lmdb';
import { pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD_BYTES } from '../../engine/bounds.ts';
import { identityOf, type IngestEvent } from '../../engine/ingest/events.ts';
import { readLog } from '../../engine/ingest/gate.ts';
import { openStorage } from '../../storage/lmdb.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { KEEP_LOG, swapStream } from '../helpers/fixtures.ts';

/**
 * Disk per swap (issue 25): the ingest log and the actors' snapshots are stored
 * LZ4-compressed (lmdb-js `compression`), read back as they were written, and a data
 * directory written before (uncompressed values) still reads.
 */

const QUIET = { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 };
const LZ4_MARK = 254;

const temp = useTempEngine();

/** Every value of a database as stored (a second handle reading bytes, no decompression). */
function storedValues(path: string, name: string, range: { start?: string; end?: string } = {}): Buffer[] {
  const env = open({ path, readOnly: true, maxDbs: 32, noSubdir: false });
  try {
    const db = env.openDB({ name, encoding: 'binary' });
    return [...db.getRange(range)].map(({ value }) => Buffer.from(value as Uint8Array));
  } finally {
    void env.close();
  }
}

/** The log's events in seq order, read back, and every pool as `before` after the engine opens the directory again. */
async function expectReadBack(events: unknown[], pools: string[], before: string[]): Promise<void> {
  const storage = openStorage(temp.dir.path);
  try {
    expect([...readLog(storage, 1)].map((x) => identityOf(x.event))).toEqual(events.map((ev) => identityOf(ev as IngestEvent)));
  } finally {
    await storage.close();
  }
  const e = await temp.open({ actors: QUIET, ingest: KEEP_LOG });
  expect(pools.map((pool) => JSON.stringify(e.query.market!.pools.pool(pool)))).toEqual(before);
}

/** Every log batch (as bytes) and snapshot (decoded) of a stopped engine's directory. */
async function storedEntries(): Promise<{ log: Array<readonly [number, Buffer]>; snaps: Array<readonly [string, unknown]> }> {
  const storage = openStorage(temp.dir.path);
  const log = [...storage.ingestLog.getRange({})].map(({ key, value }) => [key, Buffer.from(value)] as const);
  const snaps = [...storage.snapshots.getRange({})].map(({ key, value }) => [key, value] as const);
  await storage.close();
  return { log, snaps };
}

describe('compressed ingest log and snapshots', () => {
  it('stores log batches and large snapshots compressed, about half the bytes, and a restart reads them back', async () => {
    const events = [...swapStream(4_000, 40, 31, true)];
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    const e = await temp.open({ actors: QUIET, ingest: KEEP_LOG });
    for (let i = 0; i < events.length; i += 500) await Promise.all(events.slice(i, i + 500).map((ev) => e.ingest(ev)));
    await e.checkpoint();
    const before = pools.map((pool) => JSON.stringify(e.query.market!.pools.pool(pool)));
    const decoded = [...e.storage.snapshots.getRange({ start: 'pool:', end: 'pool;' })].map(({ value }) => pack(value).length);
    await e.stop();

    const log = storedValues(temp.dir.path, 'ingest_log');
    expect(log.length).toBeGreaterThan(0);
    for (const value of log) if (value.length >= COMPRESSION_THRESHOLD_BYTES) expect(value[0], 'a log batch is stored LZ4-compressed').toBe(LZ4_MARK);
    const logBytes = log.reduce((n, v) => n + v.length, 0);
    const ndjsonBytes = events.reduce((n, ev) => n + Buffer.byteLength(JSON.stringify(ev)) + 1, 0);
    expect(logBytes, 'log bytes against the NDJSON they hold').toBeLessThan(0.7 * ndjsonBytes);

    for (const value of storedValues(temp.dir.path, 'snapshots')) {
      if (value.length >= COMPRESSION_THRESHOLD_BYTES) expect(value[0], 'a snapshot over the threshold is stored LZ4-compressed').toBe(LZ4_MARK);
    }
    const poolStored = storedValues(temp.dir.path, 'snapshots', { start: 'pool:', end: 'pool;' });
    expect(poolStored.length).toBe(pools.length);
    const storedTotal = poolStored.reduce((n, v) => n + v.length, 0);
    // 0.69 while pool snapshots held their closed 1s and 15s candles (rows of doubles that
    // compress well); 0.75 since those are folded from the trades (issue 25), with 0.75x
    // the stored bytes (500,137 against 664,569 at 6dc95a3).
    expect(storedTotal, 'stored pool snapshot bytes against their msgpack').toBeLessThan(0.8 * decoded.reduce((n, b) => n + b, 0));

    // Read back: the log in seq order, the pools from their snapshots.
    await expectReadBack(events, pools, before);
  });

  it('reads a data directory whose log and snapshots were written uncompressed', async () => {
    const events = [...swapStream(400, 4, 37, true)];
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    let e = await temp.open({ actors: QUIET, ingest: KEEP_LOG });
    await Promise.all(events.map((ev) => e.ingest(ev)));
    const before = pools.map((pool) => JSON.stringify(e.query.market!.pools.pool(pool)));
    await e.stop();
    // The same values as an mds without compression wrote them: decompressed, put back plain.
    const { log, snaps } = await storedEntries();
    const env = open({ path: temp.dir.path, maxDbs: 32, noSubdir: false });
    const plainLog = env.openDB<Buffer, number>({ name: 'ingest_log', encoding: 'binary' });
    const plainSnaps = env.openDB<unknown, string>({ name: 'snapshots', encoding: 'msgpack' });
    for (const [key, value] of log) plainLog.put(key, value);
    for (const [key, value] of snaps) plainSnaps.put(key, value);
    await plainSnaps.committed;
    await env.close();
    expect(storedValues(temp.dir.path, 'ingest_log').every((v) => v[0] !== LZ4_MARK)).toBe(true);

    e = await temp.open({ actors: QUIET, ingest: KEEP_LOG });
    expect(pools.map((pool) => JSON.stringify(e.query.market!.pools.pool(pool)))).toEqual(before);
    expect(e.query.status().ingested).toBe(events.length);
  });

  it('writes LZ4 without a dictionary, and reads what was compressed with lmdb-js`s default one', async () => {
    const events = [...swapStream(1_000, 8, 41, true)];
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    const e = await temp.open({ actors: QUIET, ingest: KEEP_LOG });
    for (let i = 0; i < events.length; i += 250) await Promise.all(events.slice(i, i + 250).map((ev) => e.ingest(ev)));
    await e.checkpoint();
    const before = pools.map((pool) => JSON.stringify(e.query.market!.pools.pool(pool)));
    await e.stop();
    const { log, snaps } = await storedEntries();
    // As mds wrote them: compressed, and without the dictionary, so no smaller than
    // lmdb-js compresses them with it (a second environment, the default dictionary).
    const asWritten = storedValues(temp.dir.path, 'snapshots');
    expect(asWritten.some((v) => v[0] === LZ4_MARK)).toBe(true);
    const env = open({ path: temp.dir.path, maxDbs: 32, noSubdir: false });
    const dictLog = env.openDB<Buffer, number>({ name: 'ingest_log', encoding: 'binary', compression: { threshold: COMPRESSION_THRESHOLD_BYTES } } as never);
    const dictSnaps = env.openDB<unknown, string>({ name: 'snapshots', encoding: 'msgpack', compression: { threshold: COMPRESSION_THRESHOLD_BYTES } } as never);
    for (const [key, value] of log) dictLog.put(key, value);
    for (const [key, value] of snaps) dictSnaps.put(key, value);
    await dictSnaps.committed;
    await env.close();
    const withDictionary = storedValues(temp.dir.path, 'snapshots');
    // Compressed with the dictionary some differ (its matches), at about the same size.
    expect(withDictionary.length).toBe(asWritten.length);
    expect(withDictionary.some((v, i) => v[0] === LZ4_MARK && !v.equals(asWritten[i]!))).toBe(true);
    const size = (vs: Buffer[]) => vs.reduce((n, v) => n + v.length, 0);
    expect(size(asWritten)).toBeLessThan(1.1 * size(withDictionary));

    // An mds reads them: the log's events and every pool as before.
    await expectReadBack(events, pools, before);
  });
});
