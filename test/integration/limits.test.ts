import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRACE_MS, nextMonthStartOf } from '../../actors/account/account.logic.ts';
import { SimulatedClock } from '../../engine/clock.ts';
import { configSchema, type ConfigInput } from '../../engine/config.ts';
import { EngineError } from '../../engine/errors.ts';
import { createKeyStore, createLimits, type Account } from '../../engine/plans/index.ts';
import { openStorage } from '../../storage/lmdb.ts';
import { z } from 'zod';
import { defineRoute, ROUTES } from '../../transport/index.ts';
import { requirePlan } from '../../transport/http/route.ts';
import { tempDir } from '../helpers/fixtures.ts';
import { startLimitsServer, type LimitsServer } from '../helpers/limits.ts';

/** A promise with its resolve exposed: lets a test decide when an async handler finishes. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

let releaseSlow = deferred();
let slowStarted: Array<() => void> = [];
const testRoutes = [
  ...ROUTES,
  defineRoute({
    pattern: '/v1/test/slow',
    auth: true,
    handler: async () => {
      slowStarted.shift()?.();
      await releaseSlow.promise;
      return { slow: true };
    },
  }),
  defineRoute({ pattern: '/v1/test/pro', auth: true, minPlan: 'pro', handler: () => ({ pro: true }) }),
  // A route of every plan with a parameter for Pro and above (as /v1/tokens/{token}/holders?label=).
  defineRoute({
    pattern: '/v1/test/pro-param',
    auth: true,
    query: z.object({ label: z.string().optional() }),
    handler: (ctx) => {
      if (ctx.query.label !== undefined) requirePlan(ctx, 'pro', 'label');
      return { plan: ctx.plan };
    },
  }),
  defineRoute({
    pattern: '/v1/test/boom',
    auth: true,
    handler: () => {
      throw new EngineError(5030, 'restarting');
    },
  }),
];

const CONFIG: ConfigInput = {
  plans: {
    free: { rps: 2, in_flight: 1, monthly_requests: 1_000 },
    starter: { rps: 3, in_flight: 2, monthly_requests: 1_000 },
    pro: { rps: 10, in_flight: 5, monthly_requests: 1_000 },
    scale: { rps: 20, in_flight: 5, monthly_requests: 3 },
  },
};

let t: LimitsServer;
beforeAll(async () => {
  t = await startLimitsServer({ config: CONFIG, routes: testRoutes });
  t.query.price = { price_usd: 150, updated_at: 1 };
});
afterAll(async () => {
  await t?.close();
});

async function newKey(plan: Account['plan'], expiresAt: number | null = null) {
  const created = await t.keys.create({ plan, expiresAt });
  return { id: created.id, auth: { authorization: `Bearer ${created.key}` } };
}

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.baseUrl + path, { headers });
  const body = (await res.json()) as { code: number; error: string | null; message: string };
  const h = (name: string) => res.headers.get(name);
  return { status: res.status, body, h };
}

/** The next second: a fresh rate window for every key. */
const nextSecond = () => t.clock.increment(1_000);

