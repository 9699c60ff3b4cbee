import { CURSOR_CHARS_MAX } from '../../../engine/bounds.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EngineError } from '../../../engine/errors.ts';
import { openStorage } from '../../../storage/lmdb.ts';
import { CURSOR_SECRET_KEY, cursorCodec, decodeCursor, encodeCursor, loadCursorSecret } from '../../../transport/http/cursor.ts';

const secret = Buffer.alloc(32, 7);
const position = z.object({ key: z.number(), token_address: z.string() });
const payload = { key: 12.5, token_address: 'So11111111111111111111111111111111111111112' };

/** Runs `fn`, expecting a 400 / 4000 naming `cursor`; returns its message. */
function rejects(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    const e = err as EngineError;
    expect(e.code).toBe(4000);
    expect(e.status).toBe(400);
    expect(e.details).toEqual({ param: 'cursor' });
    expect(e.message).toMatch(/^cursor: /);
    return e.message;
  }
  throw new Error('expected a 400 naming cursor');
}

describe('encodeCursor / decodeCursor', () => {
  it('round-trips a payload; the cursor is base64url', () => {
    const cursor = encodeCursor(payload, secret);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, secret, position)).toEqual(payload);
    expect(encodeCursor(payload, secret)).toBe(cursor);
  });

  it('rejects every single flipped bit', () => {
    const cursor = encodeCursor(payload, secret);
    const bytes = Buffer.from(cursor, 'base64url');
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      rejects(() => decodeCursor(flipped.toString('base64url'), secret, position));
    }
  });

  it('rejects every changed character, including non-canonical spellings of the same bytes', () => {
    const cursor = encodeCursor(payload, secret);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < cursor.length; i++) {
      const other = alphabet[(alphabet.indexOf(cursor[i]!) + 1) % 64]!;
      rejects(() => decodeCursor(cursor.slice(0, i) + other + cursor.slice(i + 1), secret, position));
    }
  });

  it('rejects a cursor made with another secret', () => {
    expect(rejects(() => decodeCursor(encodeCursor(payload, randomBytes(32)), secret, position))).toMatch(/modified/);
  });

  it('rejects garbage', () => {
    for (const garbage of ['', 'x', '!!!!', 'not a cursor', 'a'.repeat(CURSOR_CHARS_MAX + 1), 'AAAA', 'eyJrZXkiOjF9', '%41%42', 'AQ==']) {
      rejects(() => decodeCursor(garbage, secret, position));
    }
    // A truncated or extended cursor.
    const cursor = encodeCursor(payload, secret);
    rejects(() => decodeCursor(cursor.slice(0, -4), secret, position));
    rejects(() => decodeCursor(`${cursor}AAAA`, secret, position));
  });

  it('rejects a signed payload the schema does not accept', () => {
    expect(rejects(() => decodeCursor(encodeCursor({ key: 'x' }, secret), secret, position))).toMatch(/not a cursor of this request/);
  });

  it('refuses to make a cursor longer than the cursor parameter allows, or of nothing', () => {
    expect(() => encodeCursor({ pad: 'x'.repeat(CURSOR_CHARS_MAX) }, secret)).toThrow(RangeError);
    expect(() => encodeCursor(undefined, secret)).toThrow(TypeError);
  });
});

describe('cursorCodec', () => {
  const search = cursorCodec('tokens.search', position, secret);
  const trades = cursorCodec('tokens.trades', z.object({ at: z.number(), seq: z.number() }), secret);
  const pools = cursorCodec('pools', position, secret);

  it('round-trips', () => {
    expect(search.decode(search.encode(payload))).toEqual(payload);
  });

  it('rejects a cursor of another route, even one whose payload would fit', () => {
    expect(rejects(() => trades.decode(search.encode(payload)))).toMatch(/another route/);
    expect(rejects(() => pools.decode(search.encode(payload)))).toMatch(/another route/);
  });

  it('rejects a bare encodeCursor payload and a payload its schema rejects', () => {
    rejects(() => search.decode(encodeCursor(payload, secret)));
    rejects(() => search.decode(encodeCursor({ k: 'tokens.search', p: { key: 'x' } }, secret)));
  });
});

describe('loadCursorSecret', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'mds-cursor-'));
    dirs.push(dir);
    return dir;
  };

  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('makes 32 bytes once per data directory and keeps them across reopening', async () => {
    const dir = tempDir();
    let storage = openStorage(dir);
    const first = await loadCursorSecret(storage);
    expect(first).toHaveLength(32);
    expect(await loadCursorSecret(storage)).toEqual(first);
    const cursor = encodeCursor(payload, first);
    await storage.close();

    storage = openStorage(dir);
    const again = await loadCursorSecret(storage);
    expect(again).toEqual(first);
    expect(decodeCursor(cursor, again, position)).toEqual(payload);
    await storage.close();

    const other = openStorage(tempDir());
    const otherSecret = await loadCursorSecret(other);
    expect(otherSecret).not.toEqual(first);
    rejects(() => decodeCursor(cursor, otherSecret, position));
    await other.close();
  });

  it('refuses a stored value that is not 32 bytes', async () => {
    const storage = openStorage(tempDir());
    await storage.meta.put(CURSOR_SECRET_KEY, 'not bytes');
    await expect(loadCursorSecret(storage)).rejects.toThrow(/not 32 bytes/);
    await storage.close();
  });
});
