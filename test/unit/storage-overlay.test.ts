import { describe, expect, it } from 'vitest';
import { WriteOverlay } from '../../storage/index.ts';
import { useTempStorage } from '../helpers/fixtures.ts';

/**
 * storage/overlay.ts on a real LMDB: in the turn of a write (before lmdb-js commits it),
 * reads through the overlay see it, as they see it once committed; a plain read does not.
 * The markers stream reads back marks it has just written or removed (a label removed
 * in the batch of the trade it labeled): without the overlay, what it sent depended on
 * when lmdb committed, and two replays of the same events sent different frames.
 */
const temp = useTempStorage('mds-overlay-');

describe('WriteOverlay', () => {
  it('gets, ranges and lasts see the writes issued in the same turn, and the same after they commit', async () => {
    const db = temp.storage.marks;
    await db.put(['t', 1, 'a'], 'A');
    await db.put(['t', 2, 'b'], 'B');
    const overlay = new WriteOverlay<unknown>(db);
    overlay.put(['t', 3, 'c'], 'C');
    overlay.remove(['t', 1, 'a']);
    // A plain read in this turn still sees the state before the writes.
    expect(db.get(['t', 3, 'c'])).toBeUndefined();
    expect(db.get(['t', 1, 'a'])).toBe('A');
    const check = () => {
      expect(overlay.get(['t', 3, 'c'])).toBe('C');
      expect(overlay.get(['t', 1, 'a'])).toBeUndefined();
      expect(overlay.keys(['t'], ['t', Number.MAX_SAFE_INTEGER])).toEqual([['t', 2, 'b'], ['t', 3, 'c']]);
      expect(overlay.last(['t'], ['t', Number.MAX_SAFE_INTEGER], 1)).toEqual(['C']);
      expect(overlay.last(['t'], ['t', Number.MAX_SAFE_INTEGER], 5)).toEqual(['B', 'C']);
    };
    check();
    // Put back, then written again before the first commit: the latest write stands.
    overlay.put(['t', 1, 'a'], 'A2');
    expect(overlay.get(['t', 1, 'a'])).toBe('A2');
    overlay.remove(['t', 1, 'a']);
    await db.committed;
    await new Promise<void>((resolve) => setImmediate(resolve));
    check();
    expect(db.get(['t', 3, 'c'])).toBe('C');
  });
});