describe('rate headers', () => {
  it('are on every response of an authenticated route: 200, 400, 403, 404, 5xx', async () => {
    nextSecond();
    const key = await newKey('starter');
    const ok = await get('/v1/market/sol-price', key.auth);
    expect(ok.status).toBe(200);
    expect([ok.h('ratelimit-limit'), ok.h('ratelimit-remaining'), ok.h('ratelimit-reset')]).toEqual(['3', '2', '1']);
    expect([ok.h('x-quota-limit'), ok.h('x-quota-remaining')]).toEqual(['1000', '999']);
    expect(Number(ok.h('x-quota-reset'))).toBe(Math.ceil((nextMonthStartOf(t.clock.now()) - t.clock.now()) / 1_000));
    expect(ok.h('retry-after')).toBeNull();
    expect(ok.h('x-subscription-grace')).toBeNull();

    const bad = await get('/v1/market/sol-price?bogus=1', key.auth);
    expect([bad.status, bad.body.code, bad.h('ratelimit-remaining'), bad.h('x-quota-remaining')]).toEqual([400, 4000, '1', '998']);
    const gated = await get('/v1/test/pro', key.auth);
    expect([gated.status, gated.body.code, gated.body.error, gated.h('ratelimit-remaining')]).toEqual([403, 4033, 'PLAN_REQUIRED', '0']);
    expect(gated.body.message).toBe('/v1/test/pro needs the pro plan or above; this key is on starter');

    nextSecond();
    t.query.price = null;
    const missing = await get('/v1/market/sol-price', key.auth);
    t.query.price = { price_usd: 150, updated_at: 1 };
    expect([missing.status, missing.body.code, missing.h('ratelimit-limit'), missing.h('x-quota-remaining')]).toEqual([404, 4040, '3', '996']);
    const failed = await get('/v1/test/boom', key.auth);
    expect([failed.status, failed.body.code, failed.h('ratelimit-remaining'), failed.h('x-quota-remaining')]).toEqual([503, 5030, '1', '995']);
    // A path under /v1 that is no route: admitted like one, then 404.
    const unknown = await get('/v1/pools/x/nope', key.auth);
    expect([unknown.status, unknown.body.code, unknown.h('ratelimit-remaining'), unknown.h('x-quota-remaining')]).toEqual([404, 4040, '0', '994']);
    expect(t.limits.usageOf(key.id)).toMatchObject({ requests: 6, inFlight: 0 });
    const limited = await get('/v1/nope', key.auth);
    expect([limited.status, limited.body.code, limited.h('retry-after')]).toEqual([429, 4290, '1']);
  });

  it('are absent where there is no key to count against: 401 and open routes', async () => {
    const none = await get('/v1/market/sol-price');
    expect([none.status, none.body.code, none.h('ratelimit-limit'), none.h('x-quota-remaining')]).toEqual([401, 4010, null, null]);
    const key = await newKey('starter');
    await t.keys.revoke(key.id);
    const revoked = await get('/v1/market/sol-price', key.auth);
    expect([revoked.status, revoked.body.code, revoked.h('ratelimit-limit')]).toEqual([401, 4013, null]);
    const health = await get('/health');
    expect([health.status, health.h('ratelimit-limit')]).toEqual([200, null]);
    // Unknown paths: under /v1 the key comes first (401 without one); elsewhere a plain 404.
    const unknownApi = await get('/v1/nope');
    expect([unknownApi.status, unknownApi.body.code, unknownApi.h('ratelimit-limit')]).toEqual([401, 4010, null]);
    const unknown = await get('/nope');
    expect([unknown.status, unknown.body.code, unknown.h('ratelimit-limit')]).toEqual([404, 4040, null]);
  });
});

