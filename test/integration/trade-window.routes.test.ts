import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { startServedEngine, type ServedEngine } from '../helpers/engine-server.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';

/**
 * The time window of the trade lists (SERVICE.md 4.1, README "Trade lists") on the
 * event clock: now is the latest event time applied. Trades lie over 40 days, so the
 * 24-hour default and the 30-day history both cut some off.
 */

const r = rng(4242);
const MINT = base58(r, 44);
const POOL_A = base58(r, 44);
const POOL_B = base58(r, 44);
const BUSY_MINT = base58(r, 44);
const BUSY = base58(r, 44);
const WALLET = base58(r, 44);
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const NOW = 1_767_225_600_000 + 40 * DAY;
const EARLY = NOW - 41 * DAY;

/** The trades by name: time and pool; `j` is at NOW and is the latest event applied (the clock). */
const TRADES = {
  a: { at: NOW - 35 * DAY, pool: POOL_A },
  b: { at: NOW - 30 * DAY - MIN, pool: POOL_A },
  c: { at: NOW - 30 * DAY + MIN, pool: POOL_B },
  d: { at: NOW - 10 * DAY, pool: POOL_B },
  e: { at: NOW - 2 * DAY, pool: POOL_A },
  f: { at: NOW - 24 * HOUR - MIN, pool: POOL_B },
  g: { at: NOW - 24 * HOUR + MIN, pool: POOL_A },
  h: { at: NOW - HOUR, pool: POOL_B },
  i: { at: NOW - 1_000, pool: POOL_A },
  j: { at: NOW, pool: POOL_A },
} as const;
type Name = keyof typeof TRADES;
const NAMES = Object.keys(TRADES) as Name[];
const at = (...names: Name[]) => names.map((n) => TRADES[n].at);
/** The named trades of pool A, of all: each list in time order. */
const OF_A = NAMES.filter((n) => TRADES[n].pool === POOL_A);

const BUSY_COUNT = 600;
/** Busy trades one a minute, minute-aligned, from 12 hours before NOW (all within the last 24 hours). */
const busyAt = (i: number) => NOW - 12 * HOUR + i * MIN;

/** A buy of 1 token for 1 SOL in each pool (fixtures.ts swapMaker: its own signatures and slots per pool). */
const swapIn: Record<string, ReturnType<typeof swapMaker>> = {
  [POOL_A]: swapMaker(POOL_A, WALLET, 100, 1_000),
  [POOL_B]: swapMaker(POOL_B, WALLET, 200, 2_000),
  [BUSY]: swapMaker(BUSY, WALLET, 10_000, 5_000),
};
const token = (mint: string) => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', slot: 10, at: EARLY });
const amm = (pool: string, mint: string) => ({ type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: EARLY, slot: 11 });

let srv: ServedEngine;
let engine: Engine;

beforeAll(async () => {
  srv = await startServedEngine([token(MINT), token(BUSY_MINT), amm(POOL_A, MINT), amm(POOL_B, MINT), amm(BUSY, BUSY_MINT)]);
  engine = srv.engine;
  const ingest = async (e: unknown) => expect((await engine.ingest(e)).status).toBe('applied');
  // The older trades reach LMDB blocks at a checkpoint; the rest stay in memory.
  for (const n of ['a', 'b', 'c', 'd', 'e'] as Name[]) await ingest(swapIn[TRADES[n].pool]!(TRADES[n].at));
  engine.flush();
  await engine.checkpoint();
  await Promise.all(Array.from({ length: BUSY_COUNT }, (_, i) => ingest(swapIn[BUSY]!(busyAt(i)))));
  for (const n of ['f', 'g', 'h', 'i', 'j'] as Name[]) await ingest(swapIn[TRADES[n].pool]!(TRADES[n].at));
  expect(engine.clock.now()).toBe(NOW);
});
afterAll(() => srv.stop());

async function times(path: string): Promise<number[]> {
  const { status, body } = await srv.get(path);
  expect(status, path).toBe(200);
  expect(body.pagination, path).toEqual({ next_cursor: null, has_more: false });
  return body.data.map((t: { created_at: number }) => t.created_at);
}

async function expect400(path: string, param: string): Promise<void> {
  const { status, body } = await srv.get(path);
  expect(status, path).toBe(400);
  expect(body, path).toMatchObject({ code: 4000, error: 'BAD_REQUEST', data: null });
  expect(body.message, path).toContain(param);
}

