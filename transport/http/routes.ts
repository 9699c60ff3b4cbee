import { CANDLE_MODES, INTERVAL_NAMES } from '../../engine/model/index.ts';
import { z } from 'zod';
import { solPrice } from './handlers/market.ts';
import { poolCandlesRoute, poolOverview, poolsMetrics, poolTradesRoute } from './handlers/pools.ts';
import { tokenOverview, tokenPools, tokenPoolsQuery, tokensMany, tokenTradesRoute } from './handlers/tokens.ts';
import { address, addressList, cursor, endNotBeforeStart, endTime, limit, oneOf, order, startTime } from './params.ts';
import { health, metrics } from './handlers/system.ts';
import { tokenSearchQuery, tokenSearchRoute } from './handlers/search.ts';
import { poolListQuery, poolListRoute } from './handlers/pool-list.ts';
import {
  dailyPnlQuery,
  dailyPnlRoute,
  leaderboardQuery,
  leaderboardRoute,
  performanceQuery,
  performanceRoute,
  positionsQuery,
  positionsRoute,
  tradersQuery,
  tradersRoute,
  walletTradesRoute,
} from './handlers/wallets.ts';
import { rankingsParams, rankingsQuery, rankingsRoute } from './handlers/rankings.ts';
import { bondingCurveRoute, deployedTokensQuery, deployedTokensRoute, holdersQuerySchema, holdersRoute, holderStatsRoute } from './handlers/holders.ts';
import { asyncApiRoute, openApiRoute } from './openapi.ts';
import type { RawBody } from '../envelope.ts';
import { docsRoute, docsWsRoute, redocBundleRoute } from './docs.ts';
import { terminalPage, terminalScript, terminalStyle } from './terminal.ts';
import { notBuilt } from '../../engine/errors.ts';
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

/**
 * A route of SERVICE.md 4.2 that mds does not build yet. It is in the table, so that
 * its static segments win over a parameter (/v1/tokens/signals is not a token address:
 * uWS matches a static segment before a parameter, whatever the registration order)
 * and it is in /openapi.json, marked. It answers 501/5010 NOT_IMPLEMENTED naming the
 * route, on every plan (no 403 asking a caller to upgrade for what is not there),
 * after the key check and admission like any /v1 route, and whatever its parameters:
 * they are not validated, since nothing reads them.
 */
