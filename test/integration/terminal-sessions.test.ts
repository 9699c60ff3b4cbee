import type { PlanName } from '../../engine/config.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKeyStore, createSessionStore, type KeyStore, type SessionStore } from '../../engine/plans/index.ts';
import { startService, type Service } from '../../engine/serve.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { sampleEvents, tempDir, testConfig, type TempDir } from '../helpers/fixtures.ts';

/**
 * The web terminal's sessions (SERVICE.md 5.6: keys stay on the server): a one-time
 * link sets an HttpOnly, SameSite=Strict cookie bound to a key the server keeps, which
 * authorizes HTTP and the /ws upgrade from this origin only; used links, expired and
 * revoked sessions are refused, and no response carries the key. Real engine, uWS on
 * loopback, fetch and `ws` as clients (the browser itself: test/e2e/terminal.test.ts).
 */
let dir: TempDir;
let engine: Engine;
let service: Service;
let base: string;
/** Every key the test's key store created: the terminal keys, which no response may carry. */
const createdKeys: string[] = [];
/** The test's view of the service's data directory: its key store records the keys it creates. */
let sessions: SessionStore;
let keys: KeyStore;

const HOUR = 3_600_000;

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path) });
  const events = sampleEvents();
  for (const type of ['quote_price', 'token', 'pool', 'swap']) expect((await engine.ingest(events[type])).status).toBe('applied');
  service = await startService(engine);
  base = `http://127.0.0.1:${service.port}`;
  const inner = createKeyStore(engine.storage, { now: () => Date.now() });
  keys = {
    ...inner,
    async create(input) {
      const created = await inner.create(input);
      createdKeys.push(created.key);
      return created;
    },
  };
  sessions = createSessionStore(engine.storage, keys, { now: () => Date.now() });
});

afterAll(async () => {
  await service.close();
  await engine.stop();
  dir.cleanup();
});

/** Opens a one-time link as a browser would (no redirect followed): the session cookie it set. */
async function login(token: string): Promise<{ status: number; cookie: string | null; setCookie: string | null; location: string | null }> {
  const res = await fetch(`${base}/session/${token}`, { redirect: 'manual' });
  const setCookie = res.headers.get('set-cookie');
  await res.text();
  return { status: res.status, setCookie, cookie: setCookie?.split(';')[0] ?? null, location: res.headers.get('location') };
}

async function newSession(store = sessions, plan: PlanName = 'pro') {
  const { token } = await store.createLogin({ plan });
  const opened = await login(token);
  expect(opened.status).toBe(303);
  return opened.cookie!;
}

const get = async (path: string, headers: Record<string, string>) => {
  const res = await fetch(base + path, { headers });
  return { status: res.status, text: await res.text() };
};

/** Opens /ws with these headers: 'open' once authenticated (a pong to a ping), the close code, or the refused upgrade's status. */
function openWs(headers: Record<string, string>): Promise<{ outcome: 'open' | 'closed' | 'refused'; code: number; frames: string[] }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers });
    const frames: string[] = [];
    ws.on('unexpected-response', (_req, res) => {
      resolve({ outcome: 'refused', code: res.statusCode ?? 0, frames });
      ws.terminate();
    });
    ws.on('open', () => ws.send(JSON.stringify({ type: 'ping' })));
    ws.on('message', (data) => {
      frames.push(String(data));
      if (String(data).includes('"pong"')) {
        resolve({ outcome: 'open', code: 0, frames });
        ws.close();
      }
    });
    ws.on('close', (code) => resolve({ outcome: 'closed', code, frames }));
    ws.on('error', () => {});
  });
}

