import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestServer, type TestServer } from '../helpers/http.ts';

/**
 * HEAD on a GET route answers as the GET would, without the body: the same status and
 * headers, Content-Length of the body it leaves out (RFC 9110 9.3.2). Read off a raw
 * socket: a HEAD and a GET pipelined on one connection must come back as two whole
 * responses, the HEAD's with no body bytes.
 */
let srv: TestServer;
let key: string;
beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.keys.create({ plan: 'pro' })).key;
  srv.query.price = { price_usd: 151.25, updated_at: 1_700_000_000_000 };
});
afterAll(() => srv.close());

const request = (method: string, path: string, headers: Record<string, string> = {}) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

/** HEAD then GET of `path` on one connection: both heads, and every byte after the HEAD's head. */
async function headThenGet(path: string, headers: Record<string, string> = {}) {
  const bytes = request('HEAD', path, headers) + request('GET', path, { ...headers, connection: 'close' });
  const res = await rawRequest(srv.port, Buffer.from(bytes, 'latin1'));
  // rawRequest splits at the first blank line: the HEAD's head, then (no body) the GET's response.
  const getSplit = res.body.indexOf('\r\n\r\n');
  const getHead = res.body.slice(0, getSplit);
  const getHeaders = Object.fromEntries(
    getHead
      .split('\r\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { head: res, afterHead: res.body, get: { status: Number(getHead.split(' ')[1]), headers: getHeaders, body: res.body.slice(getSplit + 4) } };
}

describe('HEAD', () => {
  it.each([
    ['/health', 200, {}],
    ['/v1/market/sol-price', 200, { auth: true }],
    ['/openapi.json', 200, {}],
    ['/v1/tokens/posts', 503, { auth: true }],
    ['/v1/pools/not-an-address', 400, { auth: true }],
    ['/v1/no/such/route', 404, { auth: true }],
  ] as const)('HEAD %s answers %i like its GET, with its Content-Length and no body', async (path, status, opts) => {
    const headers: Record<string, string> = 'auth' in opts ? { authorization: `Bearer ${key}` } : {};
    const { head, afterHead, get } = await headThenGet(path, headers);
    expect(head.status).toBe(status);
    expect(get.status).toBe(status);
    // No body bytes: the next thing on the wire is the GET's status line.
    expect(afterHead.startsWith('HTTP/1.1 ')).toBe(true);
    // (A 404 for no route names the method it was asked with: "route not found: HEAD /v1/...".)
    const body = status === 404 ? get.body.replace('GET ', 'HEAD ') : get.body;
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(body, 'utf8'));
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    if ('auth' in opts) expect(head.headers['ratelimit-limit']).toBe(get.headers['ratelimit-limit']);
  });
});