const tokenTrades = (query: string) => `/v1/tokens/${MINT}/trades?limit=500${query}`;
const poolTrades = (query: string) => `/v1/pools/${POOL_A}/trades?limit=500${query}`;

describe('trade list window', () => {
  it('order=asc with start_time lists the trades at or after start_time, oldest first', async () => {
    expect(await times(tokenTrades(`&order=asc&start_time=${TRADES.d.at}`))).toEqual(at('d', 'e', 'f', 'g', 'h', 'i', 'j'));
    expect(await times(tokenTrades(`&order=asc&start_time=${TRADES.d.at + 1}`))).toEqual(at('e', 'f', 'g', 'h', 'i', 'j'));
    expect(await times(poolTrades(`&order=asc&start_time=${TRADES.e.at}`))).toEqual(at('e', 'g', 'i', 'j'));
    expect(await times(poolTrades(`&order=asc&start_time=${TRADES.e.at + 1}`))).toEqual(at('g', 'i', 'j'));
  });

  it('the default order lists from now back to start_time, newest first', async () => {
    expect(await times(tokenTrades(`&start_time=${TRADES.d.at}`))).toEqual(at('j', 'i', 'h', 'g', 'f', 'e', 'd'));
    expect(await times(poolTrades(`&start_time=${TRADES.e.at}`))).toEqual(at('j', 'i', 'g', 'e'));
    // The first page of a desc walk starts at now.
    const first = await srv.get(`/v1/tokens/${MINT}/trades?limit=2&start_time=${TRADES.a.at}`);
    expect(first.body.data.map((t: { created_at: number }) => t.created_at)).toEqual(at('j', 'i'));
    expect(first.body.pagination.has_more).toBe(true);
  });

  it('without start_time lists only the last 24 hours', async () => {
    expect(await times(tokenTrades(''))).toEqual(at('j', 'i', 'h', 'g'));
    expect(await times(tokenTrades('&order=asc'))).toEqual(at('g', 'h', 'i', 'j'));
    expect(await times(poolTrades(''))).toEqual(at('j', 'i', 'g'));
    expect(await times(`/v1/pools/${POOL_B}/trades`)).toEqual(at('h'));
  });

  it('caps a start_time older than 30 days at 30 days before now', async () => {
    const within = NAMES.filter((n) => TRADES[n].at >= NOW - 30 * DAY);
    expect(within).toEqual(['c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']);
    for (const start of [NOW - 40 * DAY, TRADES.a.at, TRADES.b.at, 0]) {
      expect(await times(tokenTrades(`&order=asc&start_time=${start}`))).toEqual(at(...within));
      expect(await times(tokenTrades(`&start_time=${start}`))).toEqual(at(...within).reverse());
      expect(await times(poolTrades(`&order=asc&start_time=${start}`))).toEqual(at(...OF_A.filter((n) => within.includes(n))));
    }
    // Paged one at a time, a desc walk from 40 days back still stops at c.
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const { body }: { body: any } = await srv.get(`/v1/tokens/${MINT}/trades?limit=1&start_time=${NOW - 40 * DAY}${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.data.map((t: { created_at: number }) => t.created_at));
      cursor = body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(at(...within).reverse());
  });

  it('a start_time in the future gives an empty list', async () => {
    for (const start of [NOW + 1, NOW + DAY]) {
      expect(await times(tokenTrades(`&start_time=${start}`))).toEqual([]);
      expect(await times(tokenTrades(`&order=asc&start_time=${start}`))).toEqual([]);
      expect(await times(poolTrades(`&start_time=${start}`))).toEqual([]);
      expect(await times(poolTrades(`&order=asc&start_time=${start}`))).toEqual([]);
    }
  });
});

describe('trade cursors', () => {
  const nextCursor = async (path: string) => {
    const { status, body } = await srv.get(path);
    expect(status, path).toBe(200);
    expect(body.pagination.has_more, path).toBe(true);
    return body.pagination.next_cursor as string;
  };

  it('binds a cursor to start_time', async () => {
    const S = TRADES.d.at;
    const pool = await nextCursor(`/v1/pools/${POOL_A}/trades?limit=1&start_time=${S}`);
    const tokenCursor = await nextCursor(`/v1/tokens/${MINT}/trades?limit=1&start_time=${S}`);
    for (const other of [`&start_time=${S + 1}`, `&start_time=${S - 1}`, '']) {
      await expect400(`/v1/pools/${POOL_A}/trades?limit=1${other}&cursor=${pool}`, 'cursor');
      await expect400(`/v1/tokens/${MINT}/trades?limit=1${other}&cursor=${tokenCursor}`, 'cursor');
    }
    // A cursor made without start_time is not one for a request with it.
    const noStart = await nextCursor(`/v1/tokens/${MINT}/trades?limit=1`);
    await expect400(`/v1/tokens/${MINT}/trades?limit=1&start_time=${NOW - DAY}&cursor=${noStart}`, 'cursor');
    // With the same parameters, the walk goes on: j was the first page, i comes next.
    const next = await srv.get(`/v1/pools/${POOL_A}/trades?limit=1&start_time=${S}&cursor=${pool}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((t: { created_at: number }) => t.created_at)).toEqual(at('i'));
    const nextOfToken = await srv.get(`/v1/tokens/${MINT}/trades?limit=1&start_time=${S}&cursor=${tokenCursor}`);
    expect(nextOfToken.body.data.map((t: { created_at: number }) => t.created_at)).toEqual(at('i'));
  });

  it('binds a pool trades cursor to token', async () => {
    const base = `/v1/pools/${POOL_A}/trades?limit=1&start_time=${TRADES.d.at}`;
    const none = await nextCursor(base);
    const asBase = await nextCursor(`${base}&token=${MINT}`);
    const asQuote = await nextCursor(`${base}&token=${WSOL}`);
    await expect400(`${base}&token=${MINT}&cursor=${none}`, 'cursor');
    await expect400(`${base}&token=${WSOL}&cursor=${none}`, 'cursor');
    await expect400(`${base}&cursor=${asBase}`, 'cursor');
    await expect400(`${base}&token=${WSOL}&cursor=${asBase}`, 'cursor');
    await expect400(`${base}&token=${MINT}&cursor=${asQuote}`, 'cursor');
    const next = await srv.get(`${base}&token=${WSOL}&cursor=${asQuote}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((t: { created_at: number; token_address: string }) => [t.created_at, t.token_address])).toEqual([[TRADES.i.at, WSOL]]);
  });
});

describe('list defaults and maxima', () => {
  const busyDesc = (n: number) => Array.from({ length: n }, (_, k) => busyAt(BUSY_COUNT - 1 - k));

  for (const [route, path] of [
    ['token trades', `/v1/tokens/${BUSY_MINT}/trades`],
    ['pool trades', `/v1/pools/${BUSY}/trades`],
  ] as const) {
    it(`${route}: default limit 50, maximum 500`, async () => {
      const byDefault = await srv.get(path);
      expect(byDefault.status).toBe(200);
      expect(byDefault.body.data.map((t: { created_at: number }) => t.created_at)).toEqual(busyDesc(50));
      expect(byDefault.body.pagination.has_more).toBe(true);
      const max = await srv.get(`${path}?limit=500`);
      expect(max.status).toBe(200);
      expect(max.body.data.map((t: { created_at: number }) => t.created_at)).toEqual(busyDesc(500));
      expect(max.body.pagination.has_more).toBe(true);
      await expect400(`${path}?limit=501`, 'limit');
    });
  }

  it('candles: default limit 300 (the newest), maximum 1000', async () => {
    const starts = async (query: string) => {
      const { status, body } = await srv.get(`/v1/pools/${BUSY}/candles?interval=1m&currency=quote${query}`);
      expect(status).toBe(200);
      return body.data.candles.map((c: { start_at: number }) => c.start_at);
    };
    const all = Array.from({ length: BUSY_COUNT }, (_, i) => busyAt(i));
    expect(await starts('')).toEqual(all.slice(BUSY_COUNT - 300));
    expect(await starts('&limit=1000')).toEqual(all);
    await expect400(`/v1/pools/${BUSY}/candles?limit=1001`, 'limit');
  });

  it('GET /v1/tokens takes up to 50 addresses', async () => {
    const random = rng(777);
    const unknown = Array.from({ length: 49 }, () => base58(random, 44));
    const fifty = [MINT, ...unknown.slice(0, 48), BUSY_MINT];
    const { status, body } = await srv.get(`/v1/tokens?addresses=${fifty.join(',')}`);
    expect(status).toBe(200);
    expect(body.data.map((t: { token: { token_address: string } }) => t.token.token_address)).toEqual([MINT, BUSY_MINT]);
    await expect400(`/v1/tokens?addresses=${[...fifty, unknown[48]].join(',')}`, 'addresses');
  });
});
