import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempStorage } from '../helpers/fixtures.ts';

/**
 * The data file is mapped once, however much it grows (issue 25, found by
 * bench/serve-memory.ts): lmdb-js starts an environment's map at 128 KiB and doubles it
 * as the file grows, and keeps every earlier map until the environment closes (its
 * patched mdb_env_set_mapsize leaves them for readers of other threads). Every page
 * read through an old map stays counted in RssFile, so a growing data directory was
 * counted about twice: RssFile 534 MiB over a 255 MiB data directory after 30 minutes of
 * `mds serve`. The map is reserved large at open (address space only: the file grows as
 * pages are written, without MDB_WRITEMAP nothing is preallocated).
 */

const temp = useTempStorage('mds-lmdb-map-');

/** The mappings of this process of the given file (/proc/self/maps). */
function mappingsOf(file: string): string[] {
  return readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .filter((line) => line.endsWith(` ${file}`));
}

describe('the LMDB map', () => {
  it('stays one mapping of the data file while the file grows to 48 MiB', async () => {
    const file = join(temp.dir.path, 'data.mdb');
    const value = Buffer.alloc(1 << 20, 7);
    for (let i = 0; i < 48; i++) await temp.storage.meta.put(`map-test:${i}`, value);
    // Read every value back through the map, as routes and activations do.
    let bytes = 0;
    for (let i = 0; i < 48; i++) bytes += (temp.storage.meta.get(`map-test:${i}`) as Buffer).length;
    expect(bytes).toBe(48 << 20);
    expect(mappingsOf(file)).toHaveLength(1);
    // The reserved map is not the file's size: nothing preallocated.
    expect(statSync(file).size).toBeLessThan(64 << 20);
  });
});
