import bs58 from 'bs58';

/**
 * pump.fun and PumpSwap events (../shared/spec/SOLANA.md "Layouts"), read as a prefix.
 *
 * Their layouts only grow at the end and old events stay on chain, so a reader must
 * stop cleanly where an old event ends (later fields absent) and ignore the bytes a
 * newer program version appended. A borsh coder generated from today's IDL throws on
 * both, hence this small hand-written reader: each field is read only if the whole
 * field is in the buffer; the first one that is not ends the event (`cut` says whether
 * bytes of it were there, i.e. the event was truncated mid-field).
 */

export type FieldType = 'pubkey' | 'u64' | 'i64' | 'u16' | 'u8' | 'bool' | 'string' | 'shareholders';
export type FieldValue = string | bigint | number | boolean | Array<{ address: string; share_bps: number }>;

export interface Layout {
  /** `program.Event`, as the reference decoder names it. */
  readonly name: string;
  readonly discriminator: string;
  readonly fields: ReadonlyArray<readonly [string, FieldType]>;
}

export interface RawEvent {
  name: string;
  /** Bytes of discriminator + fields, as a `Program data:` line holds them. */
  len: number;
  /** How many fields were read whole. */
  fields: number;
  /** Bytes after the last field this reader knows (a newer layout); 0 when it stopped early. */
  trailing_bytes: number;
  /** A field was partly present: the event was cut inside it. */
  cut: boolean;
  data: Record<string, FieldValue>;
}

const pk = (name: string) => [name, 'pubkey'] as const;
const u64 = (name: string) => [name, 'u64'] as const;
const i64 = (name: string) => [name, 'i64'] as const;

export const TRADE_EVENT: Layout = {
  name: 'pump.TradeEvent',
  discriminator: 'bddb7fd34ee661ee',
  fields: [
    pk('mint'), u64('sol_amount'), u64('token_amount'), ['is_buy', 'bool'], pk('user'), i64('timestamp'),
    u64('virtual_sol_reserves'), u64('virtual_token_reserves'), u64('real_sol_reserves'), u64('real_token_reserves'),
    pk('fee_recipient'), u64('fee_basis_points'), u64('fee'), pk('creator'), u64('creator_fee_basis_points'), u64('creator_fee'),
    ['track_volume', 'bool'], u64('total_unclaimed_tokens'), u64('total_claimed_tokens'), u64('current_sol_volume'),
    i64('last_update_timestamp'), ['ix_name', 'string'], ['mayhem_mode', 'bool'], u64('cashback_fee_basis_points'), u64('cashback'),
    u64('buyback_fee_basis_points'), u64('buyback_fee'), ['shareholders', 'shareholders'], pk('quote_mint'), u64('quote_amount'),
    u64('virtual_quote_reserves'), u64('real_quote_reserves'),
  ],
};

export const CREATE_EVENT: Layout = {
  name: 'pump.CreateEvent',
  discriminator: '1b72a94ddeeb6376',
  fields: [
    ['name', 'string'], ['symbol', 'string'], ['uri', 'string'], pk('mint'), pk('bonding_curve'), pk('user'), pk('creator'),
    i64('timestamp'), u64('virtual_token_reserves'), u64('virtual_sol_reserves'), u64('real_token_reserves'),
    u64('token_total_supply'), pk('token_program'), ['is_mayhem_mode', 'bool'], ['is_cashback_enabled', 'bool'], pk('quote_mint'),
    u64('virtual_quote_reserves'),
  ],
};

export const COMPLETE_EVENT: Layout = {
  name: 'pump.CompleteEvent',
  discriminator: '5f72619cd42e9808',
  fields: [pk('user'), pk('mint'), pk('bonding_curve'), i64('timestamp'), pk('quote_mint')],
};

export const MIGRATION_EVENT: Layout = {
  name: 'pump.CompletePumpAmmMigrationEvent',
  discriminator: 'bde95db95c94ea94',
  fields: [
    pk('user'), pk('mint'), u64('mint_amount'), u64('sol_amount'), u64('pool_migration_fee'), pk('bonding_curve'), i64('timestamp'),
    pk('pool'), pk('quote_mint'),
  ],
};

/** The fields PumpSwap's BuyEvent and SellEvent share in their first 23 (up to coin_creator_fee), by side. */
const ammTrade = (side: 'buy' | 'sell') =>
  [
    i64('timestamp'),
    u64(side === 'buy' ? 'base_amount_out' : 'base_amount_in'),
    u64(side === 'buy' ? 'max_quote_amount_in' : 'min_quote_amount_out'),
    u64('user_base_token_reserves'), u64('user_quote_token_reserves'), u64('pool_base_token_reserves'), u64('pool_quote_token_reserves'),
    u64(side === 'buy' ? 'quote_amount_in' : 'quote_amount_out'),
    u64('lp_fee_basis_points'), u64('lp_fee'), u64('protocol_fee_basis_points'), u64('protocol_fee'),
    u64(side === 'buy' ? 'quote_amount_in_with_lp_fee' : 'quote_amount_out_without_lp_fee'),
    u64(side === 'buy' ? 'user_quote_amount_in' : 'user_quote_amount_out'),
    pk('pool'), pk('user'), pk('user_base_token_account'), pk('user_quote_token_account'), pk('protocol_fee_recipient'),
    pk('protocol_fee_recipient_token_account'), pk('coin_creator'), u64('coin_creator_fee_basis_points'), u64('coin_creator_fee'),
  ] as const;