describe('429', () => {
  it('RATE_LIMITED past rps in a second, with Retry-After; a 429 counts nowhere; the next second recovers', async () => {
    nextSecond();
    const key = await newKey('starter');
    for (const remaining of ['2', '1', '0']) {
      const r = await get('/v1/market/sol-price', key.auth);
      expect([r.status, r.h('ratelimit-remaining')]).toEqual([200, remaining]);
    }
    for (let i = 0; i < 2; i++) {
      const r = await get('/v1/market/sol-price', key.auth);
      expect([r.status, r.body.code, r.body.error]).toEqual([429, 4290, 'RATE_LIMITED']);
      expect([r.h('retry-after'), r.h('ratelimit-remaining'), r.h('ratelimit-reset'), r.h('x-quota-remaining')]).toEqual(['1', '0', '1', '997']);
    }
    // Another key of the same plan has its own window.
    expect((await get('/v1/market/sol-price', (await newKey('starter')).auth)).status).toBe(200);
    t.clock.increment(999);
    expect((await get('/v1/market/sol-price', key.auth)).status).toBe(429);
    t.clock.increment(1);
    const r = await get('/v1/market/sol-price', key.auth);
    expect([r.status, r.h('ratelimit-remaining'), r.h('x-quota-remaining')]).toEqual([200, '2', '996']);
  });

  it('QUOTA_EXCEEDED once the month is used, until the next calendar month (UTC)', async () => {
    nextSecond();
    const key = await newKey('scale');
    for (const remaining of ['2', '1', '0']) expect((await get('/v1/market/sol-price', key.auth)).h('x-quota-remaining')).toBe(remaining);
    const r = await get('/v1/market/sol-price', key.auth);
    expect([r.status, r.body.code, r.body.error, r.h('x-quota-remaining')]).toEqual([429, 4291, 'QUOTA_EXCEEDED', '0']);
    const untilNextMonth = Math.ceil((nextMonthStartOf(t.clock.now()) - t.clock.now()) / 1_000);
    expect(Number(r.h('retry-after'))).toBe(untilNextMonth);
    expect(Number(r.h('x-quota-reset'))).toBe(untilNextMonth);
    t.clock.set(nextMonthStartOf(t.clock.now()));
    const after = await get('/v1/market/sol-price', key.auth);
    expect([after.status, after.h('x-quota-remaining')]).toEqual([200, '2']);
  });

  it('TOO_MANY_IN_FLIGHT while in_flight requests of the key are running; slots come back when they end', async () => {
    nextSecond();
    const key = await newKey('starter');
    const started = [deferred(), deferred()];
    slowStarted = started.map((d) => d.resolve);
    const slow = [get('/v1/test/slow', key.auth), get('/v1/test/slow', key.auth)];
    await Promise.all(started.map((d) => d.promise));
    expect(t.limits.usageOf(key.id)?.inFlight).toBe(2);
    const r = await get('/v1/market/sol-price', key.auth);
    expect([r.status, r.body.code, r.body.error, r.h('retry-after')]).toEqual([429, 4292, 'TOO_MANY_IN_FLIGHT', '1']);
    const released = t.nextDone();
    releaseSlow.resolve();
    expect((await Promise.all(slow)).map((s) => s.status)).toEqual([200, 200]);
    await released;
    releaseSlow = deferred();
    expect(t.limits.usageOf(key.id)?.inFlight).toBe(0);
    expect((await get('/v1/market/sol-price', key.auth)).status).toBe(200);
  });

  it('a client that aborts gives its slot back, exactly once', async () => {
    nextSecond();
    const key = await newKey('starter');
    const started = deferred();
    slowStarted = [started.resolve];
    const socket = connect(t.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`GET /v1/test/slow HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${key.auth.authorization}\r\n\r\n`);
    await started.promise;
    expect(t.limits.usageOf(key.id)?.inFlight).toBe(1);
    const released = t.nextDone();
    socket.destroy();
    await released;
    expect(t.limits.usageOf(key.id)?.inFlight).toBe(0);
    // The handler finishes after the abort: its release must not run a second time.
    releaseSlow.resolve();
    expect((await get('/v1/market/sol-price', key.auth)).status).toBe(200);
    releaseSlow = deferred();
    expect(t.limits.usageOf(key.id)?.inFlight).toBe(0);
  });
});

