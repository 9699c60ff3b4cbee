import { z } from 'zod';
import { notFound } from '../../../engine/errors.ts';
import { page } from '../../envelope.ts';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { cursor, limit } from '../params.ts';
import type { RouteContext } from '../route.ts';
import { market, tradesPage } from './pools.ts';

export function tokenOverview({ params, deps }: RouteContext<{ token_address: string }, unknown>) {
  const token = market(deps).tokens.token(params.token_address);
  if (!token) throw notFound('token', params.token_address);
  return token;
}

/**
 * GET /tokens/{token}/pools (DECISIONS.md route 11): pages like every list (limit 1..100,
 * default 50). The cursor carries the last pool's rank (where the token is base or
 * quote, its liquidity, its address) and is bound to the token; the next page takes the
 * pools ranked after it now, so a pool whose liquidity moved across it meanwhile may
 * be shown twice or not at all, as in /pools sorted by liquidity.
 */
export const tokenPoolsQuery = z.object({ limit: limit(50, 100), cursor });

const tokenPoolsCursor = z.object({
  token: z.string(),
  after: z.object({ base: z.number(), value: z.number(), pool_address: z.string() }),
});

export function tokenPools({ params, query, deps }: RouteContext<{ token_address: string }, z.output<typeof tokenPoolsQuery>>) {
  const tokens = market(deps).tokens;
  if (!tokens.token(params.token_address)) throw notFound('token', params.token_address);
  const codec = cursorCodec('tokens.pools', tokenPoolsCursor, deps.cursorSecret!);
  const position = cursorPosition(codec, query.cursor, { token: params.token_address }, 'token_address');
  const { items, next } = tokens.tokenPoolList(params.token_address, query.limit, position?.after);
  return page(items, { next_cursor: next ? codec.encode({ token: params.token_address, after: next }) : null, has_more: next !== null });
}

export function tokenTradesRoute({ params, query, deps }: RouteContext<{ token_address: string }, { start_time?: number; order: 'asc' | 'desc'; limit: number; cursor?: string }>) {
  const m = market(deps);
  return tradesPage(deps, 'token_trades', params.token_address, query, (after) =>
    m.tokens.tokenExists(params.token_address) ? m.trades.tokenTrades(params.token_address, { startTime: query.start_time, order: query.order, limit: query.limit, after }) : null,
  );
}

/** GET /tokens?addresses=: known tokens, in the order asked; unknown ones left out. */
export function tokensMany({ query, deps }: RouteContext<unknown, { addresses: string[] }>) {
  const tokens = market(deps).tokens;
  return query.addresses.map((a) => tokens.token(a)).filter((x) => x !== null);
}
