import type { HttpRequest } from 'uWebSockets.js';
import { EngineError } from '../../engine/errors.ts';
import type { Account, SessionStore } from '../../engine/plans/index.ts';

/**
 * The web terminal's session cookie (engine/plans/sessions.ts), as HTTP routes and the
 * /ws upgrade read it. A request carrying no Authorization header may be authorized by
 * the cookie, and then only from the service's own origin: the cookie is SameSite=Strict
 * (a browser sends it on no cross-site request), and on top of that a request whose
 * `Origin` is another origin, or whose `Sec-Fetch-Site` says cross-site or same-site,
 * is refused (a page of another port on the same host is same-site, not same-origin).
 * Requests without those headers (curl, a same-origin GET, which browsers send without
 * Origin) are judged by the cookie alone.
 * @internal
 */

export const SESSION_COOKIE = 'mds_session';

/** What a cookie-authorized request brings, copied out of uWS synchronously. */
export interface SessionHeaders {
  cookie: string;
  origin: string;
  fetchSite: string;
  host: string;
}

/** The request's session headers, or null without a Cookie header. Only inside the uWS handler. */
export function sessionHeaders(req: HttpRequest): SessionHeaders | null {
  const cookie = req.getHeader('cookie');
  if (cookie === '') return null;
  return { cookie, origin: req.getHeader('origin'), fetchSite: req.getHeader('sec-fetch-site'), host: req.getHeader('host') };
}

/** The value of the session cookie in a Cookie header, or null. */
export function sessionCookieOf(header: string): string | null {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Whether the request comes from the service's own origin, as far as its headers tell. */
export function sameOrigin(h: SessionHeaders): boolean {
  if (h.fetchSite !== '' && h.fetchSite !== 'same-origin' && h.fetchSite !== 'none') return false;
  if (h.origin === '') return true;
  return h.host !== '' && (h.origin === `http://${h.host}` || h.origin === `https://${h.host}`);
}

/**
 * The account a request's session cookie stands for. Throws 401: 4010 when there is no
 * session cookie or the request comes from another origin, 4013 when the session is
 * unknown, expired or revoked (or its key was revoked).
 */
export function sessionAccount(h: SessionHeaders, sessions: SessionStore): Account {
  const cookie = sessionCookieOf(h.cookie);
  if (cookie === null) throw new EngineError(4010, 'no API key: send Authorization: Bearer <API_KEY>');
  if (!sameOrigin(h)) throw new EngineError(4010, 'session cookie refused: the request comes from another origin');
  const account = sessions.verify(cookie);
  if (account === null) throw new EngineError(4013, 'session expired or revoked: open a new link from `mds terminal-url`');
  return account;
}

/** The Set-Cookie value of a new session. No `Secure`: mds serves plain HTTP on loopback by default. */
export const sessionSetCookie = (cookie: string, maxAgeS: number): string =>
  `${SESSION_COOKIE}=${cookie}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict`;
