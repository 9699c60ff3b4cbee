import {
  HTTP_QUERY_BYTES_MAX,
  INGEST_BATCHES_IN_FLIGHT_MAX,
  INGEST_BATCH_MAX,
  ACTORS_RESIDENT_MAX,
  ACTORS_RESIDENT_BYTES_MAX,
  INGEST_LINE_BYTES_MAX,
  APPLY_SLICE_MS,
  SLICE_SHARE_MAX_MS,
  SOLANA_WS_BACKFILL_MAX_PAGES,
  WS_BACKPRESSURE_BYTES,
  WS_BACKPRESSURE_HARD_BYTES,
  WS_FRAME_BYTES_MAX,
  WS_HELD_BYTES_MAX,
  WS_SUBSCRIPTIONS_MAX,
} from './bounds.ts';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * How far past a resident bound (a fraction of it: of residentMax per kind, of
 * residentBytesMax) the evictions of applied batches may lag while `mds serve` applies
 * later events (config `actors.evictionLag`; engine/apply.ts): a batch's evictions take
 * hundreds of ms during a backlog (a snapshot each), and events waiting for them all
 * left WebSocket clients without a frame meanwhile. Past it, events wait as before.
 */
const ACTORS_EVICTION_LAG = 1 / 8;
/**
 * Share of the event loop a checkpoint or idle sweep in slices may take (engine/slices.ts
 * inSlices): a slice runs up to this fraction of how long other work held the loop since
 * the last one, so that a pass keeps pace while batches hold the loop long (`mds
 * replay`'s whole batches). Only then: beside the apply's slices it is not used
 * (engine/system.ts checkpointSlicing).
 */
const CHECKPOINT_SHARE = 0.5;

/**
 * The one configuration schema. Parsed once at start-up from defaults, an optional
 * JSON file, the environment and flags (later ones win); `process.env` is read
 * nowhere else. Plan fields use the snake_case names DECISIONS.md fixes.
 */
const planSchema = (d: PlanLimits) =>
  z
    .object({
      rps: z.number().int().positive().default(d.rps).describe('requests per second per key'),
      in_flight: z.number().int().positive().default(d.in_flight).describe('concurrent requests per key'),
      monthly_requests: z.number().int().positive().default(d.monthly_requests).describe('HTTP requests per month'),
      ws_connections: z.number().int().nonnegative().default(d.ws_connections).describe('open WebSocket connections per account'),
      watched_items: z.number().int().nonnegative().default(d.watched_items).describe('watched items across connections'),
    })
    .strict()
    .default(d);

export interface PlanLimits {
  rps: number;
  in_flight: number;
  monthly_requests: number;
  ws_connections: number;
  watched_items: number;
}

