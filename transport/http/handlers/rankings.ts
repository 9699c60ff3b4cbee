import { z } from 'zod';
import { unavailable } from '../../../engine/errors.ts';
import type { RankingsQuery } from '../../../engine/query/index.ts';
import { FEED_NAMES, RANKING_WINDOWS, type FeedName, type RankingWindow } from '../../../engine/topics/index.ts';
import { page } from '../../envelope.ts';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { cursor, limit, oneOf } from '../params.ts';
import type { RouteContext, ServerDeps } from '../route.ts';

/**
 * Route 16, GET /tokens/rankings/{feed} (DECISIONS.md "Rankings"): the feed's rows as of
 * its last recompute, best first, a page at a time by rank; items are ranking entries
 * (SERVICE.md 2.11). The cursor is bound to the feed and the window.
 */

export const rankingsParams = z.object({ feed: oneOf(FEED_NAMES) });
export const rankingsQuery = z.object({ window: oneOf(RANKING_WINDOWS).default('1h'), limit: limit(50, 100), cursor });

const rankingsCursor = z.object({ feed: z.string(), window: z.string(), rank: z.number().int().nonnegative() });

function rankingsOf(deps: ServerDeps): RankingsQuery {
  if (!deps.query.rankings) throw unavailable('rankings are not available in this server');
  return deps.query.rankings;
}

export function rankingsRoute({ params, query, deps }: RouteContext<{ feed: FeedName }, z.output<typeof rankingsQuery>>) {
  const codec = cursorCodec('tokens.rankings', rankingsCursor, deps.cursorSecret!);
  const filters = { feed: params.feed, window: query.window as RankingWindow };
  const position = cursorPosition(codec, query.cursor, filters, 'feed and window');
  const result = rankingsOf(deps).rankings(params.feed, query.window, query.limit, position?.rank ?? 0);
  return page(result.items, { next_cursor: result.next ? codec.encode({ ...filters, rank: result.next.rank }) : null, has_more: result.next !== null });
}
