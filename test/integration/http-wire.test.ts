import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../engine/config.ts';
import { createKeyStore, type Account } from '../../engine/plans/index.ts';
import { defineRoute, ROUTES } from '../../transport/index.ts';
import { startLimitsServer, type LimitsServer } from '../helpers/limits.ts';

/**
 * The bytes on the wire. transport/envelope.ts writes the status line and every header
 * in one uWS `writeStatus` call (CRLF-separated lines in the status string) and the
 * body in `end`: these tests read responses off a raw TCP socket, several pipelined on
 * one keep-alive connection, and check that each head is well formed (one status line,
 * `Name: value` lines, each name once, the CRLF CRLF end), carries the headers
 * SERVICE.md and DECISIONS.md require, and that Content-Length frames the body exactly
 * (bytes, not characters), for the cached, the synchronous and the asynchronous paths.
 */

interface WireResponse {
  statusLine: string;
  /** Head lines after the status line, as sent. */
  lines: string[];
  /** Lower-cased name → value. */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Writes `requests` in one TCP write (pipelined) and reads exactly that many responses,
 * each framed by its Content-Length; fails on anything that is not a well-formed head.
 */
function pipelined(port: number, requests: string[]): Promise<WireResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffered = Buffer.alloc(0);
    const out: WireResponse[] = [];
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => {
      if (out.length < requests.length) fail(new Error(`connection closed after ${out.length} of ${requests.length} responses`));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [statusLine = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const match = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+): (.*)$/.exec(line);
          if (!match) return fail(new Error(`malformed head line ${JSON.stringify(line)}`));
          const name = match[1]!.toLowerCase();
          if (name in headers) return fail(new Error(`header ${name} sent twice`));
          headers[name] = match[2]!;
        }
        const length = Number(headers['content-length']);
        if (!Number.isInteger(length)) return fail(new Error(`no Content-Length in ${JSON.stringify(lines)}`));
        if (buffered.length < end + 4 + length) return;
        out.push({ statusLine, lines, headers, body: Buffer.from(buffered.subarray(end + 4, end + 4 + length)) });
        buffered = buffered.subarray(end + 4 + length);
        if (out.length === requests.length) {
          socket.end();
          if (buffered.length > 0) return fail(new Error(`${buffered.length} bytes after the last response`));
          return resolve(out);
        }
      }
    });
    socket.write(requests.join(''));
  });
}

