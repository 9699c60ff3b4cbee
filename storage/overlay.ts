import type { Database, Key } from 'lmdb';

/**
 * Reads that see every write issued, committed or not. lmdb-js puts and removes are
 * asynchronous: until their transaction commits, `get` and range reads return what
 * was there before, so a read-after-write in the same turn (or the same batch of events,
 * or all along a start-up replay) depends on when lmdb committed: on timing, not on the
 * events. This keeps the writes not yet committed in memory (dropped as each one's
 * promise resolves) and lays them over the database's reads, so what a reader sees is
 * the writes issued so far, in order, whatever was committed.
 */
export class WriteOverlay<V> {
  /** By key text: the latest write not yet committed (value undefined: a removal) and its key. */
  private readonly pending = new Map<string, { key: Key[]; value: V | undefined }>();

  constructor(private readonly db: Database<V, Key[]>) {}

  put(key: Key[], value: V): void {
    this.track(key, value, this.db.put(key, value));
  }

  remove(key: Key[]): void {
    this.track(key, undefined, this.db.remove(key));
  }

  get(key: Key[]): V | undefined {
    const entry = this.pending.get(JSON.stringify(key));
    return entry ? entry.value : this.db.get(key);
  }

  /** The keys from `start` (inclusive) to `end` (exclusive), ascending, as the writes issued left them. */
  keys(start: Key[], end: Key[]): Key[][] {
    const out = new Map<string, Key[]>();
    for (const key of this.db.getKeys({ start, end })) out.set(JSON.stringify(key), key as Key[]);
    for (const [text, entry] of this.pending) {
      if (!within(entry.key, start, end)) continue;
      if (entry.value === undefined) out.delete(text);
      else out.set(text, entry.key);
    }
    return [...out.values()].sort(compareKeys);
  }

  /** The values of the last `limit` keys from `start` (inclusive) to `end` (exclusive), in key order. */
  last(start: Key[], end: Key[], limit: number): V[] {
    const out = new Map<string, { key: Key[]; value: V }>();
    // Enough committed keys that those the pending removals take out still leave `limit`.
    for (const { key, value } of this.db.getRange({ start: end, end: start, reverse: true, limit: limit + this.pending.size })) {
      if (compareKeys(key as Key[], start) < 0) continue;
      out.set(JSON.stringify(key), { key: key as Key[], value: value as V });
    }
    for (const [text, entry] of this.pending) {
      if (!within(entry.key, start, end)) continue;
      if (entry.value === undefined) out.delete(text);
      else out.set(text, { key: entry.key, value: entry.value });
    }
    return [...out.values()].sort((a, b) => compareKeys(a.key, b.key)).slice(-limit).map((e) => e.value);
  }

  private track(key: Key[], value: V | undefined, write: Promise<boolean>): void {
    const text = JSON.stringify(key);
    const entry = { key, value };
    this.pending.set(text, entry);
    void write.then(() => {
      if (this.pending.get(text) === entry) this.pending.delete(text);
    });
  }
}

/** Keys of numbers and strings in ordered-binary order (numbers before strings). */
function compareKeys(a: Key[], b: Key[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

const within = (key: Key[], start: Key[], end: Key[]): boolean => compareKeys(key, start) >= 0 && compareKeys(key, end) < 0;