describe('web terminal sessions', () => {
  it('a one-time link sets an HttpOnly, SameSite=Strict cookie and redirects to /; a second use is refused', async () => {
    const { token } = await sessions.createLogin({ plan: 'pro' });
    const first = await login(token);
    expect(first.status).toBe(303);
    expect(first.location).toBe('/');
    expect(first.setCookie).toMatch(/^mds_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const again = await login(token);
    expect(again.status).toBe(401);
    expect(again.setCookie).toBeNull();
    expect((await login('not-a-token')).status).toBe(401);
  });

  it('the cookie authorizes HTTP with the bound key\'s plan, from this origin only', async () => {
    const cookie = await newSession();
    const own = await get('/v1/tokens/search', { cookie });
    expect(own.status).toBe(200);
    // The plan is the key's: a Pro-only parameter passes on a pro session, not on a starter one.
    const token = JSON.parse(own.text).data[0].token_address;
    expect((await get(`/v1/tokens/${token}/holders?label=kol`, { cookie })).status).toBe(200);
    const starter = await newSession(sessions, 'starter');
    expect((await get(`/v1/tokens/${token}/holders?label=kol`, { cookie: starter })).status).toBe(403);
    // Same origin as the browser states it: accepted.
    expect((await get('/v1/tokens/search', { cookie, origin: base, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    // Another origin: refused, whatever the cookie.
    const foreign = await get('/v1/tokens/search', { cookie, origin: 'http://evil.example' });
    expect(foreign.status).toBe(401);
    expect(JSON.parse(foreign.text)).toMatchObject({ code: 4010, message: expect.stringContaining('another origin') });
    expect((await get('/v1/tokens/search', { cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(401);
    // Another port of the same host is same-site but not same-origin.
    expect((await get('/v1/tokens/search', { cookie, origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' })).status).toBe(401);
    // No cookie, no key: 401 as before; an unknown cookie: 4013.
    expect(JSON.parse((await get('/v1/tokens/search', {})).text).code).toBe(4010);
    expect(JSON.parse((await get('/v1/tokens/search', { cookie: `mds_session=${'A'.repeat(43)}` })).text).code).toBe(4013);
  });

  it('the cookie authorizes the /ws upgrade from this origin; another origin\'s upgrade is refused', async () => {
    const cookie = await newSession();
    expect(await openWs({ cookie })).toMatchObject({ outcome: 'open' });
    expect(await openWs({ cookie, origin: base })).toMatchObject({ outcome: 'open' });
    expect(await openWs({ cookie, origin: 'http://evil.example' })).toMatchObject({ outcome: 'refused', code: 403 });
    expect(await openWs({ cookie: `mds_session=${'A'.repeat(43)}` })).toMatchObject({ outcome: 'closed', code: 4401 });
    // A starter session streams (a paid plan); a free one is closed 4402 like a free key.
    const free = await newSession(sessions, 'free');
    expect(await openWs({ cookie: free })).toMatchObject({ outcome: 'closed', code: 4402 });
  });

  it('expired and revoked sessions, expired links and sessions of a revoked key are refused', async () => {
    // A store whose clock is 13 hours behind: its links and sessions are past their end now.
    const past = createSessionStore(engine.storage, keys, { now: () => Date.now() - 13 * HOUR });
    const staleLink = await past.createLogin({ plan: 'pro' });
    expect((await login(staleLink.token)).status).toBe(401);
    // Links and sessions ended more than a day ago are dropped when the next link is made.
    const older = createSessionStore(engine.storage, keys, { now: () => Date.now() - 2 * 24 * HOUR });
    const forgotten = await older.createLogin({ plan: 'pro' });
    expect(sessions.list().map((s) => s.id)).toContain(forgotten.id);
    await sessions.createLogin({ plan: 'pro' });
    expect(sessions.list().map((s) => s.id)).not.toContain(forgotten.id);
    // (The stale link above is gone too: a redeem removes the token it finds, live or not.)
    expect(sessions.list().map((s) => s.id)).not.toContain(staleLink.id);
    // A session redeemed 13 hours ago ended an hour ago (12 h sessions).
    const pastSession = past.redeem((await past.createLogin({ plan: 'pro' })).token);
    expect(pastSession).not.toBeNull();
    const stale = `mds_session=${pastSession!.cookie}`;
    expect(JSON.parse((await get('/v1/tokens/search', { cookie: stale })).text).code).toBe(4013);
    expect(await openWs({ cookie: stale })).toMatchObject({ outcome: 'closed', code: 4401 });

    const cookie = await newSession();
    expect((await get('/v1/tokens/search', { cookie })).status).toBe(200);
    const id = sessions.list().filter((s) => s.kind === 'session' && s.revokedAt === null).at(-1)!.id;
    expect(await sessions.revoke(id)).toBe(true);
    expect(JSON.parse((await get('/v1/tokens/search', { cookie })).text).code).toBe(4013);
    expect(await openWs({ cookie })).toMatchObject({ outcome: 'closed', code: 4401 });
    expect(await sessions.revoke(id)).toBe(false);

    // An open connection of a session revoked meanwhile is closed 4401 (checked every WS_SESSION_CHECK_MS).
    const live = await newSession();
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers: { cookie: live } });
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      ws.on('open', () => ws.send(JSON.stringify({ type: 'ping' })));
      ws.on('message', () => resolve());
    });
    const liveId = sessions.list().filter((s) => s.kind === 'session' && s.revokedAt === null).at(-1)!.id;
    await sessions.revoke(liveId);
    expect(await closed).toBe(4401);

    // Revoking the terminal key ends its sessions; the next link binds a new key.
    const before = await newSession();
    const keyId = keys.list().filter((a) => a.plan === 'pro' && a.revokedAt === null).map((a) => a.id);
    for (const k of keyId) await keys.revoke(k);
    expect(JSON.parse((await get('/v1/tokens/search', { cookie: before })).text).code).toBe(4013);
    expect((await get('/v1/tokens/search', { cookie: await newSession() })).status).toBe(200);
  });

  it('no page, script or response carries the key', async () => {
    const cookie = await newSession();
    expect(createdKeys.length).toBeGreaterThan(0);
    const token = JSON.parse((await get('/v1/tokens/search', { cookie })).text).data[0];
    const paths = ['/', `/t/${token.token_address}`, `/w/${token.token_address}`, '/terminal/app.css', '/terminal/app.js', '/v1/tokens/search', `/v1/tokens/${token.token_address}`, `/v1/pools/${token.pool_address}`, `/v1/pools/${token.pool_address}/candles`, `/v1/tokens/${token.token_address}/trades`];
    const bodies: string[] = [];
    for (const path of paths) {
      const res = await fetch(base + path, { headers: { cookie } });
      bodies.push(`${path} ${[...res.headers].join(' ')} ${await res.text()}`);
    }
    bodies.push(...(await openWs({ cookie })).frames);
    for (const key of createdKeys) for (const body of bodies) expect(body.includes(key), body.slice(0, 80)).toBe(false);
  });
});