export const AMM_BUY_EVENT: Layout = {
  name: 'pump_amm.BuyEvent',
  discriminator: '67f4521f2cf57777',
  fields: [
    ...ammTrade('buy'), ['track_volume', 'bool'], u64('total_unclaimed_tokens'), u64('total_claimed_tokens'), u64('current_sol_volume'),
    i64('last_update_timestamp'), u64('min_base_amount_out'), ['ix_name', 'string'],
  ],
};

export const AMM_SELL_EVENT: Layout = {
  name: 'pump_amm.SellEvent',
  discriminator: '3e2f370aa503dc2a',
  fields: [...ammTrade('sell')],
};

export const CREATE_POOL_EVENT: Layout = {
  name: 'pump_amm.CreatePoolEvent',
  discriminator: 'b1310cd2a076a774',
  fields: [
    i64('timestamp'), ['index', 'u16'], pk('creator'), pk('base_mint'), pk('quote_mint'), ['base_mint_decimals', 'u8'],
    ['quote_mint_decimals', 'u8'], u64('base_amount_in'), u64('quote_amount_in'), u64('pool_base_amount'), u64('pool_quote_amount'),
    u64('minimum_liquidity'), u64('initial_liquidity'), u64('lp_token_amount_out'), ['pool_bump', 'u8'], pk('pool'), pk('lp_mint'),
    pk('user_base_token_account'), pk('user_quote_token_account'), pk('coin_creator'), ['is_mayhem_mode', 'bool'],
  ],
};

export const PUMP_LAYOUTS = [TRADE_EVENT, CREATE_EVENT, COMPLETE_EVENT, MIGRATION_EVENT];
export const AMM_LAYOUTS = [AMM_BUY_EVENT, AMM_SELL_EVENT, CREATE_POOL_EVENT];

/** Anchor's tag before a self-CPI event's discriminator (sha256("anchor:event")[..8] reversed into LE). */
export const EVENT_IX_TAG = 'e445a52e51cb9a1d';

/** An 8-byte discriminator as a bigint key (little-endian read), so a lookup costs no string. */
function discKey(bytes: Uint8Array, at: number): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0, true);
}
function hexKey(hex: string): bigint {
  return discKey(Uint8Array.from(Buffer.from(hex, 'hex')), 0);
}
export const EVENT_IX_TAG_KEY = hexKey(EVENT_IX_TAG);

export type ProgramKind = 'pump' | 'amm';
const BY_DISC: Record<ProgramKind, Map<bigint, Layout>> = {
  pump: new Map(PUMP_LAYOUTS.map((l) => [hexKey(l.discriminator), l])),
  amm: new Map(AMM_LAYOUTS.map((l) => [hexKey(l.discriminator), l])),
};

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Largest string field accepted (names and URIs are short; a bigger length is garbage). */
const MAX_STRING = 4096;
/** Most shareholders a TradeEvent may list before the reader calls it garbage. */
const MAX_SHAREHOLDERS = 64;

/**
 * Decode the event at `bytes[start..]` (discriminator first) of `program`, or return
 * null when the discriminator is not one of its events (including fewer than 8 bytes).
 * Never throws.
 */
export function decodeEvent(program: ProgramKind, bytes: Uint8Array, start = 0): RawEvent | null {
  if (bytes.length - start < 8) return null;
  const layout = BY_DISC[program].get(discKey(bytes, start));
  if (!layout) return null;
  return readLayout(layout, bytes, start);
}

export function readLayout(layout: Layout, bytes: Uint8Array, start: number): RawEvent {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length;
  let at = start + 8;
  const data: Record<string, FieldValue> = {};
  let read = 0;
  let cut = false;
  for (const [name, type] of layout.fields) {
    if (at >= end) break;
    let next: number;
    let value: FieldValue;
    switch (type) {
      case 'pubkey':
        next = at + 32;
        if (next > end) break;
        value = bs58.encode(bytes.subarray(at, next));
        break;
      case 'u64':
        next = at + 8;
        if (next > end) break;
        value = view.getBigUint64(at, true);
        break;
      case 'i64':
        next = at + 8;
        if (next > end) break;
        value = view.getBigInt64(at, true);
        break;
      case 'u16':
        next = at + 2;
        if (next > end) break;
        value = view.getUint16(at, true);
        break;
      case 'u8':
        next = at + 1;
        value = bytes[at]!;
        break;
      case 'bool':
        next = at + 1;
        value = bytes[at] !== 0;
        break;
      case 'string': {
        if (at + 4 > end) {
          next = end + 1;
          break;
        }
        const len = view.getUint32(at, true);
        next = at + 4 + len;
        if (len > MAX_STRING || next > end) {
          next = end + 1;
          break;
        }
        value = decoder.decode(bytes.subarray(at + 4, next));
        break;
      }
      case 'shareholders': {
        if (at + 4 > end) {
          next = end + 1;
          break;
        }
        const count = view.getUint32(at, true);
        next = at + 4 + count * 34;
        if (count > MAX_SHAREHOLDERS || next > end) {
          next = end + 1;
          break;
        }
        const list: Array<{ address: string; share_bps: number }> = [];
        for (let i = 0, p = at + 4; i < count; i++, p += 34) {
          list.push({ address: bs58.encode(bytes.subarray(p, p + 32)), share_bps: view.getUint16(p + 32, true) });
        }
        value = list;
        break;
      }
    }
    if (next > end) {
      cut = true;
      break;
    }
    data[name] = value!;
    at = next;
    read++;
  }
  const complete = read === layout.fields.length;
  return { name: layout.name, len: end - start, fields: read, trailing_bytes: complete ? end - at : 0, cut, data };
}
