import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groups, readSnapshot } from '../../../bench/heap-diff.ts';
import { tempDir } from '../../helpers/fixtures.ts';

describe('bench/heap-diff readSnapshot', () => {
  it('reads a V8 heap snapshot from its bytes as JSON.parse reads it: meta, every node, every string', () => {
    const dir = tempDir('heap-diff');
    try {
      const file = join(dir.path, 'small.heapsnapshot');
      // A small process's heap, with strings that need JSON escapes.
      execFileSync(process.execPath, ['-e', `globalThis.kept = ['quote " and \\\\ backslash', 'line\\nbreak', 'é ünïcode']; require('v8').writeHeapSnapshot(${JSON.stringify(file)})`]);
      const parsed = JSON.parse(readFileSync(file, 'utf8'));
      const read = readSnapshot(file);
      expect(read.snapshot).toEqual(parsed.snapshot);
      expect(read.nodes.length).toBe(parsed.nodes.length);
      expect(Array.from(read.nodes)).toEqual(parsed.nodes);
      expect(read.strings).toEqual(parsed.strings);
      expect(read.strings).toContain('quote " and \\ backslash');
      const g = groups(file);
      expect([...g.values()].reduce((a, x) => a + x.count, 0)).toBe(parsed.nodes.length / parsed.snapshot.meta.node_fields.length);
    } finally {
      dir.cleanup();
    }
  });
});
