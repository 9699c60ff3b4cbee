import { BURN_ADDRESS, KNOWN_MINTS } from '../../engine/model/index.ts';
import type { BalanceEvent, MigrationEvent, PoolEvent, TokenEvent } from '../../engine/ingest/index.ts';
import { Holders, type HolderContext, type HolderStats } from './holders.ts';

/** Fields a `token` event carries that merge into the token (INGEST.md: null clears). */
export const TOKEN_FIELDS = [
  'decimals', 'supply_raw', 'symbol', 'name', 'description', 'image_url', 'socials', 'creator_address', 'launched_at',
  'mint_authority', 'freeze_authority', 'lp_burned_pct', 'dex_paid', 'mayhem_mode', 'mayhem_ends_at', 'creator_fee_destination', 'tags',
] as const;
type TokenField = (typeof TOKEN_FIELDS)[number];

/** Fields whose change is a `token_metadata` stream event (INGEST.md). */
export const METADATA_FIELDS: readonly TokenField[] = ['symbol', 'name', 'image_url', 'description', 'socials'];

export interface TokenState {
  token_address: string;
  fields: Partial<Record<TokenField, unknown>>;
  /** Per field, the (slot, at) of the event that set it: a field takes the latest write whatever the arrival order. */
  versions: Partial<Record<TokenField, [number, number]>>;
  /** Pools where this token is the base (or the quote, for token-to-token pools), by creation. */
  pools: string[];
  migrated: boolean;
  migrated_at: number | null;
  /** Bumped when symbol, name, image_url, description or socials change (token_metadata). */
  metadataVersion: number;
  /**
   * The launch pool: the earliest pool (by slot) where this token is the base; on a
   * tie, a bonding curve. Snipers and bundlers are counted from its creation slot.
   */
  launch: { pool: string; slot: number; curve: boolean } | null;
  /** Wallet balances from `balance` events (holders.ts). */
  holders: Holders;
}

export function initialToken(token_address: string): TokenState {
  return {
    token_address, fields: {}, versions: {}, pools: [], migrated: false, migrated_at: null, metadataVersion: 0, launch: null, holders: new Holders(),
  };
}

const newer = (a: [number, number], b: [number, number] | undefined) => !b || a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);

