import type { Storage } from '../storage/lmdb.ts';

/** lmdb-js's getStats() of one database (its typings say `{}`). */
interface DbStats {
  pageSize?: number;
  treeBranchPageCount?: number;
  treeLeafPageCount?: number;
  overflowPages?: number;
}

/**
 * Keyed by each database's LMDB name, which lmdb-js's openDB sets as `name` on the
 * handle (null on the root database, `env`). Storage may open one database twice
 * (tradeBlocks is `trades` read as bytes; snapshotWrites and ingestLogWrites write
 * `snapshots` and `ingest_log`): each name is counted once. Databases that
 * other modules open on the environment (`research`, `creators`) are found by their
 * names, the keys of the root database, and counted too.
 */
export function bytesByDatabase(storage: Storage): Record<string, number> {
  const out: Record<string, number> = {};
  const counted = new Set<string>();
  const handles: unknown[] = Object.values(storage);
  for (const name of storage.env.getKeys()) {
    if (typeof name === 'string') handles.push(storage.env.openDB({ name, encoding: 'binary', create: false } as never));
  }
  for (const db of handles) {
    const handle = db as { name?: unknown; getStats?: unknown } | null;
    if (!handle || typeof handle !== 'object' || typeof handle.name !== 'string' || typeof handle.getStats !== 'function') continue;
    if (counted.has(handle.name)) continue;
    counted.add(handle.name);
    const s = (handle as { getStats(): DbStats }).getStats();
    const pages = (s.treeBranchPageCount ?? 0) + (s.treeLeafPageCount ?? 0) + (s.overflowPages ?? 0);
    if (pages) out[handle.name] = pages * (s.pageSize ?? 4096);
  }
  return out;
}
