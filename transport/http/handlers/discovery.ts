import { z } from 'zod';
import { unavailable } from '../../../engine/errors.ts';
import type { DiscoveryReads } from '../../../engine/query/index.ts';
import { page } from '../../envelope.ts';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { address, addressList, cursor, decimal, labelName, limit, startTime } from '../params.ts';
import { requirePlan, type RouteContext, type ServerDeps } from '../route.ts';

/**
 * Routes 18, 19 and 21 (DECISIONS.md; Pro and Scale: the route table's minPlan answers
 * 403/4033 below): tracked posts, labeled wallets and labeled activity, read from the
 * stores the engine writes as events apply (engine/query posts.ts, labeled-wallets.ts,
 * activity.ts). Every list is newest first (wallets: by address), a page at a time,
 * the cursor bound to the filters.
 */

/** The stores, for a Pro or Scale caller (also where no limits hook checks the route's minPlan first). */
function discovery(ctx: { deps: ServerDeps; plan: RouteContext<unknown, unknown>['plan'] }, route: string): DiscoveryReads {
  requirePlan(ctx, 'pro', route);
  const deps = ctx.deps;
  if (!deps.query.discovery) throw unavailable('posts and labeled wallets are not available in this server');
  return deps.query.discovery;
}

/** A post author as `social_post` events carry it (1 to 256 characters). */
const author = z.string().min(1, 'must not be empty').max(256, 'longer than 256 characters');

export const postsQuery = z.object({ token_address: address.optional(), author: author.optional(), start_time: startTime, limit: limit(50, 100), cursor });
const postsCursor = z.object({ token: z.string().nullable(), author: z.string().nullable(), start: z.number().nullable(), at: z.number(), post_id: z.string() });

/** Route 18, GET /tokens/posts: posts newest first; token_address, author and start_time filter. */
export function postsRoute(ctx: RouteContext<unknown, z.output<typeof postsQuery>>) {
  const { query, deps } = ctx;
  const store = discovery(ctx, 'GET /v1/tokens/posts');
  const codec = cursorCodec('tokens.posts', postsCursor, deps.cursorSecret!);
  const filters = { token: query.token_address ?? null, author: query.author ?? null, start: query.start_time ?? null };
  const position = cursorPosition(codec, query.cursor, filters, 'token_address, author and start_time');
  const result = store.posts.list(query, query.limit, position);
  return page(result.items, { next_cursor: result.next ? codec.encode({ ...filters, ...result.next }) : null, has_more: result.next !== null });
}

export const labeledWalletsQuery = z.object({ label: labelName.optional(), limit: limit(50, 100), cursor });
const labeledWalletsCursor = z.object({ label: z.string().nullable(), wallet: z.string() });

/** Route 19, GET /wallets: wallets with a label in force (of `label`, or any), by address, with their labels and details. */
export function labeledWalletsRoute(ctx: RouteContext<unknown, z.output<typeof labeledWalletsQuery>>) {
  const { query, deps } = ctx;
  const store = discovery(ctx, 'GET /v1/wallets');
  const codec = cursorCodec('wallets.labeled', labeledWalletsCursor, deps.cursorSecret!);
  const filters = { label: query.label ?? null };
  const position = cursorPosition(codec, query.cursor, filters, 'label');
  const result = store.labeled.list(query.label, query.limit, position?.wallet);
  return page(result.items, { next_cursor: result.next ? codec.encode({ ...filters, wallet: result.next }) : null, has_more: result.next !== null });
}

export const activityQuery = z
  .object({
    label: labelName.optional(),
    wallets: addressList(100).optional(),
    min_market_cap_usd: decimal(0).optional(),
    max_market_cap_usd: decimal(0).optional(),
    start_time: startTime,
    limit: limit(50, 100),
    cursor,
  })
  .superRefine((value, ctx) => {
    if (value.min_market_cap_usd !== undefined && value.max_market_cap_usd !== undefined && value.max_market_cap_usd < value.min_market_cap_usd) {
      ctx.addIssue({ code: 'custom', path: ['max_market_cap_usd'], message: 'must not be below min_market_cap_usd', input: value.max_market_cap_usd });
    }
  });
const activityCursor = z.object({
  label: z.string().nullable(),
  wallets: z.string().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  start: z.number().nullable(),
  key: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  pool: z.string(),
});

/**
 * Route 21, GET /wallets/activity: labeled trades newest first (label: of one label;
 * default every label), or with `wallets` the trades of the caller's own wallets,
 * labeled or not; a market cap range in USD at the trade; start_time as the trade lists.
 */
export function activityRoute(ctx: RouteContext<unknown, z.output<typeof activityQuery>>) {
  const { query, deps } = ctx;
  const store = discovery(ctx, 'GET /v1/wallets/activity');
  const codec = cursorCodec('wallets.activity', activityCursor, deps.cursorSecret!);
  const filters = {
    label: query.label ?? null,
    wallets: query.wallets?.join(',') ?? null,
    min: query.min_market_cap_usd ?? null,
    max: query.max_market_cap_usd ?? null,
    start: query.start_time ?? null,
  };
  const position = cursorPosition(codec, query.cursor, filters, 'label, wallets, the market cap range and start_time');
  const result = store.activity.list(query, query.limit, position);
  return page(result.items, { next_cursor: result.next ? codec.encode({ ...filters, key: result.next.key, pool: result.next.pool }) : null, has_more: result.next !== null });
}
