import type { CandleInterval } from '../../../engine/model/index.ts';
import { z } from 'zod';
import { badRequest, notFound, unavailable } from '../../../engine/errors.ts';
import type { TradeRecord } from '../../../engine/model/index.ts';
import type { MarketReads, TradePage } from '../../../engine/query/index.ts';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { JsonText, page } from '../../envelope.ts';
import type { RouteContext, ServerDeps } from '../route.ts';

/** The market reads; 503 in a server started without an engine. */
export function market(deps: ServerDeps): MarketReads {
  if (!deps.query.market) throw unavailable('market data is not available in this server');
  return deps.query.market;
}

const tradeKey = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const tradeCursorPayload = z.object({ subject: z.string(), order: z.enum(['asc', 'desc']), start: z.number().nullable(), token: z.string().nullable(), after: tradeKey });

/**
 * A trade list page with a cursor bound to the route, the subject (pool or token) and
 * the filters: a cursor used with other filters is a 400, never a wrong page.
 */
export function tradesPage(
  deps: ServerDeps,
  kind: 'pool_trades' | 'token_trades' | 'wallet_trades',
  subject: string,
  q: { start_time?: number; order: 'asc' | 'desc'; limit: number; cursor?: string; token?: string },
  read: (after: [number, number, number, number] | undefined) => TradePage | null,
) {
  const codec = cursorCodec(kind, tradeCursorPayload, deps.cursorSecret!);
  const filters = { subject, order: q.order, start: q.start_time ?? null, token: q.token ?? null };
  const after = cursorPosition(codec, q.cursor, filters, 'subject, order, start_time and token')?.after;
  const result = read(after);
  if (!result) throw notFound(kind === 'pool_trades' ? 'pool' : kind === 'token_trades' ? 'token' : 'wallet', subject);
  // The records go out as JSON written directly (engine/model tradeJson): tradeRecord's, byte for byte.
  return page<TradeRecord>(new JsonText(result.itemsJson()), {
    next_cursor: result.next ? codec.encode({ ...filters, after: result.next }) : null,
    has_more: result.next !== null,
  });
}

export function poolOverview({ params, deps }: RouteContext<{ pool_address: string }, unknown>) {
  const pool = market(deps).pools.pool(params.pool_address);
  if (!pool) throw notFound('pool', params.pool_address);
  return pool;
}

export function poolTradesRoute({ params, query, deps }: RouteContext<{ pool_address: string }, { start_time?: number; order: 'asc' | 'desc'; limit: number; cursor?: string; token?: string }>) {
  const m = market(deps);
  // Only the pool's tokens are needed here, not its overview (totals, windows, heat).
  const info = m.pools.poolInfo(params.pool_address);
  if (!info) throw notFound('pool', params.pool_address);
  if (query.token !== undefined && query.token !== info.base_address && query.token !== info.quote_address) {
    throw badRequest('token', `must be ${info.base_address} or ${info.quote_address}, the pool's two tokens`);
  }
  return tradesPage(deps, 'pool_trades', params.pool_address, query, (after) =>
    m.trades.poolTrades(params.pool_address, { startTime: query.start_time, order: query.order, limit: query.limit, after, token: query.token }),
  );
}

export function poolsMetrics({ query, deps }: RouteContext<unknown, { addresses: string[] }>) {
  const pools = market(deps).pools;
  // Unknown pools are left out (a list, not a lookup); the order follows `addresses`.
  return query.addresses.map((a) => pools.poolMetrics(a)).filter((x) => x !== null);
}


export interface CandlesQuery {
  interval: CandleInterval;
  mode: 'price' | 'market_cap';
  currency: 'usd' | 'quote';
  start_time?: number;
  end_time?: number;
  limit: number;
}

/**
 * GET /pools/{pool}/candles (DECISIONS.md row 8): the newest `limit` candles with
 * start_time <= start_at <= end_time, oldest first; buckets without trades are absent.
 */
export function poolCandlesRoute({ params, query, deps }: RouteContext<{ pool_address: string }, CandlesQuery>) {
  const candles = market(deps).candles.candles(params.pool_address, {
    interval: query.interval,
    mode: query.mode,
    currency: query.currency,
    startTime: query.start_time,
    endTime: query.end_time,
    limit: query.limit,
  });
  if (!candles) throw notFound('pool', params.pool_address);
  return { pool_address: params.pool_address, interval: query.interval, mode: query.mode, currency: query.currency, candles };
}
