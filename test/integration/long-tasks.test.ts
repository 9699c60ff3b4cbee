import { Writable } from 'node:stream';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/system.ts';
import { swapStream, tempDir, testConfig } from '../helpers/fixtures.ts';

/** The long-task logger (config debug.longTaskMs, engine/long-tasks.ts): off by default, and by name when on. */

async function run(longTaskMs: number | undefined): Promise<Array<{ task: string; ms: number; msg: string }>> {
  const dir = tempDir();
  const lines: Array<{ task: string; ms: number; msg: string }> = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.includes('"long task"')) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = testConfig(join(dir.path, 'data'), longTaskMs === undefined ? {} : { debug: { longTaskMs } });
  const engine = await createEngine({ config, log: pino({ level: 'warn' }, out) });
  try {
    await Promise.all([...swapStream(200, 20, 3, true)].map((e) => engine.ingest(e)));
    await engine.checkpoint({ sliceMs: 5 });
  } finally {
    await engine.stop();
    dir.cleanup();
  }
  return lines;
}

describe('the long-task logger', () => {
  it('logs nothing by default', async () => {
    expect(await run(undefined)).toEqual([]);
  });

  it('with a threshold every task passes, logs the apply, its events, each host\'s delivery, the checkpoint and its snapshots by name', async () => {
    const tasks = new Set((await run(0.000_001)).map((l) => l.task));
    for (const task of ['apply', 'event:swap', 'event:pool', 'actor:pool', 'actor:wallet', 'checkpoint', 'snapshot:pool']) expect([...tasks], task).toContain(task);
  });
});
