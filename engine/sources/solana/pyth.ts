import { createHash } from 'node:crypto';
import { WSOL } from '../../model/index.ts';

/**
 * SOL/USD from the chain: Pyth's price feed account, a `PriceUpdateV2` of the Pyth
 * Solana Receiver (rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ), read into an INGEST
 * `quote_price` for wSOL. Layout, from Pyth's own SDK (pyth-network/pyth-crosschain,
 * target_chains/solana/pyth_solana_receiver_sdk/src/price_update.rs, Anchor/borsh):
 * discriminator (sha256("account:PriceUpdateV2")[..8]), write_authority pubkey,
 * verification_level enum (0 Partial { num_signatures u8 } | 1 Full), price_message
 * { feed_id [u8; 32], price i64, conf u64, exponent i32, publish_time i64,
 * prev_publish_time i64, ema_price i64, ema_conf u64 }, posted_slot u64.
 */

/** Pyth's sponsored SOL/USD price feed account on mainnet (shard 0). */
export const PYTH_SOL_USD_ACCOUNT = '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE';
/** The SOL/USD feed id. */
export const PYTH_SOL_USD_FEED = 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d';
export const PRICE_UPDATE_V2_DISCRIMINATOR = createHash('sha256').update('account:PriceUpdateV2').digest().subarray(0, 8);

export interface PythPrice {
  feedId: string;
  price: bigint;
  conf: bigint;
  exponent: number;
  publishTime: number;
  postedSlot: bigint | null;
}

/** The price of a PriceUpdateV2 account's data, or why it is none. Never throws. */
export function readPriceUpdate(data: Uint8Array): PythPrice | { error: string } {
  if (data.length < 8 || !PRICE_UPDATE_V2_DISCRIMINATOR.equals(data.subarray(0, 8))) return { error: 'not a Pyth PriceUpdateV2 account' };
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 8 + 32;
  if (data.length <= at) return { error: 'PriceUpdateV2 cut before its verification level' };
  const level = data[at]!;
  if (level > 1) return { error: `PriceUpdateV2 verification level ${level} unknown` };
  at += level === 0 ? 2 : 1;
  // feed_id, price, conf, exponent, publish_time: the fields a price needs.
  if (data.length < at + 32 + 8 + 8 + 4 + 8) return { error: `PriceUpdateV2 of ${data.length} bytes lacks its price message` };
  const feedId = Buffer.from(data.subarray(at, at + 32)).toString('hex');
  at += 32;
  const price = view.getBigInt64(at, true);
  const conf = view.getBigUint64(at + 8, true);
  const exponent = view.getInt32(at + 16, true);
  const publishTime = Number(view.getBigInt64(at + 20, true));
  at += 28 + 8 + 8 + 8; // then prev_publish_time, ema_price, ema_conf
  const postedSlot = data.length >= at + 8 ? view.getBigUint64(at, true) : null;
  return { feedId, price, conf, exponent, publishTime, postedSlot };
}

/** The wSOL `quote_price` event of a SOL/USD PriceUpdateV2 account, or why there is none. */
export function solPriceEvent(data: Uint8Array): { type: 'quote_price'; quote_address: string; price_usd: number; at: number } | { error: string } {
  const p = readPriceUpdate(data);
  if ('error' in p) return p;
  if (p.feedId !== PYTH_SOL_USD_FEED) return { error: `Pyth feed ${p.feedId} is not SOL/USD` };
  if (p.price <= 0n) return { error: `Pyth SOL/USD price ${p.price} is not positive` };
  const priceUsd = Number(`${p.price}e${p.exponent}`); // decimal scaling, rounded once
  if (!Number.isFinite(priceUsd) || priceUsd <= 0) return { error: `Pyth SOL/USD price ${p.price}e${p.exponent} is not a usable number` };
  return { type: 'quote_price', quote_address: WSOL, price_usd: priceUsd, at: p.publishTime * 1000 };
}
