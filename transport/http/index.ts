/** The entry point of transport/http/: what other folders may import from it (STYLE.md 3). */
export { loadCursorSecret } from './cursor.ts';
export { mountRoutes } from './dispatch.ts';
export { createLimitsHook } from './limits.ts';
export { ADDRESS_PATTERN } from './params.ts';
export { bearerToken } from './request.ts';
export { defineRoute, type Admission, type BeforeHandle, type Route, type RouteContext, type RouteHandler, type RouteSpec, type ServerDeps } from './route.ts';
export { ROUTES } from './routes.ts';
export { SESSION_COOKIE, sameOrigin, sessionCookieOf, sessionHeaders, sessionSetCookie } from './session-cookie.ts';
export { forgetTerminalBundle, mountTerminalLogin } from './terminal.ts';
