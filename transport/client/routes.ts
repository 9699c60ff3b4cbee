import type { z } from 'zod';
import type { Page } from '../envelope.ts';
import type { ROUTES } from '../http/index.ts';

/**
 * The HTTP methods of the client SDK: one entry per route, by name, naming a pattern of
 * the server's route table (transport/http/routes.ts). Everything else about a method
 * comes from that table's types: its path parameters (positional, in pattern order),
 * its query (the route's zod schema: keys and optionality of what it accepts, values
 * as the handler gets them: numbers, address arrays), its result (the handler's return
 * type; a Page is a list the client can walk) and whether it pages. A route added to
 * the table is one entry here; test/unit/client/routes.test.ts fails until it is, and
 * the type checker refuses a pattern the table does not have.
 *
 * Types only are imported from the server: this file, like the whole client, loads in a
 * browser with nothing of the server's code.
 */
export const HTTP_ROUTES = {
  health: '/health',
  market: { solPrice: '/v1/market/sol-price' },
  pools: {
    list: '/v1/pools',
    metrics: '/v1/pools/metrics',
    get: '/v1/pools/:pool_address',
    trades: '/v1/pools/:pool_address/trades',
    candles: '/v1/pools/:pool_address/candles',
  },
  tokens: {
    many: '/v1/tokens',
    search: '/v1/tokens/search',
    get: '/v1/tokens/:token_address',
    pools: '/v1/tokens/:token_address/pools',
    trades: '/v1/tokens/:token_address/trades',
    holderStats: '/v1/tokens/:token_address/holders/stats',
    holders: '/v1/tokens/:token_address/holders',
    bondingCurve: '/v1/tokens/:token_address/bonding_curve',
    traders: '/v1/tokens/:token_address/traders',
    rankings: '/v1/tokens/rankings/:feed',
    posts: '/v1/tokens/posts',
    signals: '/v1/tokens/signals',
  },
  wallets: {
    labeled: '/v1/wallets',
    activity: '/v1/wallets/activity',
    trades: '/v1/wallets/:wallet_address/trades',
    deployedTokens: '/v1/wallets/:wallet_address/deployed_tokens',
    leaderboard: '/v1/wallets/leaderboard',
    signals: '/v1/wallets/signals',
    performance: '/v1/wallets/:wallet_address/performance',
    positions: '/v1/wallets/:wallet_address/positions',
    dailyPnl: '/v1/wallets/:wallet_address/daily_pnl',
  },
} as const satisfies RouteTree;

type AnyRoute = (typeof ROUTES)[number];
/** The patterns of the route table whose types are known (every defineRoute entry). */
export type RoutePattern = AnyRoute extends infer R ? (R extends { pattern: infer P extends string; types?: unknown } ? ('types' extends keyof R ? P : never) : never) : never;
type RouteTree = { readonly [name: string]: RoutePattern | RouteTree };

type TypesOf<P extends string> = NonNullable<Extract<AnyRoute, { pattern: P; types?: unknown }>['types']>;

/** `/v1/pools/:pool_address/trades` → `['pool_address']`. */
export type PathNames<P extends string> = P extends `${string}/:${infer N}/${infer Rest}`
  ? [N, ...PathNames<`/${Rest}`>]
  : P extends `${string}/:${infer N}`
    ? [N]
    : [];

/** What a caller passes as a route's query: the keys the schema accepts (optional where it has a default or is optional), valued as parsed. */
export type QueryOf<P extends string> = TypesOf<P> extends { query: infer QS extends z.ZodType }
  ? { [K in keyof z.input<QS>]: K extends keyof z.output<QS> ? Exclude<z.output<QS>[K], undefined> : never }
  : never;

type Result<P extends string> = TypesOf<P> extends { result: infer R } ? Awaited<R> : never;

/** The items of a route that pages (its handler returns a Page), or never. */
export type ItemOf<P extends string> = Result<P> extends Page<infer T> ? T : never;

/** The `data` of a route that does not page. */
export type DataOf<P extends string> = Result<P> extends Page<unknown> ? never : Result<P>;

/** Whether the route's result is a list that pages. */
export type IsPaged<P extends string> = Result<P> extends Page<unknown> ? true : false;

/** Positional path arguments of a pattern, named as its parameters. */
export type PathArgs<P extends string> = StringsFor<PathNames<P>>;
type StringsFor<N extends unknown[]> = N extends [unknown, ...infer R] ? [string, ...StringsFor<R>] : [];
