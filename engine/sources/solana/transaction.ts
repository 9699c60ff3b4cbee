import bs58 from 'bs58';
import { getCompiledTransactionMessageDecoder, type CompiledTransactionMessage } from '@solana/transaction-messages';
import { getTransactionDecoder } from '@solana/transactions';

/**
 * Every shape a transaction arrives in (SOLANA.md "Transports"), made one: RPC
 * `getTransaction` in the `json`, `jsonParsed` and `base64` encodings (bare, in its
 * JSON-RPC envelope, or in an array), a `getBlock`/`blockSubscribe` block or item,
 * and a Yellowstone `SubscribeUpdate` (as grpc-js hands it, bytes as Uint8Array, or as
 * JSON, bytes as base64). Instruction data stays encoded until the decoder asks for it:
 * only pump and PumpSwap instructions are ever decoded.
 */

export interface Instruction {
  program: string;
  accounts: readonly string[];
  /** base58 text (RPC JSON) or bytes (wire, Yellowstone); read it with `dataOf`. */
  data: string | Uint8Array;
  /** 1 for an outer instruction; null where the record predates stack heights. */
  stackHeight: number | null;
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string | null;
  amount: string;
}

export interface SolTx {
  signature: string;
  slot: number | null;
  /** Seconds, as the chain records it; null when the shape carries none. */
  blockTime: number | null;
  /** Position in its block, when known (Yellowstone `index`, a block's array order). */
  txIndex: number | null;
  /** Seconds when the record was made (Yellowstone's created_at): the last resort for `at`. */
  seenAt: number | null;
  failed: boolean;
  outer: Instruction[];
  /** Inner instructions by outer index; null when the record has none (logs only). */
  inner: Array<Instruction[] | undefined> | null;
  logs: readonly string[] | null;
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}

export interface TxContext {
  slot?: number;
  blockTime?: number;
  txIndex?: number;
  seenAt?: number;
}

/** Why a value is not a transaction, with what was found. */
export class ShapeError extends Error {}

export const dataOf = (ix: Instruction): Uint8Array => (typeof ix.data === 'string' ? bs58.decode(ix.data) : ix.data);

type Json = Record<string, any>;

const num = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  if (typeof v === 'bigint') return Number(v);
  return null;
};

/** Bytes from a Yellowstone field: a Uint8Array from grpc-js, base64 text in JSON. */
function bytesOf(v: unknown, what: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return Buffer.from(v, 'base64');
  if (v && typeof v === 'object' && (v as Json).type === 'Buffer' && Array.isArray((v as Json).data)) return Uint8Array.from((v as Json).data);
  throw new ShapeError(`${what} is not bytes`);
}

function resolver(keys: readonly string[]) {
  return (index: unknown): string => {
    const i = num(index);
    const key = i === null ? undefined : keys[i];
    if (key === undefined) throw new ShapeError(`account index ${String(index)} does not resolve (${keys.length} account keys)`);
    return key;
  };
}

function tokenBalances(list: unknown, key: (i: unknown) => string): TokenBalance[] {
  if (!Array.isArray(list)) return [];
  const out: TokenBalance[] = [];
  for (const b of list as Json[]) {
    const ui = b.uiTokenAmount ?? b.ui_token_amount;
    const amount = ui?.amount;
    if (typeof b.mint !== 'string' || typeof amount !== 'string') throw new ShapeError('a token balance lacks mint or amount');
    const accountIndex = num(b.accountIndex ?? b.account_index) ?? -1;
    key(accountIndex); // it must resolve
    out.push({ accountIndex, mint: b.mint, owner: typeof b.owner === 'string' && b.owner !== '' ? b.owner : null, amount });
  }
  return out;
}

/** RPC JSON instructions: `json`/`base64` encodings (indices), `jsonParsed` (keys). */
function rpcInstruction(ix: Json, key: (i: unknown) => string, stackHeight: number | null): Instruction {
  if (typeof ix.programId === 'string') {
    // jsonParsed: keys inline; a parsed (system, token) instruction has no raw data.
    return {
      program: ix.programId,
      accounts: Array.isArray(ix.accounts) ? ix.accounts : [],
      data: typeof ix.data === 'string' ? ix.data : '',
      stackHeight,
    };
  }
  const accounts = Array.isArray(ix.accounts) ? ix.accounts.map(key) : [];
  return { program: key(ix.programIdIndex), accounts, data: typeof ix.data === 'string' ? ix.data : '', stackHeight };
}

