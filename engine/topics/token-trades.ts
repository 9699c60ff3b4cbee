import type { PoolInfo } from '../../actors/index.ts';
import { KNOWN_MINTS } from '../model/index.ts';
import { topics } from './names.ts';

/**
 * token_trades:<token>: the trades of one token in every pool, each from its side
 * (SERVICE.md 6): a pool's trade goes to its base token's topic, and in a
 * token-to-token pool also to its quote token's, with the record from the quote side
 * (buy and sell swapped, the price inverted: engine/model tradeRecord). A known quote
 * mint (wSOL, USDC, USDT) has no token_trades topic.
 */

/** The base token's token_trades topic of a pool's trades. */
export const baseTradesTopic = (info: PoolInfo): string => topics.tokenTrades(info.base_address);

/** The quote token's token_trades topic of a pool's trades, or null when the quote is a known mint. */
export const quoteTradesTopic = (info: PoolInfo): string | null => (info.quote_address in KNOWN_MINTS ? null : topics.tokenTrades(info.quote_address));

/** A token_trades frame around a trade record's JSON. */
export const tokenTradesFrame = (data: string): string => `{"stream":"token_trades","data":${data}}`;
