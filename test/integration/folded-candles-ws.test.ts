import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Candle } from '../../engine/model/index.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';
import { startStreamsEngine, type StreamsEngine } from '../helpers/streams-engine.ts';
import { TestClient } from '../helpers/ws.ts';

/**
 * Issue 25: a closed 1s or 15s candle is not kept, so a late trade for one (past the
 * 10 s after which a bucket closes) only marks it changed, and the live frame reads it
 * back from the pool's trades. The frame must hold the candle as the route shows it,
 * the late trade and the earlier ones together. Real engine, uWS, HTTP and WebSocket.
 */

const r = rng(2526);
const MINT = base58(r, 44);
const POOL = base58(r, 44);
const WALLET = base58(r, 44);
const T0 = 1_767_225_600_000;
const swap = swapMaker(POOL, WALLET, 71_000, 1_000);
/** A buy of 1 token for `price` SOL in `slot`. */
const buy = (at: number, price: number, slot: number) => swap(at, { quote_amount_raw: String(price * 1e9), slot });

let srv: StreamsEngine;

/** Ingests the events in order, each applied, then flushes (closed candles taken, frames published). */
async function ingest(...events: unknown[]): Promise<void> {
  await srv.ingest(...events);
  srv.engine.flush();
}

const route = async (interval: string) => (await srv.http.get(`/v1/pools/${POOL}/candles?interval=${interval}&currency=quote`)).body.data.candles as Candle[];

beforeAll(async () => {
  srv = await startStreamsEngine((first) =>
    first(
      { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
      { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'LATE', name: 'Late', slot: 1, at: T0 },
      { type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'raydium_cpmm', pool_type: 'cpmm', created_at: T0, slot: 2 },
    ),
  );
});

afterAll(() => srv.close());

describe('a late trade for a closed 1s and 15s candle', () => {
  it('streams the candle as the route shows it, folded from every trade of its bucket', async () => {
    await ingest(buy(T0 + 1_200, 2, 10), buy(T0 + 1_700, 3, 12), buy(T0 + 40_000, 5, 100));
    // 40 s: the 1s buckets at 1 s and the 15s bucket at 0 are closed (10 s lateness), so neither is kept.
    const clients = await Promise.all(['1s', '15s'].map(async (interval) => {
      const client = await TestClient.connect(srv.ws.url, { key: srv.key });
      client.subscribe('candles', { pool_address: POOL, interval, currency: 'quote' });
      await client.untilPong();
      return client;
    }));
    // Late: slot 11 falls between the two earlier trades of 1s@1 s by chain position.
    await ingest(buy(T0 + 1_100, 7, 11));
    const frames = await Promise.all(clients.map((c) => c.next((f) => f.stream === 'candles')));
    for (const c of clients) {
      c.close();
      await c.closed;
    }
    expect(frames[0]!.data.candles).toEqual([{ start_at: T0 + 1_000, open: 2, high: 7, low: 2, close: 3, volume: 12 }]);
    expect(frames[1]!.data.candles).toEqual([{ start_at: T0, open: 2, high: 7, low: 2, close: 3, volume: 12 }]);
    expect(frames[0]!.data.candles[0]).toEqual((await route('1s')).find((c) => c.start_at === T0 + 1_000));
    expect(frames[1]!.data.candles[0]).toEqual((await route('15s')).find((c) => c.start_at === T0));
    // Nothing of 1s or 15s waits in the pool to be written.
    expect(srv.engine.pools.get(POOL)!.closed.buffer.toRows().filter((row) => row[0]! < 2)).toEqual([]);
  });
});
