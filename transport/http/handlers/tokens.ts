import { notFound } from '../../../engine/errors.ts';
import type { RouteContext } from '../route.ts';
import { market, tradesPage } from './pools.ts';

export function tokenOverview({ params, deps }: RouteContext<{ token_address: string }, unknown>) {
  const token = market(deps).token(params.token_address);
  if (!token) throw notFound('token', params.token_address);
  return token;
}

export function tokenPools({ params, deps }: RouteContext<{ token_address: string }, unknown>) {
  const m = market(deps);
  if (!m.token(params.token_address)) throw notFound('token', params.token_address);
  return m.tokenPoolList(params.token_address);
}

export function tokenTradesRoute({ params, query, deps }: RouteContext<{ token_address: string }, { start_time?: number; order: 'asc' | 'desc'; limit: number; cursor?: string }>) {
  const m = market(deps);
  return tradesPage(deps, 'token_trades', params.token_address, query, (after) =>
    m.tokenExists(params.token_address) ? m.tokenTrades(params.token_address, { startTime: query.start_time, order: query.order, limit: query.limit, after }) : null,
  );
}

/** GET /tokens?addresses=: known tokens, in the order asked; unknown ones left out. */
export function tokensMany({ query, deps }: RouteContext<unknown, { addresses: string[] }>) {
  const m = market(deps);
  return query.addresses.map((a) => m.token(a)).filter((x) => x !== null);
}