describe('plans', () => {
  it('a Pro route admits pro and scale keys and refuses free and starter with 403/4033', async () => {
    nextSecond();
    for (const [plan, status] of [['free', 403], ['starter', 403], ['pro', 200], ['scale', 200]] as const) {
      const r = await get('/v1/test/pro', (await newKey(plan)).auth);
      expect([plan, r.status, r.body.code]).toEqual([plan, status, status === 200 ? 0 : 4033]);
    }
  });

  it('after expiry: 2 hours of grace on the same plan with X-Subscription-Grace, then the free plan', async () => {
    nextSecond();
    const key = await newKey('pro', t.clock.now() + 1_000);
    const active = await get('/v1/test/pro', key.auth);
    expect([active.status, active.h('x-subscription-grace'), active.h('ratelimit-limit')]).toEqual([200, null, '10']);
    nextSecond();
    const grace = await get('/v1/test/pro', key.auth);
    expect([grace.status, grace.h('x-subscription-grace'), grace.h('ratelimit-limit')]).toEqual([200, 'true', '10']);
    expect(t.limits.usageOf(key.id)).toMatchObject({ phase: 'grace', plan: 'pro' });
    t.clock.increment(GRACE_MS - 1_000);
    expect((await get('/v1/market/sol-price', key.auth)).h('x-subscription-grace')).toBe('true');
    t.clock.increment(1_000);
    // Free now: its rps (2), its in-flight limit, and no Pro routes.
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const r = await get('/v1/market/sol-price', key.auth);
      expect([r.h('ratelimit-limit'), r.h('x-subscription-grace')]).toEqual(['2', null]);
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    nextSecond();
    expect((await get('/v1/test/pro', key.auth)).body.code).toBe(4033);
    expect(t.limits.usageOf(key.id)).toMatchObject({ phase: 'free', plan: 'free' });
  });

  it('a parameter for Pro and above follows the plan in force: the key\'s in its grace, free after it', async () => {
    nextSecond();
    const key = await newKey('pro', t.clock.now() + 1_000);
    expect((await get('/v1/test/pro-param?label=kol', key.auth)).body).toMatchObject({ code: 0, data: { plan: 'pro' } });
    nextSecond();
    expect((await get('/v1/test/pro-param?label=kol', key.auth)).body).toMatchObject({ code: 0, data: { plan: 'pro' } });
    t.clock.increment(GRACE_MS);
    const denied = await get('/v1/test/pro-param?label=kol', key.auth);
    expect([denied.status, denied.body.code, denied.body.message]).toEqual([403, 4033, 'label: needs the pro plan or above; this key is on free']);
    // The route itself stays open to every plan.
    nextSecond();
    expect((await get('/v1/test/pro-param', key.auth)).body).toMatchObject({ code: 0, data: { plan: 'free' } });
    const starter = await newKey('starter');
    expect((await get('/v1/test/pro-param?label=kol', starter.auth)).status).toBe(403);
  });
});

