import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../../storage/lmdb.ts';

let dir: string;

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('openStorage', () => {
  it.each([
    ['an existing empty directory whose name has a dot', true],
    ['a new directory whose name has a dot', false],
  ])('keeps its files inside %s', async (_, create) => {
    dir = mkdtempSync(join(tmpdir(), 'mds-open-'));
    const path = join(dir, 'mds.data');
    if (create) mkdirSync(path);
    const storage = openStorage(path);
    await storage.meta.put('probe', 1);
    await storage.close();
    expect(statSync(path).isDirectory()).toBe(true);
    expect(existsSync(join(path, 'data.mdb'))).toBe(true);
    const again = openStorage(path);
    expect(again.meta.get('probe')).toBe(1);
    await again.close();
  });
});
