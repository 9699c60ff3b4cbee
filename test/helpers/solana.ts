import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import bs58 from 'bs58';
import type { FieldValue, Layout } from '../../engine/sources/solana/layouts.ts';

/**
 * The recorded Solana transactions of ../shared/fixtures/solana (read in place, never
 * copied) and the reference decoder's reading of each.
 */
export const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/solana/', import.meta.url));

export const fixturePath = (local: string) => FIXTURES + local;
export const readFixture = (local: string): unknown => JSON.parse(readFileSync(fixturePath(local), 'utf8'));

export interface ReferenceEvent {
  event: string;
  len: number;
  fields: number;
  trailing_bytes: number;
  /** Integers as decimal strings (the reference file's numbers may exceed 2^53). */
  data: Record<string, string | boolean | unknown>;
}
export interface ReferenceTx {
  signature: string;
  slot: number | null;
  blockTime: number | null;
  file: string;
  /** The fixture's path under FIXTURES (from MANIFEST.tsv). */
  local: string;
  events_selfcpi: ReferenceEvent[];
  events_logs: ReferenceEvent[];
}

/** reference-events.ndjson, integers kept exact as strings. */
export function referenceTransactions(): ReferenceTx[] {
  const manifest = readFileSync(fixturePath('MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t')[0]!);
  return readFileSync(fixturePath('reference-events.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const tx = JSON.parse(line.replace(/([:\[,]\s*)(-?\d{10,})(?=\s*[,}\]])/g, '$1"$2"')) as ReferenceTx;
      const local = manifest.filter((p) => p.endsWith(`/${tx.file}`));
      if (local.length !== 1) throw new Error(`${tx.file}: ${local.length} fixtures of that name`);
      tx.local = local[0]!;
      tx.slot = tx.slot === null ? null : Number(tx.slot);
      tx.blockTime = tx.blockTime === null ? null : Number(tx.blockTime);
      return tx;
    });
}

/** A decoded field as the reference writes it: integers as decimal strings. */
export function plain(value: FieldValue): unknown {
  if (typeof value === 'bigint' || typeof value === 'number') return String(value);
  return value;
}

/**
 * Borsh bytes of an event from a layout: discriminator then `values` in the layout's
 * order, stopping at the first field `values` lacks (an old, shorter event).
 */
