/** Create the HTTP server (uWS app, route table, envelope) over the engine's read facade. */
export { createServer } from './server.ts';
/** Types of the server: options (route table, beforeHandle hooks) and its handle. */
export type { Server, ServerOptions } from './server.ts';
/** The HTTP route table: every route the service serves. */
export { ROUTES } from './http/index.ts';
/** Define one route-table entry: pattern, auth, strict zod schemas for path and query, handler. */
export { defineRoute } from './http/index.ts';
/** Types of routes, their handler context, dependencies and the rate-limit seam. */
export type { Admission, BeforeHandle, Route, RouteContext, RouteHandler, RouteSpec, ServerDeps } from './http/index.ts';
/** Handler results beyond plain data: a page of a list, or a body sent outside the envelope. */
export { page, rawBody, Page, RawBody } from './envelope.ts';
/** Envelope shapes of SERVICE.md 2.1 and 7.1. */
export type { FailureEnvelope, Pagination, SuccessEnvelope } from './envelope.ts';
/** The /ws endpoint on the server's uWS app; its sink carries the engine's live frames. */
export { mountWebSocket } from './ws/index.ts';
export type { WebSocketDeps, WebSocketEndpoint } from './ws/index.ts';