const request = (path: string, headers: Record<string, string> = {}): string =>
  `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-quota-limit', 'x-quota-remaining', 'x-quota-reset'];
/** A body with multi-byte UTF-8: Content-Length must count bytes. */
const UNICODE = { name: 'ação 🚀 €', note: 'x'.repeat(100) };
/** Larger than uWS's 16 KiB cork buffer, so pipelined responses overflow it. */
const LARGE = { items: Array.from({ length: 800 }, (_, i) => ({ i, text: `item ${i} ✓` })) };

let version = 'v1';
const routes = [
  ...ROUTES,
  defineRoute({ pattern: '/v1/test/cached', auth: true, handler: () => UNICODE, version: () => version }),
  defineRoute({ pattern: '/v1/test/large', auth: true, handler: () => LARGE, version: () => 'large' }),
  defineRoute({
    pattern: '/v1/test/later',
    auth: true,
    // Answered in a later event-loop turn, after the request's handler has returned.
    handler: () => new Promise((resolve) => setImmediate(() => resolve(UNICODE))),
  }),
];

const CONFIG: ConfigInput = { plans: { free: { rps: 2 }, pro: { rps: 1_000 } } };

let t: LimitsServer;
let pro: Record<string, string>;
beforeAll(async () => {
  t = await startLimitsServer({ config: CONFIG, routes });
  t.query.price = { price_usd: 150.25, updated_at: 1_700_000_000_000 };
  pro = await bearer('pro');
});
afterAll(async () => {
  await t?.close();
});

async function bearer(plan: Account['plan']): Promise<Record<string, string>> {
  const { key } = await t.keys.create({ plan });
  return { authorization: `Bearer ${key}` };
}

const expectRateHeaders = (r: WireResponse) => {
  for (const name of RATE_HEADERS) expect(r.headers[name], name).toMatch(/^\d+$/);
};

describe('response heads on the wire', () => {
  it('a synchronous route: status line, content-type, every rate header once, exact body bytes, pipelined', async () => {
    t.clock.increment(1_000);
    const responses = await pipelined(t.port, [1, 2, 3].map(() => request('/v1/market/sol-price', pro)));
    const expected = JSON.stringify({ code: 0, error: null, message: 'OK', data: { price_usd: 150.25, updated_at: 1_700_000_000_000 } });
    responses.forEach((r) => {
      expect(r.statusLine).toBe('HTTP/1.1 200 OK');
      expect(r.headers['content-type']).toBe('application/json');
      expectRateHeaders(r);
      expect(r.headers['ratelimit-limit']).toBe('1000');
      expect(r.body.toString('utf8')).toBe(expected);
    });
    // One request each: the counters move by one per response, in order.
    const remaining = responses.map((r) => Number(r.headers['ratelimit-remaining']));
    expect(remaining).toEqual([remaining[0], remaining[0]! - 1, remaining[0]! - 2]);
    const quota = responses.map((r) => Number(r.headers['x-quota-remaining']));
    expect(quota).toEqual([quota[0], quota[0]! - 1, quota[0]! - 2]);
  });

  it('a cached route: the first (rendered) and later (cached bytes) responses are the same bytes, counted in bytes', async () => {
    t.clock.increment(1_000);
    const responses = await pipelined(t.port, [1, 2, 3].map(() => request('/v1/test/cached', pro)));
    const expected = Buffer.from(JSON.stringify({ code: 0, error: null, message: 'OK', data: UNICODE }), 'utf8');
    for (const r of responses) {
      expect(r.statusLine).toBe('HTTP/1.1 200 OK');
      expectRateHeaders(r);
      expect(Number(r.headers['content-length'])).toBe(expected.length);
      expect(r.body.equals(expected)).toBe(true);
    }
    // A new version is rendered again, not served from the old bytes.
    version = 'v2';
    UNICODE.note = 'changed';
    const [again] = await pipelined(t.port, [request('/v1/test/cached', pro)]);
    expect(JSON.parse(again!.body.toString('utf8')).data.note).toBe('changed');
  });

  it('an asynchronous route answers with the same head, written later in its own cork', async () => {
    t.clock.increment(1_000);
    // Alone on its connection: uWS closes a connection that pipelines past a pending response.
    const [r] = await pipelined(t.port, [request('/v1/test/later', pro)]);
    expect(r!.statusLine).toBe('HTTP/1.1 200 OK');
    expect(r!.headers['content-type']).toBe('application/json');
    expectRateHeaders(r!);
    expect(r!.body.equals(Buffer.from(JSON.stringify({ code: 0, error: null, message: 'OK', data: UNICODE }), 'utf8'))).toBe(true);
  });

  it('large pipelined responses, past the cork buffer, arrive whole and in order', async () => {
    t.clock.increment(1_000);
    const paths = ['/v1/test/large', '/v1/market/sol-price', '/v1/test/large', '/v1/test/large', '/v1/market/sol-price'];
    const responses = await pipelined(t.port, paths.map((p) => request(p, pro)));
    const large = JSON.stringify({ code: 0, error: null, message: 'OK', data: LARGE });
    expect(Buffer.byteLength(large)).toBeGreaterThan(16 * 1024);
    responses.forEach((r, i) => {
      expect(r.statusLine).toBe('HTTP/1.1 200 OK');
      expectRateHeaders(r);
      if (paths[i] === '/v1/test/large') expect(r.body.toString('utf8')).toBe(large);
      else expect(JSON.parse(r.body.toString('utf8')).data.price_usd).toBe(150.25);
    });
  });

  it('failures: 400 and 404 carry the rate headers, a 429 adds Retry-After, a 401 has none; a path under /v1 that is no route is admitted like one', async () => {
    t.clock.increment(1_000);
    const free = await bearer('free');
    const responses = await pipelined(t.port, [
      request('/v1/market/sol-price?x=1', free),
      request('/v1/pools/nope', free),
      request('/v1/market/sol-price', free),
      request('/v1/market/sol-price'),
      request('/v1/nothing/here', free),
    ]);
    expect(responses.map((r) => r.statusLine)).toEqual([
      'HTTP/1.1 400 Bad Request',
      'HTTP/1.1 400 Bad Request',
      'HTTP/1.1 429 Too Many Requests',
      'HTTP/1.1 401 Unauthorized',
      'HTTP/1.1 429 Too Many Requests',
    ]);
    expect(responses.map((r) => JSON.parse(r.body.toString('utf8')).code)).toEqual([4000, 4000, 4290, 4010, 4290]);
    for (const r of [...responses.slice(0, 3), responses[4]!]) expectRateHeaders(r);
    for (const r of [responses[2]!, responses[4]!]) {
      expect(r.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(r.headers['ratelimit-remaining']).toBe('0');
    }
    expect(responses[0]!.headers['retry-after']).toBeUndefined();
    // No key: nothing to count against.
    for (const name of RATE_HEADERS) expect(responses[3]!.headers[name]).toBeUndefined();
    for (const r of responses) expect(r.headers['content-type']).toBe('application/json');
  });
});

describe('authentication on the hot path (key memory of engine/plans/keys.ts, bearer parsing)', () => {
  it('accepts the Bearer forms the regex did, rejects the rest', async () => {
    t.clock.increment(1_000);
    const { key } = await t.keys.create({ plan: 'pro' });
    const forms = [`Bearer ${key}`, `bearer ${key}`, `BEARER   ${key}`, `Bearer ${key}  `, 'Bearer', 'Bearer ', `Bearer ${key} x`, `Basic ${key}`];
    const responses = await pipelined(t.port, forms.map((authorization) => request('/v1/market/sol-price', { authorization })));
    expect(responses.map((r) => JSON.parse(r.body.toString('utf8')).code)).toEqual([0, 0, 0, 0, 4010, 4010, 4010, 4010]);
  });

  it('a revoke written by another key store (as the CLI does) is seen by the next request of a remembered key', async () => {
    t.clock.increment(1_000);
    const { key, id } = await t.keys.create({ plan: 'pro' });
    const auth = { authorization: `Bearer ${key}` };
    // Twice: the second is served from the remembered hash and record bytes.
    const before = await pipelined(t.port, [request('/v1/market/sol-price', auth), request('/v1/market/sol-price', auth)]);
    expect(before.map((r) => r.statusLine)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    expect(await createKeyStore(t.storage, t.clock).revoke(id)).toBe(true);
    const [after] = await pipelined(t.port, [request('/v1/market/sol-price', auth)]);
    expect(after!.statusLine).toBe('HTTP/1.1 401 Unauthorized');
    expect(JSON.parse(after!.body.toString('utf8')).code).toBe(4013);
  });
});
