import { z } from 'zod';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { address, cursor, limit, oneOf, order } from '../params.ts';
import type { RouteContext } from '../route.ts';
import { cursorPrices, research, researchPage } from './search.ts';

/**
 * GET /v1/pools (DECISIONS.md route 12): pools of a base token (`base_address`), of a
 * quote asset (`quote_address`), of a pair (both), or all of them, newest first by
 * default. Choices where the spec is open, also in the OpenAPI description:
 * - sort created_at (default), liquidity_usd (liquidity_quote at the quote's current
 *   USD price; pools without one sort as 0) or volume_usd (all time, each trade at its
 *   own USD price: it never decays, so pages of it are as stable as the data allows);
 *   order defaults to desc; ties go by pool_address in the same direction.
 * - Items: the pool object of SERVICE.md 2.11 with pool_address, the base token's
 *   token_address/symbol/name/image_url, the snapshot (2.3), all-time volume_quote,
 *   volume_usd (null without a USD price), trade_count, replaced_by_pool_address.
 * - limit 1..100, default 50; the cursor is bound to base_address, quote_address,
 *   sort and order (a 400 naming `cursor` otherwise).
 */

export const POOL_SORTS = ['created_at', 'liquidity_usd', 'volume_usd'] as const;

export const poolListQuery = z.object({
  base_address: address.optional(),
  quote_address: address.optional(),
  sort: oneOf(POOL_SORTS).default('created_at'),
  order: order('desc'),
  limit: limit(50, 100),
  cursor,
});

type PoolListParams = z.output<typeof poolListQuery>;

const poolCursor = z.object({
  base: z.string().nullable(),
  quote: z.string().nullable(),
  sort: z.string(),
  order: z.string(),
  prices: cursorPrices,
  after: z.object({ key: z.number(), pool_address: z.string() }),
});

export function poolListRoute({ query, deps }: RouteContext<unknown, PoolListParams>) {
  const feed = research(deps);
  const codec = cursorCodec('pools.list', poolCursor, deps.cursorSecret!);
  const filters = { base: query.base_address ?? null, quote: query.quote_address ?? null, sort: query.sort, order: query.order };
  const position = cursorPosition(codec, query.cursor, filters, 'base_address, quote_address, sort and order');
  const result = feed.listPools({
    base: query.base_address,
    quote: query.quote_address,
    sort: query.sort,
    order: query.order,
    limit: query.limit,
    after: position?.after,
    prices: position?.prices,
  });
  return researchPage(result, codec, filters);
}
