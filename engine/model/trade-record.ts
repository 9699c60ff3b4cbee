import type { StoredTrade } from './trade.ts';

/**
 * The trade record of SERVICE.md 2.8, as the trade lists (engine/query) and the trade
 * streams (engine/topics) send it: built from a stored trade and its pool, once per
 * trade and side.
 */

/** What a trade record says of its pool (the pool actor's info has these fields). */
export interface TradePool {
  readonly pool_address: string;
  readonly base_address: string;
  readonly quote_address: string;
  readonly dex: string;
}

/**
 * A trade record (SERVICE.md 2.8) from the side of `token`: when it is the pool's
 * quote (a token-to-token pool, or ?token= the quote), buy and sell and the amounts
 * swap and prices invert (INGEST.md).
 */
export function tradeRecord(t: StoredTrade, pool: { readonly info: TradePool | null }, token: string, quoteTokenSupply: number | null, labels: string[]) {
  const info = pool.info!;
  const baseSide = token === info.base_address;
  const [at, slot, txIndex, eventIndex, buy, wallet, baseAmount, quoteAmount, priceQuote, quoteUsd, marketCapQuote, txHash] = t;
  const amountUsd = quoteUsd === null ? null : quoteAmount * quoteUsd;
  if (baseSide) {
    return {
      trade_id: `${txHash}:${eventIndex}`, tx_hash: txHash, slot, tx_index: txIndex, event_index: eventIndex,
      type: buy ? 'buy' : 'sell', wallet_address: wallet, token_address: info.base_address, quote_address: info.quote_address,
      pool_address: info.pool_address, dex: info.dex, token_amount: baseAmount, quote_amount: quoteAmount,
      price_quote: priceQuote, price_usd: quoteUsd === null ? null : priceQuote * quoteUsd, amount_usd: amountUsd,
      market_cap_quote: marketCapQuote, market_cap_usd: quoteUsd === null ? null : marketCapQuote * quoteUsd, labels, created_at: at,
    };
  }
  // The token is the pool's quote: its USD price is the quote's (known for wSOL and USDC).
  const price = priceQuote > 0 ? 1 / priceQuote : 0;
  const marketCap = quoteTokenSupply === null ? 0 : price * quoteTokenSupply;
  return {
    trade_id: `${txHash}:${eventIndex}`, tx_hash: txHash, slot, tx_index: txIndex, event_index: eventIndex,
    type: buy ? 'sell' : 'buy', wallet_address: wallet, token_address: info.quote_address, quote_address: info.base_address,
    pool_address: info.pool_address, dex: info.dex, token_amount: quoteAmount, quote_amount: baseAmount,
    price_quote: price, price_usd: quoteUsd, amount_usd: amountUsd, market_cap_quote: marketCap,
    market_cap_usd: quoteUsd === null || quoteTokenSupply === null ? null : quoteUsd * quoteTokenSupply,
    labels, created_at: at,
  };
}

/** A number as JSON.stringify writes it (null for NaN and ±Infinity). */
const num = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/** Per pool info: the pool fields of its trade records from the base side and from the quote side, as JSON. */
const poolFieldsJson = new WeakMap<TradePool, [base: string, quote: string]>();

function poolFields(info: TradePool, baseSide: boolean): string {
  let fields = poolFieldsJson.get(info);
  if (fields === undefined) {
    const tail = `"pool_address":${JSON.stringify(info.pool_address)},"dex":${JSON.stringify(info.dex)}`;
    const base = JSON.stringify(info.base_address);
    const quote = JSON.stringify(info.quote_address);
    fields = [`"token_address":${base},"quote_address":${quote},${tail}`, `"token_address":${quote},"quote_address":${base},${tail}`];
    poolFieldsJson.set(info, fields);
  }
  return fields[baseSide ? 0 : 1];
}

/**
 * JSON.stringify(tradeRecord(...)), byte for byte, written directly: no record object,
 * and the pool's fields serialized once per pool. Trade lists and trade frames spent
 * most of their serialization in JSON.stringify's walk of ~20 keys per trade.
 * `tx_hash` and `wallet_address` go in as they are: the ingest gate admits only
 * base58 for them (engine/ingest/events.ts), which JSON never escapes.
 * test/unit/model/trade-record.test.ts compares both on random trades.
 */
export function tradeJson(t: StoredTrade, pool: { readonly info: TradePool | null }, token: string, quoteTokenSupply: number | null, labels: string[]): string {
  const info = pool.info!;
  const baseSide = token === info.base_address;
  const [at, slot, txIndex, eventIndex, buy, wallet, baseAmount, quoteAmount, priceQuote, quoteUsd, marketCapQuote, txHash] = t;
  const head = `{"trade_id":"${txHash}:${eventIndex}","tx_hash":"${txHash}","slot":${num(slot)},"tx_index":${num(txIndex)},"event_index":${num(eventIndex)},"type":`;
  const labelsJson = labels.length === 0 ? '[]' : JSON.stringify(labels);
  const amountUsd = quoteUsd === null ? 'null' : num(quoteAmount * quoteUsd);
  if (baseSide) {
    return (
      head + (buy ? '"buy"' : '"sell"') + `,"wallet_address":"${wallet}",` + poolFields(info, true) +
      `,"token_amount":${num(baseAmount)},"quote_amount":${num(quoteAmount)},"price_quote":${num(priceQuote)},"price_usd":${quoteUsd === null ? 'null' : num(priceQuote * quoteUsd)}` +
      `,"amount_usd":${amountUsd},"market_cap_quote":${num(marketCapQuote)},"market_cap_usd":${quoteUsd === null ? 'null' : num(marketCapQuote * quoteUsd)},"labels":${labelsJson},"created_at":${num(at)}}`
    );
  }
  const price = priceQuote > 0 ? 1 / priceQuote : 0;
  const marketCap = quoteTokenSupply === null ? 0 : price * quoteTokenSupply;
  return (
    head + (buy ? '"sell"' : '"buy"') + `,"wallet_address":"${wallet}",` + poolFields(info, false) +
    `,"token_amount":${num(quoteAmount)},"quote_amount":${num(baseAmount)},"price_quote":${num(price)},"price_usd":${quoteUsd === null ? 'null' : num(quoteUsd)}` +
    `,"amount_usd":${amountUsd},"market_cap_quote":${num(marketCap)},"market_cap_usd":${quoteUsd === null || quoteTokenSupply === null ? 'null' : num(quoteUsd * quoteTokenSupply)}` +
    `,"labels":${labelsJson},"created_at":${num(at)}}`
  );
}

/** A trade record (SERVICE.md 2.8) as an object. */
export type TradeRecord = ReturnType<typeof tradeRecord>;
