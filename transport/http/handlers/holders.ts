import { z } from 'zod';
import { notFound, unavailable } from '../../../engine/errors.ts';
import type { HoldersQuery } from '../../../engine/query/index.ts';
import { page } from '../../envelope.ts';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { cursor, labelName, limit } from '../params.ts';
import { requirePlan, type RouteContext, type ServerDeps } from '../route.ts';

/**
 * DECISIONS.md routes 3, 4, 6 and 27: holder stats, the holder list, the launch curve
 * and a wallet's deployed tokens (engine/query/holders.ts reads them).
 */

/** The holder reads; 503 in a server started without an engine. */
function holdersQuery(deps: ServerDeps): HoldersQuery {
  if (!deps.query.holders) throw unavailable('holder data is not available in this server');
  return deps.query.holders;
}

const label = labelName.optional();

export const holdersQuerySchema = z.object({ label, limit: limit(50, 100), cursor });
export const deployedTokensQuery = z.object({ limit: limit(50, 100), cursor });

export function holderStatsRoute({ params, deps }: RouteContext<{ token_address: string }, unknown>) {
  const stats = holdersQuery(deps).holderStats(params.token_address);
  if (!stats) throw notFound('token', params.token_address);
  return stats;
}

const holdersCursor = z.object({ token: z.string(), label: z.string().nullable(), since: z.number().int().nonnegative(), balance: z.number().positive(), wallet: z.string() });

/**
 * GET /tokens/{token}/holders: largest first; `label` (Pro and Scale) keeps holders
 * with that label. The cursor is bound to the token and the label.
 */
export function holdersRoute(ctx: RouteContext<{ token_address: string }, z.output<typeof holdersQuerySchema>>) {
  const { params, query, deps } = ctx;
  if (query.label !== undefined) requirePlan(ctx, 'pro', 'label');
  const codec = cursorCodec('tokens.holders', holdersCursor, deps.cursorSecret!);
  const filters = { token: params.token_address, label: query.label ?? null };
  const position = cursorPosition(codec, query.cursor, filters, 'token_address and label');
  const result = holdersQuery(deps).holders(params.token_address, { limit: query.limit, label: query.label, after: position });
  if (!result) throw notFound('token', params.token_address);
  return page(result.items, { next_cursor: result.next ? codec.encode({ ...filters, ...result.next }) : null, has_more: result.next !== null });
}

export function bondingCurveRoute({ params, deps }: RouteContext<{ token_address: string }, unknown>) {
  const curve = holdersQuery(deps).bondingCurve(params.token_address);
  if (curve === undefined) throw notFound('token', params.token_address);
  if (curve === null) throw notFound('bonding curve of token', params.token_address);
  return curve;
}

const deployedCursor = z.object({ wallet: z.string(), after: z.string() });

/** GET /wallets/{wallet}/deployed_tokens: newest first; a wallet that created none has an empty list. */
export function deployedTokensRoute({ params, query, deps }: RouteContext<{ wallet_address: string }, z.output<typeof deployedTokensQuery>>) {
  const codec = cursorCodec('wallets.deployed_tokens', deployedCursor, deps.cursorSecret!);
  const position = cursorPosition(codec, query.cursor, { wallet: params.wallet_address }, 'wallet_address');
  const result = holdersQuery(deps).deployedTokens(params.wallet_address, query.limit, position?.after);
  return page(result.items, { next_cursor: result.next ? codec.encode({ wallet: params.wallet_address, after: result.next }) : null, has_more: result.next !== null });
}