export const PLAN_NAMES = ['free', 'starter', 'pro', 'scale'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** Defaults of DECISIONS.md, "Plans". */
export const DEFAULT_PLANS: Record<PlanName, PlanLimits> = {
  free: { rps: 5, in_flight: 2, monthly_requests: 100_000, ws_connections: 0, watched_items: 0 },
  starter: { rps: 25, in_flight: 5, monthly_requests: 2_000_000, ws_connections: 2, watched_items: 100 },
  pro: { rps: 100, in_flight: 20, monthly_requests: 20_000_000, ws_connections: 10, watched_items: 1_000 },
  scale: { rps: 500, in_flight: 100, monthly_requests: 200_000_000, ws_connections: 50, watched_items: 10_000 },
};

export const SOURCE_PATTERN = /^(sim|none|ndjson:.+|solana-ws:wss?:\/\/.+|yellowstone:https?:\/\/.+)$/;

export const configSchema = z
  .object({
    data: z.string().min(1).default('./data').describe('directory of the LMDB environment'),
    host: z.string().min(1).default('127.0.0.1').describe('address the HTTP/WS server binds; 0.0.0.0 to expose it'),
    port: z.number().int().min(0).max(65535).default(8080).describe('HTTP and WebSocket port (0 = any free port)'),
    source: z
      .string()
      .regex(SOURCE_PATTERN, 'expected sim, none, ndjson:<path>, ndjson:-, solana-ws:<ws:// or wss:// URL> or yellowstone:<http:// or https:// endpoint>')
      .default('sim')
      .describe('event source: sim, ndjson:<path>, ndjson:- (stdin), solana-ws:<RPC WebSocket URL>, yellowstone:<gRPC endpoint> or none'),
    yellowstoneToken: z.string().min(1).optional().describe('x-token of the yellowstone: source (MDS_YELLOWSTONE_TOKEN)'),
    solanaWsBackfillMaxPages: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .default(SOLANA_WS_BACKFILL_MAX_PAGES)
      .describe('solana-ws: gap repair after a reconnect: getSignaturesForAddress pages of 1,000 per program at most; a larger gap is logged and its older part not repaired'),
    clock: z.enum(['wall', 'event']).default('wall').describe('wall time, or event time (latest event seen) for replays'),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ingest: z
      .object({
        batchMax: z.number().int().min(1).max(100_000).default(INGEST_BATCH_MAX).describe('events per ingest-log transaction; a parsed chunk of input (up to 1 MiB) is never split, so one chunk may pass it'),
        batchesInFlightMax: z.number().int().min(1).max(64).default(INGEST_BATCHES_IN_FLIGHT_MAX).describe('uncommitted batches before sources are paused, once they hold 1 MiB of log or more (small batches of a live pipe do not wait for the disk)'),
        lineBytesMax: z.number().int().min(1024).default(INGEST_LINE_BYTES_MAX).describe('longest NDJSON line accepted; longer lines go to dead letters'),
        applySliceMs: z
          .number()
          .min(0)
          .default(APPLY_SLICE_MS)
          .describe('longest the actors apply committed batches at once; the rest waits for later turns, with reads and WebSocket writes between them (0: each batch whole in its turn)'),
        logRetentionMs: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('how long (event time) the ingest log is kept past the checkpoint that covers it; mds reads only what is after the last checkpoint (start-up replay, rebuilds), so 0 deletes the rest as each checkpoint is recorded'),
      })
      .strict()
      .default({ batchMax: INGEST_BATCH_MAX, batchesInFlightMax: INGEST_BATCHES_IN_FLIGHT_MAX, lineBytesMax: INGEST_LINE_BYTES_MAX, applySliceMs: APPLY_SLICE_MS, logRetentionMs: 0 }),
    actors: z
      .object({
        idleMs: z.number().int().min(10).default(60_000).describe('an actor unused this long is passivated'),
        sweepMs: z.number().int().min(10).default(5_000).describe('how often idle actors are looked for'),
        checkpointMs: z.number().int().min(10).default(30_000).describe('how often dirty actors are snapshotted (a crash replays the log since)'),
        checkpointSliceMs: z
          .number()
          .min(0)
          .default(5)
          .describe('longest a checkpoint or idle sweep holds the event loop at once; the rest goes to later turns (0: all in one turn)'),
        checkpointShare: z
          .number()
          .min(0)
          .max(4)
          .default(CHECKPOINT_SHARE)
          .describe(
            `while the apply runs whole batches (ingest.applySliceMs 0, as \`mds replay\`), a checkpoint or idle sweep slice may also run up to this fraction of how long other work held the event loop since its last slice (at most ${SLICE_SHARE_MAX_MS} ms): a slice a turn is a fair share only while other turns are short too, as they are beside the apply's slices, where it is not used (0: checkpointSliceMs only)`,
          ),
        restartsMax: z.number().int().min(1).default(10).describe('restarts of one actor per minute of the engine clock before it is stopped'),
        residentMax: z
          .number()
          .int()
          .min(1)
          .default(ACTORS_RESIDENT_MAX)
          .describe('actors of one kind (pools, tokens, wallets...) kept in memory at most, a backstop behind residentBytesMax; past it the least recently used of the kind are passivated after each batch, idle or not'),
        residentBytesMax: z
          .number()
          .int()
          .min(1)
          .default(ACTORS_RESIDENT_BYTES_MAX)
          .describe('estimated bytes of JS heap of the actors kept in memory, every kind together; past it the least recently used actors of any kind are passivated after each batch, idle or not (each kind estimates its own: a pool ~5.5 KB plus its windows, 36 KB of rings once busy and ~120 B a wallet of its last 24 h, and the buffers it holds off the heap, ~1.7 KB of candles and the slab of its unsaved trades; a wallet ~0.4 KB + 0.7 KB a position)'),
        evictionLag: z
          .number()
          .min(0)
          .max(1)
          .default(ACTORS_EVICTION_LAG)
          .describe('how far past residentMax or residentBytesMax, as a fraction of the bound, the evictions of applied batches may lag while later events are applied in slices (ingest.applySliceMs), half of each slice theirs; past it, events wait until the evictions are back within it (0: every batch evicted to the bound before the next event)'),
      })
      .strict()
      .default({ idleMs: 60_000, sweepMs: 5_000, checkpointMs: 30_000, checkpointSliceMs: 5, checkpointShare: CHECKPOINT_SHARE, restartsMax: 10, residentMax: ACTORS_RESIDENT_MAX, residentBytesMax: ACTORS_RESIDENT_BYTES_MAX, evictionLag: ACTORS_EVICTION_LAG }),
    retention: z
      .object({
        tradesDays: z.number().positive().default(30).describe('trades older than this are deleted (SERVICE.md: 30 days of history), and with them the 1s and 15s candles, which are folded from the trades; longer candle intervals are kept'),
        everyMs: z.number().int().min(1_000).default(3_600_000).describe('how often retention runs (wall time)'),
      })
      .strict()
      .default({ tradesDays: 30, everyMs: 3_600_000 }),
    market: z
      .object({
        sniperSlots: z.number().int().min(0).max(1_000).default(3).describe('holder totals: wallets first holding within this many slots after a curve launch\'s creation slot are snipers (INGEST.md: 3, configurable)'),
        stockMints: z
          .array(z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'not a base58 address of 32 to 44 characters'))
          .max(10_000)
          .default([])
          .describe('tokens the stocks ranking feed lists as tokenized equities beside those a `token` event tags `stock` (DECISIONS.md "Tokenized stocks"), for sources that send no tags'),
      })
      .strict()
      .default({ sniperSlots: 3, stockMints: [] }),
    signals: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .default({})
      .describe('signal thresholds: signals.<kind>.<name> overrides the default of actors/signals/signals.rules.ts SIGNAL_DEFAULTS (checked against it when the engine starts; formulas in actors/signals/SIGNALS.md)'),
    http: z
      .object({
        queryBytesMax: z.number().int().min(256).default(HTTP_QUERY_BYTES_MAX).describe('longest query string accepted (400 past it)'),
      })
      .strict()
      .default({ queryBytesMax: HTTP_QUERY_BYTES_MAX }),
    ws: z
      .object({
        authTimeoutMs: z.number().int().min(10).default(5_000).describe('a connection without a key this long after connect is closed with 4408 (SERVICE.md: 5 s)'),
        frameBytesMax: z.number().int().min(1_024).max(1_048_576).default(WS_FRAME_BYTES_MAX).describe('largest client frame; longer ones close with 4400'),
        idleTimeoutS: z.number().int().min(12).max(960).default(32).describe('uWS idleTimeout: above the 15 s client ping; uWS pings a silent client halfway'),
        backpressureBytes: z.number().int().min(1_024).default(WS_BACKPRESSURE_BYTES).describe('unsent bytes per connection before it is closed with 4008 (DECISIONS.md: 1 MiB)'),
        backpressureHardBytes: z.number().int().min(4_096).default(WS_BACKPRESSURE_HARD_BYTES).describe('uWS maxBackpressure: frames past it are dropped; far above backpressureBytes so the soft limit acts first'),
        stalledGraceMs: z.number().int().min(10).default(2_000).describe('a slow consumer that reads nothing this long is cut without waiting for its close frame'),
        heldBytesMax: z.number().int().min(1_024).default(WS_HELD_BYTES_MAX).describe('bytes of frames held before authentication completes; more closes with 4400'),
        subscriptionsMax: z.number().int().min(1).default(WS_SUBSCRIPTIONS_MAX).describe('subscriptions on one connection'),
      })
      .strict()
      .refine((ws) => ws.backpressureHardBytes >= 2 * ws.backpressureBytes, { message: 'backpressureHardBytes must be at least twice backpressureBytes', path: ['backpressureHardBytes'] })
      .default({
        authTimeoutMs: 5_000,
        frameBytesMax: WS_FRAME_BYTES_MAX,
        idleTimeoutS: 32,
        backpressureBytes: WS_BACKPRESSURE_BYTES,
        backpressureHardBytes: WS_BACKPRESSURE_HARD_BYTES,
        stalledGraceMs: 2_000,
        heldBytesMax: WS_HELD_BYTES_MAX,
        subscriptionsMax: WS_SUBSCRIPTIONS_MAX,
      }),
    sim: z
      .object({
        seed: z.number().int().default(42).describe('simulator seed'),
        speed: z.number().positive().default(1).describe('simulated seconds per wall second; other than 1, the clock defaults to event (the events are dated ahead of or behind wall time)'),
        launchRate: z.number().positive().optional().describe('token launches per simulated minute'),
        tradeRate: z.number().positive().optional().describe('target swaps per simulated second'),
      })
      .strict()
      .default({ seed: 42, speed: 1 }),
    debug: z
      .object({
        longTaskMs: z
          .number()
          .min(0)
          .default(0)
          .describe('log (warn, "long task") every apply slice, tick, ticker slice, checkpoint slice, eviction, garbage collection or late event-loop turn that holds the main thread longer than this, with its name (0: off; engine/long-tasks.ts)'),
      })
      .strict()
      .default({ longTaskMs: 0 }),
    plans: z
      .object({
        free: planSchema(DEFAULT_PLANS.free),
        starter: planSchema(DEFAULT_PLANS.starter),
        pro: planSchema(DEFAULT_PLANS.pro),
        scale: planSchema(DEFAULT_PLANS.scale),
      })
      .strict()
      .default(DEFAULT_PLANS),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Environment variables the service reads, mapped to config paths. */
const ENV_MAP: Record<string, string[]> = {
  MDS_DATA: ['data'],
  MDS_HOST: ['host'],
  MDS_PORT: ['port'],
  MDS_SOURCE: ['source'],
  MDS_YELLOWSTONE_TOKEN: ['yellowstoneToken'],
  MDS_CLOCK: ['clock'],
  MDS_LOG_LEVEL: ['logLevel'],
  MDS_SIM_SEED: ['sim', 'seed'],
  MDS_SIM_SPEED: ['sim', 'speed'],
};
const NUMERIC_PATHS = new Set(['port', 'sim.seed', 'sim.speed', 'sim.launchRate', 'sim.tradeRate']);

function setPath(target: Record<string, any>, path: string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) node = node[part] ??= {};
  node[path[path.length - 1]!] = value;
}

function coerce(path: string[], value: string): unknown {
  if (!NUMERIC_PATHS.has(path.join('.'))) return value;
  const n = Number(value);
  return value.trim() === '' || Number.isNaN(n) ? value : n;
}

function deepMerge(a: Record<string, any>, b: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && a[k] && typeof a[k] === 'object' ? deepMerge(a[k], v) : v;
  }
  return out;
}

