import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';
import { startStreamsEngine, type StreamsEngine } from '../helpers/streams-engine.ts';

/**
 * A token that loses the `stock` tag leaves the stocks feed of every window, also when
 * the recompute memo (InputMemo, actors/feed/feed.actor.ts) last read its pool in a pass
 * of another window: the 5m recompute runs every minute, the 1h one every two, and a read
 * of the pool by the 5m pass alone (a trade left the 5m window, no new trade) records
 * whether its token is a stock now. The 1h pass after it must still give the pool to the
 * stocks book, which then takes it out; passing it over (nothing moved in its 1h figures)
 * left it listed. Real engine (event clock), route 16 over real HTTP.
 */

const r = rng(9_151);
const T0 = 1_767_225_600_000; // a multiple of every recompute cadence
const [MINT, POOL, WALLET] = [base58(r, 44), base58(r, 44), base58(r, 44)];
let n = 0;

const token = (tags: string[] | null, slot: number, at: number) => ({
  type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'S', name: 'Stock', tags, slot, at,
});
/** A buy of 1 SOL at a constant price (the reserves stay as they are): no price change in any window. */
const buy = (at: number) => ({
  type: 'swap', tx_hash: base58(rng(90_000 + ++n), 88), slot: 5_000 + n, tx_index: 1, event_index: 0, at, pool_address: POOL, wallet_address: WALLET, side: 'buy',
  base_amount_raw: '1000000', quote_amount_raw: '1000000000', base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000000',
});
/** Moves the engine clock to `at` (the ticks due before it run first). */
const clockTo = (at: number) => ({ type: 'quote_price', quote_address: WSOL, price_usd: 100, at });

let served: StreamsEngine;
const listed = async (window: string) => ((await served.http.get(`/v1/tokens/rankings/stocks?window=${window}`)).body.data as Array<{ pool_address: string }>).map((e) => e.pool_address);

beforeAll(async () => {
  served = await startStreamsEngine(async (ingest) => {
    await ingest(clockTo(T0), token(['stock'], 1, T0));
    await ingest({ type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'raydium', pool_type: 'cpmm', created_at: T0 + 1, slot: 2 });
    // The first buy leaves the 5m window at T0 + 390 s; the second moves the pool's seq on
    // just before the 6-minute tick, where the 5m and 1h passes both read it (a stock).
    await ingest(buy(T0 + 90_000), buy(T0 + 350_000), clockTo(T0 + 361_000));
  });
});

afterAll(() => served?.close());

describe('the stocks feed and the recompute memo', () => {
  it('a token untagged leaves the stocks of every window, though the 5m pass alone read its pool since', async () => {
    expect(await listed('5m')).toEqual([POOL]);
    expect(await listed('1h')).toEqual([POOL]);
    // Untagged; at 7 minutes the 5m pass alone reads the pool (the first buy left its window).
    await served.ingest(token(null, 10, T0 + 370_000), clockTo(T0 + 421_000));
    expect(await listed('5m')).toEqual([]);
    // At 8 minutes the 1h pass: nothing moved in its figures, but the token is no stock.
    await served.ingest(clockTo(T0 + 481_000));
    expect(await listed('1h')).toEqual([]);
    expect(await listed('5m')).toEqual([]);
  });
});
