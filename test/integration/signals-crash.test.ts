import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeSimFile } from '../../engine/sources/sim/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import type { Signal } from '../../engine/model/index.ts';
import { serveEngine } from '../helpers/engine-server.ts';
import { tempDir, testConfig } from '../helpers/fixtures.ts';
import { swapCounter } from '../helpers/swap-counter.ts';
import { tradeCounter } from '../helpers/trade-counter.ts';

const CHILD = fileURLToPath(new URL('../helpers/crash-child.ts', import.meta.url));

/**
 * Signals across SIGKILLs: the crash test's child (test/helpers/crash-child.ts:
 * checkpoints every 20 ms, passivates actors idle 30 ms, so snapshots sit at many
 * different seqs) ingests 10 simulated minutes and is killed part-way, twice; a last run
 * finishes the file. The signals store then holds exactly the signals of a run without
 * a crash: the same ids and objects, each once in every list of routes 17 and 22. The
 * store is fed during start-up replay (what a kill lost is recomputed and written; what
 * it kept is not doubled).
 */

/** Runs the child to the end, or kills it once it acknowledged `killAtAck` lines. */
function runChild(data: string, file: string, killAtAck: number | null): Promise<{ acked: number; done: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, data, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run = { acked: 0, done: false };
    let pending = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const l of lines) {
        if (l.startsWith('ack ')) run.acked = Math.max(run.acked, Number(l.slice(4)));
        if (l === 'done') run.done = true;
        if (killAtAck !== null && run.acked >= killAtAck && child.exitCode === null) child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' || code === 0 ? resolve(run) : reject(new Error(`child exited ${code} ${signal}: ${stderr}`))));
  });
}

const byId = (signals: Iterable<Signal>) => new Map([...signals].map((s) => [s.signal_id, s]));

/** Every signal_id routes 17 and 22 list, page after page. */
async function listed(engine: Engine): Promise<string[]> {
  const http = await serveEngine(engine, { plan: 'pro' });
  const ids: string[] = [];
  try {
    const tokens = new Set([...engine.signals!.all()].map((s) => s.token_address));
    const paths = [...[...tokens].map((t) => `/v1/tokens/signals?token_address=${t}&limit=100`), '/v1/wallets/signals?window=24h&include_bots=true&limit=100'];
    for (const path of paths) {
      let cursor: string | null = null;
      do {
        const res: { status: number; body: any } = await http.get(`${path}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        ids.push(...res.body.data.map((s: Signal) => s.signal_id));
        cursor = res.body.pagination.next_cursor;
      } while (cursor);
    }
  } finally {
    http.close();
  }
  return ids;
}

describe('signals across crashes', () => {
  it('the same signals, each once, after SIGKILLs mid-stream as without a crash', async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'sim.ndjson');
      const { events: lines } = await writeSimFile({ out: file, durationMs: 10 * 60_000, seed: 5 });
      // Without a crash, with the child's actors too.
      const reference = await createEngine({ config: testConfig(join(dir.path, 'reference')), actors: [swapCounter, tradeCounter] });
      let expected: Map<string, Signal>;
      let expectedListed: string[];
      try {
        await reference.runSource(reference.createSource(`ndjson:${file}`));
        expected = byId(reference.signals!.all());
        expectedListed = (await listed(reference)).sort();
      } finally {
        await reference.stop();
      }
      expect(expected.size).toBeGreaterThan(100);

      const data = join(dir.path, 'crashed');
      let kills = 0;
      for (const at of [0.3, 0.6]) {
        const run = await runChild(data, file, 500 * Math.floor((lines * at) / 500));
        if (!run.done) kills++;
      }
      expect(kills).toBe(2);
      expect((await runChild(data, file, null)).done).toBe(true);
      const engine = await createEngine({ config: testConfig(data), actors: [swapCounter, tradeCounter] });
      try {
        const got = byId(engine.signals!.all());
        expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [id, s] of expected) expect(got.get(id), id).toEqual(s);
        const ids = await listed(engine);
        expect(new Set(ids).size, 'each listed once').toBe(ids.length);
        expect(ids.sort()).toEqual(expectedListed);
      } finally {
        await engine.stop();
      }
    } finally {
      dir.cleanup();
    }
  }, 300_000);
});
