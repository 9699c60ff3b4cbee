import bs58 from 'bs58';
import { decodeBase58 } from './base58.ts';

/**
 * Every shape a transaction arrives in (SOLANA.md "Transports"), made one: RPC
 * `getTransaction` in the `json`, `jsonParsed` and `base64` encodings (bare, in its
 * JSON-RPC envelope, or in an array), a `getBlock`/`blockSubscribe` block or item,
 * and a Yellowstone `SubscribeUpdate` (as grpc-js hands it, bytes as Uint8Array, or as
 * JSON, bytes as base64). Instruction data stays encoded until the decoder asks for it:
 * only pump and PumpSwap instructions are ever decoded.
 */

/**
 * A transaction's account keys, turned into base58 only when asked (a wire or
 * Yellowstone record holds up to 64 keys of 32 bytes; the decoder reads a few).
 */
export class Keys {
  private readonly text: Array<string | undefined>;
  /** Keys as bytes (wire, Yellowstone) or base58 already (RPC JSON, loadedAddresses), mixed. */
  constructor(private readonly raw: ReadonlyArray<Uint8Array | string>) {
    this.text = raw.map((k) => (typeof k === 'string' ? k : undefined));
  }
  get length(): number {
    return this.text.length;
  }
  get(i: number): string {
    return (this.text[i] ??= bs58.encode(this.raw[i] as Uint8Array));
  }
  /** Throws unless every index names a key. */
  check(indices: ArrayLike<unknown>): void {
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k];
      if (typeof i !== 'number' || !(i >= 0 && i < this.text.length) || !Number.isInteger(i)) {
        throw new ShapeError(`account index ${String(i)} does not resolve (${this.text.length} account keys)`);
      }
    }
  }
}

