import type { PoolInfo } from '../../actors/index.ts';
import { topics } from './names.ts';

/**
 * pool_trades:<pool>: every trade of one pool as it is applied (SERVICE.md 6), its
 * trade record (engine/model tradeRecord) from the pool's base token's side: the same
 * data as the base token's token_trades frame, serialized once for both (publisher.ts).
 */

/** The pool's pool_trades topic. */
export const poolTradesTopic = (info: PoolInfo): string => topics.poolTrades(info.pool_address);

/** A pool_trades frame around a trade record's JSON. */
export const poolTradesFrame = (data: string): string => `{"stream":"pool_trades","data":${data}}`;
