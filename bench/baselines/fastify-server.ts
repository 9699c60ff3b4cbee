import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { INTERVAL_NAMES } from '../../engine/model/index.ts';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { WallClock } from '../../engine/clock.ts';
import { loadConfig } from '../../engine/config.ts';
import { EngineError, badRequest, invalidApiKey, notFound, unauthenticated } from '../../engine/errors.ts';
import { createKeyStore, type KeyStore } from '../../engine/plans/index.ts';
import type { CandlesRequest, MarketReads } from '../../engine/query/index.ts';
import { createEngine } from '../../engine/system.ts';
import { cursorCodec, loadCursorSecret } from '../../transport/http/cursor.ts';
import * as schema from './schemas.ts';

/**
 * The HTTP baseline of bench/http.ts: the routes it loads, served the way most Node
 * teams would, with Fastify as its docs say (a route per path with JSON Schemas for
 * params, querystring and the 200 response, handlers returning the object, an
 * onRequest hook for the key, setErrorHandler/setNotFoundHandler for the envelope,
 * logger off as in Fastify's own benchmarks).
 *
 * Same data, same work per request: it opens a copy of the data directory mds serves
 * with the same engine (actors activated from snapshots, the same read facade), checks
 * the Bearer key against the same KeyStore (one LMDB read of the key's record per
 * request in both: engine/plans/keys.ts verify skips the sha256 while the record's bytes are
 * unchanged) and signs cursors with the same secret. What differs is the HTTP stack and
 * the serialization: Fastify on node:http, ajv, and fast-json-stringify of the objects
 * the read facade returns, against uWebSockets.js, zod, and JSON.stringify but for
 * trades, which mds writes as text directly (engine/model tradeJson), plus
 * whatever mds caches. No response caching here: a Fastify app returns its objects.
 *
 * Usage: fastify-server.ts --data DIR --port N (binds 127.0.0.1).
 */

const { values } = parseArgs({ options: { data: { type: 'string' }, port: { type: 'string' } } });
if (!values.data || !values.port) {
  process.stderr.write('usage: fastify-server.ts --data DIR --port N\n');
  process.exit(2);
}

const config = loadConfig({ flags: { data: values.data, source: 'none', logLevel: 'silent', port: Number(values.port) } });
const engine = await createEngine({ config });
const market: MarketReads = engine.query.market!;
const keys: KeyStore = createKeyStore(engine.storage, new WallClock());
const secret = await loadCursorSecret(engine.storage);
const ok = <T>(data: T) => ({ code: 0, error: null, message: 'OK', data });

const tradeKey = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const tokenTradesCursor = cursorCodec(
  'token_trades',
  z.object({ subject: z.string(), order: z.enum(['asc', 'desc']), start: z.number().nullable(), token: z.string().nullable(), after: tradeKey }),
  secret,
);

const app: FastifyInstance = Fastify({ logger: false });

app.setErrorHandler((err: FastifyError, _req, reply) => {
  const e =
    err instanceof EngineError
      ? err
      : err.validation
        ? badRequest(err.validationContext === 'params' ? String(err.validation[0]?.instancePath ?? '').slice(1) || 'path' : 'query', err.message)
        : new EngineError(5000, 'internal error; retry with backoff');
  reply.code(e.status).send({ code: e.code, error: e.error, message: e.message, data: null });
});
app.setNotFoundHandler((req, reply) => {
  reply.code(404).send({ code: 4040, error: 'NOT_FOUND', message: `route not found: ${req.method} ${req.url}`, data: null });
});

app.get('/health', async () => ok({ status: 'ready' }));