export interface ConfigSources {
  /** Flag values by config path (`port`, `sim.seed`); strings are coerced like the environment. */
  flags?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  /** Path of a JSON config file. */
  file?: string;
}

/** Resolve the configuration; throws ConfigError naming the bad value. */
export function loadConfig(sources: ConfigSources = {}): Config {
  let merged: Record<string, any> = {};
  if (sources.file) {
    let text: string;
    try {
      text = readFileSync(sources.file, 'utf8');
    } catch (err) {
      throw new ConfigError(`config file ${sources.file}: ${(err as Error).message}`);
    }
    try {
      merged = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`config file ${sources.file}: not JSON (${(err as Error).message})`);
    }
    if (!merged || typeof merged !== 'object' || Array.isArray(merged)) {
      throw new ConfigError(`config file ${sources.file}: expected a JSON object`);
    }
  }
  const fromEnv: Record<string, any> = {};
  for (const [name, path] of Object.entries(ENV_MAP)) {
    const value = sources.env?.[name];
    if (value !== undefined) setPath(fromEnv, path, coerce(path, value));
  }
  merged = deepMerge(merged, fromEnv);
  const fromFlags: Record<string, any> = {};
  for (const [key, value] of Object.entries(sources.flags ?? {})) {
    if (value === undefined) continue;
    const path = key.split('.');
    setPath(fromFlags, path, typeof value === 'string' ? coerce(path, value) : value);
  }
  merged = deepMerge(merged, fromFlags);
  // The simulator faster or slower than wall time dates its events ahead of (or behind)
  // the wall clock, where lists ending now would leave them out: unless a clock is
  // named, such a run derives state on event time, as a replay does.
  const speed = merged.sim?.speed;
  if (merged.clock === undefined && (merged.source ?? 'sim') === 'sim' && typeof speed === 'number' && speed !== 1) merged.clock = 'event';
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : '(root)';
    const keys = issue.code === 'unrecognized_keys' ? ` ${issue.keys.join(', ')}` : '';
    throw new ConfigError(`invalid config value ${where}:${keys} ${issue.message}`);
  }
  return result.data;
}