function innerOf(meta: Json, key: (i: unknown) => string, yellowstone: boolean): Array<Instruction[] | undefined> | null {
  const list = meta.innerInstructions ?? meta.inner_instructions;
  if (!Array.isArray(list)) return null;
  const inner: Array<Instruction[] | undefined> = [];
  for (const group of list as Json[]) {
    const index = num(group.index);
    if (index === null || !Array.isArray(group.instructions)) throw new ShapeError('an inner instruction group lacks index or instructions');
    inner[index] = (group.instructions as Json[]).map((ix) => {
      const h = num(ix.stackHeight ?? ix.stack_height);
      if (!yellowstone) return rpcInstruction(ix, key, h);
      return {
        program: key(ix.programIdIndex ?? ix.program_id_index),
        accounts: Array.from(bytesOf(ix.accounts ?? new Uint8Array(0), 'inner accounts'), key),
        data: bytesOf(ix.data ?? new Uint8Array(0), 'inner data'),
        stackHeight: h,
      };
    });
  }
  return inner;
}

function loaded(meta: Json): string[] {
  const la = meta.loadedAddresses;
  if (!la) return [];
  return [...(la.writable ?? []), ...(la.readonly ?? [])];
}

const wireDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

/** An RPC transaction record: { transaction, meta, slot?, blockTime?, version? }. */
function fromRpc(rec: Json, ctx: TxContext): SolTx {
  const meta: Json = rec.meta;
  if (!meta || typeof meta !== 'object') throw new ShapeError('no meta (the transaction status): cannot tell success, events or balances');
  const t = rec.transaction;
  let signature: string;
  let keys: string[];
  let outerRaw: (key: (i: unknown) => string) => Instruction[];
  if (Array.isArray(t) || typeof t === 'string') {
    // `base64` encoding, and blockSubscribe items: the wire transaction.
    const [text, encoding] = Array.isArray(t) ? t : [t, 'base64'];
    if (encoding !== 'base64') throw new ShapeError(`transaction encoding ${String(encoding)} (base64, json or jsonParsed expected)`);
    let message: Exclude<CompiledTransactionMessage, { version: 1 }>;
    try {
      const wire = wireDecoder.decode(Buffer.from(text, 'base64'));
      const decoded = messageDecoder.decode(wire.messageBytes);
      if (decoded.version === 1) throw new ShapeError('a v1 transaction message (legacy and v0 are read)');
      message = decoded;
      const first = Object.values(wire.signatures)[0];
      if (!first) throw new ShapeError('no signature');
      signature = bs58.encode(first);
    } catch (err) {
      if (err instanceof ShapeError) throw err;
      throw new ShapeError(`wire transaction does not decode: ${(err as Error).message}`);
    }
    keys = [...message.staticAccounts, ...loaded(meta)];
    outerRaw = (key) =>
      message.instructions.map((ix) => ({
        program: key(ix.programAddressIndex),
        accounts: (ix.accountIndices ?? []).map(key),
        data: (ix.data as Uint8Array | undefined) ?? new Uint8Array(0),
        stackHeight: 1,
      }));
  } else if (t && typeof t === 'object' && t.message) {
    const m: Json = t.message;
    if (!Array.isArray(t.signatures) || typeof t.signatures[0] !== 'string') throw new ShapeError('no signature');
    signature = t.signatures[0];
    if (!Array.isArray(m.accountKeys)) throw new ShapeError('message without accountKeys');
    // jsonParsed lists every key (lookup-table ones too) as objects; json lists the static ones.
    keys = typeof m.accountKeys[0] === 'object' ? m.accountKeys.map((k: Json) => k.pubkey) : [...m.accountKeys, ...loaded(meta)];
    outerRaw = (key) => (Array.isArray(m.instructions) ? m.instructions : []).map((ix: Json) => rpcInstruction(ix, key, 1));
  } else {
    throw new ShapeError('no transaction (expected a message, or base64 wire bytes)');
  }
  const key = resolver(keys);
  return {
    signature,
    slot: num(rec.slot) ?? ctx.slot ?? null,
    blockTime: num(rec.blockTime) ?? ctx.blockTime ?? null,
    txIndex: ctx.txIndex ?? null,
    seenAt: ctx.seenAt ?? null,
    failed: meta.err != null,
    outer: outerRaw(key),
    inner: innerOf(meta, key, false),
    logs: Array.isArray(meta.logMessages) ? meta.logMessages : null,
    preTokenBalances: tokenBalances(meta.preTokenBalances, key),
    postTokenBalances: tokenBalances(meta.postTokenBalances, key),
  };
}

