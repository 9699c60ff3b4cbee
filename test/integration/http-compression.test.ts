import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { swapStream } from '../helpers/fixtures.ts';

/**
 * Responses of 1 KB or more go out compressed when Accept-Encoding takes br or gzip
 * (transport/http/compression.ts), with Vary: Accept-Encoding; smaller ones, and any
 * response to a request without Accept-Encoding, go out plain. Read with node:http,
 * which (unlike fetch) does not decompress: the bytes on the wire are checked.
 */
let served: ServedEngine;
let pool: string;
beforeAll(async () => {
  const events = [...swapStream(200, 1, 2629, true)];
  served = await startServedEngine(events);
  pool = events.find((e) => e.type === 'swap')!.pool_address as string;
});
afterAll(() => served.stop());

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string>, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const url = new URL(served.base + path);
    const req = request({ host: url.hostname, port: url.port, path, method, headers: { authorization: `Bearer ${served.key}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = { br: brotliDecompressSync, gzip: gunzipSync };

describe('response compression', () => {
  it.each([
    ['br', 'gzip, deflate, br'],
    ['gzip', 'gzip'],
    ['gzip', 'br;q=0, gzip;q=0.8'],
    ['gzip', '*'],
  ] as const)('answers %s to Accept-Encoding "%s", the plain bytes once decoded; a cached route the same bytes again', async (encoding, accept) => {
    for (const path of [`/v1/pools/${pool}/trades?limit=50`, '/openapi.json']) {
      const plain = await get(path, {});
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(1_024);
      expect(plain.headers.vary).toBe('accept-encoding');
      const first = await get(path, { 'accept-encoding': accept });
      expect(first.headers['content-encoding']).toBe(encoding);
      expect(first.headers.vary).toBe('accept-encoding');
      expect(Number(first.headers['content-length'])).toBe(first.body.length);
      expect(first.body.length).toBeLessThan(plain.body.length / 2);
      expect(decode[encoding](first.body).equals(plain.body)).toBe(true);
      const again = await get(path, { 'accept-encoding': accept });
      expect(again.body.equals(first.body)).toBe(true);
      // HEAD: the Content-Length of the compressed body, no body.
      const head = await get(path, { 'accept-encoding': accept }, 'HEAD');
      expect([head.headers['content-encoding'], Number(head.headers['content-length']), head.body.length]).toEqual([encoding, first.body.length, 0]);
    }
  });

  it('sends plain what is under 1 KB, what the client does not take, and failures', async () => {
    const small = await get('/v1/market/sol-price', { 'accept-encoding': 'br, gzip' });
    expect(small.body.length).toBeLessThan(1_024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    for (const accept of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const res = await get(`/v1/pools/${pool}/trades?limit=50`, { 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBeUndefined();
      expect(JSON.parse(res.body.toString('utf8')).data).toHaveLength(50);
    }
    const bad = await get(`/v1/pools/${pool}/trades?limit=5000`, { 'accept-encoding': 'br' });
    expect([bad.status, bad.headers['content-encoding']]).toEqual([400, undefined]);
  });
});