app.register(
  async (v1) => {
    v1.addHook('onRequest', async (req) => {
      const match = /^bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
      if (!match) throw unauthenticated();
      if (keys.verify(match[1]!) === null) throw invalidApiKey();
    });

    v1.get('/market/sol-price', { schema: { response: { 200: schema.envelope(schema.solPrice) } } }, async () => {
      const price = engine.query.solPrice();
      if (price === null) throw new EngineError(4040, 'no SOL price yet');
      return ok({ price_usd: price.price_usd, updated_at: price.updated_at });
    });

    v1.get<{ Params: { pool_address: string } }>(
      '/pools/:pool_address',
      { schema: { params: { type: 'object', properties: { pool_address: schema.ADDRESS }, required: ['pool_address'] }, response: { 200: schema.envelope(schema.poolOverview) } } },
      async (req) => {
        const pool = market.pools.pool(req.params.pool_address);
        if (!pool) throw notFound('pool', req.params.pool_address);
        return ok(pool);
      },
    );

    type CandlesQuery = { interval: string; mode: string; currency: string; start_time?: number; end_time?: number; limit: number };
    v1.get<{ Params: { pool_address: string }; Querystring: CandlesQuery }>(
      '/pools/:pool_address/candles',
      {
        schema: {
          params: { type: 'object', properties: { pool_address: schema.ADDRESS }, required: ['pool_address'] },
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              interval: { type: 'string', enum: INTERVAL_NAMES, default: '1m' },
              mode: { type: 'string', enum: ['price', 'market_cap'], default: 'price' },
              currency: { type: 'string', enum: ['usd', 'quote'], default: 'usd' },
              start_time: { type: 'integer', minimum: 0 },
              end_time: { type: 'integer', minimum: 0 },
              limit: { type: 'integer', minimum: 1, maximum: 1000, default: 300 },
            },
          },
          response: { 200: schema.envelope(schema.candles) },
        },
      },
      async (req) => {
        const q = req.query;
        const candles = market.candles.candles(req.params.pool_address, {
          interval: q.interval, mode: q.mode, currency: q.currency, startTime: q.start_time, endTime: q.end_time, limit: q.limit,
        } as CandlesRequest);
        if (!candles) throw notFound('pool', req.params.pool_address);
        return ok({ pool_address: req.params.pool_address, interval: q.interval, mode: q.mode, currency: q.currency, candles });
      },
    );

    type TradesQuery = { start_time?: number; order: 'asc' | 'desc'; limit: number; cursor?: string };
    v1.get<{ Params: { token_address: string }; Querystring: TradesQuery }>(
      '/tokens/:token_address/trades',
      {
        schema: {
          params: { type: 'object', properties: { token_address: schema.ADDRESS }, required: ['token_address'] },
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              start_time: { type: 'integer', minimum: 0 },
              order: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
              limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
              cursor: { type: 'string', minLength: 1, maxLength: 2048 },
            },
          },
          response: { 200: schema.pagedEnvelope(schema.trade) },
        },
      },
      async (req) => {
        const q = req.query;
        const subject = req.params.token_address;
        // The same cursor payload (and key order) as mds's tradesPage, so next_cursor is the same string.
        const filters = { subject, order: q.order, start: q.start_time ?? null, token: null };
        let after: [number, number, number, number] | undefined;
        if (q.cursor !== undefined) {
          const c = tokenTradesCursor.decode(q.cursor);
          if (c.subject !== subject || c.order !== q.order || c.start !== filters.start || c.token !== null) {
            throw badRequest('cursor', 'was made for other parameters; pass the same subject, order, start_time and token');
          }
          after = c.after;
        }
        const page = market.tokens.token(subject) ? market.trades.tokenTrades(subject, { startTime: q.start_time, order: q.order, limit: q.limit, after }) : null;
        if (!page) throw notFound('token', subject);
        return {
          ...ok(page.items),
          pagination: { next_cursor: page.next ? tokenTradesCursor.encode({ ...filters, after: page.next }) : null, has_more: page.next !== null },
        };
      },
    );
  },
  { prefix: '/v1' },
);

await app.listen({ host: '127.0.0.1', port: config.port });

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await app.close();
  await engine.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