describe('AccountLimits (what the WebSocket transport calls)', () => {
  const plans = configSchema.parse({
    plans: { starter: { ws_connections: 2, watched_items: 3, monthly_requests: 100 } },
  }).plans;

  async function setup() {
    const dir = tempDir('mds-limits-');
    const storage = openStorage(dir.path);
    const clock = new SimulatedClock(Date.UTC(2026, 0, 31, 23, 0, 0));
    const keys = createKeyStore(storage, clock);
    const limits = createLimits({ plans, clock, storage, flushMs: 0 });
    const account = async (plan: Account['plan'], expiresAt: number | null = null) => {
      const created = await keys.create({ plan, expiresAt });
      return keys.verify(created.key)!;
    };
    const close = async () => {
      await limits.close();
      await storage.close();
      dir.cleanup();
    };
    return { dir, storage, clock, keys, limits, account, close };
  }

  it('connection slots per plan; free has none', async () => {
    const s = await setup();
    const a = await s.account('starter');
    expect([s.limits.openConnection(a), s.limits.openConnection(a), s.limits.openConnection(a)]).toEqual([true, true, false]);
    s.limits.closeConnection(a.id);
    expect(s.limits.openConnection(a)).toBe(true);
    expect(s.limits.openConnection(await s.account('free'))).toBe(false);
    // A close without an open never makes room the plan does not have.
    const b = await s.account('starter');
    s.limits.closeConnection(b.id);
    expect([s.limits.openConnection(b), s.limits.openConnection(b), s.limits.openConnection(b)]).toEqual([true, true, false]);
    await s.close();
  });

  it('watched items: distinct per account across connections, reference-counted, all or nothing', async () => {
    const s = await setup();
    const a = await s.account('starter');
    expect(s.limits.watch(a, ['pool1', 'pool2'])).toBe(true);
    // A second connection naming pool2 again and a new item: 3 distinct.
    expect(s.limits.watch(a, ['pool2', 'feed:new_pair', 'feed:new_pair'])).toBe(true);
    expect(s.limits.usageOf(a.id)?.watchedItems).toBe(3);
    expect(s.limits.watch(a, ['pool1', 'pool9'])).toBe(false);
    expect(s.limits.watch(a, ['pool1'])).toBe(true);
    expect(s.limits.usageOf(a.id)?.watchedItems).toBe(3);
    s.limits.unwatch(a.id, ['pool2']);
    expect(s.limits.watch(a, ['pool9'])).toBe(false);
    s.limits.unwatch(a.id, ['pool2', 'unknown']);
    expect(s.limits.watch(a, ['pool9'])).toBe(true);
    expect(s.limits.watch(await s.account('free'), ['pool1'])).toBe(false);
    await s.close();
  });

  it('message allowance: 20 × monthly requests, false past 110 %, back at the next month', async () => {
    const s = await setup();
    const a = await s.account('starter');
    expect(s.limits.countMessages(a, 2_000)).toBe(true);
    expect(s.limits.countMessages(a, 200)).toBe(true);
    expect(s.limits.countMessages(a, 1)).toBe(false);
    expect(s.limits.countMessages(a, Number.NaN)).toBe(false);
    s.clock.increment(3_600_000);
    expect(s.limits.countMessages(a, 1)).toBe(true);
    expect(s.limits.usageOf(a.id)?.messages).toBe(1);
    await s.close();
  });

  it('onPlanChange fires when grace ends (noticed by the sweep) and on revoke, not when grace starts', async () => {
    const s = await setup();
    const seen: Array<[string, string]> = [];
    const off = s.limits.onPlanChange((id, plan) => void seen.push([id, plan]));
    const a = await s.account('pro', s.clock.now() + 1_000);
    expect(s.limits.planOf(a)).toEqual({ plan: 'pro', grace: false });
    expect(s.limits.openConnection(a)).toBe(true);
    s.clock.increment(1_000);
    s.limits.sweep();
    await Promise.resolve();
    expect(seen).toEqual([]);
    expect(s.limits.planOf(a)).toEqual({ plan: 'pro', grace: true });
    s.clock.increment(GRACE_MS);
    s.limits.sweep();
    await Promise.resolve();
    expect(seen).toEqual([[a.id, 'free']]);
    expect(s.limits.planOf(a)).toEqual({ plan: 'free', grace: false });

    const b = await s.account('scale');
    expect(s.limits.openConnection(b)).toBe(true);
    await s.keys.revoke(b.id);
    s.limits.sweep();
    await Promise.resolve();
    expect(seen).toEqual([[a.id, 'free'], [b.id, 'free']]);
    expect(s.limits.openConnection(b)).toBe(false);
    off();
    await s.close();
  });

  it('the call that notices a grace end also tells the listeners', async () => {
    const s = await setup();
    const seen: string[] = [];
    s.limits.onPlanChange((id) => void seen.push(id));
    const a = await s.account('starter', s.clock.now());
    expect(s.limits.countMessages(a, 1)).toBe(true);
    s.clock.increment(GRACE_MS);
    expect(s.limits.planOf(a).plan).toBe('free');
    expect(seen).toEqual([]);
    await Promise.resolve();
    expect(seen).toEqual([a.id]);
    await s.close();
  });

  it('monthly counts are written in batches and survive closing and reopening the storage', async () => {
    const s = await setup();
    const a = await s.account('starter');
    for (let i = 0; i < 3; i++) expect(s.limits.admitRequest(a, undefined).verdict).toBe(0);
    s.limits.countMessages(a, 5);
    // Nothing is written per request: only a flush writes.
    expect(s.storage.usage.get(a.id)).toBeUndefined();
    await s.limits.flush();
    expect(s.storage.usage.get(a.id)).toEqual({ monthStartsAt: Date.UTC(2026, 0, 1), requests: 3, messages: 5 });
    s.limits.admitRequest(a, undefined);
    await s.limits.close();
    await s.storage.close();

    const storage = openStorage(s.dir.path);
    const limits = createLimits({ plans, clock: s.clock, storage, flushMs: 0 });
    const d = limits.admitRequest(a, undefined);
    expect([d.verdict, d.quotaRemaining]).toEqual([0, 100 - 5]);
    expect(limits.countMessages(a, 1)).toBe(true);
    expect(limits.usageOf(a.id)).toMatchObject({ requests: 5, messages: 6, inFlight: 1 });
    // Counts of an earlier month are not carried into a new one.
    s.clock.increment(3_600_000);
    expect(limits.admitRequest(a, undefined).quotaRemaining).toBe(99);
    await limits.close();
    await storage.close();
    s.dir.cleanup();
  });
});
