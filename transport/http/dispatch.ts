import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { z } from 'zod';
import type { PlanName } from '../../engine/config.ts';
import { EngineError, invalidApiKey, unauthenticated } from '../../engine/errors.ts';
import type { Account, KeyStore, SessionStore } from '../../engine/plans/index.ts';
import { headerLines, RawBody, render, renderError, responseHead, writeResponse, type Outgoing } from '../envelope.ts';
import { acceptedEncoding, compress, COMPRESS_MIN_BYTES, type Encoded, type Encoding } from './compression.ts';
import { bearerToken, decodePathParams, parseQueryString, validate } from './request.ts';
import { ResponseCache, type CachedResponse } from './response-cache.ts';
import { sessionAccount, sessionHeaders, type SessionHeaders } from './session-cookie.ts';
import type { Admission, BeforeHandle, Route, RouteContext, ServerDeps } from './route.ts';

/**
 * Glue between uWS and the route table: one uWS GET handler per route plus a
 * catch-all 404. uWS rules this file keeps (a violation kills the process):
 * - `req` is read only synchronously inside the uWS handler (`serve` up to the route
 *   handler call); everything needed later is copied out into strings first;
 * - every response has `res.onAborted` registered before the uWS handler returns: a
 *   no-op one before a write inside the handler, the real one (`Exchange.leaveHandler`)
 *   when the handler leaves the response open; nothing is written to an aborted or
 *   already ended response;
 * - every write sequence is one `res.cork` (`writeResponse`).
 *
 * The hot path (a cached body, or a handler that returns a value, not a promise) runs
 * entirely inside the uWS handler: no promise and no closure per request.
 * @internal
 */

/** Metrics label of responses that matched no route (bounded label cardinality). */
export const UNMATCHED = 'unmatched';

/** A URL as a message shows it: bounded, since it is echoed to the client and logs. */
const shownUrl = (url: string): string => (url.length > 256 ? `${url.slice(0, 256)}...` : url);

const VARY = '\r\nvary: accept-encoding';
const BR = '\r\ncontent-encoding: br';
const GZIP = '\r\ncontent-encoding: gzip';
/** Compressed copies of the fixed documents (a handler's RawBody returned again and again: /openapi.json, the Redoc bundle). */
const rawEncoded = new WeakMap<RawBody, Encoded>();

/** The abort handler of a response written inside the uWS handler (see Exchange.write). */
const ignoreAbort = (): void => {};

/** One request's response: written at most once, counted once, hooks released once. */
class Exchange {
  private aborted = false;
  private ended = false;
  /** True while the uWS handler runs. */
  private inHandler = true;
  /** The admissions' headers as head lines (`\r\nName: value`...), made once at admission. */
  private headLines = '';
  private done: (() => void) | null = null;
  private moreDone: Array<() => void> | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly deps: ServerDeps,
    private readonly routeLabel: string,
    private readonly url: string,
    /** Labels of a successful response of this route: one object per route, not per request. */
    private readonly okLabels: { route: string; code: string },
    /** A HEAD request: answered as its GET, without the body. */
    private readonly bodyless = false,
    /** What the request's Accept-Encoding takes (compression.ts); null: plain. */
    private readonly encoding: Encoding | null = null,
  ) {}

  /**
   * Runs as the uWS handler returns: a response not written yet gets its abort handler
   * now, before any asynchronous work can write to it.
   */
  leaveHandler(): void {
    this.inHandler = false;
    if (this.ended) return;
    this.res.onAborted(() => {
      this.aborted = true;
      this.deps.log.debug({ route: this.routeLabel }, 'client aborted before the response');
      this.release();
    });
  }

  /**
   * Headers are turned into head lines here, once: a hook may reuse its headers object
   * for the next request. Headers of two hooks are all sent (only the limits hook sets any).
   */
  admit(admission: Admission): void {
    if (admission.headers) this.headLines += headerLines(admission.headers);
    if (admission.done) {
      if (this.done === null) this.done = admission.done;
      else (this.moreDone ??= []).push(admission.done);
    }
  }

  /** A rendered response; `encoded`: where its compressed copies are kept (a fixed document's). */
  sendOut(out: Outgoing, encoded: Encoded | null = null): void {
    this.write(responseHead(out.status, out.contentType), out.body, out.code, encoded);
  }

  /** A cached success; its compressed copies are kept with it. */
  sendCached(entry: CachedResponse): void {
    this.write(entry.head, entry.body, 0, (entry.encoded ??= {}));
  }

  fail(err: unknown): void {
    // Rendered (and an unknown throw logged) even when the client is gone.
    this.sendOut(renderError(err, this.deps.log, { route: this.routeLabel, url: shownUrl(this.url) }));
  }

  private write(head: string, body: string | Uint8Array, code: number, encoded: Encoded | null = null): void {
    if (!this.aborted && !this.ended) {
      this.ended = true;
      try {
        // A success of 1 KB or more: compressed when the client takes it (compression.ts).
        // A string's UTF-8 length is at least its length, so that test needs no encoding.
        if (code === 0 && (typeof body === 'string' ? body.length >= COMPRESS_MIN_BYTES || Buffer.byteLength(body) >= COMPRESS_MIN_BYTES : body.length >= COMPRESS_MIN_BYTES)) {
          head += VARY;
          const encoding = this.encoding;
          if (encoding !== null) {
            body = encoded ? (encoded[encoding] ??= compress(body, encoding)) : compress(body, encoding);
            head += encoding === 'br' ? BR : GZIP;
          }
        }
        // uWS kills the process when a handler returns with its response pending and no
        // abort handler, and `end` can leave it pending: a write past a full cork buffer
        // whose flush fails is not buffered in uWebSockets before 6b7f354 (2026-04). Seen
        // under pipelined load (1,000 requests in flight) when responses were written
        // without this. Nothing is left to release by then: one shared no-op will do.
        if (this.inHandler) this.res.onAborted(ignoreAbort);
        writeResponse(this.res, head + this.headLines, body, this.bodyless);
      } catch (err) {
        // Not expected (res is valid here); a half-written response must not stay open.
        this.deps.log.error({ err, route: this.routeLabel }, 'response could not be written');
        this.closeQuietly();
      }
      this.deps.metrics.httpRequests.inc(code === 0 ? this.okLabels : { route: this.routeLabel, code: String(code) });
    }
    this.release();
  }

  private closeQuietly(): void {
    try {
      this.res.close();
    } catch {
      // Already closed by uWS: nothing left to do.
    }
  }

  private release(): void {
    const done = this.done;
    const more = this.moreDone;
    this.done = null;
    this.moreDone = null;
    if (done !== null) this.runDone(done);
    if (more !== null) for (const fn of more) this.runDone(fn);
  }

  private runDone(done: () => void): void {
    try {
      done();
    } catch (err) {
      this.deps.log.error({ err, route: this.routeLabel }, 'beforeHandle done() threw');
    }
  }
}

