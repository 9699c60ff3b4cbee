/**
 * The shapes every layer shares (STYLE.md section 1: engine/model): pure data and
 * tables, importing nothing internal, so storage, actors, the engine and transport
 * can all depend on them without depending on each other.
 */
export { TRADE, TRADE_FIELDS, TRADE_FIELDS_MAX, compareKey, compareStored, type StoredTrade, type TradeKey, type TradeSpan } from './trade.ts';
export { tradeJson, tradeRecord, type TradePool, type TradeRecord } from './trade-record.ts';
export {
  CANDLE_CURRENCIES,
  CANDLE_INTERVALS,
  CANDLE_MODES,
  FOLDED_INTERVALS,
  INTERVAL_COUNT,
  INTERVAL_LENGTHS,
  INTERVAL_NAMES,
  SEARCH_WINDOWS,
  WINDOWS,
  WINDOW_BUCKETS,
  WINDOW_NAMES,
  WINDOW_RESOLUTION_MS,
  intervalIndex,
  type CandleCurrency,
  type CandleInterval,
  type CandleMode,
  type SearchWindow,
  type WindowName,
} from './intervals.ts';
export { BURN_ADDRESS, KNOWN_MINTS, STABLE_MINTS, USDC, USDT, WSOL } from './mints.ts';
export * from './candles.ts';
export { CandleRows } from './candle-rows.ts';
export { DERIVED_TYPES, tradeFromTokenSide, type DerivedEvent, type DerivedType, type PoolGraduatedEvent, type PoolTradeEvent, type SignalEvent, type TokenHoldersEvent, type TokenSideTrade } from './derived.ts';
export { TOKEN_SIGNAL_KINDS, WALLET_SIGNAL_KINDS, isTokenSignal, type Signal, type SignalKind, type TokenSignalKind, type WalletSignalKind } from './signal.ts';
export { bytesOfDoubles, doublesOfBytes } from './doubles.ts';
