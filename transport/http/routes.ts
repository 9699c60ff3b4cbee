import { z } from 'zod';
import { solPrice } from './handlers/market.ts';
import { poolCandlesRoute, poolOverview, poolsMetrics, poolTradesRoute } from './handlers/pools.ts';
import { tokenOverview, tokenPools, tokenPoolsQuery, tokensMany, tokenTradesRoute } from './handlers/tokens.ts';
import { address, addressList, cursor, endNotBeforeStart, endTime, limit, oneOf, order, startTime } from './params.ts';
import { health, metrics } from './handlers/system.ts';
import { tokenSearchQuery, tokenSearchRoute } from './handlers/search.ts';
import { poolListQuery, poolListRoute } from './handlers/pool-list.ts';
import { walletTradesRoute } from './handlers/wallets.ts';
import { asyncApiRoute, openApiRoute } from './openapi.ts';
import { defineRoute, type Route } from './route.ts';

/**
 * The one HTTP route table (DECISIONS.md, "HTTP routes"). Every route is a GET; a
 * route is one entry: pattern (uWS syntax, `/v1/pools/:pool_address`), `auth` (true
 * for every /v1 route), zod schemas for path and query parameters (made strict by
 * defineRoute: unknown parameters are a 400 naming them) and a handler in handlers/.
 */
/**
 * The query of every trade list (DECISIONS.md rows 14, 15, 25): window start, order
 * (newest first by default), page size (50, at most 500) and cursor. Each route adds
 * its own side filter.
 */
const tradeListQuery = { start_time: startTime, order: order('desc'), limit: limit(50, 500), cursor };

export const ROUTES: readonly Route[] = [
  defineRoute({ pattern: '/health', auth: false, handler: health }),
  defineRoute({ pattern: '/metrics', auth: false, handler: metrics }),
  // Built from this table when first asked for, so it lists every route, later ones included.
  defineRoute({ pattern: '/openapi.json', auth: false, handler: () => openApiRoute(ROUTES) }),
  defineRoute({ pattern: '/asyncapi.json', auth: false, handler: asyncApiRoute }),
  defineRoute({ pattern: '/v1/market/sol-price', auth: true, handler: solPrice }),
  defineRoute({ pattern: '/v1/pools', auth: true, query: poolListQuery, handler: poolListRoute }),
  // Static paths before their `:param` siblings: /v1/pools/metrics is not a pool address.
  defineRoute({ pattern: '/v1/pools/metrics', auth: true, query: z.object({ addresses: addressList(50) }), handler: poolsMetrics }),
  defineRoute({
    pattern: '/v1/pools/:pool_address',
    auth: true,
    params: z.object({ pool_address: address }),
    handler: poolOverview,
    version: ({ params, deps }) => deps.query.market?.poolVersion(params.pool_address) ?? null,
  }),
  defineRoute({
    pattern: '/v1/pools/:pool_address/trades',
    auth: true,
    params: z.object({ pool_address: address }),
    query: z.object({ ...tradeListQuery, token: address.optional() }),
    handler: poolTradesRoute,
    version: ({ params, deps }) => deps.query.market?.poolTradesVersion(params.pool_address) ?? null,
  }),
  defineRoute({
    pattern: '/v1/pools/:pool_address/candles',
    auth: true,
    params: z.object({ pool_address: address }),
    query: z
      .object({
        interval: oneOf(['1s', '15s', '1m', '15m', '1h', '6h', '24h']).default('1m'),
        mode: oneOf(['price', 'market_cap']).default('price'),
        currency: oneOf(['usd', 'quote']).default('usd'),
        start_time: startTime,
        end_time: endTime,
        limit: limit(300, 1000),
      })
      .superRefine(endNotBeforeStart),
    handler: poolCandlesRoute,
    version: ({ params, deps }) => deps.query.market?.candlesVersion(params.pool_address) ?? null,
  }),
  defineRoute({ pattern: '/v1/tokens', auth: true, query: z.object({ addresses: addressList(50) }), handler: tokensMany }),
  defineRoute({ pattern: '/v1/tokens/search', auth: true, query: tokenSearchQuery, handler: tokenSearchRoute }),
  defineRoute({ pattern: '/v1/tokens/:token_address', auth: true, params: z.object({ token_address: address }), handler: tokenOverview }),
  defineRoute({ pattern: '/v1/tokens/:token_address/pools', auth: true, params: z.object({ token_address: address }), query: tokenPoolsQuery, handler: tokenPools }),
  defineRoute({
    pattern: '/v1/tokens/:token_address/trades',
    auth: true,
    params: z.object({ token_address: address }),
    query: z.object(tradeListQuery),
    handler: tokenTradesRoute,
    version: ({ params, deps }) => deps.query.market?.tokenTradesVersion(params.token_address) ?? null,
  }),
  defineRoute({
    pattern: '/v1/wallets/:wallet_address/trades',
    auth: true,
    params: z.object({ wallet_address: address }),
    query: z.object({ ...tradeListQuery, token_address: address.optional() }),
    handler: walletTradesRoute,
  }),
];