/**
 * The caller's account: the Bearer key, or without an Authorization header the web
 * terminal's session cookie (session-cookie.ts), when sessions are served.
 */
function authenticate(header: string, keys: KeyStore, session: SessionHeaders | null = null, sessions: SessionStore | undefined = undefined): Account {
  if (header === '' && session !== null && sessions !== undefined) return sessionAccount(session, sessions);
  const key = bearerToken(header);
  if (key === null) throw unauthenticated();
  const account = keys.verify(key);
  if (account === null) throw invalidApiKey();
  return account;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';

/** One mounted route: what its uWS handler needs, made once. */
interface Mounted {
  route: Route;
  deps: ServerDeps;
  hooks: readonly BeforeHandle[];
  cache: ResponseCache | null;
  okLabels: { route: string; code: string };
}

/** After the handler: write the result, and keep it when it is cacheable. */
function finish(exchange: Exchange, m: Mounted, result: unknown, cacheKey: string | null, version: string | null, ctx: RouteContext<unknown, unknown>): void {
  let out: Outgoing;
  try {
    out = render(result);
  } catch (err) {
    // Not serializable (a BigInt, a cycle): a 5000, logged by fail.
    exchange.fail(err);
    return;
  }
  // render's results are all successes (code 0): failures throw and go through fail.
  if (version === null) {
    let encoded: Encoded | null = null;
    if (result instanceof RawBody) {
      encoded = rawEncoded.get(result) ?? null;
      if (encoded === null) rawEncoded.set(result, (encoded = {}));
    }
    exchange.sendOut(out, encoded);
    return;
  }
  const entry: CachedResponse = { version, head: responseHead(out.status, out.contentType), body: Buffer.from(out.body, 'utf8'), params: ctx.params, query: ctx.query };
  exchange.sendCached(entry);
  m.cache!.set(cacheKey!, entry);
}

async function finishAsync(exchange: Exchange, m: Mounted, pending: PromiseLike<unknown>, cacheKey: string | null, version: string | null, ctx: RouteContext<unknown, unknown>): Promise<void> {
  let result: unknown;
  try {
    result = await pending;
  } catch (err) {
    exchange.fail(err);
    return;
  }
  finish(exchange, m, result, cacheKey, version, ctx);
}

/** The raw path parameters, in pattern order. Only while the uWS handler runs (req is valid). */
function rawParamsOf(req: HttpRequest, count: number): string[] {
  const raw: string[] = [];
  for (let i = 0; i < count; i++) raw.push(req.getParameter(i) ?? '');
  return raw;
}

/**
 * Everything up to the handler, synchronously inside the uWS handler: `req` is read
 * here (path parameters only on a cache miss), never after this returns.
 */
function serve(exchange: Exchange, m: Mounted, req: HttpRequest, url: string, rawQuery: string, authorization: string, session: SessionHeaders | null): void {
  const { route, deps } = m;
  try {
    const account = route.auth ? authenticate(authorization, deps.keys, session, deps.sessions) : null;
    const plan = admit(exchange, m.hooks, account, route);
    let cacheKey: string | null = null;
    if (m.cache !== null) {
      // A path never holds '?', so `url` alone and `url?query` never collide.
      cacheKey = rawQuery === '' ? url : `${url}?${rawQuery}`;
      const entry = m.cache.get(cacheKey);
      if (entry && route.version!({ params: entry.params, query: entry.query, account, plan, deps }) === entry.version) {
        exchange.sendCached(entry);
        return;
      }
    }
    const params = validate(route.params, decodePathParams(route.paramNames, rawParamsOf(req, route.paramNames.length)), 'path');
    const query = validate(route.query, parseQueryString(rawQuery, deps.config.http.queryBytesMax), 'query');
    const ctx = { params, query, account, plan, deps };
    // The version is taken before the handler reads: a change meanwhile only makes the entry stale sooner.
    const version = cacheKey !== null ? route.version!(ctx) : null;
    const result = route.handler(ctx);
    if (isThenable(result)) {
      finishAsync(exchange, m, result, cacheKey, version, ctx).catch((err: unknown) => {
        deps.log.error({ err, route: route.pattern }, 'response could not be written');
      });
      return;
    }
    finish(exchange, m, result, cacheKey, version, ctx);
  } catch (err) {
    exchange.fail(err);
  }
}

/**
 * Runs the admission hooks (limits) for a request: their headers go on the response; a
 * rejection throws. Returns the plan in force: a hook's, else the key's own (null
 * without a key).
 */
function admit(exchange: Exchange, hooks: readonly BeforeHandle[], account: Account | null, route: Route): PlanName | null {
  let plan: PlanName | null = account?.plan ?? null;
  for (const hook of hooks) {
    const admission = hook({ account, route });
    if (!admission) continue;
    exchange.admit(admission);
    if (admission.reject) throw admission.reject;
    if (admission.plan !== undefined) plan = admission.plan;
  }
  return plan;
}

/**
 * What the hooks see of a request under /v1 that matches no route: an authenticated
 * route of every plan, named `unmatched` (its 404 is counted and limited like any
 * other, and carries the same headers).
 */
const UNMATCHED_V1: Route = {
  method: 'GET',
  pattern: UNMATCHED,
  auth: true,
  paramNames: [],
  params: z.strictObject({}),
  query: z.strictObject({}),
  minPlan: undefined,
  handler: () => null,
};

/** A path under the API's prefix (`/v1`, `/v1/...`). */
const isApiPath = (url: string): boolean => url === '/v1' || url.startsWith('/v1/');

/** Register every route of the table and the 404 fallback on `app`. */
export function mountRoutes(
  app: TemplatedApp,
  routes: readonly Route[],
  deps: ServerDeps,
  beforeHandle: readonly BeforeHandle[],
): void {
  const patterns = new Set<string>();
  const cache = new ResponseCache();
  for (const route of routes) {
    if (patterns.has(route.pattern)) throw new Error(`duplicate route: GET ${route.pattern}`);
    patterns.add(route.pattern);
    const m: Mounted = { route, deps, hooks: beforeHandle, cache: route.version ? cache : null, okLabels: { route: route.pattern, code: '0' } };
    // HEAD is the GET without its body (RFC 9110 9.3.2): same status and headers,
    // Content-Length included; it is authenticated, admitted and counted like the GET.
    for (const bodyless of [false, true]) {
      (bodyless ? app.head : app.get).call(app, route.pattern, (res, req) => {
        // req is valid only until this function returns: serve reads it (path parameters,
        // on a cache miss) before returning, and only these strings outlive the call.
        const url = req.getUrl();
        const rawQuery = req.getQuery() ?? '';
        const authorization = route.auth ? req.getHeader('authorization') : '';
        // The session cookie only where no key is sent (a browser page of the terminal).
        const session = route.auth && authorization === '' && deps.sessions !== undefined ? sessionHeaders(req) : null;
        const exchange = new Exchange(res, deps, route.pattern, url, m.okLabels, bodyless, acceptedEncoding(req.getHeader('accept-encoding')));
        try {
          serve(exchange, m, req, url, rawQuery, authorization, session);
        } finally {
          exchange.leaveHandler();
        }
      });
    }
  }
  const unmatchedLabels = { route: UNMATCHED, code: '0' };
  // The API is read-only: any other method, and any unknown path, is 404 / 4040. A
  // specific route (GET handlers above, a later `app.ws('/ws')`) always wins over '/*'.
  // Under /v1 the key is checked and the request admitted first, as on every /v1 route:
  // no key is a 401, and the 404 carries the rate and quota headers SERVICE.md 4.1 puts
  // on every response.
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const url = req.getUrl();
    const authorization = isApiPath(url) ? req.getHeader('authorization') : null;
    const session = authorization === '' && deps.sessions !== undefined ? sessionHeaders(req) : null;
    const exchange = new Exchange(res, deps, UNMATCHED, url, unmatchedLabels, method === 'HEAD');
    try {
      if (authorization !== null) admit(exchange, beforeHandle, authenticate(authorization, deps.keys, session, deps.sessions), UNMATCHED_V1);
      exchange.fail(new EngineError(4040, `route not found: ${method} ${shownUrl(url)}`));
    } catch (err) {
      exchange.fail(err);
    } finally {
      exchange.leaveHandler();
    }
  });
}
