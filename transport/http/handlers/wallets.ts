import { z } from 'zod';
import { notFound, unavailable } from '../../../engine/errors.ts';
import type { WalletsQuery } from '../../../engine/query/index.ts';
import { page } from '../../envelope.ts';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { cursor, decimal, integer, labelName, limit, oneOf } from '../params.ts';
import { requirePlan, type RouteContext, type ServerDeps } from '../route.ts';
import { market, tradesPage } from './pools.ts';

export interface WalletTradesQuery {
  start_time?: number;
  order: 'asc' | 'desc';
  limit: number;
  cursor?: string;
  token_address?: string;
}

/**
 * GET /wallets/{wallet}/trades (DECISIONS.md row 25): the wallet's trades in every
 * pool, filters and cursor as the other trade lists; token_address keeps the pools
 * holding that token and describes each trade from its side. Any address is a wallet:
 * one that never traded has an empty list, not a 404.
 */
export function walletTradesRoute({ params, query, deps }: RouteContext<{ wallet_address: string }, WalletTradesQuery>) {
  const trades = market(deps).trades;
  return tradesPage(deps, 'wallet_trades', params.wallet_address, { ...query, token: query.token_address }, (after) =>
    trades.walletTrades(params.wallet_address, { startTime: query.start_time, order: query.order, limit: query.limit, after, token: query.token_address }),
  );
}

/** The wallet-accounting reads; 503 in a server started without them. */
function wallets(deps: ServerDeps): WalletsQuery {
  if (!deps.query.wallets) throw unavailable('wallet accounting is not available in this server');
  return deps.query.wallets;
}

/** A ranked list's position in a cursor (engine/query/wallets.ts RankPosition). */
const rankPosition = z.object({ value: z.number().nullable(), address: z.string() });

export const performanceQuery = z.object({ window: oneOf(['1d', '7d', '30d', 'all']).default('7d') });

/** GET /wallets/{wallet}/performance (DECISIONS.md row 23). A wallet that never traded has zeros, not a 404 (as its trades are an empty list). */
export function performanceRoute({ params, query, deps }: RouteContext<{ wallet_address: string }, z.output<typeof performanceQuery>>) {
  return wallets(deps).performance(params.wallet_address, query.window);
}

export const positionsQuery = z.object({ min_value_usd: decimal(0).optional(), limit: limit(50, 100), cursor });
const positionsCursor = z.object({ wallet: z.string(), min_value: z.number().nullable(), after: rankPosition });

/** GET /wallets/{wallet}/positions (row 24): open positions, largest value_usd first, paged. */
export function positionsRoute({ params, query, deps }: RouteContext<{ wallet_address: string }, z.output<typeof positionsQuery>>) {
  const codec = cursorCodec('wallet_positions', positionsCursor, deps.cursorSecret!);
  const filters = { wallet: params.wallet_address, min_value: query.min_value_usd ?? null };
  const after = cursorPosition(codec, query.cursor, filters, 'wallet_address and min_value_usd')?.after;
  const { items, next } = wallets(deps).positions(params.wallet_address, query.min_value_usd, query.limit, after);
  return page(items, { next_cursor: next ? codec.encode({ ...filters, after: next }) : null, has_more: next !== null });
}

export const dailyPnlQuery = z.object({ days: integer(1, 90).default(30) });

/** GET /wallets/{wallet}/daily_pnl (row 26): one row per UTC day, oldest first, today last. */
export function dailyPnlRoute({ params, query, deps }: RouteContext<{ wallet_address: string }, z.output<typeof dailyPnlQuery>>) {
  return wallets(deps).dailyPnl(params.wallet_address, query.days);
}

export const tradersQuery = z.object({ sort: oneOf(['pnl_usd', 'volume_usd']).default('pnl_usd'), label: labelName.optional(), limit: limit(50, 100), cursor });
const tradersCursor = z.object({ token: z.string(), sort: z.string(), label: z.string().nullable(), after: rankPosition });

/** GET /tokens/{token}/traders (row 5): the token's top traders; 404 for an unknown token. */
export function tradersRoute(ctx: RouteContext<{ token_address: string }, z.output<typeof tradersQuery>>) {
  const { params, query, deps } = ctx;
  // The label filter is Pro (DECISIONS.md row 5): 403/4033 below.
  if (query.label !== undefined) requirePlan(ctx, 'pro', 'label');
  const codec = cursorCodec('token_traders', tradersCursor, deps.cursorSecret!);
  const filters = { token: params.token_address, sort: query.sort, label: query.label ?? null };
  const after = cursorPosition(codec, query.cursor, filters, 'token_address, sort and label')?.after;
  const result = wallets(deps).traders(params.token_address, query.sort, query.label, query.limit, after);
  if (!result) throw notFound('token', params.token_address);
  return page(result.items, { next_cursor: result.next ? codec.encode({ ...filters, after: result.next }) : null, has_more: result.next !== null });
}

export const leaderboardQuery = z.object({
  window: oneOf(['1d', '7d', '30d']).default('7d'),
  sort: oneOf(['pnl_usd', 'win_rate_pct', 'volume_usd']).default('pnl_usd'),
  min_trade_count: integer(0, 1_000_000_000).optional(),
  min_volume_usd: decimal(0).optional(),
  min_win_rate_pct: decimal(0, 100).optional(),
  limit: limit(50, 100),
  cursor,
});
const leaderboardCursor = z.object({
  window: z.string(),
  sort: z.string(),
  min_trade_count: z.number().nullable(),
  min_volume_usd: z.number().nullable(),
  min_win_rate_pct: z.number().nullable(),
  after: rankPosition,
});

/** GET /wallets/leaderboard (row 20). */
export function leaderboardRoute({ query, deps }: RouteContext<unknown, z.output<typeof leaderboardQuery>>) {
  const codec = cursorCodec('wallet_leaderboard', leaderboardCursor, deps.cursorSecret!);
  const filters = {
    window: query.window,
    sort: query.sort,
    min_trade_count: query.min_trade_count ?? null,
    min_volume_usd: query.min_volume_usd ?? null,
    min_win_rate_pct: query.min_win_rate_pct ?? null,
  };
  const after = cursorPosition(codec, query.cursor, filters, 'window, sort and the filters')?.after;
  const { items, next } = wallets(deps).leaderboard(query.window, query.sort, query, query.limit, after);
  return page(items, { next_cursor: next ? codec.encode({ ...filters, after: next }) : null, has_more: next !== null });
}