function notBuiltRoute(pattern: string): Route {
  const paramNames = [...pattern.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
  const what = `GET ${pattern.replace(/:([a-z_]+)/g, '{$1}')}`;
  const route = defineRoute({
    pattern,
    auth: true,
    params: z.object(Object.fromEntries(paramNames.map((name) => [name, z.string()]))),
    handler: () => {
      throw notBuilt(what);
    },
  });
  return { ...route, query: z.looseObject({}), notBuilt: true };
}

export const ROUTES = [
  defineRoute({ pattern: '/health', auth: false, handler: health }),
  defineRoute({ pattern: '/metrics', auth: false, handler: metrics }),
  // Built from this table when first asked for, so it lists every route, later ones included.
  defineRoute({ pattern: '/openapi.json', auth: false, handler: (): RawBody => openApiRoute(ROUTES) }),
  defineRoute({ pattern: '/asyncapi.json', auth: false, handler: asyncApiRoute }),
  // The API reference pages over those two documents, with what they load (docs.ts).
  defineRoute({ pattern: '/docs', auth: false, handler: docsRoute }),
  defineRoute({ pattern: '/docs/ws', auth: false, handler: docsWsRoute }),
  defineRoute({ pattern: '/docs/redoc.standalone.js', auth: false, handler: redocBundleRoute }),
  // The web terminal (terminal.ts): one page shell, its bundle; the login is mounted beside the table.
  defineRoute({ pattern: '/', auth: false, handler: terminalPage }),
  defineRoute({ pattern: '/t/:token_address', auth: false, params: z.object({ token_address: address }), handler: terminalPage }),
  defineRoute({ pattern: '/w/:wallet_address', auth: false, params: z.object({ wallet_address: address }), handler: terminalPage }),
  defineRoute({ pattern: '/terminal/app.js', auth: false, handler: terminalScript }),
  defineRoute({ pattern: '/terminal/app.css', auth: false, handler: terminalStyle }),
  defineRoute({ pattern: '/v1/market/sol-price', auth: true, handler: solPrice }),
  defineRoute({ pattern: '/v1/pools', auth: true, query: poolListQuery, handler: poolListRoute }),
  // Static paths before their `:param` siblings: /v1/pools/metrics is not a pool address.
  defineRoute({ pattern: '/v1/pools/metrics', auth: true, query: z.object({ addresses: addressList(50) }), handler: poolsMetrics }),
  defineRoute({
    pattern: '/v1/pools/:pool_address',
    auth: true,
    params: z.object({ pool_address: address }),
    handler: poolOverview,
    version: ({ params, deps }) => deps.query.market?.pools.poolVersion(params.pool_address) ?? null,
  }),
  defineRoute({
    pattern: '/v1/pools/:pool_address/trades',
    auth: true,
    params: z.object({ pool_address: address }),
    query: z.object({ ...tradeListQuery, token: address.optional() }),
    handler: poolTradesRoute,
    version: ({ params, deps }) => deps.query.market?.trades.poolTradesVersion(params.pool_address) ?? null,
  }),
  defineRoute({
    pattern: '/v1/pools/:pool_address/candles',
    auth: true,
    params: z.object({ pool_address: address }),
    query: z
      .object({
        interval: oneOf(INTERVAL_NAMES).default('1m'),
        mode: oneOf(CANDLE_MODES).default('price'),
        currency: oneOf(['usd', 'quote']).default('usd'),
        start_time: startTime,
        end_time: endTime,
        limit: limit(300, 1000),
      })
      .superRefine(endNotBeforeStart),
    handler: poolCandlesRoute,
    version: ({ params, deps }) => deps.query.market?.candles.candlesVersion(params.pool_address) ?? null,
  }),
  defineRoute({ pattern: '/v1/tokens', auth: true, query: z.object({ addresses: addressList(50) }), handler: tokensMany }),
  defineRoute({ pattern: '/v1/tokens/search', auth: true, query: tokenSearchQuery, handler: tokenSearchRoute }),
  // Route 16; static `rankings` before /v1/tokens/:token_address (uWS matches static segments first).
  defineRoute({ pattern: '/v1/tokens/rankings/:feed', auth: true, params: rankingsParams, query: rankingsQuery, handler: rankingsRoute }),
  defineRoute({ pattern: '/v1/tokens/:token_address', auth: true, params: z.object({ token_address: address }), handler: tokenOverview }),
  defineRoute({ pattern: '/v1/tokens/:token_address/pools', auth: true, params: z.object({ token_address: address }), query: tokenPoolsQuery, handler: tokenPools }),
  defineRoute({
    pattern: '/v1/tokens/:token_address/trades',
    auth: true,
    params: z.object({ token_address: address }),
    query: z.object(tradeListQuery),
    handler: tokenTradesRoute,
    version: ({ params, deps }) => deps.query.market?.trades.tokenTradesVersion(params.token_address) ?? null,
  }),
  defineRoute({
    pattern: '/v1/tokens/:token_address/traders',
    auth: true,
    params: z.object({ token_address: address }),
    query: tradersQuery,
    handler: tradersRoute,
    // Not with label: its plan check is the handler's, which a cached body would skip.
    version: ({ params, query, deps }) => (query.label === undefined ? (deps.query.wallets?.tradersVersion(params.token_address) ?? null) : null),
  }),
  // Static before its `:param` sibling: /v1/wallets/leaderboard is not a wallet address.
  defineRoute({ pattern: '/v1/wallets/leaderboard', auth: true, query: leaderboardQuery, handler: leaderboardRoute, version: ({ deps }) => deps.query.wallets?.leaderboardVersion() ?? null }),
  defineRoute({ pattern: '/v1/wallets/:wallet_address/performance', auth: true, params: z.object({ wallet_address: address }), query: performanceQuery, handler: performanceRoute }),
  defineRoute({ pattern: '/v1/wallets/:wallet_address/positions', auth: true, params: z.object({ wallet_address: address }), query: positionsQuery, handler: positionsRoute }),
  defineRoute({ pattern: '/v1/wallets/:wallet_address/daily_pnl', auth: true, params: z.object({ wallet_address: address }), query: dailyPnlQuery, handler: dailyPnlRoute }),
  defineRoute({
    pattern: '/v1/tokens/:token_address/holders/stats',
    auth: true,
    params: z.object({ token_address: address }),
    handler: holderStatsRoute,
    version: ({ params, deps }) => deps.query.holders?.holdersVersion(params.token_address, false) ?? null,
  }),
  defineRoute({
    pattern: '/v1/tokens/:token_address/holders',
    auth: true,
    params: z.object({ token_address: address }),
    query: holdersQuerySchema,
    handler: holdersRoute,
    // A label filter is for some plans only (checked by the handler): not served from the cache.
    version: ({ params, query, deps }) => (query.label === undefined ? (deps.query.holders?.holdersVersion(params.token_address, true) ?? null) : null),
  }),
  defineRoute({
    pattern: '/v1/tokens/:token_address/bonding_curve',
    auth: true,
    params: z.object({ token_address: address }),
    handler: bondingCurveRoute,
    version: ({ params, deps }) => deps.query.holders?.curveVersion(params.token_address) ?? null,
  }),
  defineRoute({
    pattern: '/v1/wallets/:wallet_address/deployed_tokens',
    auth: true,
    params: z.object({ wallet_address: address }),
    query: deployedTokensQuery,
    handler: deployedTokensRoute,
  }),
  defineRoute({
    pattern: '/v1/wallets/:wallet_address/trades',
    auth: true,
    params: z.object({ wallet_address: address }),
    query: z.object({ ...tradeListQuery, token_address: address.optional() }),
    handler: walletTradesRoute,
  }),
  // SERVICE.md 4.2 routes not built yet (and the paths openapi-docs.ts gives the routes
  // SERVICE.md lists by purpose only). Last on purpose: the router's static-before-
  // parameter order, not the table's, puts /v1/tokens/signals before /v1/tokens/:token_address.
  ...[
    '/v1/tokens/signals',
    '/v1/tokens/posts',
    '/v1/wallets',
    '/v1/wallets/activity',
    '/v1/wallets/signals',
  ].map(notBuiltRoute),
] as const satisfies readonly Route[];
