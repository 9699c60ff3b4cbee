import { CURSOR_CHARS_MAX } from '../../engine/bounds.ts';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { badRequest } from '../../engine/errors.ts';

/**
 * Paging cursors (SERVICE.md 2.1 `next_cursor`; DECISIONS.md "Validation"): opaque to
 * clients and tamper-evident. A cursor is base64url of
 *
 *   version (1 byte, 1) ‖ tag (16 bytes) ‖ payload (JSON, UTF-8)
 *
 * where tag is HMAC-SHA256(secret, version ‖ payload) cut to 128 bits. Any change to
 * a cursor is a 400 naming `cursor`, never a crash or a wrong page. Cursors are signed,
 * not encrypted: anyone can read the payload, so it must hold only what the client
 * could see anyway (sort keys and addresses of items it was sent).
 *
 * A cursor of one route must not be accepted by another: every payload carries a kind
 * (`cursorCodec` adds and checks it) so a search cursor fed to the trades route is a
 * 400 even though its tag is valid.
 */

const VERSION = 1;
const TAG_BYTES = 16;
/** The `meta` key of the secret; 32 random bytes, made on first start of a data directory. */
export const CURSOR_SECRET_KEY = 'cursor_secret';
export const CURSOR_SECRET_BYTES = 32;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function tag(secret: Buffer, signed: Buffer): Buffer {
  return createHmac('sha256', secret).update(signed).digest().subarray(0, TAG_BYTES);
}

/** A cursor for `payload` (anything JSON can carry: no undefined, NaN or Infinity inside). */
export function encodeCursor(payload: unknown, secret: Buffer): string {
  const json = JSON.stringify(payload);
  if (json === undefined) throw new TypeError('cursor payload is not JSON-serializable');
  const signed = Buffer.concat([Buffer.of(VERSION), Buffer.from(json, 'utf8')]);
  const cursor = Buffer.concat([signed.subarray(0, 1), tag(secret, signed), signed.subarray(1)]).toString('base64url');
  if (cursor.length > CURSOR_CHARS_MAX) throw new RangeError(`cursor of ${cursor.length} characters exceeds ${CURSOR_CHARS_MAX}`);
  return cursor;
}

/**
 * The payload of a cursor made by `encodeCursor` with the same secret, checked against
 * `schema`. Throws `badRequest('cursor', ...)` (400 / 4000) on anything else: wrong
 * characters, non-canonical base64url, wrong version, bad tag, or a payload the schema
 * rejects.
 */
export function decodeCursor<T>(cursor: string, secret: Buffer, schema: z.ZodType<T>): T {
  if (cursor.length === 0 || cursor.length > CURSOR_CHARS_MAX) throw badRequest('cursor', `must be 1 to ${CURSOR_CHARS_MAX} characters`);
  if (!BASE64URL.test(cursor)) throw badRequest('cursor', 'malformed');
  const bytes = Buffer.from(cursor, 'base64url');
  // Node ignores the spare low bits of the last character: two strings can decode to
  // the same bytes. Only the canonical one is a cursor we made.
  if (bytes.length < 1 + TAG_BYTES + 1 || bytes.toString('base64url') !== cursor) throw badRequest('cursor', 'malformed');
  if (bytes[0] !== VERSION) throw badRequest('cursor', 'unknown version; restart paging without a cursor');
  const json = bytes.subarray(1 + TAG_BYTES);
  const expected = tag(secret, Buffer.concat([bytes.subarray(0, 1), json]));
  if (!timingSafeEqual(expected, bytes.subarray(1, 1 + TAG_BYTES))) {
    throw badRequest('cursor', 'invalid or modified; pass next_cursor back unchanged');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(json.toString('utf8'));
  } catch (err) {
    // Only reachable with a tag made by our secret over bad JSON, i.e. never in practice.
    throw badRequest('cursor', `unreadable payload (${(err as Error).message})`);
  }
  const result = schema.safeParse(payload);
  if (!result.success) throw badRequest('cursor', 'not a cursor of this request');
  return result.data;
}

/** Encoder and decoder of one route's cursors. */
export interface CursorCodec<T> {
  encode(payload: T): string;
  decode(cursor: string): T;
}

/**
 * Cursors of one kind (a route name such as `tokens.search`): `encode` wraps the
 * payload as `{ k: kind, p: payload }`, `decode` rejects another kind with a 400
 * before checking the payload with `schema`.
 * @example
 * const searchCursor = cursorCodec('tokens.search', z.object({ key: z.number(), token_address: z.string() }), secret);
 * const next_cursor = searchCursor.encode(position);
 * const after = query.cursor === undefined ? undefined : searchCursor.decode(query.cursor);
 */
export function cursorCodec<T>(kind: string, schema: z.ZodType<T>, secret: Buffer): CursorCodec<T> {
  return {
    encode: (payload) => encodeCursor({ k: kind, p: payload }, secret),
    decode: (cursor) => {
      const envelope = decodeCursor(cursor, secret, ENVELOPE);
      if (envelope.k !== kind) throw badRequest('cursor', 'a cursor of another route; pass back the next_cursor of this route');
      const result = schema.safeParse(envelope.p);
      if (!result.success) throw badRequest('cursor', 'not a cursor of this request');
      return result.data;
    },
  };
}

/**
 * The position a cursor carries, after checking it was made for the same `filters`
 * (every key equal): a cursor reused with other parameters is a 400 naming `cursor`,
 * listing `names`. Undefined without a cursor.
 */
export function cursorPosition<T>(codec: CursorCodec<T>, cursor: string | undefined, filters: { [K in keyof T]?: unknown }, names: string): T | undefined {
  if (cursor === undefined) return undefined;
  const position = codec.decode(cursor);
  for (const key in filters) {
    if (position[key] !== filters[key]) throw badRequest('cursor', `was made for other parameters; pass the same ${names}`);
  }
  return position;
}

/** What `cursorCodec` puts around a payload; `p` is checked by the route's schema. @internal */
const ENVELOPE = z.object({ k: z.string(), p: z.unknown() });

/**
 * The slice of storage the secret lives in: the `meta` database of storage/lmdb.ts.
 * Structural, so transport/ does not import storage (STYLE.md 3).
 */
export interface CursorSecretStore {
  readonly meta: {
    get(key: string): unknown;
    put(key: string, value: unknown): Promise<boolean>;
  };
}

/**
 * The data directory's cursor secret: 32 bytes from `meta` under `cursor_secret`,
 * generated and stored on first use so cursors outlive restarts. Throws if the key
 * holds something else (an operator must look: something else wrote there). One
 * process per data directory is assumed; a racing second writer would only cost
 * the first one's cursors.
 */
export async function loadCursorSecret(storage: CursorSecretStore): Promise<Buffer> {
  if (storage.meta.get(CURSOR_SECRET_KEY) === undefined) {
    await storage.meta.put(CURSOR_SECRET_KEY, randomBytes(CURSOR_SECRET_BYTES));
  }
  // Read back what was committed rather than trusting the bytes just made.
  const stored = storage.meta.get(CURSOR_SECRET_KEY);
  if (!(stored instanceof Uint8Array) || stored.length !== CURSOR_SECRET_BYTES) {
    throw new Error(`meta ${CURSOR_SECRET_KEY} is not ${CURSOR_SECRET_BYTES} bytes; delete it to make a new secret (open cursors become invalid)`);
  }
  return Buffer.from(stored);
}
