import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { simSource, writeSimFile } from '../../engine/sources/sim/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { tempDir, testConfig, type TempDir } from '../helpers/fixtures.ts';

const MDS = fileURLToPath(new URL('../../bin/mds.js', import.meta.url));
let dir: TempDir;
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  dir.cleanup();
});

describe('simulator through the engine', () => {
  it('ingests ten simulated minutes from a file with no dead letters and every event applied once', async () => {
    dir = tempDir();
    const file = join(dir.path, 'sim.ndjson');
    const { events } = await writeSimFile({ out: file, durationMs: 10 * 60_000, seed: 7 });
    engine = await createEngine({ config: testConfig(join(dir.path, 'data')) });
    await engine.runSource(engine.createSource(`ndjson:${file}`));
    expect(engine.query.status()).toMatchObject({ ingested: events, deadLetters: 0, sourceDone: true });
    expect(engine.query.solPrice()?.price_usd).toBeGreaterThan(0);
  });

  it('feeds the engine live through the embedded sink with no dead letters', async () => {
    dir = tempDir();
    engine = await createEngine({ config: testConfig(join(dir.path, 'data')) });
    const abort = new AbortController();
    const run = simSource({ seed: 3, startAt: 1_767_225_600_000, speed: 600 }).run(engine.gate, abort.signal);
    await new Promise((resolve) => setTimeout(resolve, 400));
    abort.abort();
    await run;
    await engine.gate.flush();
    const status = engine.query.status();
    expect(status.ingested).toBeGreaterThan(100);
    expect(status.deadLetters).toBe(0);
  });

  it('mds sim writes the same bytes for the same seed and exits 2 on a bad duration', () => {
    dir = tempDir();
    const outs = ['a', 'b'].map((name) => join(dir.path, `${name}.ndjson`));
    for (const out of outs) {
      const r = spawnSync(process.execPath, [MDS, 'sim', '--out', out, '--duration', '2m', '--seed', '9'], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/wrote \d+ events/);
    }
    expect(readFileSync(outs[0]!).equals(readFileSync(outs[1]!))).toBe(true);
    const bad = spawnSync(process.execPath, [MDS, 'sim', '--out', outs[0]!, '--duration', 'soon'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--duration');
  });
});