/** A Yellowstone SubscribeUpdateTransactionInfo (signature, transaction, meta, index). */
function fromYellowstone(info: Json, slot: unknown, ctx: TxContext): SolTx {
  const meta: Json = info.meta;
  const m: Json | undefined = info.transaction?.message;
  if (!meta || !m) throw new ShapeError('Yellowstone transaction without message or meta');
  const staticKeys = (m.accountKeys ?? m.account_keys ?? []).map((k: unknown) => bs58.encode(bytesOf(k, 'account key')));
  const loadedKeys = [...(meta.loadedWritableAddresses ?? meta.loaded_writable_addresses ?? []), ...(meta.loadedReadonlyAddresses ?? meta.loaded_readonly_addresses ?? [])].map(
    (k: unknown) => bs58.encode(bytesOf(k, 'loaded address')),
  );
  const key = resolver([...staticKeys, ...loadedKeys]);
  const err = meta.err;
  const logs = meta.logMessages ?? meta.log_messages;
  const logsNone = meta.logMessagesNone ?? meta.log_messages_none;
  const innerNone = meta.innerInstructionsNone ?? meta.inner_instructions_none;
  return {
    signature: bs58.encode(bytesOf(info.signature, 'signature')),
    slot: num(slot) ?? ctx.slot ?? null,
    blockTime: ctx.blockTime ?? null,
    txIndex: num(info.index) ?? ctx.txIndex ?? null,
    seenAt: ctx.seenAt ?? null,
    failed: err != null && !(typeof err === 'object' && bytesOf(err.err ?? new Uint8Array(0), 'err').length === 0),
    outer: (m.instructions ?? []).map((ix: Json) => ({
      program: key(ix.programIdIndex ?? ix.program_id_index),
      accounts: Array.from(bytesOf(ix.accounts ?? new Uint8Array(0), 'accounts'), key),
      data: bytesOf(ix.data ?? new Uint8Array(0), 'data'),
      stackHeight: 1,
    })),
    inner: innerNone ? null : innerOf(meta, key, true),
    logs: logsNone || !Array.isArray(logs) ? null : logs,
    preTokenBalances: tokenBalances(meta.preTokenBalances ?? meta.pre_token_balances, key),
    postTokenBalances: tokenBalances(meta.postTokenBalances ?? meta.post_token_balances, key),
  };
}

/** Seconds of a protobuf Timestamp ({seconds, nanos}), as Yellowstone's `created_at`. */
function timestampSeconds(ts: unknown): number | null {
  if (!ts || typeof ts !== 'object') return null;
  const s = num((ts as Json).seconds);
  return s;
}

export type Format = 'auto' | 'rpc' | 'yellowstone';

/**
 * Every transaction in one JSON value (a document or one NDJSON line), with the block
 * context the value carries. Each is a SolTx or the reason it is not one; never throws.
 */
export function* transactionsOf(value: unknown, format: Format = 'auto', ctx: TxContext = {}): Generator<SolTx | { error: string; signature?: string }> {
  if (Array.isArray(value)) {
    for (const item of value) yield* transactionsOf(item, format, ctx);
    return;
  }
  if (!value || typeof value !== 'object') {
    yield { error: `not a transaction: ${value === null ? 'null' : typeof value}` };
    return;
  }
  const v = value as Json;
  try {
    // JSON-RPC envelopes: a response ({result}) or a subscription notification ({params: {result}}).
    if ('jsonrpc' in v || ('params' in v && v.params?.result)) {
      const result = v.params?.result ?? v.result;
      if (result == null) {
        yield { error: v.error ? `RPC error: ${JSON.stringify(v.error).slice(0, 200)}` : 'RPC result is null (transaction not found)' };
        return;
      }
      const blockSlot = num(result.context?.slot);
      yield* transactionsOf(result.value ?? result, format, { ...ctx, slot: ctx.slot ?? blockSlot ?? undefined });
      return;
    }
    // A blockSubscribe value ({slot, block}) or a getBlock result ({blockTime, transactions}).
    if (v.block && typeof v.block === 'object') {
      yield* transactionsOf(v.block, format, { ...ctx, slot: num(v.slot) ?? ctx.slot });
      return;
    }
    if (Array.isArray(v.transactions)) {
      const slot = num(v.slot) ?? ctx.slot;
      const blockTime = num(v.blockTime) ?? ctx.blockTime;
      for (let i = 0; i < v.transactions.length; i++) yield* one(v.transactions[i], format, { slot, blockTime, txIndex: i });
      return;
    }
    yield* one(v, format, ctx);
  } catch (err) {
    yield { error: (err as Error).message };
  }
}

function* one(v: Json, format: Format, ctx: TxContext): Generator<SolTx | { error: string; signature?: string }> {
  try {
    const update = v.transaction?.transaction;
    const isYellowstone = update && typeof update === 'object' && !Array.isArray(update) && 'meta' in update && 'signature' in update;
    const isInfo = v.signature != null && v.meta && v.transaction?.message && !Array.isArray(v.transaction);
    if (format !== 'rpc' && (isYellowstone || (isInfo && typeof v.signature !== 'string'))) {
      const createdAt = timestampSeconds(v.createdAt ?? v.created_at);
      const c = { ...ctx, seenAt: ctx.seenAt ?? createdAt ?? undefined };
      yield isYellowstone ? fromYellowstone(update, v.transaction.slot, c) : fromYellowstone(v, v.slot, c);
      return;
    }
    if (format === 'yellowstone') throw new ShapeError('not a Yellowstone update (transaction.transaction with signature and meta)');
    yield fromRpc(v, ctx);
  } catch (err) {
    yield { error: (err as Error).message };
  }
}
