import { deserialize, serialize } from 'node:v8';
import type { IngestEvent } from '../../ingest/index.ts';
import { TxHashes } from './base58.ts';
import { Market } from './market.ts';
import type { Holding, TokenState } from './model.ts';
import { SLOT_MS } from './options.ts';
import { Rng } from './rng.ts';
import { shiftPostTime } from './social.ts';
import { World } from './world.ts';

/**
 * The simulated market saved between slots, so that a later run goes on with it
 * (`mds serve` keeps it in LMDB meta: engine/serve.ts). Bump STATE_VERSION whenever
 * World, TokenState, PoolState, Holding, Action, Rng or TxHashes change shape: a state
 * of another version is refused, never half read.
 */
export const STATE_VERSION = 3;

/** What a run of the live source leaves for the next one. */
export interface SimState {
  market: Market;
  /**
   * Milliseconds (a whole number of slots) between the market's own clock and the
   * times its events carry: the downtime skipped by earlier restarts (shiftEvent).
   */
  offsetMs: number;
  /** Events submitted so far (the position dead letters name). */
  position: number;
}

/** Fields of a Holding, packed five numbers each (a Map of objects costs 4-5× more to serialize). */
const HOLDING_FIELDS = 5;

/**
 * The state as bytes: the World's object graph through V8's structured serializer
 * (Maps, BigInts, typed arrays and shared references survive; class prototypes do not
 * and are put back by decodeSimState), with the live tokens' holdings packed into a
 * Float64Array. Call it between slots (never while nextSlot runs). At the default
 * rates: 2.7 MB and ~4 ms after a simulated hour, 7.6 MB and ~13 ms after twelve.
 */
export function encodeSimState(state: SimState): Buffer {
  const w = state.market.world;
  const tokens = new Set<TokenState>([...w.tokens, ...w.bluechips]);
  const holdings = new Map<TokenState, Map<number, Holding>>();
  try {
    for (const token of tokens) {
      const map = token.holdings;
      const packed = new Float64Array(map.size * HOLDING_FIELDS);
      let i = 0;
      for (const h of map.values()) {
        packed[i++] = h.wallet;
        packed[i++] = h.balance;
        packed[i++] = h.slot;
        packed[i++] = h.position;
        packed[i++] = h.entryPriceSol;
      }
      holdings.set(token, map);
      (token as { holdings: unknown }).holdings = packed;
    }
    return serialize({ version: STATE_VERSION, offsetMs: state.offsetMs, position: state.position, world: w });
  } finally {
    for (const [token, map] of holdings) token.holdings = map;
  }
}

/** The state encodeSimState wrote; throws on another version or on bytes that are not one. */
export function decodeSimState(bytes: Uint8Array): SimState {
  const data = deserialize(bytes) as { version?: unknown; offsetMs: number; position: number; world: Record<string, unknown> };
  if (data?.version !== STATE_VERSION) throw new Error(`the simulator's saved state is of version ${String(data?.version)}, this mds reads ${STATE_VERSION}`);
  const raw = data.world;
  const world = Object.assign(Object.create(World.prototype) as World, raw, {
    rng: Object.assign(Object.create(Rng.prototype) as Rng, raw.rng),
    hashes: Object.assign(Object.create(TxHashes.prototype) as TxHashes, raw.hashes),
  });
  for (const token of new Set<TokenState>([...world.tokens, ...world.bluechips])) {
    const packed = token.holdings as unknown as Float64Array | Map<number, Holding>;
    if (!(packed instanceof Float64Array)) continue;
    const map = new Map<number, Holding>();
    for (let i = 0; i < packed.length; i += HOLDING_FIELDS) {
      const wallet = packed[i]!;
      map.set(wallet, { wallet, balance: packed[i + 1]!, slot: packed[i + 2]!, position: packed[i + 3]!, entryPriceSol: packed[i + 4]! });
    }
    token.holdings = map;
  }
  if (!Number.isSafeInteger(data.offsetMs) || data.offsetMs % SLOT_MS !== 0) throw new Error(`the simulator's saved state has a bad time offset: ${data.offsetMs}`);
  return { market: new Market(world), offsetMs: data.offsetMs, position: data.position };
}

/**
 * Moves an event `ms` later (a whole number of slots): its times, its slot, and an X
 * post's snowflake id. The event is the simulator's own fresh object.
 */
export function shiftEvent(e: IngestEvent, ms: number): void {
  const slots = ms / SLOT_MS;
  switch (e.type) {
    case 'pool':
      e.created_at += ms;
      e.slot += slots;
      return;
    case 'quote_price':
    case 'label':
      e.at += ms;
      return;
    case 'social_post':
      e.at += ms;
      shiftPostTime(e, ms);
      return;
    case 'token':
      if (e.launched_at != null) e.launched_at += ms;
      if (e.mayhem_ends_at != null) e.mayhem_ends_at += ms;
      e.at += ms;
      e.slot += slots;
      return;
    default:
      e.at += ms;
      e.slot += slots;
  }
}
