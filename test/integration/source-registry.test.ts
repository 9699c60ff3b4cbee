import { describe, expect, it } from 'vitest';
import type { Source } from '../../engine/sources/index.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { tempDir } from '../helpers/fixtures.ts';

/**
 * `--source` names are per engine (EngineOptions.sources, engine/sources/index.ts): a
 * factory one engine was given is not known to another in the same process, as it was
 * when registerSource kept a module-global list.
 */

const temp = useTempEngine();

const named = (name: string): Source => ({ name, finite: true, run: async () => {} });

describe('the source registry', () => {
  it("knows an engine's own names, tried in order after the built-in ones, and not another engine's", async () => {
    const seen: string[] = [];
    const first = await temp.open({}, {
      sources: [
        (spec) => (seen.push(`a:${spec}`), spec === 'mine' ? named('mine') : null),
        (spec) => (seen.push(`b:${spec}`), spec.startsWith('mine') ? named('mine too') : null),
      ],
    });
    expect(first.createSource('mine')!.name).toBe('mine');
    expect(first.createSource('mine:2')!.name).toBe('mine too');
    expect(seen).toEqual(['a:mine', 'a:mine:2', 'b:mine:2']);
    // Built-in names never reach the engine's factories.
    expect(first.createSource('ndjson:/dev/null')!.name).toBe('ndjson:/dev/null');
    expect(first.createSource('none')).toBeNull();
    expect(seen).toHaveLength(3);

    const other = tempDir();
    try {
      const second = await temp.open({ data: other.path });
      expect(() => second.createSource('mine')).toThrow('unknown source: mine');
      // One registered later, on that engine only.
      second.sources.register((spec) => (spec === 'late' ? named('late') : null));
      expect(second.createSource('late')!.name).toBe('late');
      expect(() => first.createSource('late')).toThrow('unknown source: late');
      await second.stop();
    } finally {
      other.cleanup();
    }
  });

  it("runs the source it made: /health's source name and source_done", async () => {
    const engine = await temp.open({}, { sources: [(spec) => (spec === 'once' ? named('once') : null)] });
    expect(engine.query.status()).toMatchObject({ source: 'none', sourceDone: null });
    await engine.runSource(engine.createSource('once'));
    expect(engine.query.status()).toMatchObject({ source: 'once', sourceDone: true });
  });
});
