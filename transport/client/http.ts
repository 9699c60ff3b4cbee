import { HTTP_ROUTES, type DataOf, type IsPaged, type ItemOf, type PathArgs, type QueryOf } from './routes.ts';

/**
 * The HTTP half of the client SDK (`mds/client`): one typed method per route of
 * HTTP_ROUTES, the envelope unwrapped, failures as MdsError, retries per SERVICE.md 7.1
 * and lists walked as async iterators. Standard fetch only: the same code runs in Node
 * 20+ and in a browser.
 *
 * Retries (SERVICE.md 7.1): a 429 waits Retry-After (seconds; 1 s when absent) and is
 * retried, up to `rateLimitRetries` times, unless Retry-After is past `maxRetryAfterMs`
 * (a monthly quota spent: 4291 waits for the 1st of the month, which no caller wants
 * to await). A 5xx and a network failure (connection refused or reset) are retried up
 * to `retries` times after a delay drawn uniformly from 0 to base·2^attempt, capped
 * ("full jitter"); 5010 NOT_IMPLEMENTED is not (a route not built stays not built). A
 * 4xx other than 429 is never retried.
 */

/** A failure envelope (SERVICE.md 7.1) or a transport failure after the retries. */
export class MdsError extends Error {
  override readonly name = 'MdsError';
  constructor(
    /** The envelope's code (4000, 4290, 5030...); 0 for a network failure. */
    readonly code: number,
    /** The envelope's error name (BAD_REQUEST...); NETWORK for a network failure. */
    readonly error: string,
    message: string,
    /** The HTTP status; 0 for a network failure. */
    readonly status: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What `await` on a list gives: one page. */
export interface PageResult<T> {
  data: T[];
  pagination: { next_cursor: string | null; has_more: boolean };
}

/** A call of a list route: `await` it for the first page, `for await` it for every item of every page (following next_cursor). */
export interface Paged<T> extends PromiseLike<PageResult<T>>, AsyncIterable<T> {
  /** Every page, in order. */
  pages(): AsyncIterable<PageResult<T>>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** A method of the client for a route pattern. */
export type Method<P extends string> = (
  ...args: [...PathArgs<P>, ...({} extends QueryOf<P> ? [query?: QueryOf<P>, options?: CallOptions] : [query: QueryOf<P>, options?: CallOptions])]
) => IsPaged<P> extends true ? Paged<ItemOf<P>> : Promise<DataOf<P>>;

type Methods<T> = { readonly [K in keyof T]: T[K] extends string ? Method<T[K]> : Methods<T[K]> };

/** Timers and randomness, injectable so that tests run retries on a simulated clock. */
export interface ClientTimers {
  /** Resolves after `ms` (rejects when `signal` aborts). Default: setTimeout. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Uniform in [0, 1). Default: Math.random. */
  random(): number;
}

export interface HttpClientOptions {
  /** `http://127.0.0.1:8080`, or the user's own server that proxies mds (SERVICE.md 5.6: no key in a browser). */
  baseUrl: string;
  /** The API key (Authorization: Bearer); omit behind a proxy that adds it. */
  key?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Retries of a 5xx or network failure (default 5). */
  retries?: number;
  /** Retries of a 429 (default 100). */
  rateLimitRetries?: number;
  /** First backoff ceiling (default 250 ms); doubles per attempt up to `maxBackoffMs` (default 10 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A 429 whose Retry-After is longer is not waited for (default 60 s). */
  maxRetryAfterMs?: number;
  timers?: Partial<ClientTimers>;
}

export const defaultTimers: ClientTimers = {
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  random: Math.random,
};

/** Full jitter: uniform in [0, min(max, base·2^attempt)). */
export const backoffDelay = (attempt: number, baseMs: number, maxMs: number, random: () => number): number =>
  random() * Math.min(maxMs, baseMs * 2 ** attempt);

interface Envelope {
  code: number;
  error: string | null;
  message: string;
  data: unknown;
  pagination?: PageResult<unknown>['pagination'];
}

/** The HTTP client: `client.tokens.trades(address, { limit: 100 })` and so on (HTTP_ROUTES). */
export type HttpClient = Methods<typeof HTTP_ROUTES> & {
  /** GET a path (with its query string) and unwrap the envelope, with the same retries. */
  request(path: string, options?: CallOptions): Promise<Envelope>;
};

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timers: ClientTimers = { ...defaultTimers, ...options.timers };
  const retries = options.retries ?? 5;
  const rateLimitRetries = options.rateLimitRetries ?? 100;
  const backoffMs = options.backoffMs ?? 250;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;

  async function request(path: string, call: CallOptions = {}): Promise<Envelope> {
    let failures = 0;
    let limited = 0;
    for (;;) {
      let res: Response;
      try {
        res = await doFetch(base + path, { headers, signal: call.signal });
      } catch (err) {
        if (call.signal?.aborted) throw err;
        if (failures >= retries) throw new MdsError(0, 'NETWORK', `GET ${path}: ${(err as Error).message}`, 0, { cause: err });
        await timers.sleep(backoffDelay(failures++, backoffMs, maxBackoffMs, timers.random), call.signal);
        continue;
      }
      const text = await res.text().catch(() => '');
      let body: Envelope | null = null;
      try {
        body = JSON.parse(text) as Envelope;
      } catch {
        // A proxy's HTML 502, say: judged by its status below.
      }
      if (res.ok && body && body.code === 0) return body;
      const code = body && typeof body.code === 'number' ? body.code : res.status * 10;
      const error = new MdsError(code, body?.error ?? `HTTP_${res.status}`, body?.message ?? (text.slice(0, 200) || res.statusText), res.status);
      if (res.status === 429) {
        const header = Number(res.headers.get('retry-after'));
        const waitMs = Number.isFinite(header) && header >= 0 ? header * 1000 : 1000;
        if (limited++ >= rateLimitRetries || waitMs > maxRetryAfterMs) throw error;
        await timers.sleep(waitMs, call.signal);
        continue;
      }
      if (res.status >= 500 && code !== 5010 && failures < retries) {
        await timers.sleep(backoffDelay(failures++, backoffMs, maxBackoffMs, timers.random), call.signal);
        continue;
      }
      throw error;
    }
  }

  function method(pattern: string): (...args: unknown[]) => unknown {
    const names = [...pattern.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
    return (...args: unknown[]) => {
      let path = pattern;
      for (const [i, name] of names.entries()) {
        const value = args[i];
        if (typeof value !== 'string' || value === '') throw new TypeError(`${pattern}: ${name} must be a non-empty string`);
        path = path.replace(`:${name}`, encodeURIComponent(value));
      }
      const query = (args[names.length] ?? {}) as Record<string, unknown>;
      const call = (args[names.length + 1] ?? {}) as CallOptions;
      return new Call(request, path, query, call);
    };
  }

  const build = (tree: object): unknown =>
    Object.fromEntries(Object.entries(tree).map(([name, value]) => [name, typeof value === 'string' ? method(value) : build(value)]));
  return Object.assign(build(HTTP_ROUTES) as Methods<typeof HTTP_ROUTES>, { request });
}

/** A query as text: arrays comma-joined, numbers and booleans as written, undefined left out. */
export function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * One call of a method: thenable (the data, or the first page of a list) and, for a
 * list, async-iterable over every item, page after page. The request is sent when
 * awaited or iterated, not before.
 */
class Call implements Paged<unknown>, Promise<unknown> {
  readonly [Symbol.toStringTag] = 'Call';
  private first: Promise<unknown> | null = null;

  constructor(
    private readonly send: (path: string, call: CallOptions) => Promise<Envelope>,
    private readonly path: string,
    private readonly query: Record<string, unknown>,
    private readonly call: CallOptions,
  ) {}

  private run(): Promise<unknown> {
    this.first ??= this.send(this.path + queryString(this.query), this.call).then((body) =>
      body.pagination ? { data: body.data, pagination: body.pagination } : body.data,
    );
    return this.first;
  }

  then<A = unknown, B = never>(onfulfilled?: ((value: any) => A | PromiseLike<A>) | null, onrejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.run().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: any) => B | PromiseLike<B>) | null): Promise<unknown> {
    return this.run().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<unknown> {
    return this.run().finally(onfinally);
  }

  async *pages(): AsyncGenerator<PageResult<unknown>> {
    let cursor: string | undefined = this.query.cursor as string | undefined;
    for (;;) {
      const body = await this.send(this.path + queryString({ ...this.query, cursor }), this.call);
      if (!body.pagination) throw new TypeError(`${this.path} is not a list that pages`);
      const page = { data: body.data as unknown[], pagination: body.pagination };
      yield page;
      if (!page.pagination.has_more || page.pagination.next_cursor === null) return;
      cursor = page.pagination.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<unknown> {
    for await (const page of this.pages()) yield* page.data;
  }
}
