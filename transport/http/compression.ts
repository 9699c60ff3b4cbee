import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * Response compression (DECISIONS.md is silent; the README says why): a response body of
 * COMPRESS_MIN_BYTES or more goes out as br or gzip when the request's Accept-Encoding
 * takes one (br first: as small as gzip's best for half gzip's time on these lists), with `Vary: Accept-Encoding`.
 * A cached response (response-cache.ts) keeps each encoding's bytes beside the plain
 * ones, made on the first request that asks for it; so do the fixed documents
 * (/openapi.json, /docs/redoc.standalone.js). Other bodies are compressed per request.
 * Brotli at quality 1 and gzip at level 1 (below): bench/compression.ts measures what
 * each costs per response against writing it plain.
 */

export type Encoding = 'br' | 'gzip';

/** Bodies shorter than this go out plain: the saving is a few hundred bytes at most. */
export const COMPRESS_MIN_BYTES = 1_024;

/**
 * The fastest settings: on a 400 KB trade list (bench/compression.ts, one run on a busy
 * 2-core machine) br quality 1 took 0.7 ms for 24 % of the bytes, quality 4 3.5 times
 * as long for 23 %, quality 11 half a second for 19 %; gzip level 1 2.5 ms for 26 %,
 * level 6 3 ms for 25 %.
 */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };
const GZIP_OPTIONS = { level: 1 };

/** The encoding to answer with, from an Accept-Encoding header ('' or no match: null). */
export function acceptedEncoding(header: string): Encoding | null {
  if (header === '') return null;
  let gzip = false;
  let any = false;
  for (const part of header.split(',')) {
    const [rawName = '', ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (name === 'br') return 'br';
    if (name === 'gzip' || name === 'x-gzip') gzip = true;
    else if (name === '*') any = true;
  }
  return gzip || any ? 'gzip' : null;
}

/** `body` in `encoding`. */
export function compress(body: string | Uint8Array, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body, GZIP_OPTIONS);
}

/** Compressed copies of one body, made when first asked for. */
export interface Encoded {
  br?: Buffer;
  gzip?: Buffer;
}