/** Merges a token event's fields, each only if this event is at least as late as its last writer. */
export function applyTokenEvent(state: TokenState, e: TokenEvent): boolean {
  const version: [number, number] = [e.slot, e.at];
  let metadataChanged = false;
  for (const field of TOKEN_FIELDS) {
    const value = (e as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (!newer(version, state.versions[field])) continue;
    const before = state.fields[field];
    state.fields[field] = value;
    state.versions[field] = version;
    if (METADATA_FIELDS.includes(field) && JSON.stringify(before ?? null) !== JSON.stringify(value)) metadataChanged = true;
  }
  if (metadataChanged) state.metadataVersion++;
  return metadataChanged;
}

export function applyPoolEvent(state: TokenState, e: PoolEvent): void {
  if (!state.pools.includes(e.pool_address)) state.pools.push(e.pool_address);
  if (e.base_address !== state.token_address) return;
  const curve = e.pool_type === 'bonding_curve';
  const launch = state.launch;
  // The earliest by slot whatever the arrival order (a pool event is applied once: its identity is its address).
  if (launch === null || e.slot < launch.slot || (e.slot === launch.slot && curve && !launch.curve)) {
    state.launch = { pool: e.pool_address, slot: e.slot, curve };
  }
}

/** Last slot of the sniper window, or -1 without a curve launch. */
function earlyUntil(state: TokenState, sniperSlots: number): number {
  return state.launch?.curve ? state.launch.slot + sniperSlots : -1;
}

/** Applies a balance event; true when the holders changed (an older or repeated balance changes nothing). */
export function applyBalance(state: TokenState, e: BalanceEvent, sniperSlots: number): boolean {
  return state.holders.apply(e.wallet_address, e.balance_raw, e.slot, earlyUntil(state, sniperSlots), e.at);
}

/**
 * Addresses that hold the token without being holders (DECISIONS.md, "Holders"): the
 * token's own pools and the burn address. A new array; its content is what the holder
 * stats' cache compares.
 */
export function notHolders(state: TokenState): string[] {
  return [...state.pools, BURN_ADDRESS];
}

/**
 * Holder stats (raw units) for the totals, or null before the token's first balance
 * event. The token's pools and the burn address are not holders (notHolders). Snipers and bundlers only for a token launched on a bonding curve: a pool
 * first seen on an AMM is usually one the service started watching late, whose
 * first balances are the existing distribution, not launch buys.
 */
export function holderStats(state: TokenState, sniperSlots: number): HolderStats | null {
  if (!state.holders.seen) return null;
  return state.holders.stats(holderContext(state, sniperSlots));
}

/** What the holders hold in all, raw units (from the same cached pass as holderStats). */
export function heldByHolders(state: TokenState, sniperSlots: number): number {
  return state.holders.heldRaw(holderContext(state, sniperSlots));
}

function holderContext(state: TokenState, sniperSlots: number): HolderContext {
  const creator = state.fields.creator_address;
  return {
    creator: typeof creator === 'string' ? creator : null,
    launchSlot: state.launch?.curve ? state.launch.slot : null,
    exclude: notHolders(state),
    sniperSlots,
  };
}

/** Total supply in raw units (a double: see holders.ts on exactness), or null before the mint's first token event. */
export function rawSupplyOf(state: TokenState | undefined): number | null {
  const raw = state?.fields.supply_raw;
  return typeof raw === 'string' ? Number(raw) : null;
}

export function applyMigration(state: TokenState, e: MigrationEvent): void {
  state.migrated = true;
  if (state.migrated_at === null || e.at < state.migrated_at) state.migrated_at = e.at;
}

/** Decimals of a mint as far as this token knows (wSOL and USDC are built in). */
export function decimalsOf(state: TokenState | undefined, mint: string): number | null {
  if (mint in KNOWN_MINTS) return KNOWN_MINTS[mint]!;
  const d = state?.fields.decimals;
  return typeof d === 'number' ? d : null;
}

/** Total supply in whole tokens, or null before the mint's first token event. */
export function supplyOf(state: TokenState | undefined): number | null {
  const raw = state?.fields.supply_raw;
  const decimals = state?.fields.decimals;
  if (typeof raw !== 'string' || typeof decimals !== 'number') return null;
  return Number(raw) / 10 ** decimals;
}

/** The token record of SERVICE.md 2.7. */
export function metadataRecord(state: TokenState) {
  const f = state.fields;
  return {
    ...tokenName(state),
    description: (f.description as string | null | undefined) ?? null,
    socials: (f.socials as Record<string, string> | null | undefined) ?? {},
  };
}

/** The token as lists name it: address, symbol, name and image (metadataRecord's first four). */
export function tokenName(state: TokenState) {
  const f = state.fields;
  return {
    token_address: state.token_address,
    symbol: (f.symbol as string | null | undefined) ?? null,
    name: (f.name as string | null | undefined) ?? null,
    image_url: (f.image_url as string | null | undefined) ?? null,
  };
}

/** The token object of SERVICE.md 2.11. */
export function tokenObject(state: TokenState) {
  const f = state.fields;
  return {
    ...metadataRecord(state),
    decimals: (f.decimals as number | undefined) ?? null,
    launched_at: (f.launched_at as number | null | undefined) ?? null,
    mayhem_mode: (f.mayhem_mode as boolean | null | undefined) ?? false,
    mayhem_ends_at: (f.mayhem_ends_at as number | null | undefined) ?? null,
    creator_fee_destination: (f.creator_fee_destination as string | null | undefined) ?? 'creator',
    tags: tagsOf(state),
  };
}

/** The token's tags (DECISIONS.md "Tokenized stocks"): the latest `token` event's list, [] when none or cleared. */
export function tagsOf(state: TokenState): string[] {
  return (state.fields.tags as string[] | null | undefined) ?? [];
}

/** The tag that marks a tokenized equity (DECISIONS.md "Tokenized stocks"). */
export const STOCK_TAG = 'stock';
