import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedClock } from '../../engine/clock.ts';
import { configSchema, type ConfigInput } from '../../engine/config.ts';
import { createKeyStore, type KeyStore } from '../../engine/plans/index.ts';
import { silentLogger, type Logger } from '../../engine/log.ts';
import { createMetrics, type Metrics } from '../../engine/metrics.ts';
import type { EngineStatus, Query, SolPrice } from '../../engine/query/index.ts';
import { openStorage, type Storage } from '../../storage/lmdb.ts';
import { createServer, ROUTES, type BeforeHandle, type Route, type Server } from '../../transport/index.ts';

/**
 * A Query port with values the test sets: transport tests exercise HTTP, not the
 * engine, so a plain object is the engine here.
 */
export class FixedQuery implements Query {
  engineStatus: EngineStatus = { status: 'ready', ingested: 0, durable: 0, deadLetters: 0, source: 'none', sourceDone: null };
  price: SolPrice | null = null;
  status(): EngineStatus {
    return this.engineStatus;
  }
  solPrice(): SolPrice | null {
    return this.price;
  }
}

export interface TestServer {
  server: Server;
  port: number;
  baseUrl: string;
  query: FixedQuery;
  keys: KeyStore;
  storage: Storage;
  metrics: Metrics;
  clock: SimulatedClock;
  /** Close the server, the LMDB environment, and delete its directory. */
  close(): Promise<void>;
}

/** A real uWS server on 127.0.0.1, port 0, over a real LMDB in a fresh temp directory. */
export async function startTestServer(
  options: { routes?: readonly Route[]; beforeHandle?: readonly BeforeHandle[]; config?: ConfigInput; log?: Logger } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-http-'));
  const storage = openStorage(dir);
  const clock = new SimulatedClock(1_700_000_000_000);
  const keys = createKeyStore(storage, clock);
  const metrics = createMetrics();
  const query = new FixedQuery();
  const config = configSchema.parse({ ...options.config, data: dir, host: '127.0.0.1', port: 0 });
  const server = createServer({
    config,
    log: options.log ?? silentLogger(),
    query,
    keys,
    metrics,
    routes: options.routes ?? ROUTES,
    beforeHandle: options.beforeHandle,
  });
  const port = await server.listen();
  return {
    server,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    query,
    keys,
    storage,
    metrics,
    clock,
    async close() {
      server.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Send bytes as they are over a fresh TCP connection (fetch would normalize or reject
 * them) and read the response until the server closes; `Connection: close` is the
 * caller's to send.
 */
export function rawRequest(port: number, bytes: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: split < 0 ? '' : text.slice(split + 4) });
    });
    socket.write(bytes);
  });
}

/** A GET request line with the given target as raw bytes, closing the connection after. */
export function rawGet(target: Buffer, headers: Record<string, string> = {}): Buffer {
  const lines = Object.entries({ host: '127.0.0.1', connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return Buffer.concat([Buffer.from('GET ', 'latin1'), target, Buffer.from(` HTTP/1.1\r\n${lines.join('')}\r\n`, 'latin1')]);
}
