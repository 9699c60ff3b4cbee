/** The entry point of engine/ingest/: what other folders may import from it (STYLE.md 3). */
export { timeOf, type BalanceEvent, type EventType, type IngestEvent, type LabelEvent, type MigrationEvent, type PoolEvent, type QuotePriceEvent, type SocialPostEvent, type SwapEvent, type TokenEvent } from './events.ts';
export { IngestGate, readLog, type CommittedBatch, type IngestResult } from './gate.ts';
export { LogRetention, pruneLogThrough } from './log-retention.ts';
export { ChunkParser } from './parse-pool.ts';
export { type ParsedChunk } from './parsed-chunk.ts';
