import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from 'uWebSockets.js';
import { EngineError } from '../engine/errors.ts';
import type { Logger } from '../engine/log.ts';

/**
 * The four-field envelope of SERVICE.md 2.1 and its failure form (7.1). This is the
 * only place where a throw that is not an EngineError becomes 5000 INTERNAL: it is
 * logged here, once, with its cause, and the client gets a generic message.
 */

/** SERVICE.md 2.1: next_cursor is null and has_more false on the last page. */
export interface Pagination {
  next_cursor: string | null;
  has_more: boolean;
}

export interface SuccessEnvelope<T = unknown> {
  code: 0;
  error: null;
  message: 'OK';
  data: T;
  pagination?: Pagination;
}

export interface FailureEnvelope {
  code: number;
  error: string;
  message: string;
  data: null;
}

/** A handler result for a list that pages: the envelope gets `pagination`. */
export class Page<T = unknown> {
  constructor(
    readonly data: T[],
    readonly pagination: Pagination,
  ) {}
}

/** A handler result sent as is, outside the envelope (Prometheus text, OpenAPI JSON). */
export class RawBody {
  constructor(
    readonly contentType: string,
    readonly body: string,
  ) {}
}

export const page = <T>(data: T[], pagination: Pagination): Page<T> => new Page(data, pagination);
export const rawBody = (contentType: string, body: string): RawBody => new RawBody(contentType, body);

export const JSON_CONTENT_TYPE = 'application/json';

/** A response ready to write: the envelope code is what metrics count. */
export interface Outgoing {
  status: number;
  /** 0 on success, else the failure code. */
  code: number;
  contentType: string;
  body: string;
}

export function successEnvelope<T>(data: T, pagination?: Pagination): SuccessEnvelope<T> {
  const envelope: SuccessEnvelope<T> = { code: 0, error: null, message: 'OK', data };
  if (pagination) envelope.pagination = pagination;
  return envelope;
}

export function failureEnvelope(err: EngineError): FailureEnvelope {
  return { code: err.code, error: err.error, message: err.message, data: null };
}

/** The message a client sees for an unexpected error; the cause stays in the log. */
const INTERNAL_MESSAGE = 'internal error; retry with backoff';

/**
 * Any throw as an EngineError. Unknown throws become 5000 and are logged at error
 * (a bug: a human must act); EngineErrors of 5xxx are logged at warn (degraded).
 */
export function toEngineError(err: unknown, log: Logger, context: Record<string, unknown> = {}): EngineError {
  if (err instanceof EngineError) {
    if (err.status >= 500) log.warn({ ...context, err, code: err.code }, 'request failed');
    return err;
  }
  log.error({ ...context, err }, 'unexpected error answered with 5000');
  return new EngineError(5000, INTERNAL_MESSAGE, { cause: err });
}

/**
 * A handler result as a response: plain data is the success envelope, a Page adds
 * pagination, a RawBody goes out unwrapped. Throws if the data cannot be serialized
 * (a BigInt, a cycle): the caller answers that with `renderError`.
 */
export function render(result: unknown): Outgoing {
  if (result instanceof RawBody) {
    return { status: 200, code: 0, contentType: result.contentType, body: result.body };
  }
  const envelope = result instanceof Page ? successEnvelope(result.data, result.pagination) : successEnvelope(result ?? null);
  return { status: 200, code: 0, contentType: JSON_CONTENT_TYPE, body: JSON.stringify(envelope) };
}

/** Any throw as a failure response (status `Math.floor(code / 10)`); never throws. */
export function renderError(err: unknown, log: Logger, context: Record<string, unknown> = {}): Outgoing {
  const engineError = toEngineError(err, log, context);
  return {
    status: engineError.status,
    code: engineError.code,
    contentType: JSON_CONTENT_TYPE,
    body: JSON.stringify(failureEnvelope(engineError)),
  };
}

const statusLine = (status: number): string => `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;

/**
 * Write a whole response in one corked sequence. The caller guarantees `res` is still
 * valid: not aborted and not already ended.
 */
export function writeResponse(res: HttpResponse, out: Outgoing, headers: Readonly<Record<string, string>> = {}): void {
  res.cork(() => {
    res.writeStatus(statusLine(out.status));
    for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
    res.writeHeader('content-type', out.contentType);
    res.end(out.body);
  });
}
