import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_PLANS, loadConfig } from '../../../engine/config.ts';
import { tempDir, type TempDir } from '../../helpers/fixtures.ts';

let dir: TempDir | undefined;
afterEach(() => dir?.cleanup());

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig();
    expect(c).toMatchObject({ data: './data', host: '127.0.0.1', port: 8080, source: 'sim', clock: 'wall' });
    expect(c.plans).toEqual(DEFAULT_PLANS);
  });

  it('takes flags over the environment over the file, and keeps plan defaults not named', () => {
    dir = tempDir();
    const file = join(dir.path, 'c.json');
    writeFileSync(file, JSON.stringify({ port: 1, clock: 'event', plans: { pro: { rps: 1_000 } } }));
    const c = loadConfig({ file, env: { MDS_PORT: '2', MDS_DATA: '/x' }, flags: { port: '3' } });
    expect(c.port).toBe(3);
    expect(c.data).toBe('/x');
    expect(c.clock).toBe('event');
    expect(c.plans.pro).toEqual({ ...DEFAULT_PLANS.pro, rps: 1_000 });
    expect(loadConfig({ file, env: { MDS_PORT: '2' } }).port).toBe(2);
  });

  it('derives on event time when the simulator runs faster or slower than wall time, unless a clock is named', () => {
    expect(loadConfig({ env: { MDS_SIM_SPEED: '10' } }).clock).toBe('event');
    expect(loadConfig({ flags: { 'sim.speed': '0.5' } }).clock).toBe('event');
    expect(loadConfig({ env: { MDS_SIM_SPEED: '1' } }).clock).toBe('wall');
    expect(loadConfig({ env: { MDS_SIM_SPEED: '10', MDS_CLOCK: 'wall' } }).clock).toBe('wall');
    // Another source: the simulator's speed does not apply.
    expect(loadConfig({ env: { MDS_SIM_SPEED: '10' }, flags: { source: 'none' } }).clock).toBe('wall');
  });

  it('names the bad value', () => {
    expect(() => loadConfig({ flags: { port: 'x' } })).toThrow(/port/);
    expect(() => loadConfig({ env: { MDS_CLOCK: 'sundial' } })).toThrow(/clock/);
    expect(() => loadConfig({ flags: { source: 'kafka://x' } })).toThrow(/source/);
    dir = tempDir();
    const file = join(dir.path, 'c.json');
    writeFileSync(file, JSON.stringify({ plans: { gold: {} } }));
    expect(() => loadConfig({ file })).toThrow(/plans.*gold/);
    writeFileSync(file, '{not json');
    expect(() => loadConfig({ file })).toThrow(ConfigError);
  });
});
