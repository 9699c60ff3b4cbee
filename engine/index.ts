// First: fail with a clear message on a Node.js version mds does not run on, before
// the native modules the imports below load.
import './node-version.ts';

/**
 * mds as a library (`import { createEngine, loadConfig, startService } from 'mds'`):
 * the engine over a data directory, its configuration, its HTTP and /ws service, and
 * the types an embedder handles. The package's entry point; everything else is internal.
 */

/** The engine: ingest, actors, read facade, live events. */
export { createEngine, Engine } from './system.ts';
export type { EngineOptions, StampedEvent } from './system.ts';
/** A `--source` name of an embedder's own (EngineOptions.sources). */
export type { SourceFactory } from './sources/index.ts';
/** Extra actor kinds (EngineOptions.actors) and the derived events they may take (engine/supervisor/router.ts). */
export type { ActorBehavior, ActorContext, ActorEvent } from './supervisor/index.ts';
export { TRADE, tradeFromTokenSide } from './model/index.ts';
export type { DerivedEvent, PoolGraduatedEvent, PoolTradeEvent, StoredTrade, TokenHoldersEvent, TokenSideTrade } from './model/index.ts';
/** Configuration: defaults, a JSON file, the environment, flags (one zod schema). */
export { ConfigError, DEFAULT_PLANS, PLAN_NAMES, configSchema, loadConfig } from './config.ts';
export type { Config, ConfigInput, ConfigSources, PlanLimits, PlanName } from './config.ts';
/** Serving an engine over HTTP and /ws (what `mds serve` does after ingesting). */
export { startService } from './serve.ts';
export type { Service } from './serve.ts';
/** API keys of a data directory. */
export { createKeyStore, keyState } from './plans/index.ts';
export type { Account, CreatedKey, KeyState, KeyStore } from './plans/index.ts';
/** Clocks an engine can run on. */
export { EventClock, WallClock } from './clock.ts';
export type { Clock } from './clock.ts';
/** The error type and its code table (SERVICE.md 7.1). */
export { ERROR_CODES, EngineError } from './errors.ts';
export type { ErrorCode } from './errors.ts';
export { createLogger } from './log.ts';
export type { Logger } from './log.ts';
/** The supported Node.js range, as package.json states it. */
export { SUPPORTED_NODE } from './node-version.ts';
/** The events of INGEST.md, as `engine.ingest(event)` takes them, and what it resolves with. */
export { KNOWN_MINTS, USDC, WSOL } from './model/index.ts';
export type {
  BalanceEvent,
  EventType,
  IngestEvent,
  LabelEvent,
  MigrationEvent,
  PoolEvent,
  QuotePriceEvent,
  SocialPostEvent,
  SwapEvent,
  TokenEvent,
} from './ingest/index.ts';
export type { IngestResult } from './ingest/index.ts';
