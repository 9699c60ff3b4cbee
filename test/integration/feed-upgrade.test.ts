import { describe, expect, it } from 'vitest';
import { splitFeedSnapshots, type SnapshotStore } from '../../actors/feed/feed.upgrade.ts';
import { useTempStorage } from '../helpers/fixtures.ts';

/**
 * splitFeedSnapshots at start-up on a real snapshots database: it splits what the old
 * layout wrote, and a start with nothing to split opens no write transaction (every
 * start of an engine runs it).
 */
describe('feed snapshots of the old layout', () => {
  const temp = useTempStorage('mds-feed-upgrade-');

  /** The snapshots database, counting the write transactions asked of it. */
  function counted(): { store: SnapshotStore; writes: () => number } {
    const db = temp.storage.snapshots as unknown as SnapshotStore;
    let writes = 0;
    const store: SnapshotStore = {
      get: (id) => db.get(id),
      putSync: (id, value) => db.putSync(id, value),
      removeSync: (id) => db.removeSync(id),
      transactionSync: (action) => {
        writes++;
        return db.transactionSync(action);
      },
    };
    return { store, writes: () => writes };
  }

  it('opens no write transaction when there is nothing to split, one when there is', () => {
    const { store, writes } = counted();
    expect(splitFeedSnapshots(store)).toBe(0);
    expect(writes()).toBe(0);
    const book = { pools: [], published: [], members: [], seq: 3 };
    store.putSync('feed:stocks', { seq: 17, state: { run: 1, state: { feed: 'stocks', books: { '5m': book, '1h': book, '6h': book, '24h': book }, traded: [], stockTokens: ['Tok'] } } });
    expect(splitFeedSnapshots(store)).toBe(1);
    expect(writes()).toBe(1);
    expect(store.get('feed:stocks')).toBeUndefined();
    expect(store.get('feed:stock-tags')).toEqual({ seq: 17, state: { run: 1, state: { role: 'stock-tags', stockTokens: ['Tok'] } } });
    expect((store.get('feed:stocks:1h') as { seq: number }).seq).toBe(17);
    // Split already: reads only.
    expect(splitFeedSnapshots(store)).toBe(0);
    expect(writes()).toBe(1);
  });
});
