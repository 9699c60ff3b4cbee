import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';
import { startStreamsEngine, type StreamsEngine } from '../helpers/streams-engine.ts';
import { TestClient } from '../helpers/ws.ts';

/**
 * The stocks feed (DECISIONS.md "Tokenized stocks"): a `token` event may carry `tags`,
 * the tag `stock` marks a tokenized equity, and `market.stockMints` lists stocks for
 * sources that send no tags. Real engine (event clock), route 16 and route 2 over real
 * HTTP, the `rankings` stream over a real WebSocket; bad tags go to dead letters.
 */

const r = rng(2377);
const T0 = 1_767_225_600_000;
const [TAGGED, CONFIGURED, OTHER_TAGS, UNTAGGED] = [base58(r, 44), base58(r, 44), base58(r, 44), base58(r, 44)];
const POOL: Record<string, string> = { [TAGGED]: base58(r, 44), [CONFIGURED]: base58(r, 44), [OTHER_TAGS]: base58(r, 44), [UNTAGGED]: base58(r, 44) };
const WALLET = base58(r, 44);
let n = 0;

const token = (mint: string, extra: Record<string, unknown> = {}, slot = 1, at = T0) => ({
  type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'S', name: 'Stock', slot, at, ...extra,
});
/** A buy of `sol` SOL (USD 100 each) in the pool of `mint`. */
const buy = (mint: string, at: number, sol: number) => ({
  type: 'swap', tx_hash: base58(rng(70_000 + ++n), 88), slot: 5_000 + n, tx_index: 1, event_index: 0, at, pool_address: POOL[mint], wallet_address: WALLET, side: 'buy',
  base_amount_raw: '1000000', quote_amount_raw: String(sol * 1e9), base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000000',
});
/** Moves the engine clock to `at` (the ticks due before it run first). */
const clockTo = (at: number) => ({ type: 'quote_price', quote_address: WSOL, price_usd: 100, at });

let served: StreamsEngine;
const ingest = (...events: unknown[]) => served.ingest(...events);
const addresses = (items: Array<{ pool_address: string }>) => items.map((i) => i.pool_address);

beforeAll(async () => {
  served = await startStreamsEngine(async (ingest) => {
    await ingest(
      clockTo(T0),
      token(TAGGED, { tags: ['stock', 'nasdaq'] }),
      token(CONFIGURED),
      token(OTHER_TAGS, { tags: ['meme'] }),
      token(UNTAGGED),
    );
    let slot = 10;
    for (const mint of [TAGGED, CONFIGURED, OTHER_TAGS, UNTAGGED]) {
      await ingest({ type: 'pool', pool_address: POOL[mint], base_address: mint, quote_address: WSOL, dex: 'raydium', pool_type: 'cpmm', created_at: T0 + slot, slot: slot++ });
    }
    // USD volume: TAGGED $300, CONFIGURED $500, the two others more (they must stay out all the same).
    await ingest(buy(TAGGED, T0 + 1_000, 3), buy(CONFIGURED, T0 + 1_100, 5), buy(OTHER_TAGS, T0 + 1_200, 9), buy(UNTAGGED, T0 + 1_300, 9), clockTo(T0 + 60_000));
  }, { 'market.stockMints': [CONFIGURED] });
});

afterAll(() => served?.close());

describe('the stocks feed', () => {
  it('route 16: the token tagged stock and the configured mint, by USD volume in the window; untagged and otherwise-tagged tokens are not', async () => {
    const res = await served.http.get('/v1/tokens/rankings/stocks?window=5m');
    expect(res.status).toBe(200);
    expect(addresses(res.body.data)).toEqual([POOL[CONFIGURED], POOL[TAGGED]]);
    expect(res.body.data.map((e: any) => e.score)).toEqual([500, 300]);
    expect(res.body.data[1].token).toMatchObject({ token_address: TAGGED, tags: ['stock', 'nasdaq'] });
    // The configured mint has no tags: it is listed by the config alone.
    expect(res.body.data[0].token).toMatchObject({ token_address: CONFIGURED, tags: [] });
  });

  it('route 2: a token carries its tags ([] without)', async () => {
    expect((await served.http.get(`/v1/tokens/${TAGGED}`)).body.data.token.tags).toEqual(['stock', 'nasdaq']);
    expect((await served.http.get(`/v1/tokens/${OTHER_TAGS}`)).body.data.token.tags).toEqual(['meme']);
    expect((await served.http.get(`/v1/tokens/${UNTAGGED}`)).body.data.token.tags).toEqual([]);
  });

  it('the rankings stream: a snapshot with the stocks, and a new one when a token gains or loses the tag (the latest slot wins)', async () => {
    const c = await TestClient.connect(served.ws.url, { key: served.key });
    c.subscribe('rankings', { feed: 'stocks', window: '5m' });
    const first = (await c.next((m) => m.stream === 'rankings')).data;
    expect(first).toMatchObject({ event: 'snapshot', feed: 'stocks', window: '5m' });
    expect(addresses(first.rankings)).toEqual([POOL[CONFIGURED], POOL[TAGGED]]);
    // UNTAGGED is tagged at slot 20, TAGGED untagged at slot 21; an older event (slot 2) that tags TAGGED again changes nothing.
    await ingest(
      token(UNTAGGED, { tags: ['stock'] }, 20, T0 + 61_000),
      token(TAGGED, { tags: null }, 21, T0 + 61_000),
      token(TAGGED, { tags: ['stock'] }, 2, T0 + 61_000),
      buy(TAGGED, T0 + 62_000, 1), buy(CONFIGURED, T0 + 62_000, 1), buy(UNTAGGED, T0 + 62_000, 1),
      clockTo(T0 + 120_000),
    );
    const next = (await c.next((m) => m.stream === 'rankings' && m.data.updated_at === T0 + 120_000)).data;
    expect(addresses(next.rankings)).toEqual([POOL[UNTAGGED], POOL[CONFIGURED]]);
    expect(next.rankings.map((e: any) => e.score)).toEqual([1_000, 600]);
    expect(addresses((await served.http.get('/v1/tokens/rankings/stocks?window=5m')).body.data)).toEqual([POOL[UNTAGGED], POOL[CONFIGURED]]);
    c.close();
  });

  it('bad tags go to dead letters with the reason, and the token stays as it was', async () => {
    const cases: Array<[unknown, string]> = [
      ['stock', 'token.tags: not an array of strings'],
      [{ stock: true }, 'token.tags: not an array of strings'],
      [['stock', 7], 'token.tags.1: not a string'],
    ];
    const before = served.engine.gate.deadLetters;
    for (const [tags, reason] of cases) {
      expect(await served.engine.ingest(token(CONFIGURED, { tags }, 30, T0 + 121_000))).toEqual({ status: 'rejected', reason });
    }
    expect(served.engine.gate.deadLetters).toBe(before + cases.length);
    const letters = [...served.engine.storage.deadLetters.getRange()].map((e) => e.value as { reason: string });
    expect(letters.slice(-cases.length).map((l) => l.reason)).toEqual(cases.map(([, reason]) => reason));
    expect((await served.http.get(`/v1/tokens/${CONFIGURED}`)).body.data.token.tags).toEqual([]);
  });
});