export function encodeEvent(layout: Layout, values: Record<string, string | number | bigint | boolean>): Buffer {
  const parts: Buffer[] = [Buffer.from(layout.discriminator, 'hex')];
  for (const [name, type] of layout.fields) {
    const v = values[name];
    if (v === undefined) break;
    let b: Buffer;
    switch (type) {
      case 'pubkey':
        b = Buffer.from(bs58.decode(String(v)));
        if (b.length !== 32) throw new Error(`${name}: not 32 bytes`);
        break;
      case 'u64':
        b = Buffer.alloc(8);
        b.writeBigUInt64LE(BigInt(v));
        break;
      case 'i64':
        b = Buffer.alloc(8);
        b.writeBigInt64LE(BigInt(v));
        break;
      case 'u16':
        b = Buffer.alloc(2);
        b.writeUInt16LE(Number(v));
        break;
      case 'u8':
        b = Buffer.of(Number(v));
        break;
      case 'bool':
        b = Buffer.of(v ? 1 : 0);
        break;
      case 'string': {
        const s = Buffer.from(String(v));
        b = Buffer.concat([Buffer.alloc(4), s]);
        b.writeUInt32LE(s.length);
        break;
      }
      case 'shareholders':
        b = Buffer.alloc(4); // an empty Vec
        break;
    }
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/**
 * A Yellowstone SubscribeUpdate (geyser.proto: SubscribeUpdateTransaction with its
 * SubscribeUpdateTransactionInfo; solana-storage.proto's Transaction and
 * TransactionStatusMeta, camelCase as @grpc/proto-loader gives them) made from an RPC
 * `getTransaction` record in the `json` encoding: the same transaction as a Geyser
 * plugin would send it. `bytes` picks how bytes fields look: Uint8Array as grpc-js
 * hands them, or base64 text as in a JSON dump.
 */
export function toYellowstone(rpc: any, index: number, bytes: 'buffer' | 'base64' = 'buffer'): Record<string, unknown> {
  const b = (u: Uint8Array | number[]) => (bytes === 'buffer' ? Uint8Array.from(u) : Buffer.from(Uint8Array.from(u)).toString('base64'));
  const key = (k: string) => b(bs58.decode(k));
  const m = rpc.transaction.message;
  const ix = (i: any) => ({ programIdIndex: i.programIdIndex, accounts: b(i.accounts), data: b(bs58.decode(i.data)) });
  const balance = (t: any) => ({ accountIndex: t.accountIndex, mint: t.mint, uiTokenAmount: t.uiTokenAmount, owner: t.owner ?? '', programId: t.programId ?? '' });
  const meta = rpc.meta;
  return {
    filters: ['mds'],
    transaction: {
      slot: String(rpc.slot),
      transaction: {
        signature: key(rpc.transaction.signatures[0]),
        isVote: false,
        index: String(index),
        transaction: {
          signatures: rpc.transaction.signatures.map(key),
          message: {
            header: m.header,
            accountKeys: m.accountKeys.map(key),
            recentBlockhash: key(m.recentBlockhash),
            instructions: m.instructions.map(ix),
            versioned: rpc.version === 0,
            addressTableLookups: [],
          },
        },
        meta: {
          err: meta.err === null ? undefined : { err: b(Buffer.from(JSON.stringify(meta.err))) },
          fee: String(meta.fee),
          preBalances: meta.preBalances.map(String),
          postBalances: meta.postBalances.map(String),
          innerInstructions: meta.innerInstructions.map((g: any) => ({
            index: g.index,
            instructions: g.instructions.map((i: any) => ({ ...ix(i), ...(i.stackHeight == null ? {} : { stackHeight: i.stackHeight }) })),
          })),
          innerInstructionsNone: false,
          logMessages: meta.logMessages,
          logMessagesNone: false,
          preTokenBalances: meta.preTokenBalances.map(balance),
          postTokenBalances: meta.postTokenBalances.map(balance),
          rewards: [],
          loadedWritableAddresses: (meta.loadedAddresses?.writable ?? []).map(key),
          loadedReadonlyAddresses: (meta.loadedAddresses?.readonly ?? []).map(key),
        },
      },
    },
    createdAt: { seconds: String(rpc.blockTime + 1), nanos: 0 },
  };
}

export interface SynthInstruction {
  program: string;
  accounts: string[];
  data: Uint8Array;
  stackHeight?: number;
}

/**
 * An RPC `getTransaction` record (`json` encoding) put together from instructions: for
 * what the fixtures do not hold (a migration). Keys are indexed in order of first use.
 */
export function rpcTransaction(tx: {
  signature: string;
  slot: number;
  blockTime: number;
  outer: SynthInstruction[];
  inner?: Record<number, SynthInstruction[]>;
  logs?: string[];
  postTokenBalances?: Array<{ mint: string; owner: string; amount: string }>;
}): Record<string, unknown> {
  const keys: string[] = [];
  const index = (k: string) => {
    let i = keys.indexOf(k);
    if (i < 0) i = keys.push(k) - 1;
    return i;
  };
  const ix = (i: SynthInstruction) => ({
    programIdIndex: index(i.program),
    accounts: i.accounts.map(index),
    data: bs58.encode(i.data),
    stackHeight: i.stackHeight ?? null,
  });
  const outer = tx.outer.map(ix);
  const inner = Object.entries(tx.inner ?? {}).map(([k, list]) => ({ index: Number(k), instructions: list.map(ix) }));
  const post = (tx.postTokenBalances ?? []).map((b) => ({
    accountIndex: index(bs58.encode(Buffer.alloc(32, keys.length + 1))),
    mint: b.mint,
    owner: b.owner,
    programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    uiTokenAmount: { amount: b.amount, decimals: 6, uiAmount: null, uiAmountString: '' },
  }));
  return {
    slot: tx.slot,
    blockTime: tx.blockTime,
    version: 'legacy',
    meta: { err: null, innerInstructions: inner, logMessages: tx.logs ?? [], preTokenBalances: [], postTokenBalances: post, loadedAddresses: { writable: [], readonly: [] } },
    transaction: { signatures: [tx.signature], message: { accountKeys: keys, header: {}, instructions: outer, recentBlockhash: keys[0] } },
  };
}

/** A self-CPI event instruction's data: Anchor's tag, then the event. */
export const selfCpi = (event: Buffer) => Buffer.concat([Buffer.from('e445a52e51cb9a1d', 'hex'), event]);

/**
 * PriceUpdateV2 account data (Pyth's SDK layout, engine/sources/solana/pyth.ts): for
 * tests, as no fixture holds one. `partial`: verification level Partial (2 bytes).
 */
export function priceUpdateV2(o: { feed: string; price: bigint; exponent: number; publishTime: number; partial?: boolean }): Buffer {
  const head = Buffer.concat([
    Buffer.from('22f123639d7ef4cd', 'hex'), // sha256("account:PriceUpdateV2")[..8]
    Buffer.alloc(32, 7), // write authority
    o.partial ? Buffer.of(0, 5) : Buffer.of(1),
    Buffer.from(o.feed, 'hex'),
  ]);
  const body = Buffer.alloc(8 + 8 + 4 + 8 + 8 + 8 + 8 + 8);
  body.writeBigInt64LE(o.price, 0);
  body.writeBigUInt64LE(1_000_000n, 8);
  body.writeInt32LE(o.exponent, 16);
  body.writeBigInt64LE(BigInt(o.publishTime), 20);
  body.writeBigInt64LE(BigInt(o.publishTime - 1), 28);
  body.writeBigInt64LE(o.price, 36);
  body.writeBigUInt64LE(1_000_000n, 44);
  body.writeBigUInt64LE(380_000_000n, 52); // posted_slot
  return Buffer.concat([head, body]);
}
