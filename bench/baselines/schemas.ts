/**
 * JSON Schemas of the Fastify baseline (bench/baselines/fastify-server.ts), written by
 * hand as Fastify's docs ask: "Validation and Serialization" recommends a response
 * schema, which Fastify compiles with fast-json-stringify (faster than JSON.stringify
 * and it drops fields the schema does not name). Property order follows the bodies
 * mds sends (engine/query/views.ts, engine/model/trade-record.ts), so the two servers answer byte-identical
 * bodies; bench/http.ts checks that before loading either. A field mds adds later and
 * this file lacks shows up there as a body mismatch, not as a silently faster baseline.
 */

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const nstr = { type: ['string', 'null'] } as const;
const nnum = { type: ['number', 'null'] } as const;
const nbool = { type: ['boolean', 'null'] } as const;

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const nullable = (schema: { type: string; [k: string]: unknown }) => ({ ...schema, type: [schema.type, 'null'] });

/** SERVICE.md 2.1 addresses, as mds's params.ts checks them. */
export const ADDRESS = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' } as const;

/** The success envelope of SERVICE.md 2.1 around `data`. */
export const envelope = (data: unknown) => object({ code: { type: 'integer' }, error: { type: 'null' }, message: str, data });

/** A paged list's envelope: `pagination` after `data`. */
export const pagedEnvelope = (item: unknown) =>
  object({ code: { type: 'integer' }, error: { type: 'null' }, message: str, data: { type: 'array', items: item }, pagination: object({ next_cursor: nstr, has_more: bool }) });

/** The failure envelope (SERVICE.md 7.1), for the error handlers. */
export const failure = object({ code: { type: 'integer' }, error: str, message: str, data: { type: 'null' } });

export const solPrice = object({ price_usd: num, updated_at: num });

const poolObject = object({
  pool_address: str, base_address: str, quote_address: str, dex: str, pool_type: str, created_at: num,
  migrated_from_pool_address: nstr, migrated_at: nnum,
});

const tokenObject = object({
  token_address: str, symbol: nstr, name: nstr, image_url: nstr, description: nstr,
  socials: { type: 'object', additionalProperties: str },
  decimals: nnum, launched_at: nnum, mayhem_mode: bool, mayhem_ends_at: nnum, creator_fee_destination: nstr, tags: { type: 'array', items: str }, migrated: bool,
});

const snapshot = object({
  price_quote: num, price_usd: nnum, market_cap_quote: num, market_cap_usd: nnum, liquidity_quote: num, liquidity_usd: nnum,
  bonding_curve_progress_pct: num,
});

const totals = object({
  volume_quote: num, buy_volume_quote: num, sell_volume_quote: num, ath_market_cap_quote: nnum,
  trade_count: num, buy_count: num, sell_count: num, trader_count: nnum, buyer_count: nnum, seller_count: nnum,
  volume_usd: nnum, buy_volume_usd: nnum, sell_volume_usd: nnum, ath_market_cap_usd: nnum,
  launch_price_quote: nnum, launch_price_usd: nnum, price_change_pct_quote: nnum, price_change_pct_usd: nnum,
  total_supply: nnum, circulating_supply: nnum, lp_burned_pct: nnum,
  dev_pct: nnum, sniper_pct: nnum, bundle_pct: nnum, top10_pct: nnum, bonding_curve_gain_5m_pct: nnum,
  first_trade_at: nnum, holder_count: nnum, bundler_count: nnum,
  mint_revoked: nbool, freeze_revoked: nbool, dex_paid: nbool,
});

const pair = (first: unknown, second: unknown) => ({ type: 'array', items: [first, second], minItems: 2, maxItems: 2 });
const numbers = { type: 'array', items: num };

/** SERVICE.md 2.5, columnar: one entry per window of `t` (actors/pool/windows.ts). */
const windowed = nullable(object({
  t: { type: 'array', items: str },
  pp: { type: 'array', items: pair(nnum, nnum) },
  v: { type: 'array', items: pair(num, nnum) },
  vb: { type: 'array', items: pair(num, nnum) },
  vs: { type: 'array', items: pair(num, nnum) },
  tc: numbers, bc: numbers, sc: numbers, m: numbers, bm: numbers, sm: numbers,
}) as { type: string });

const heat = nullable(object({ absolute: num, momentum: num, direction: str, drivers: { type: 'array', items: str }, confidence: num }) as { type: string });

export const poolOverview = object({
  pool: poolObject,
  token: nullable(tokenObject as { type: string }),
  lifecycle: str,
  snapshot,
  totals,
  windowed,
  heat,
  replaced_by_pool_address: nstr,
});

const candle = object({ start_at: num, open: nnum, high: nnum, low: nnum, close: nnum, volume: nnum });

export const candles = object({ pool_address: str, interval: str, mode: str, currency: str, candles: { type: 'array', items: candle } });

export const trade = object({
  trade_id: str, tx_hash: str, slot: num, tx_index: num, event_index: num, type: str, wallet_address: str,
  token_address: str, quote_address: str, pool_address: str, dex: str, token_amount: num, quote_amount: num,
  price_quote: num, price_usd: nnum, amount_usd: nnum, market_cap_quote: num, market_cap_usd: nnum,
  labels: { type: 'array', items: str }, created_at: num,
});
