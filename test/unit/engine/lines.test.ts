import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../engine/ingest/lines.ts';

function split(chunks: Buffer[], lineBytesMax = 64) {
  const lines: Array<[number, string]> = [];
  const rejects: Array<[number, string]> = [];
  const s = new LineSplitter(lineBytesMax, {
    line: (b, p) => lines.push([p, b.toString()]),
    reject: (reason, _head, p) => rejects.push([p, reason]),
  });
  for (const c of chunks) s.push(c);
  s.end();
  return { lines, rejects };
}

describe('LineSplitter', () => {
  it('joins lines across chunks, skips blanks and CR, keeps a last line without newline', () => {
    const text = 'a1\r\n\nbb2\nccc3';
    for (let cut = 0; cut <= text.length; cut++) {
      const { lines } = split([Buffer.from(text.slice(0, cut)), Buffer.from(text.slice(cut))]);
      expect(lines).toEqual([[1, 'a1'], [3, 'bb2'], [4, 'ccc3']]);
    }
  });

  it('rejects an over-long line whole, wherever the chunks cut it, and goes on', () => {
    const text = `ok\n${'x'.repeat(200)}\nafter\n`;
    for (const size of [1, 7, 64, 1_000]) {
      const chunks = [];
      for (let i = 0; i < text.length; i += size) chunks.push(Buffer.from(text.slice(i, i + size)));
      expect(split(chunks)).toEqual({ lines: [[1, 'ok'], [3, 'after']], rejects: [[2, 'line: longer than 64 bytes']] });
    }
  });

  it('rejects invalid UTF-8 instead of decoding it with replacement characters', () => {
    const { lines, rejects } = split([Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\nfine\n')])]);
    expect(rejects).toEqual([[1, 'line: invalid UTF-8']]);
    expect(lines).toEqual([[2, 'fine']]);
  });
});
