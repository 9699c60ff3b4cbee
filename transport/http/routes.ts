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
import { activityQuery, activityRoute, labeledWalletsQuery, labeledWalletsRoute, postsQuery, postsRoute } from './handlers/discovery.ts';
import { rankingsParams, rankingsQuery, rankingsRoute } from './handlers/rankings.ts';
import { tokenSignalsQuery, tokenSignalsRoute, walletSignalsQuery, walletSignalsRoute } from './handlers/signals.ts';
import { bondingCurveRoute, deployedTokensQuery, deployedTokensRoute, holdersQuerySchema, holdersRoute, holderStatsRoute } from './handlers/holders.ts';
import { asyncApiRoute, openApiRoute } from './openapi.ts';
import type { RawBody } from '../envelope.ts';
import { docsRoute, docsWsRoute, redocBundleRoute } from './docs.ts';
import { terminalPage, terminalScript, terminalStyle } from './terminal.ts';
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
  // Routes 17 and 22 (Pro); static `signals` before the `:address` siblings.
  defineRoute({ pattern: '/v1/tokens/signals', auth: true, minPlan: 'pro', query: tokenSignalsQuery, handler: tokenSignalsRoute }),
  defineRoute({ pattern: '/v1/wallets/signals', auth: true, minPlan: 'pro', query: walletSignalsQuery, handler: walletSignalsRoute }),
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
  // Routes 18, 19, 21 (Pro): static `posts` and `activity` before their `:param` siblings.
  defineRoute({ pattern: '/v1/tokens/posts', auth: true, minPlan: 'pro', query: postsQuery, handler: postsRoute }),
  defineRoute({ pattern: '/v1/wallets', auth: true, minPlan: 'pro', query: labeledWalletsQuery, handler: labeledWalletsRoute }),
  defineRoute({ pattern: '/v1/wallets/activity', auth: true, minPlan: 'pro', query: activityQuery, handler: activityRoute }),
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
] as const satisfies readonly Route[];
