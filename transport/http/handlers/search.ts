import { SEARCH_Q_CHARS_MAX } from '../../../engine/bounds.ts';
import { SEARCH_WINDOWS, type SearchWindow } from '../../../engine/model/index.ts';
import { z } from 'zod';
import { unavailable } from '../../../engine/errors.ts';
import type { QuotePrices, ResearchFeed, ResearchPage, SearchMatch, SearchSort } from '../../../engine/query/index.ts';
import { page } from '../../envelope.ts';
import { cursorCodec, cursorPosition, type CursorCodec } from '../cursor.ts';
import { cursor, limit, oneOf, order } from '../params.ts';
import type { RouteContext, ServerDeps } from '../route.ts';

/**
 * GET /v1/tokens/search (DECISIONS.md route 1; SERVICE.md 2.2 items). Choices where
 * the spec is open, also in the OpenAPI description:
 * - `q` is optional, at most 100 characters; absent or blank lists every token. A
 *   mint address of a known token returns that token whatever `match` says.
 * - `order` defaults to desc for every sort: best match, largest number, newest first.
 *   Ties go by token_address ascending.
 * - `window` (5m, 1h, 6h, 24h) sets the period of volume_quote, volume_usd, buy_count
 *   and sell_count, and what sort=volume_usd orders by; absent, they are all-time.
 *   trader_count is all-time either way. These, and the ATH, are the token's over
 *   every pool where it is the base; price, market cap and liquidity its main pool's.
 * - The cursor is bound to q, match, sort, order and window: reused with other values
 *   it is a 400 naming `cursor`. It also carries the quote prices the first page was
 *   ordered at, so USD sorts keep their order across pages while SOL moves.
 */

export const SEARCH_SORTS = ['relevance', 'market_cap_usd', 'volume_usd', 'liquidity_usd', 'trader_count', 'created_at'] as const;
export const SEARCH_MATCHES = ['smart', 'exact', 'prefix'] as const;

export const tokenSearchQuery = z.object({
  q: z.string().max(SEARCH_Q_CHARS_MAX, `at most ${SEARCH_Q_CHARS_MAX} characters`).default(''),
  match: oneOf(SEARCH_MATCHES).default('smart'),
  sort: oneOf(SEARCH_SORTS).default('relevance'),
  order: order('desc'),
  window: oneOf(SEARCH_WINDOWS).optional(),
  limit: limit(20, 100),
  cursor,
});

type SearchQueryParams = z.output<typeof tokenSearchQuery>;

/** The research read models; 503 in a server started without an engine. */
export function research(deps: ServerDeps): ResearchFeed {
  if (!deps.query.research) throw unavailable('research data is not available in this server');
  return deps.query.research;
}

/** The quote prices a first page was ordered at ([wSOL, USDC, USDT]); engine/query/search.ts. */
export const cursorPrices = z.tuple([z.number().nullable(), z.number().nullable(), z.number().nullable()]);

/**
 * A research page (search, pool list): its next_cursor carries the filters it was
 * made for, the prices the first page was ordered at and the last position.
 */
export function researchPage<T, P, C extends { prices: QuotePrices; after: P }>(result: ResearchPage<T, P>, codec: CursorCodec<C>, filters: Omit<C, 'prices' | 'after'>) {
  return page(result.items, {
    next_cursor: result.next ? codec.encode({ ...filters, prices: result.prices, after: result.next } as C) : null,
    has_more: result.next !== null,
  });
}

const searchCursor = z.object({
  q: z.string(),
  match: z.string(),
  sort: z.string(),
  order: z.string(),
  window: z.string().nullable(),
  prices: cursorPrices,
  after: z.object({ key: z.number(), token_address: z.string() }),
});

export function tokenSearchRoute({ query, deps }: RouteContext<unknown, SearchQueryParams>) {
  const feed = research(deps);
  const codec = cursorCodec('tokens.search', searchCursor, deps.cursorSecret!);
  const filters = { q: query.q, match: query.match, sort: query.sort, order: query.order, window: query.window ?? null };
  const position = cursorPosition(codec, query.cursor, filters, 'q, match, sort, order and window');
  const result = feed.searchTokens({
    q: query.q,
    match: query.match as SearchMatch,
    sort: query.sort as SearchSort,
    order: query.order,
    window: query.window as SearchWindow | undefined,
    limit: query.limit,
    after: position?.after,
    prices: position?.prices,
  });
  return researchPage(result, codec, filters);
}
