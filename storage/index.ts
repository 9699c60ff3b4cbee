/** The entry point of storage/: what other folders may import from it (STYLE.md 3). */
export { CandlesRepo, type SegmentTails } from './candles.repo.ts';
export { logBytes, openStorage, whenFlushed, type Account, type Snapshot, type Storage, type UsageRecord } from './lmdb.ts';
export { writeNumber } from './msgpack-writer.ts';
export { decodeTrade, dedup, merge, readNumberAt, skipValue, tradeFields, windowed } from './trade-codec.ts';
export { TradesRepo, findAt, type EncodedTrades } from './trades.repo.ts';
export { pruneWalletIndex, storedWalletTrades } from './wallet-index.ts';
export { WalletIndexer } from './wallet-indexer.ts';
export { WriteOverlay } from './overlay.ts';
export { SignalsRepo, type SignalPage, type SignalPosition } from './signals.repo.ts';
