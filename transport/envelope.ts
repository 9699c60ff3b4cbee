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
    /** The items, or their JSON already written (trade lists write it directly). */
    readonly data: T[] | JsonText,
    readonly pagination: Pagination,
  ) {}
}

/** JSON text that goes into a response as it is (JSON.rawJSON is not in Node 20). */
export class JsonText {
  constructor(readonly json: string) {}
}

/** A handler result sent as is, outside the envelope (Prometheus text, OpenAPI JSON). */
export class RawBody {
  constructor(
    readonly contentType: string,
    readonly body: string,
  ) {}
}

export const page = <T>(data: T[] | JsonText, pagination: Pagination): Page<T> => new Page(data, pagination);
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
  if (result instanceof Page) {
    // JSON.stringify(successEnvelope(data, pagination)), with the constant fields as text.
    const data = result.data instanceof JsonText ? result.data.json : JSON.stringify(result.data);
    return { status: 200, code: 0, contentType: JSON_CONTENT_TYPE, body: `${SUCCESS_PREFIX}${data},"pagination":${JSON.stringify(result.pagination)}}` };
  }
  // The constant fields as text: only `data` is serialized per response. The same bytes
  // as JSON.stringify(successEnvelope(data)), unless data has no JSON form (a function):
  // then the envelope's own rule (the key left out) applies.
  const data = JSON.stringify(result ?? null);
  const body = data === undefined ? JSON.stringify(successEnvelope(result)) : SUCCESS_PREFIX + data + '}';
  return { status: 200, code: 0, contentType: JSON_CONTENT_TYPE, body };
}

const SUCCESS_PREFIX = '{"code":0,"error":null,"message":"OK","data":';

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

/**
 * The start of a response head: status line and content-type, without a trailing CRLF
 * (`200 OK\r\ncontent-type: application/json`). Made once per status and content
 * type: every response of a kind shares one string.
 */
const jsonHeads: string[] = [];
const otherHeads = new Map<string, string>();
const makeHead = (status: number, contentType: string): string => `${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\ncontent-type: ${contentType}`;
export function responseHead(status: number, contentType: string): string {
  if (contentType === JSON_CONTENT_TYPE) return (jsonHeads[status] ??= makeHead(status, contentType));
  const key = `${status} ${contentType}`;
  let head = otherHeads.get(key);
  if (head === undefined) {
    head = makeHead(status, contentType);
    // Bounded: content types come from route code (RawBody), never from requests.
    if (otherHeads.size < 256) otherHeads.set(key, head);
  }
  return head;
}

/** The head lines of a header set: `\r\nName: value` per header (what `writeResponse` appends to a head). */
export function headerLines(headers: Readonly<Record<string, string>>): string {
  let lines = '';
  for (const name in headers) lines += `\r\n${name}: ${headers[name]}`;
  return lines;
}

/** What `writeCorked` writes: module state instead of a closure per response (cork runs it synchronously). */
let pendingRes: HttpResponse | null = null;
let pendingHead = '';
let pendingBody: string | Uint8Array = '';
let pendingBodyless = false;

function writeCorked(): void {
  const res = pendingRes!;
  pendingRes = null;
  if (!pendingBodyless) {
    res.writeStatus(pendingHead);
    res.end(pendingBody);
    return;
  }
  // The Content-Length the body would have, written here: uWS's own
  // endWithoutBody(reportedContentLength) leaves the response pending in this build
  // (uws-pack 20.0.8; uWS then aborts the process), and endWithoutBody() writes none.
  const length = typeof pendingBody === 'string' ? Buffer.byteLength(pendingBody, 'utf8') : pendingBody.length;
  res.writeStatus(`${pendingHead}\r\ncontent-length: ${length}`);
  res.endWithoutBody();
}

/**
 * Write a whole response: the status line and every header in one `writeStatus`, the
 * body in `end` (uWS adds Date and Content-Length). Two calls into uWS instead of one
 * per header (a quarter of the server's CPU went to the per-header calls in a profile).
 * uWS writes the status string as is between `HTTP/1.1 ` and CRLF (uWebSockets
 * HttpResponse::writeStatus), so CRLF-separated header lines in it reach the wire as
 * headers; test/integration/http-wire.test.ts reads the bytes off a socket to prove it.
 * Header names and values come from server code (responseHead, the limits hook), never
 * from a request: a CR or LF in them would split the head, as it would with writeHeader.
 *
 * Always in `res.cork`, even inside a route handler (where uWS corks the socket
 * already and cork only runs the callback): pipelined responses that overflow the
 * 16 KiB cork buffer uncork the socket, and every later uWS write of that batch would
 * then be its own send() (about ten per response) without a cork of its own. The
 * caller guarantees `res` is still valid: not aborted and not already ended.
 * `bodyless` (a HEAD request): the same head, with the Content-Length of `body`, and no body.
 */
export function writeResponse(res: HttpResponse, head: string, body: string | Uint8Array, bodyless = false): void {
  pendingRes = res;
  pendingHead = head;
  pendingBody = body;
  pendingBodyless = bodyless;
  try {
    res.cork(writeCorked);
  } finally {
    pendingRes = null;
    pendingBody = '';
  }
}
