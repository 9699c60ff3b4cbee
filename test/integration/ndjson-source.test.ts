import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { firstValueFrom, timeout } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { readLog } from '../../engine/ingest/gate.ts';
import { ndjsonSource } from '../../engine/sources/ndjson.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { POOL, WSOL, sampleEvents } from '../helpers/fixtures.ts';
import { TestClient } from '../helpers/ws.ts';
import { within } from '../helpers/within.ts';

const MDS = fileURLToPath(new URL('../../bin/mds.js', import.meta.url));
const temp = useTempEngine();

const price = (at: number) => JSON.stringify({ type: 'quote_price', quote_address: WSOL, price_usd: 100 + at, at });

/** Lines of every kind, with the 1-based line numbers of the ones that must be dead letters. */
function input(): { bytes: Buffer; good: number[]; bad: Array<[number, RegExp]> } {
  const lines: Buffer[] = [
    Buffer.from(price(1)), // 1
    Buffer.from(''), // 2 blank
    Buffer.from('{"broken":'), // 3
    Buffer.from('x'.repeat(1100)), // 4 over 1024
    Buffer.from(price(5) + '\r'), // 5 CRLF
    Buffer.concat([Buffer.from('{"type":"label","x":"'), Buffer.from([0xe2, 0x28, 0xa1]), Buffer.from('"}')]), // 6
    Buffer.from(JSON.stringify({ type: 'unknown_kind' })), // 7 ignored
    Buffer.from(price(8)), // 8
    Buffer.from(JSON.stringify({ ...sampleEvents().swap, side: 'hold' })), // 9
    Buffer.from('y'.repeat(3000)), // 10 over 1024
    Buffer.from(price(11)), // 11, no trailing newline
  ];
  return {
    bytes: Buffer.concat(lines.flatMap((l, i) => (i < lines.length - 1 ? [l, Buffer.from('\n')] : [l]))),
    good: [1, 5, 8, 11],
    bad: [[3, /^json: /], [4, /^line: longer than 1024 bytes$/], [6, /^line: invalid UTF-8$/], [9, /^swap\.side: /], [10, /^line: longer than 1024 bytes$/]],
  };
}

describe('NDJSON source', () => {
  for (const size of [1, 5, 64, 1100, 100_000]) {
    it(`gives the same events and dead letters whatever the chunking (${size}-byte chunks)`, async () => {
      const { bytes, good, bad } = input();
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(Buffer.from(bytes.subarray(i, i + size)));
      const engine = await temp.open();
      await engine.runSource(ndjsonSource({ path: 'test', lineBytesMax: 1024, stream: Readable.from(chunks) }));
      const applied = [...readLog(engine.storage, 1)].map((e) => (e.event as { at: number }).at);
      expect(applied).toEqual(good);
      const letters = [...engine.storage.deadLetters.getRange()].map((l) => l.value);
      expect(letters.map((l) => l.source)).toEqual(bad.map(([line]) => `ndjson:test:${line}`));
      letters.forEach((l, i) => expect(l.reason).toMatch(bad[i]![1]));
      expect(letters.every((l) => l.raw.length <= 4096)).toBe(true);
    });
  }

  it('logs a file of several MiB byte for byte, whatever lines cross its 1 MiB reads', async () => {
    // Lines of varying length (padded with an unknown field), so that reads end mid-line at different offsets.
    const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ type: 'quote_price', quote_address: WSOL, price_usd: 100 + i, at: i + 1, pad: 'p'.repeat(i % 97) }));
    const bytes = Buffer.from(lines.join('\n') + '\n');
    expect(bytes.length).toBeGreaterThan(3 * 2 ** 20);
    const file = join(temp.dir.path, 'big.ndjson');
    writeFileSync(file, bytes);
    const engine = await temp.open({ data: join(temp.dir.path, 'data') });
    await engine.runSource(ndjsonSource({ path: file, lineBytesMax: 1024 }));
    expect(engine.query.status()).toMatchObject({ ingested: lines.length, deadLetters: 0 });
    const logged = [...engine.storage.ingestLog.getRange()].map(({ value }) => Buffer.from(value));
    expect(Buffer.concat(logged).equals(bytes)).toBe(true);
  });

  it('replays from stdin with `mds replay -`', () => {
    const data = join(temp.dir.path, 'data');
    const r = spawnSync(process.execPath, [MDS, 'replay', '-', '--data', data, '--log-level', 'silent'], { input: [price(1), price(2), 'nope'].join('\n'), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('2 events in the log, 1 dead letters');
  });

  it('applies each line of a pipe that stays open as it arrives, a line cut across writes once its end comes', async () => {
    const engine = await temp.open();
    const pipe = new PassThrough();
    try {
      void engine.runSource(ndjsonSource({ path: '-', lineBytesMax: 1024, stream: pipe }));
      // The next batch the gate hands to the actors; fails the test after 10 s.
      const nextBatch = () => firstValueFrom(engine.gate.committed$.pipe(timeout(10_000)));
      let applied = nextBatch();
      pipe.write(price(1) + '\n');
      expect((await applied).firstSeq).toBe(1);
      applied = nextBatch();
      const line = price(2) + '\n';
      pipe.write(line.slice(0, 20));
      pipe.write(line.slice(20));
      expect((await applied).firstSeq).toBe(2);
      // A bad line's dead letter names its line number in the whole input.
      applied = nextBatch();
      pipe.write('nope\n' + price(4) + '\n');
      expect((await applied).firstSeq).toBe(3);
      await engine.gate.flush();
      expect([...readLog(engine.storage, 1)].map((e) => (e.event as { at: number }).at)).toEqual([1, 2, 4]);
      expect([...engine.storage.deadLetters.getRange()].map((l) => l.value.source)).toEqual(['ndjson:-:3']);
      // Stopping does not wait for the pipe's next line or its end.
      await within(engine.stop(), 10_000, 'engine.stop() with the pipe open');
    } finally {
      pipe.destroy();
    }
  });

  it('`mds serve --source ndjson:-` sends a line written to its stdin to a WebSocket client while the pipe stays open, and stops on SIGTERM', async () => {
    const data = join(temp.dir.path, 'data');
    const created = spawnSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'pro', '--data', data], { encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const server = spawn(process.execPath, [MDS, 'serve', '--data', data, '--port', '0', '--source', 'ndjson:-', '--log-level', 'info'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let client: TestClient | null = null;
    try {
      let stderr = '';
      const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
      const port = await new Promise<number>((resolve, reject) => {
        server.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /"port":(\d+)/.exec(stderr);
          if (match) resolve(Number(match[1]));
        });
        void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      client = await TestClient.connect(`ws://127.0.0.1:${port}/ws`, { key });
      client.subscribe('pool_trades', { pool_address: POOL });
      await client.untilPong();
      const { token, pool, swap } = sampleEvents();
      // One write per line, as a decoder writes them; stdin is never closed.
      for (const event of [token, pool, swap]) server.stdin.write(JSON.stringify(event) + '\n');
      const trade = await client.next((m) => m.stream === 'pool_trades', 20_000);
      expect(trade.data).toMatchObject({ tx_hash: swap!.tx_hash, pool_address: POOL });
      const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
      expect(health.data).toMatchObject({ ingested: 3, dead_letters: 0 });
      // Stopping does not wait for the writer's next line or the pipe's end.
      server.kill('SIGTERM');
      expect(await within(exited, 15_000, 'mds serve exiting on SIGTERM with stdin open')).toBe(0);
    } finally {
      client?.close();
      server.kill('SIGKILL');
    }
  });
});
