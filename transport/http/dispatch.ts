import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { EngineError, invalidApiKey, unauthenticated } from '../../engine/errors.ts';
import type { Account, KeyStore } from '../../engine/keys.ts';
import { render, renderError, writeResponse, type Outgoing } from '../envelope.ts';
import { bearerToken, decodePathParams, parseQueryString, validate } from './request.ts';
import { ResponseCache } from './response-cache.ts';
import type { Admission, BeforeHandle, Route, ServerDeps } from './route.ts';

/**
 * Glue between uWS and the route table: one uWS GET handler per route plus a
 * catch-all 404. uWS rules this file keeps (a violation kills the process):
 * - `req` is read only synchronously inside the uWS handler; everything needed later
 *   is copied into `Incoming` first;
 * - `res.onAborted` is registered before anything asynchronous, and nothing is
 *   written to an aborted or already ended response;
 * - every write sequence is one `res.cork` (in `writeResponse`).
 * @internal
 */

/** The request as copied out of uWS: plain strings, valid after the handler returns. */
interface Incoming {
  url: string;
  rawQuery: string;
  authorization: string;
  rawParams: string[];
}

/** Metrics label of responses that matched no route (bounded label cardinality). */
export const UNMATCHED = 'unmatched';

/** A URL as a message shows it: bounded, since it is echoed to the client and logs. */
const shownUrl = (url: string): string => (url.length > 256 ? `${url.slice(0, 256)}...` : url);

/** One request's response: written at most once, counted once, hooks released once. */
class Exchange {
  private aborted = false;
  private ended = false;
  private headers: Record<string, string> = {};
  private releases: Array<() => void> = [];

  constructor(
    private readonly res: HttpResponse,
    private readonly deps: ServerDeps,
    private readonly routeLabel: string,
    private readonly url: string,
  ) {}

  /** Must run synchronously inside the uWS handler, before any await. */
  watchAbort(): void {
    this.res.onAborted(() => {
      this.aborted = true;
      this.deps.log.debug({ route: this.routeLabel }, 'client aborted before the response');
      this.release();
    });
  }

  admit(admission: Admission): void {
    if (admission.headers) Object.assign(this.headers, admission.headers);
    if (admission.done) this.releases.push(admission.done);
  }

  send(result: unknown): Outgoing {
    let out: Outgoing;
    try {
      out = render(result);
    } catch (err) {
      out = this.errorOut(err);
    }
    this.write(out);
    return out;
  }

  /** A response rendered before (the response cache). */
  sendRendered(out: Outgoing): void {
    this.write(out);
  }

  fail(err: unknown): void {
    // Rendered (and an unknown throw logged) even when the client is gone.
    this.write(this.errorOut(err));
  }

  private errorOut(err: unknown): Outgoing {
    return renderError(err, this.deps.log, { route: this.routeLabel, url: shownUrl(this.url) });
  }

  private write(out: Outgoing): void {
    if (!this.aborted && !this.ended) {
      this.ended = true;
      writeResponse(this.res, out, this.headers);
      this.deps.metrics.httpRequests.inc({ route: this.routeLabel, code: String(out.code) });
    }
    this.release();
  }

  private release(): void {
    const releases = this.releases;
    this.releases = [];
    for (const done of releases) {
      try {
        done();
      } catch (err) {
        this.deps.log.error({ err, route: this.routeLabel }, 'beforeHandle done() threw');
      }
    }
  }
}

function authenticate(header: string, keys: KeyStore): Account {
  const key = bearerToken(header);
  if (key === null) throw unauthenticated();
  const account = keys.verify(key);
  if (account === null) throw invalidApiKey();
  return account;
}

async function serve(
  exchange: Exchange,
  route: Route,
  incoming: Incoming,
  deps: ServerDeps,
  beforeHandle: readonly BeforeHandle[],
  cache: ResponseCache | null,
): Promise<void> {
  try {
    const account = route.auth ? authenticate(incoming.authorization, deps.keys) : null;
    for (const hook of beforeHandle) {
      const admission = hook({ account, route });
      if (!admission) continue;
      exchange.admit(admission);
      if (admission.reject) throw admission.reject;
    }
    let cacheKey: string | null = null;
    if (route.version && cache) {
      cacheKey = `${incoming.url}?${incoming.rawQuery}`;
      const entry = cache.get(cacheKey);
      if (entry && route.version({ params: entry.params, query: entry.query, account, deps }) === entry.version) {
        exchange.sendRendered(entry.out);
        return;
      }
    }
    const params = validate(route.params, decodePathParams(route.paramNames, incoming.rawParams), 'path');
    const query = validate(route.query, parseQueryString(incoming.rawQuery, deps.config.http.queryBytesMax), 'query');
    const ctx = { params, query, account, deps };
    // The version is taken before the handler reads: a change meanwhile only makes the entry stale sooner.
    const version = cacheKey !== null ? route.version!(ctx) : null;
    const result = await route.handler(ctx);
    const out = exchange.send(result);
    if (version !== null && out.code === 0) cache!.set(cacheKey!, version, out, params, query);
  } catch (err) {
    exchange.fail(err);
  }
}

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
    app.get(route.pattern, (res, req) => {
      // req is valid only until this function returns: copy what is needed, now.
      const incoming: Incoming = {
        url: req.getUrl(),
        rawQuery: req.getQuery() ?? '',
        authorization: route.auth ? req.getHeader('authorization') : '',
        rawParams: route.paramNames.map((_, i) => req.getParameter(i) ?? ''),
      };
      const exchange = new Exchange(res, deps, route.pattern, incoming.url);
      exchange.watchAbort();
      serve(exchange, route, incoming, deps, beforeHandle, cache).catch((err: unknown) => {
        deps.log.error({ err, route: route.pattern }, 'response could not be written');
      });
    });
  }
  // The API is read-only: any other method, and any unknown path, is 404 / 4040. A
  // specific route (GET handlers above, a later `app.ws('/ws')`) always wins over '/*'.
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const url = req.getUrl();
    // Answered synchronously inside the handler, so no onAborted is needed.
    new Exchange(res, deps, UNMATCHED, url).fail(new EngineError(4040, `route not found: ${method} ${shownUrl(url)}`));
  });
}
