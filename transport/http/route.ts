import { z } from 'zod';
import { PLAN_NAMES, type Config, type PlanName } from '../../engine/config.ts';
import { EngineError } from '../../engine/errors.ts';
import type { Account, KeyStore, SessionStore } from '../../engine/plans/index.ts';
import type { Logger } from '../../engine/log.ts';
import type { Metrics } from '../../engine/metrics.ts';
import type { Query } from '../../engine/query/index.ts';

/** What the server is built from; handlers get it as `ctx.deps`. */
export interface ServerDeps {
  config: Config;
  log: Logger;
  query: Query;
  keys: KeyStore;
  metrics: Metrics;
  /**
   * Key of the paging cursors' tags. The service passes the one kept in its data
   * directory, so cursors survive a restart; without one, a random key per process.
   */
  cursorSecret?: Buffer;
  /**
   * Web terminal sessions: with them, a request without an Authorization header is
   * authorized by its session cookie, from this origin only (session-cookie.ts).
   */
  sessions?: SessionStore;
}

export interface RouteContext<P, Q> {
  /** Path parameters, percent-decoded and validated by the route's `params` schema. */
  params: P;
  /** Query parameters, validated by the route's `query` schema. */
  query: Q;
  /** The caller's account on `auth` routes (expired keys included); null on open routes. */
  account: Account | null;
  /**
   * The plan in force for this request: the limits hook's (expiry and the grace period
   * counted: Admission.plan); without such a hook, the key's own plan; null on open routes.
   */
  plan: PlanName | null;
  deps: ServerDeps;
}

/**
 * For a parameter only some plans may use (DECISIONS.md's `label (Pro)`): throws
 * 403/4033 PLAN_REQUIRED naming it when the request's plan is below `minPlan`.
 */
export function requirePlan(ctx: { plan: PlanName | null }, minPlan: PlanName, param: string): void {
  const plan = ctx.plan ?? 'free';
  if (PLAN_NAMES.indexOf(plan) < PLAN_NAMES.indexOf(minPlan)) {
    throw new EngineError(4033, `${param}: needs the ${minPlan} plan or above; this key is on ${plan}`, { details: { param } });
  }
}

/**
 * What a handler returns: plain data (the success envelope's `data`), a `Page` (adds
 * pagination) or a `RawBody`; or a promise of one. Throw an EngineError to fail.
 */
export type RouteHandler<P, Q> = (ctx: RouteContext<P, Q>) => unknown;

// Object schemas of any shape and unknown-key mode; defineRoute makes them strict.
type ObjectSchema = z.ZodObject<z.core.$ZodShape, z.core.$ZodObjectConfig>;
type EmptySchema = z.ZodObject<{}, z.core.$strict>;

export interface RouteSpec<PS extends ObjectSchema, QS extends ObjectSchema, P extends string = string, R = unknown> {
  /** uWS pattern: `/v1/pools/:pool_address`. Every `:name` needs a key in `params`. */
  pattern: P;
  /** true: `Authorization: Bearer <key>` required (every /v1 route). */
  auth: boolean;
  /** Path parameters by name; omitted for a pattern without any. */
  params?: PS;
  /** Query parameters; omitted for a route that takes none (any parameter is then a 400). */
  query?: QS;
  /**
   * The least plan that may call the route (`pro` for DECISIONS.md's "Pro" rows: Pro
   * and Scale); omitted for every plan. The limits hook answers 403/4033 below it.
   */
  minPlan?: PlanName;
  handler: (ctx: RouteContext<z.output<PS>, z.output<QS>>) => R;
  /**
   * A version of everything the response depends on, computed cheaply before the
   * handler (actor seqs, a time bucket): a route with one caches its successful
   * responses by URL and serves the cached body while the version is unchanged.
   * null: do not cache this request.
   */
  version?: (ctx: RouteContext<z.output<PS>, z.output<QS>>) => string | null;
}

/** A route of the table, types erased. */
export interface Route {
  readonly method: 'GET';
  readonly pattern: string;
  readonly auth: boolean;
  /** Names of the pattern's `:params`, in order: `req.getParameter(i)` is `paramNames[i]`. */
  readonly paramNames: readonly string[];
  readonly params: ObjectSchema;
  readonly query: ObjectSchema;
  /** The least plan that may call it; undefined for every plan. */
  readonly minPlan: PlanName | undefined;
  readonly handler: RouteHandler<any, any>;
  readonly version?: (ctx: RouteContext<any, any>) => string | null;
}

/**
 * A route as defineRoute returns it: a Route whose pattern, schemas and handler result
 * stay in its type, so that the client SDK (transport/client) types its methods from
 * the route table itself, with nothing copied by hand. `types` is never set: it exists
 * for the type checker only.
 */
export interface TypedRoute<P extends string, PS extends ObjectSchema, QS extends ObjectSchema, R> extends Route {
  readonly pattern: P;
  readonly types?: { params: PS; query: QS; result: R };
}

const PARAM = /\/:([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * One entry of the route table. Schemas are made strict here, so an unknown parameter
 * is always a 400 even if a route forgets `.strict()`; a pattern whose `:params` do not
 * match the params schema's keys throws at start-up.
 */
export function defineRoute<const P extends string, PS extends ObjectSchema = EmptySchema, QS extends ObjectSchema = EmptySchema, R = unknown>(
  spec: RouteSpec<PS, QS, P, R>,
): TypedRoute<P, PS, QS, R> {
  if (!spec.pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${spec.pattern}`);
  const paramNames = [...spec.pattern.matchAll(PARAM)].map((m) => m[1]!);
  const params: ObjectSchema = spec.params ?? z.object({});
  const declared = Object.keys(params.shape).sort();
  if (declared.join() !== [...paramNames].sort().join()) {
    throw new Error(`route ${spec.pattern}: params schema keys [${declared}] do not match the pattern [${paramNames}]`);
  }
  return {
    method: 'GET',
    pattern: spec.pattern,
    auth: spec.auth,
    paramNames,
    params: params.strict(),
    query: (spec.query ?? z.object({})).strict(),
    minPlan: spec.minPlan,
    handler: spec.handler as RouteHandler<any, any>,
    version: spec.version as Route['version'],
  };
}

/**
 * What a `beforeHandle` hook decides for one request. The seam for per-key rate limits,
 * in-flight limits, monthly quotas and plan checks (issue of the plans).
 */
export interface Admission {
  /** Headers for the response, whatever it turns out to be: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Quota-Remaining, Retry-After. */
  headers?: Readonly<Record<string, string>>;
  /** Answer with this error instead of running the route (4290 RATE_LIMITED, 4033 PLAN_REQUIRED...). */
  reject?: EngineError;
  /** Runs exactly once, after the response is written or the client aborted: releases an in-flight slot. */
  done?: () => void;
  /** The plan in force for the request (handlers read it as `ctx.plan`: a parameter only some plans may use). */
  plan?: PlanName;
}

/**
 * Runs for every matched route after authentication and before parameters are
 * validated (so malformed requests count against limits too), in list order; the
 * first `reject` wins, and hooks after it do not run. Synchronous by design: it runs
 * on every request.
 */
export type BeforeHandle = (request: { account: Account | null; route: Route }) => Admission | void;
