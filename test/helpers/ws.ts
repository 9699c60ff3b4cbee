import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { SimulatedClock } from '../../engine/clock.ts';
import { configSchema, type Config, type ConfigInput, type PlanName } from '../../engine/config.ts';
import { createKeyStore, createLimits, type KeyStore, type Limits } from '../../engine/plans/index.ts';
import { silentLogger } from '../../engine/log.ts';
import { createMetrics, type Metrics } from '../../engine/metrics.ts';
import type { Engine } from '../../engine/system.ts';
import { openStorage, type Storage } from '../../storage/lmdb.ts';
import { createServer, type Server } from '../../transport/index.ts';
import { mountWebSocket, type WebSocketEndpoint } from '../../transport/ws/index.ts';
import { FixedQuery } from './http.ts';

/** A real uWS server with /ws mounted, real LMDB, the real plans and limits. */
export interface WsTestServer {
  port: number;
  url: string;
  config: Config;
  keys: KeyStore;
  limits: Limits;
  storage: Storage;
  metrics: Metrics;
  /** The limits' clock (expiry, grace, months). */
  clock: SimulatedClock;
  server: Server;
  endpoint: WebSocketEndpoint;
  /** A new key of the plan. */
  key(plan: PlanName, expiresAt?: number | null): Promise<{ id: string; key: string }>;
  /** A metric's value (summed over label sets matching `labels`). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1, port 0. With `engine`, it serves that engine (its
 * storage, metrics, market reads and publisher; the engine's sink is attached) and
 * `config` is ignored: the engine's config counts. `limitsFlushMs`: the limits' own
 * timer (flushes and expiry sweeps), off unless given.
 */
export async function startWsServer(options: { config?: ConfigInput; engine?: Engine; limitsFlushMs?: number } = {}): Promise<WsTestServer> {
  const engine = options.engine;
  const dir = engine ? null : mkdtempSync(join(tmpdir(), 'mds-ws-'));
  const config = engine ? engine.config : configSchema.parse({ ...options.config, data: dir, host: '127.0.0.1', port: 0 });
  const storage = engine ? engine.storage : openStorage(dir!);
  const metrics = engine ? engine.metrics : createMetrics();
  const clock = new SimulatedClock(Date.now());
  const keys = createKeyStore(storage, clock);
  // No timer by default: tests call `limits.sweep()` when they move the clock.
  const limits = createLimits({ plans: config.plans, clock, storage, flushMs: options.limitsFlushMs ?? 0 });
  const log = silentLogger();
  const server = createServer({ config: { ...config, port: 0 }, log, query: engine ? engine.query : new FixedQuery(), keys, metrics });
  const endpoint = mountWebSocket(server.app, {
    config,
    log,
    keys,
    limits,
    metrics,
    candles: engine?.query.market?.candles,
    candleWatch: engine?.publisher,
    rankings: engine?.rankings ?? undefined,
    chartLines: engine?.chartLines,
    markers: engine?.markers,
  });
  engine?.attachTopics(endpoint.sink);
  const port = await server.listen();
  return {
    port,
    url: `ws://127.0.0.1:${port}/ws`,
    config,
    keys,
    limits,
    storage,
    metrics,
    clock,
    server,
    endpoint,
    key: (plan, expiresAt = null) => keys.create({ plan, expiresAt }),
    async metric(name, labels = {}) {
      const found = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
      let sum = 0;
      for (const v of (found?.values ?? []) as Array<{ value: number; labels: Record<string, string | number> }>) {
        if (Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want)) sum += v.value;
      }
      return sum;
    },
    async close() {
      endpoint.close();
      server.close();
      await limits.close();
      if (!engine) {
        await storage.close();
        rmSync(dir!, { recursive: true, force: true });
      }
    },
  };
}

export interface Closed {
  code: number;
  reason: string;
}

/**
 * A `ws` client that queues every frame it gets (parsed JSON) for `next`, and records
 * how the connection closed.
 */
export class TestClient {
  readonly messages: any[] = [];
  private waiter: (() => void) | null = null;
  private closeInfo: Closed | null = null;
  readonly closed: Promise<Closed>;
  readonly opened: Promise<void>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
      this.messages.push(JSON.parse(text));
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        this.wake();
        resolve(this.closeInfo);
      });
    });
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    // An error after open (a reset while paused) ends in 'close' too; do not throw.
    ws.on('error', () => {});
  }

  /** Connects; `key` goes in the Authorization header. */
  static async connect(url: string, options: { key?: string; authorization?: string } = {}): Promise<TestClient> {
    const authorization = options.authorization ?? (options.key ? `Bearer ${options.key}` : undefined);
    const client = new TestClient(new WebSocket(url, { headers: authorization ? { authorization } : {}, perMessageDeflate: false }));
    await client.opened;
    return client;
  }

  /** Connects and authenticates with an auth frame, waiting for `auth ok`. */
  static async authed(url: string, key: string): Promise<TestClient> {
    const client = await TestClient.connect(url);
    client.send({ type: 'auth', key });
    const reply = await client.next();
    if (reply.type !== 'auth' || reply.status !== 'ok') throw new Error(`auth failed: ${JSON.stringify(reply)}`);
    return client;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /**
   * The next frame (removed from the queue); with `match`, frames before the first
   * that matches are dropped. Rejects if the connection closes first or after `ms`.
   */
  async next(match: (m: any) => boolean = () => true, ms = 10_000): Promise<any> {
    const deadline = Date.now() + ms;
    for (;;) {
      while (this.messages.length) {
        const m = this.messages.shift();
        if (match(m)) return m;
      }
      if (this.closeInfo) throw new Error(`closed ${this.closeInfo.code} ${this.closeInfo.reason} while waiting for a frame`);
      await this.nextEvent(deadline, 'matching frame');
    }
  }

  /**
   * Waits until `done` holds, checking it at each frame (left in the queue) and at the
   * close; resolves with how the connection closed, or null while it is open. Rejects if
   * the connection closes with `done` false, or after `ms`.
   */
  async until(done: (closed: Closed | null) => boolean, ms = 10_000): Promise<Closed | null> {
    const deadline = Date.now() + ms;
    while (!done(this.closeInfo)) {
      if (this.closeInfo) throw new Error(`closed ${this.closeInfo.code} ${this.closeInfo.reason} while waiting`);
      await this.nextEvent(deadline, 'such frame');
    }
    return this.closeInfo;
  }

  /** The next frame or close; the timer only bounds the wait (rejects at `deadline`). */
  private async nextEvent(deadline: number, what: string): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no ${what} in time`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.waiter = null;
  }

  /**
   * Every frame up to and including the next pong: the server handles a connection's
   * frames in order, so this is everything its earlier frames caused.
   */
  async untilPong(): Promise<any[]> {
    this.send({ type: 'ping' });
    const before: any[] = [];
    await this.next((m) => {
      if (m.type === 'pong') return true;
      before.push(m);
      return false;
    });
    return before;
  }

  subscribe(stream: string, payload: unknown): void {
    this.send({ type: 'subscribe', stream, payload });
  }

  unsubscribe(stream: string, payload: unknown): void {
    this.send({ type: 'unsubscribe', stream, payload });
  }

  close(): void {
    this.ws.close();
  }

  private wake(): void {
    this.waiter?.();
  }
}
