/**
 * The shapes every layer shares (STYLE.md section 1: engine/model): pure data and
 * tables, importing nothing internal, so storage, actors, the engine and transport
 * can all depend on them without depending on each other.
 */
export { TRADE, TRADE_FIELDS, compareKey, compareStored, type StoredTrade, type TradeKey, type TradeSpan } from './trade.ts';
