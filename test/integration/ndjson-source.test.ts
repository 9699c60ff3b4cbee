import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readLog } from '../../engine/ingest/gate.ts';
import { ndjsonSource } from '../../engine/sources/ndjson.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { WSOL, sampleEvents } from '../helpers/fixtures.ts';

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
});
