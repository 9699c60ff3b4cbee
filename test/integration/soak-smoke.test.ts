import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * bench/soak.ts at a smoke size, so it cannot rot: `mds serve` with its simulator,
 * every route and stream asked, a SIGKILL and a restart, and nothing of what must
 * never happen (a 5xx, a trade twice in a walk, a trade_count going back, ...).
 */
describe('soak (smoke)', () => {
  it('serves every route and stream through a SIGKILL and a restart with no problem', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../bench/soak.ts'), '--duration', '6s', '--clients', '2'], { encoding: 'utf8', timeout: 90_000 });
    expect(run.stdout, run.stderr).toMatch(/SIGKILL, restart: \d+ pools' trade_count checked, 0 went back/);
    expect(run.stdout).toMatch(/ 0 problem\(s\)/);
    expect(run.status, run.stdout).toBe(0);
    // It asked for something: requests and frames, on pools it found. How many it got
    // through in its 6 s is a speed, which the machine's load moves (79 on a loaded
    // machine): not asserted here (bench/ measures speed).
    const [, requests, frames, pools] = run.stdout.match(/([\d,]+) requests, ([\d,]+) frames, (\d+) pools/)!;
    expect(Number(requests!.replaceAll(',', ''))).toBeGreaterThan(0);
    expect(Number(frames!.replaceAll(',', ''))).toBeGreaterThan(0);
    expect(Number(pools)).toBeGreaterThan(0);
  }, 120_000);
});
