import { describe, expect, it } from 'vitest';
import { sameOrigin, sessionCookieOf, sessionSetCookie } from '../../../transport/http/index.ts';

/** The web terminal's cookie as requests carry it, and which requests count as the service's own origin. */
describe('session cookie', () => {
  it('is read among other cookies, and only under its own name', () => {
    expect(sessionCookieOf('a=1; mds_session=abc; b=2')).toBe('abc');
    expect(sessionCookieOf('mds_session=abc')).toBe('abc');
    expect(sessionCookieOf('xmds_session=abc; mds_sessionx=def')).toBeNull();
    expect(sessionCookieOf('')).toBeNull();
    expect(sessionSetCookie('abc', 60)).toBe('mds_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Strict');
  });

  it('authorizes same-origin requests only', () => {
    const h = (origin: string, fetchSite = '', host = '127.0.0.1:8080') => sameOrigin({ cookie: '', origin, fetchSite, host });
    expect(h('')).toBe(true);
    expect(h('http://127.0.0.1:8080')).toBe(true);
    expect(h('https://127.0.0.1:8080')).toBe(true);
    expect(h('', 'same-origin')).toBe(true);
    expect(h('', 'none')).toBe(true);
    expect(h('http://127.0.0.1:8081')).toBe(false);
    expect(h('http://localhost:8080')).toBe(false);
    expect(h('null')).toBe(false);
    expect(h('', 'same-site')).toBe(false);
    expect(h('', 'cross-site')).toBe(false);
    expect(h('http://127.0.0.1:8080', 'cross-site')).toBe(false);
    expect(h('http://127.0.0.1:8080', '', '')).toBe(false);
  });
});
