import { z } from 'zod';
import { unavailable } from '../../../engine/errors.ts';
import { TOKEN_SIGNAL_KINDS, type TokenSignalKind } from '../../../engine/model/index.ts';
import { SIGNAL_WINDOWS_MS, type SignalsQuery, type SignalWindow, type WalletSignalFilters } from '../../../engine/query/index.ts';
import { page } from '../../envelope.ts';
import { cursorCodec, cursorPosition } from '../cursor.ts';
import { address, addressList, cursor, decimal, integer, limit, oneOf, startTime } from '../params.ts';
import { requirePlan, type RouteContext, type ServerDeps } from '../route.ts';

/**
 * Routes 17 and 22 (DECISIONS.md; formulas and thresholds: actors/signals/SIGNALS.md and
 * the OpenAPI description), newest first, Pro and Scale only, over the signals store.
 * The cursor holds the last item's (at, tie-break) and is bound to the filters.
 */

function signals(deps: ServerDeps): SignalsQuery {
  if (!deps.query.signals) throw unavailable('signals are not available in this server');
  return deps.query.signals;
}

const position = z.object({ f: z.string(), at: z.number(), tie: z.string(), from: z.number().optional() });

/**
 * Pro-only (SERVICE.md 5.5): the limits hook answers 403 first from the route's minPlan;
 * a server without that hook (embedded) still never serves these below Pro.
 */
const proOnly = (ctx: { plan: RouteContext<unknown, unknown>['plan'] }, route: string) => requirePlan(ctx, 'pro', route);

export const tokenSignalsQuery = z.object({
  token_address: address.optional(),
  start_time: startTime,
  kind: oneOf(TOKEN_SIGNAL_KINDS).optional(),
  limit: limit(50, 100),
  cursor,
});

/**
 * GET /tokens/signals: with token_address every signal of that token, without it the
 * latest signal of each token (SERVICE.md 4.2), of `kind` when given, at or after
 * start_time.
 */
export function tokenSignalsRoute(ctx: RouteContext<Record<string, never>, z.output<typeof tokenSignalsQuery>>) {
  proOnly(ctx, 'GET /v1/tokens/signals');
  const { query, deps } = ctx;
  const codec = cursorCodec('tokens.signals', position, deps.cursorSecret!);
  const f = JSON.stringify([query.token_address ?? null, query.kind ?? null, query.start_time ?? null]);
  const before = cursorPosition(codec, query.cursor, { f }, 'token_address, kind and start_time');
  const result = signals(deps).tokenSignals({ token: query.token_address, kind: query.kind as TokenSignalKind | undefined, startTime: query.start_time ?? 0, limit: query.limit, before });
  return page(result.items, { next_cursor: result.next ? codec.encode({ f, ...result.next }) : null, has_more: result.next !== null });
}

const usd = decimal(0);

export const walletSignalsQuery = z.object({
  window: oneOf(Object.keys(SIGNAL_WINDOWS_MS) as [SignalWindow, ...SignalWindow[]]).default('1h'),
  wallets: addressList(100).optional(),
  token_address: address.optional(),
  min_wallets: integer(1, 100).optional(),
  min_profit_usd: usd.optional(),
  min_cost_usd: usd.optional(),
  max_hold_time_ms: integer(0, Number.MAX_SAFE_INTEGER).optional(),
  min_entry_market_cap_usd: usd.optional(),
  max_entry_market_cap_usd: usd.optional(),
  include_bots: oneOf(['true', 'false']).default('false'),
  limit: limit(50, 100),
  cursor,
});

/** GET /wallets/signals: the wallet kinds within the window, every filter of DECISIONS.md row 22 (engine/query/signals.ts). */
export function walletSignalsRoute(ctx: RouteContext<Record<string, never>, z.output<typeof walletSignalsQuery>>) {
  proOnly(ctx, 'GET /v1/wallets/signals');
  const { query, deps } = ctx;
  const { limit: pageSize, cursor: token, include_bots, ...rest } = query;
  const filters: WalletSignalFilters = { ...rest, window: rest.window as SignalWindow, include_bots: include_bots === 'true' };
  const codec = cursorCodec('wallets.signals', position, deps.cursorSecret!);
  const f = JSON.stringify(filters);
  const before = cursorPosition(codec, token, { f }, 'filters and window');
  const q = signals(deps);
  const from = before?.from ?? q.windowStart(filters.window);
  const result = q.walletSignals(filters, from, pageSize, before);
  return page(result.items, { next_cursor: result.next ? codec.encode({ f, from, ...result.next }) : null, has_more: result.next !== null });
}