export class Instruction {
  private resolved: readonly string[] | null;
  constructor(
    readonly program: string,
    /** Indices into `keys`, or the keys themselves (jsonParsed). */
    private readonly indices: ArrayLike<number> | readonly string[],
    private readonly keys: Keys | null,
    /** base58 text (RPC JSON) or bytes (wire, Yellowstone); read it with `dataOf`. */
    readonly data: string | Uint8Array,
    /** 1 for an outer instruction; null where the record predates stack heights. */
    readonly stackHeight: number | null,
  ) {
    this.resolved = keys ? null : (indices as readonly string[]);
    if (keys) keys.check(indices);
  }
  get accountCount(): number {
    return this.indices.length;
  }
  get accounts(): readonly string[] {
    return (this.resolved ??= Array.from(this.indices as ArrayLike<number>, (i) => this.keys!.get(i)));
  }
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

export const dataOf = (ix: Instruction): Uint8Array => (typeof ix.data === 'string' ? decodeBase58(ix.data) : ix.data);

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

const programOf = (keys: Keys, index: unknown): string => {
  keys.check([index]);
  return keys.get(index as number);
};

function tokenBalances(list: unknown, keys: Keys): TokenBalance[] {
  if (!Array.isArray(list)) return [];
  const out: TokenBalance[] = [];
  for (const b of list as Json[]) {
    const ui = b.uiTokenAmount ?? b.ui_token_amount;
    const amount = ui?.amount;
    if (typeof b.mint !== 'string' || typeof amount !== 'string' || !/^\d{1,40}$/.test(amount)) throw new ShapeError('a token balance lacks its mint or a decimal amount');
    const accountIndex = num(b.accountIndex ?? b.account_index) ?? -1;
    keys.check([accountIndex]); // it must resolve
    out.push({ accountIndex, mint: b.mint, owner: typeof b.owner === 'string' && b.owner !== '' ? b.owner : null, amount });
  }
  return out;
}

/** RPC JSON instructions: `json`/`base64` encodings (indices), `jsonParsed` (keys). */
function rpcInstruction(ix: Json, keys: Keys, stackHeight: number | null): Instruction {
  const data = typeof ix.data === 'string' ? ix.data : '';
  if (typeof ix.programId === 'string') {
    // jsonParsed: keys inline; a parsed (system, token) instruction has no raw data.
    return new Instruction(ix.programId, Array.isArray(ix.accounts) ? ix.accounts : [], null, data, stackHeight);
  }
  return new Instruction(programOf(keys, ix.programIdIndex), Array.isArray(ix.accounts) ? ix.accounts : [], keys, data, stackHeight);
}

function innerOf(meta: Json, keys: Keys, yellowstone: boolean): Array<Instruction[] | undefined> | null {
  const list = meta.innerInstructions ?? meta.inner_instructions;
  if (!Array.isArray(list)) return null;
  const inner: Array<Instruction[] | undefined> = [];
  for (const group of list as Json[]) {
    const index = num(group.index);
    if (index === null || !Array.isArray(group.instructions)) throw new ShapeError('an inner instruction group lacks index or instructions');
    inner[index] = (group.instructions as Json[]).map((ix) => {
      const h = num(ix.stackHeight ?? ix.stack_height);
      return yellowstone ? yellowstoneInstruction(ix, keys, h) : rpcInstruction(ix, keys, h);
    });
  }
  return inner;
}

function yellowstoneInstruction(ix: Json, keys: Keys, stackHeight: number | null): Instruction {
  const accounts = bytesOf(ix.accounts ?? new Uint8Array(0), 'accounts');
  return new Instruction(programOf(keys, ix.programIdIndex ?? ix.program_id_index), accounts, keys, bytesOf(ix.data ?? new Uint8Array(0), 'data'), stackHeight);
}

function loaded(meta: Json): string[] {
  const la = meta.loadedAddresses;
  if (!la) return [];
  return [...(la.writable ?? []), ...(la.readonly ?? [])];
}

/**
 * The wire transaction of the `base64` encoding: compact-u16 counts, signatures, then
 * the legacy or v0 message (header, static keys, blockhash, instructions, lookups).
 * Read by hand: @solana/transactions' decoder turns every key into base58 (BigInt
 * arithmetic, ~8 µs a key), which cost more than the rest of decoding together.
 */
function readWire(bytes: Uint8Array): { signature: Uint8Array; keys: Uint8Array[]; instructions: Array<{ program: number; accounts: Uint8Array; data: Uint8Array }> } {
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new ShapeError(`wire transaction ends at byte ${bytes.length}, inside a field`);
  };
  const compact = () => {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      need(1);
      const b = bytes[at++]!;
      value |= (b & 0x7f) << shift;
      if (!(b & 0x80)) return value;
    }
    throw new ShapeError('a compact-u16 of more than 3 bytes');
  };
  const take = (n: number) => {
    need(n);
    const out = bytes.subarray(at, at + n);
    at += n;
    return out;
  };
  const signatures = compact();
  if (signatures < 1) throw new ShapeError('no signature');
  const signature = take(64);
  at += 64 * (signatures - 1);
  need(1);
  if (bytes[at]! & 0x80) {
    const version = bytes[at]! & 0x7f;
    if (version !== 0) throw new ShapeError(`a v${version} transaction message (legacy and v0 are read)`);
    at++;
  }
  take(3); // header
  const keyCount = compact();
  const keys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) keys.push(take(32));
  take(32); // recent blockhash
  const count = compact();
  const instructions = [];
  for (let i = 0; i < count; i++) {
    need(1);
    const program = bytes[at++]!;
    const accounts = take(compact());
    instructions.push({ program, accounts, data: take(compact()) });
  }
  // v0 address table lookups follow; the keys they load are in meta.loadedAddresses.
  return { signature, keys, instructions };
}

