import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { simSource, writeSimFile } from '../../engine/sources/sim/index.ts';
import { useTempEngine } from '../helpers/engine-server.ts';

const MDS = fileURLToPath(new URL('../../bin/mds.js', import.meta.url));
const temp = useTempEngine();

describe('simulator through the engine', () => {
  it('ingests ten simulated minutes from a file with no dead letters and every event applied once', async () => {
    const file = join(temp.dir.path, 'sim.ndjson');
    const { events } = await writeSimFile({ out: file, durationMs: 10 * 60_000, seed: 7 });
    const engine = await temp.open({ data: join(temp.dir.path, 'data') });
    await engine.runSource(engine.createSource(`ndjson:${file}`));
    expect(engine.query.status()).toMatchObject({ ingested: events, deadLetters: 0, sourceDone: true });
    expect(engine.query.solPrice()?.price_usd).toBeGreaterThan(0);
  });

  it('feeds the engine live through the embedded sink with no dead letters', async () => {
    const engine = await temp.open({ data: join(temp.dir.path, 'data') });
    const abort = new AbortController();
    // Stopped once more than 100 events are applied (the wait is bounded by the test's timeout).
    const applied = new Promise<void>((resolve) => {
      let count = 0;
      const off = engine.onApplied((events) => {
        count += events.length;
        if (count > 100) {
          off();
          resolve();
        }
      });
    });
    const run = simSource({ seed: 3, startAt: 1_767_225_600_000, speed: 600 }).run(engine.gate, abort.signal);
    await applied;
    abort.abort();
    await run;
    await engine.gate.flush();
    const status = engine.query.status();
    expect(status.ingested).toBeGreaterThan(100);
    expect(status.deadLetters).toBe(0);
  });

  it('mds sim writes the same bytes for the same seed and exits 2 on a bad duration', () => {
    const outs = ['a', 'b'].map((name) => join(temp.dir.path, `${name}.ndjson`));
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
