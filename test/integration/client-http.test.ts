import { createServer as createHttpServer, request as httpRequest, type Server as NodeServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, MdsError } from '../../transport/client/http.ts';
import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { swapStream } from '../helpers/fixtures.ts';
import { startLimitsServer, type LimitsServer } from '../helpers/limits.ts';

/**
 * The SDK's HTTP client against a real server on loopback: a 10,000-trade list walked
 * exactly once, a 429 storm on a Starter key answered in full, a 503 (and a dropped
 * connection) from a proxy in between retried, a 4xx never retried. Waits go through
 * the client's injected sleep: the limits' simulated clock moves by what the client
 * waits, so a Retry-After is honoured without a real second passing.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

describe('HTTP client', () => {
  it('walks a 10,000-trade list exactly once, in order, with for await', async () => {
    const events = [...swapStream(10_000, 1, 2601, true)];
    const served: ServedEngine = await startServedEngine(events);
    cleanups.push(() => served.stop());
    const swaps = events.filter((e) => e.type === 'swap');
    const pool = swaps[0]!.pool_address as string;
    const client = createHttpClient({ baseUrl: served.base, key: served.key });
    const seen: string[] = [];
    let last = -Infinity;
    for await (const trade of client.pools.trades(pool, { order: 'asc', limit: 500 })) {
      seen.push(trade.trade_id);
      expect(trade.created_at).toBeGreaterThanOrEqual(last);
      last = trade.created_at;
    }
    expect(seen.length).toBe(10_000);
    expect(new Set(seen).size).toBe(10_000);
    expect(new Set(seen)).toEqual(new Set(swaps.map((s) => `${s.tx_hash}:${s.event_index}`)));
    // The same walk newest first, one page awaited on its own.
    const first = await client.pools.trades(pool, { limit: 3 });
    expect(first.data.map((t) => t.trade_id)).toEqual(seen.slice(-3).reverse());
    expect(first.pagination.has_more).toBe(true);
    // Ingesting the 10,100 events one by one is most of it (20 s alone, a minute on a busy machine).
  }, 240_000);

  it('a 429 storm on a Starter key ends with every request answered, each 429 waited for Retry-After', async () => {
    const t: LimitsServer = await startLimitsServer();
    cleanups.push(() => t.close());
    t.query.price = { price_usd: 151.5, updated_at: 1_767_225_600_000 };
    const { key } = await t.keys.create({ plan: 'starter' });
    const waits: number[] = [];
    const client = createHttpClient({
      baseUrl: t.baseUrl,
      key,
      timers: {
        // The limits' clock moves by what the client waits: the window it waits for comes.
        sleep: async (ms) => {
          waits.push(ms);
          t.clock.increment(ms);
        },
      },
    });
    // 200 at once: the plan allows 25 a second and 5 in flight.
    const answers = await Promise.all(Array.from({ length: 200 }, () => client.market.solPrice()));
    expect(answers.every((a) => a.price_usd === 151.5)).toBe(true);
    expect(waits.length).toBeGreaterThan(0);
    // Every wait is a Retry-After (whole seconds), none a backoff of a 5xx.
    expect(waits.every((ms) => ms >= 1000 && ms % 1000 === 0)).toBe(true);
  });

  it('retries a 503 and a dropped connection from a proxy in between, with backoff and jitter; never a 4xx', async () => {
    const served = await startServedEngine([...swapStream(20, 1, 2602, true)]);
    cleanups.push(() => served.stop());
    const target = new URL(served.base);
    let failNext = 0;
    let dropNext = 0;
    const seen: string[] = [];
    // A tiny reverse proxy: answers 503 (an HTML page, as a proxy does) or drops the
    // connection while told to, forwards otherwise.
    const proxy: NodeServer = createHttpServer((req, res) => {
      seen.push(req.url!);
      if (dropNext > 0) {
        dropNext--;
        req.socket.destroy();
        return;
      }
      if (failNext > 0) {
        failNext--;
        res.writeHead(503, { 'content-type': 'text/html' }).end('<html>503 Service Unavailable</html>');
        return;
      }
      const upstream = httpRequest({ host: target.hostname, port: target.port, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      });
      upstream.end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const port = (proxy.address() as { port: number }).port;
    const waits: number[] = [];
    const client = createHttpClient({
      baseUrl: `http://127.0.0.1:${port}`,
      key: served.key,
      backoffMs: 100,
      timers: { sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
    });

    failNext = 2;
    dropNext = 1;
    const health = await client.health();
    expect(health.status).toBe('ready');
    expect(seen.length).toBe(4);
    // Full jitter of 100·2^n ms with random() = 0.5: half of each ceiling.
    expect(waits).toEqual([50, 100, 200]);

    // Past the retries: the 503 surfaces as a typed error.
    seen.length = 0;
    waits.length = 0;
    failNext = 10;
    const failed = await client.health().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(MdsError);
    expect(failed).toMatchObject({ code: 5030, error: 'HTTP_503', status: 503 });
    expect(seen.length).toBe(6);
    failNext = 0;

    // A 400 is never retried, and carries the envelope's fields.
    seen.length = 0;
    const bad = await client.pools.get('0OIl').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(MdsError);
    expect(bad).toMatchObject({ code: 4000, error: 'BAD_REQUEST', status: 400 });
    expect((bad as MdsError).message).toContain('pool_address');
    expect(seen.length).toBe(1);
    // Nor a 404/4040: an unknown route stays unknown.
    seen.length = 0;
    const unknown = await client.request('/v1/no/such/route').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 4040, status: 404 });
    expect(seen.length).toBe(1);
  });
});