/** An RPC transaction record: { transaction, meta, slot?, blockTime?, version? }. */
function fromRpc(rec: Json, ctx: TxContext): SolTx {
  const meta: Json = rec.meta;
  if (!meta || typeof meta !== 'object') throw new ShapeError('no meta (the transaction status): cannot tell success, events or balances');
  const t = rec.transaction;
  let signature: string;
  let keys: Keys;
  let outer: Instruction[];
  const loadedKeys = loaded(meta);
  if (Array.isArray(t) || typeof t === 'string') {
    // `base64` encoding, and blockSubscribe items: the wire transaction.
    const [text, encoding] = Array.isArray(t) ? t : [t, 'base64'];
    if (encoding !== 'base64' || typeof text !== 'string') throw new ShapeError(`transaction encoding ${String(encoding)} (base64, json or jsonParsed expected)`);
    const wire = readWire(Buffer.from(text, 'base64'));
    signature = bs58.encode(wire.signature);
    keys = new Keys([...wire.keys, ...loadedKeys]);
    const table = keys;
    outer = wire.instructions.map((ix) => new Instruction(programOf(table, ix.program), ix.accounts, table, ix.data, 1));
  } else if (t && typeof t === 'object' && t.message) {
    const m: Json = t.message;
    if (!Array.isArray(t.signatures) || typeof t.signatures[0] !== 'string') throw new ShapeError('no signature');
    signature = t.signatures[0];
    if (!Array.isArray(m.accountKeys)) throw new ShapeError('message without accountKeys');
    // jsonParsed lists every key (lookup-table ones too) as objects; json lists the static ones.
    keys = new Keys(typeof m.accountKeys[0] === 'object' ? m.accountKeys.map((k: Json) => k.pubkey) : [...m.accountKeys, ...loadedKeys]);
    const table = keys;
    outer = (Array.isArray(m.instructions) ? m.instructions : []).map((ix: Json) => rpcInstruction(ix, table, 1));
  } else {
    throw new ShapeError('no transaction (expected a message, or base64 wire bytes)');
  }
  return {
    signature,
    slot: num(rec.slot) ?? ctx.slot ?? null,
    blockTime: num(rec.blockTime) ?? ctx.blockTime ?? null,
    txIndex: ctx.txIndex ?? null,
    seenAt: ctx.seenAt ?? null,
    failed: meta.err != null,
    outer,
    inner: innerOf(meta, keys, false),
    logs: Array.isArray(meta.logMessages) ? meta.logMessages : null,
    preTokenBalances: tokenBalances(meta.preTokenBalances, keys),
    postTokenBalances: tokenBalances(meta.postTokenBalances, keys),
  };
}

/** A Yellowstone SubscribeUpdateTransactionInfo (signature, transaction, meta, index). */
function fromYellowstone(info: Json, slot: unknown, ctx: TxContext): SolTx {
  const meta: Json = info.meta;
  const m: Json | undefined = info.transaction?.message;
  if (!meta || !m) throw new ShapeError('Yellowstone transaction without message or meta');
  const raw = [...(m.accountKeys ?? m.account_keys ?? []), ...(meta.loadedWritableAddresses ?? meta.loaded_writable_addresses ?? []), ...(meta.loadedReadonlyAddresses ?? meta.loaded_readonly_addresses ?? [])];
  const keys = new Keys(raw.map((k: unknown) => bytesOf(k, 'account key')));
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
    outer: (m.instructions ?? []).map((ix: Json) => yellowstoneInstruction(ix, keys, 1)),
    inner: innerNone ? null : innerOf(meta, keys, true),
    logs: logsNone || !Array.isArray(logs) ? null : logs,
    preTokenBalances: tokenBalances(meta.preTokenBalances ?? meta.pre_token_balances, keys),
    postTokenBalances: tokenBalances(meta.postTokenBalances ?? meta.post_token_balances, keys),
  };
}

/** Seconds of a protobuf Timestamp ({seconds, nanos}), as Yellowstone's `created_at`. */
function timestampSeconds(ts: unknown): number | null {
  if (ts instanceof Date) return Math.floor(ts.getTime() / 1000); // ts-proto's generated codecs
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
