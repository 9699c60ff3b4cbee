import { z } from 'zod';

/** INGEST.md v1: one zod schema per event type; unknown fields are stripped. */

// One regex per field, length included: every zod check costs, and these run on every
// field of every event (a swap: 2.4 µs with min/max/regex checks, 1.0 µs like this).
export const address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'not a base58 address of 32 to 44 characters');
export const txHash = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/, 'not a base58 signature of 64 to 90 characters');
/** Raw on-chain integer: a decimal string (it can exceed 2^53). */
export const rawAmount = z.string().regex(/^\d{1,40}$/, 'not a decimal integer string of at most 40 digits');
const uint = z.number().int().nonnegative();
/** Unix milliseconds. */
const millis = z.number().int().nonnegative().max(8_640_000_000_000_000);
const text = (max: number) => z.string().max(max);

export const tokenEvent = z.object({
  type: z.literal('token'),
  token_address: address,
  decimals: z.number().int().min(0).max(18).optional(),
  supply_raw: rawAmount.optional(),
  symbol: text(64).nullish(),
  name: text(256).nullish(),
  description: text(4096).nullish(),
  image_url: text(2048).nullish(),
  socials: z.record(z.string().max(64), z.string().max(2048)).nullish(),
  creator_address: address.nullish(),
  launched_at: millis.nullish(),
  mint_authority: address.nullish(),
  freeze_authority: address.nullish(),
  lp_burned_pct: z.number().min(0).max(100).nullish(),
  dex_paid: z.boolean().nullish(),
  mayhem_mode: z.boolean().nullish(),
  mayhem_ends_at: millis.nullish(),
  creator_fee_destination: z.enum(['creator', 'shared', 'cashback', 'holders']).nullish(),
  /** DECISIONS.md "Tokenized stocks" (INGEST v1 addition): free-form tags; `stock` marks a tokenized equity. The list replaces the token's (null clears it). */
  tags: z.array(z.string({ error: 'not a string' }).min(1).max(64), { error: 'not an array of strings' }).max(32).nullish(),
  slot: uint,
  at: millis,
});

export const POOL_TYPES = ['bonding_curve', 'amm', 'cpmm', 'clmm'] as const;

export const poolEvent = z
  .object({
    type: z.literal('pool'),
    pool_address: address,
    base_address: address,
    quote_address: address,
    dex: z.string().min(1).max(64),
    pool_type: z.enum(POOL_TYPES),
    created_at: millis,
    migrated_from_pool_address: address.nullish(),
    curve_initial_real_base_raw: rawAmount.nullish(),
    slot: uint,
  })
  .refine((e) => e.pool_type !== 'bonding_curve' || e.curve_initial_real_base_raw != null, {
    path: ['curve_initial_real_base_raw'],
    message: 'required for a bonding_curve pool',
  });

export const swapEvent = z.object({
  type: z.literal('swap'),
  tx_hash: txHash,
  slot: uint,
  tx_index: uint,
  event_index: uint,
  at: millis,
  pool_address: address,
  wallet_address: address,
  side: z.enum(['buy', 'sell']),
  base_amount_raw: rawAmount,
  quote_amount_raw: rawAmount,
  base_reserve_raw: rawAmount,
  quote_reserve_raw: rawAmount,
  real_base_reserve_raw: rawAmount.nullish(),
  real_quote_reserve_raw: rawAmount.nullish(),
});

export const migrationEvent = z.object({
  type: z.literal('migration'),
  token_address: address,
  from_pool_address: address,
  to_pool_address: address,
  slot: uint,
  at: millis,
});

export const balanceEvent = z.object({
  type: z.literal('balance'),
  token_address: address,
  wallet_address: address,
  balance_raw: rawAmount,
  slot: uint,
  at: millis,
});

export const quotePriceEvent = z.object({
  type: z.literal('quote_price'),
  quote_address: address,
  price_usd: z.number().positive().finite(),
  at: millis,
});

export const labelEvent = z.object({
  type: z.literal('label'),
  wallet_address: address,
  label: z.string().min(1).max(64),
  action: z.enum(['add', 'remove']),
  detail: z.record(z.string(), z.unknown()).nullish(),
  at: millis,
});

export const socialPostEvent = z.object({
  type: z.literal('social_post'),
  post_id: z.string().min(1).max(256),
  platform: z.string().min(1).max(64),
  author: z.string().min(1).max(256),
  author_wallet_address: address.nullish(),
  text: text(16_384),
  url: text(2048).nullish(),
  token_addresses: z.array(address).max(100),
  at: millis,
});

export const EVENT_SCHEMAS = {
  token: tokenEvent,
  pool: poolEvent,
  swap: swapEvent,
  migration: migrationEvent,
  balance: balanceEvent,
  quote_price: quotePriceEvent,
  label: labelEvent,
  social_post: socialPostEvent,
} as const;

export type EventType = keyof typeof EVENT_SCHEMAS;
export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];

export type TokenEvent = z.infer<typeof tokenEvent>;
export type PoolEvent = z.infer<typeof poolEvent>;
export type SwapEvent = z.infer<typeof swapEvent>;
export type MigrationEvent = z.infer<typeof migrationEvent>;
export type BalanceEvent = z.infer<typeof balanceEvent>;
export type QuotePriceEvent = z.infer<typeof quotePriceEvent>;
export type LabelEvent = z.infer<typeof labelEvent>;
export type SocialPostEvent = z.infer<typeof socialPostEvent>;
export type IngestEvent =
  | TokenEvent
  | PoolEvent
  | SwapEvent
  | MigrationEvent
  | BalanceEvent
  | QuotePriceEvent
  | LabelEvent
  | SocialPostEvent;

/**
 * The identity of INGEST.md, as a bucket and a member within it. Where the identity
 * holds a slot or a time, or the event is tied to one (a transaction lands in exactly
 * one slot), that is the bucket, so that one batch touches few buckets and the dedup
 * index writes one value per bucket per batch instead of one per event. A swap's
 * signature is kept to 24 base58 characters (about 140 bits) within its slot.
 */
export function identityParts(e: IngestEvent): [bucket: string, member: string] {
  switch (e.type) {
    case 'swap':
      return [`s${e.slot}`, `${e.tx_hash.slice(0, 24)}|${e.event_index}`];
    case 'balance':
      return [`b${e.slot}`, `${e.token_address}|${e.wallet_address}`];
    case 'token':
      return [`t${e.slot}`, `${e.token_address}|${e.at}`];
    case 'quote_price':
      return [`q${Math.floor(e.at / 1000)}`, `${e.quote_address}|${e.at}`];
    case 'label':
      return [`l${Math.floor(e.at / 1000)}`, `${e.wallet_address}|${e.label}|${e.at}`];
    case 'pool':
      return [`p${e.pool_address}`, ''];
    case 'migration':
      return [`m${e.from_pool_address}`, ''];
    case 'social_post':
      return [`x${e.post_id}`, ''];
  }
}

/** The identity as one string (bucket and member). */
export function identityOf(e: IngestEvent): string {
  const [bucket, member] = identityParts(e);
  return `${bucket}|${member}`;
}

/** The time an event happened at, for the event clock. */
export function timeOf(e: IngestEvent): number {
  return e.type === 'pool' ? e.created_at : e.at;
}
