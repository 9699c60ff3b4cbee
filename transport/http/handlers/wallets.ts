import type { RouteContext } from '../route.ts';
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
