/**
 * Type tests of the client SDK: `tsc --noEmit` (npm test) checks this file and is not
 * run. Each `@ts-expect-error` must meet an error, or tsc fails ("unused directive"):
 * a wrong parameter name, a wrong value, a wrong field read are compile errors.
 */
import { createHttpClient } from '../../transport/client/http.ts';

const client = createHttpClient({ baseUrl: 'http://127.0.0.1:1' });
const ADDRESS = '11111111111111111111111111111111';

export async function checks(): Promise<void> {
  // A list: await gives a page, for await every item; items are the server's trade records.
  const page = await client.tokens.trades(ADDRESS, { limit: 100, order: 'asc', start_time: 1 });
  const first: string | undefined = page.data[0]?.trade_id;
  const next: string | null = page.pagination.next_cursor;
  for await (const trade of client.pools.trades(ADDRESS, { token: ADDRESS })) {
    const at: number = trade.created_at;
    // @ts-expect-error: a trade record has no `price` field (price_quote, price_usd)
    void trade.price;
    void at;
  }
  // @ts-expect-error: a wrong parameter name (`limt`)
  client.tokens.trades(ADDRESS, { limt: 5 });
  // @ts-expect-error: order is asc or desc
  client.tokens.trades(ADDRESS, { order: 'up' });
  // @ts-expect-error: limit is a number
  client.tokens.trades(ADDRESS, { limit: '5' });
  // @ts-expect-error: the path parameter is missing
  client.pools.get();
  // A route that does not page: its data. Required query parameters are required.
  const candles = await client.pools.candles(ADDRESS, { interval: '1m', mode: 'price' });
  const close: number | null = candles.candles[0]!.close;
  // @ts-expect-error: a wrong field of the candles result
  void candles.candle;
  // @ts-expect-error: addresses is required on /v1/tokens
  client.tokens.many();
  const tokens = await client.tokens.many({ addresses: [ADDRESS] });
  void tokens.length;
  // @ts-expect-error: a route that does not page is not iterable
  for await (const _ of client.pools.get(ADDRESS)) void _;
  void first, next, close;
}
