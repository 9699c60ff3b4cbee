/**
 * The built-in market simulator (`--source sim`, `mds sim`): a deterministic launchpad
 * market of bonding curves, graduations, AMM pools, tokenized stocks, wallet personas,
 * quote prices, labels and social posts, as INGEST.md events. See README.md here.
 */

/** Options of the simulator, their defaults and the default start of files. */
export { SIM_DEFAULTS, SIM_FILE_START_AT, SLOT_MS, type SimOptions } from './options.ts';
/** The endless synchronous event stream, and its first stretch as an Observable. */
export { simulate, simulate$ } from './simulate.ts';
/** The live source for `mds serve`, paced against wall time. */
export { simSource, type SimPersistence, type SimSourceOptions } from './sim-source.ts';
/** The live source's market saved between runs, and events moved past a downtime. */
export { decodeSimState, encodeSimState, shiftEvent, STATE_VERSION, type SimState } from './state.ts';
/** Writes the stream to an NDJSON file, byte-identical for the same seed and options. */
export { writeSimFile, type WriteSimFileOptions } from './sim-file.ts';
/** Parses `1h`, `30m`, `90s`, `500ms` or plain milliseconds. */
export { parseDuration } from './duration.ts';
/** Detects tokenized stocks (xStocks naming), and the simulator's stock mints. */
export { isStockToken, SIM_STOCK_MINTS, STOCK_DESCRIPTION_PREFIX } from './stocks.ts';
/** pump.fun curve constants and math, for tests and for consumers that price curves. */
export {
  curveBuy,
  curveMarketCapSol,
  curvePriceSol,
  curveProgressPct,
  curveSell,
  newCurve,
  PUMP_CURVE_FEE_BPS,
  PUMP_INITIAL_REAL_BASE_RAW,
  PUMP_INITIAL_VIRTUAL_BASE_RAW,
  PUMP_INITIAL_VIRTUAL_QUOTE_RAW,
  PUMP_MIGRATION_BASE_RAW,
  PUMP_TOTAL_SUPPLY_RAW,
  type CurveState,
} from './curve.ts';
/** The label each wallet persona carries. */
export { PERSONA_LABEL, type Persona } from './personas.ts';
