import { mkdirSync } from 'node:fs';
import { open, type Database, type Key, type RootDatabase } from "lmdb";
import { compressSync } from 'lz4-napi';
import { COMPRESSION_THRESHOLD_BYTES, LMDB_MAP_BYTES } from '../engine/bounds.ts';

/**
 * One LMDB environment with the databases of ARCHITECTURE.md. Values are msgpack
 * (msgpackr, with shared structures for the record-shaped ones), keys ordered-binary.
 * Writes are lmdb-js async puts: all puts of one event turn commit in one
 * transaction on lmdb's write thread.
 */

/**
 * A batch of the ingest log: the validated events as NDJSON bytes (each line ending
 * in '\n'), in seq order from its key. Lines keep the bytes the source sent. Stored
 * raw (encoding 'binary'): msgpack would copy every batch once more on the way in.
 * Read it through `logBytes`.
 */
export type LogBatch = Uint8Array;

/**
 * The NDJSON bytes of an ingest-log value. Data directories written before the log
 * was stored raw hold msgpack bin values (a 0xc4/0xc5/0xc6 header, then the bytes); a
 * raw batch starts with '{' (every event is a JSON object), so the two never mix up.
 */
export function logBytes(value: Uint8Array): Buffer {
  const buffer = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const head = buffer[0];
  if (head === 0xc4) return buffer.subarray(2, 2 + buffer[1]!);
  if (head === 0xc5) return buffer.subarray(3, 3 + buffer.readUInt16BE(1));
  if (head === 0xc6) return buffer.subarray(5, 5 + buffer.readUInt32BE(1));
  return buffer;
}

export interface DeadLetter {
  /** Wall time the event was rejected at (Unix ms). */
  at: number;
  reason: string;
  /** Where it came from: `ndjson:<path>:<line>`, `embedded`, `actor:<id>`... */
  source: string;
  /** The event as received (JSON text, cut to `DEAD_LETTER_RAW_MAX` characters). */
  raw: string;
  /** The event's ingest seq, for an event that was logged and then broke an actor. */
  seq?: number;
  type?: string;
}

/** An actor's persisted state and the last ingest seq it covers. */
export interface Snapshot<S = unknown> {
  seq: number;
  state: S;
}

export interface Account {
  id: string;
  plan: 'free' | 'starter' | 'pro' | 'scale';
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

/**
 * An account's counters for one calendar month (UTC), written by engine/plans/limits.ts in
 * batches (about once a second), never once per request.
 */
export interface UsageRecord {
  /** Start of the month the counts are for (Unix ms, 00:00 UTC on the 1st). */
  monthStartsAt: number;
  /** HTTP requests admitted this month. */
  requests: number;
  /** WebSocket data messages delivered this month. */
  messages: number;
}


export interface Storage {
  readonly path: string;
  readonly env: RootDatabase;
  /** ingest seq of a batch's first event → the batch (raw bytes: read with `logBytes`). */
  readonly ingestLog: Database<LogBatch, number>;
  /** `ingestLog` for writing: LZ4 without a dictionary (see openStorage); read through `ingestLog`. */
  readonly ingestLogWrites: Database<LogBatch, number>;
  /** [identity bucket, batch seq] → the bucket's identities that batch added (joined by '\n', or an array for labels); what makes ingest idempotent. */
  readonly identities: Database<string[] | string, [string, number]>;
  readonly deadLetters: Database<DeadLetter, number>;
  /** actor id (`<kind>:<key>`) → snapshot. */
  readonly snapshots: Database<Snapshot, string>;
  /** `snapshots` for writing: LZ4 without a dictionary (see openStorage); read through `snapshots`. */
  readonly snapshotWrites: Database<Snapshot, string>;
  /**
   * Writes an actor's snapshot as `snapshotWrites.put` does, in the form lmdb-js stores
   * (its handles read it as their own), but LZ4-compressed here, in this call, where
   * lmdb-js queues each value past the threshold to a libuv worker from the main thread
   * (see putCompressed).
   */
  putSnapshot(id: string, snapshot: Snapshot): Promise<boolean>;
  /** engine-wide values: the checkpoint seq. */
  readonly meta: Database<unknown, string>;
  /** mint → decimals, for mints seen in a `token` event. */
  readonly mints: Database<number, string>;
  /** key hash (hex) → account. */
  readonly accounts: Database<Account, string>;
  /** account id → its usage counters of the current month. */
  readonly usage: Database<UsageRecord, string>;
  /**
   * Web terminal sessions (engine/plans/sessions.ts): `login:<sha256 hex of a one-time
   * token>` and `session:<sha256 hex of a cookie>` → the record; the secrets themselves
   * are never stored, as for keys.
   */
  readonly sessions: Database<unknown, string>;
  /** Databases the pool, token, wallet and feed actors fill (issues 4 and later). */
  readonly trades: Database<unknown, Key[]>;
  /** `trades` with values as bytes (read in place by trade-codec.ts TradeBlock). */
  readonly tradeBlocks: Database<Buffer, Key[]>;
  readonly tradesByToken: Database<unknown, Key[]>;
  /** [wallet, bucket, chunk] → positions and pools of the wallet's trades (storage/wallet-index.ts WalletChunk). */
  readonly tradesByWallet: Database<[string[], number[]], Key[]>;
  /**
   * [journal seq, ...a trade block's key] → nothing: blocks of `trades` just written
   * (new, or rewritten by a late trade) whose trades are not yet in `tradesByWallet`.
   * Written in the same transaction as the blocks, emptied by the wallet indexer
   * (storage/wallet-index.ts).
   */
  readonly walletJournal: Database<Buffer, Key[]>;
  readonly candles: Database<unknown, Key[]>;
  readonly tokens: Database<unknown, string>;
  readonly pools: Database<unknown, string>;
  /** The labeled wallets' index (engine/query/labeled-wallets.ts): [label, wallet] and [0, wallet] → the labels in force. */
  readonly labels: Database<unknown, Key[]>;
  /** post_id → the post as route 18 and the social_posts stream serve it (JSON text). */
  readonly posts: Database<unknown, string>;
  /** Posts by time: [0, at, post_id], [1, token, at, post_id], [2, author, at, post_id] → nothing (engine/query/posts.ts). */
  readonly postsIndex: Database<unknown, Key[]>;
  /** Labeled trades by time: [label or 0, at, slot, tx_index, event_index, pool] → [market_cap_usd, item JSON] (engine/query/activity.ts). */
  readonly labeledTrades: Database<unknown, Key[]>;
  /** The markers stream's marks per token and what withdraws them (engine/query/markers.ts). */
  readonly marks: Database<unknown, Key[]>;
  /** signal_id → signal (storage/signals.repo.ts). */
  readonly signals: Database<unknown, string>;
  /** The signals' index keys (storage/signals.repo.ts): routes 17 and 22 newest first. */
  readonly signalIndex: Database<unknown, Key[]>;
  close(): Promise<void>;
}

export function openStorage(path: string): Storage {
  mkdirSync(path, { recursive: true });
  const env = open({
    path,
    compression: false,
    // A put's promise resolves when its transaction is committed (visible); its
    // `.flushed` when the commit is on disk. The engine applies on the first and
    // acknowledges on the second.
    separateFlushed: true,
    maxDbs: 32,
    // Always a directory: lmdb-js otherwise takes a path whose last segment has a dot
    // (`./mds.data`, mktemp's `/tmp/tmp.XXXX`) for the database file itself, and an
    // existing directory there fails with "Is a directory".
    noSubdir: false,
    // One map for the life of the environment, not one more per doubling (LMDB_MAP_BYTES; Linux only).
    ...(process.platform === 'linux' ? { mapSize: LMDB_MAP_BYTES } : {}),
  });
  const db = <V, K extends Key>(name: string, options: Record<string, unknown> = {}) =>
    env.openDB<V, K>({ name, encoding: 'msgpack', ...options });
  // msgpackr record structures kept once per database (under this key) instead of
  // defined again in every value. The actors' snapshots too: a pool's or wallet's shapes
  // repeat in tens of thousands of snapshots, rewritten at each checkpoint and eviction
  // (the 400k market: the snapshots database 0.91x, heap max 0.92-0.94x, CPU per event
  // 0.97-1.00x; bench/README.md, market). Values written before, with their records
  // defined inline, read as they are.
  const sharedStructures = { sharedStructuresKey: Symbol.for('structures') };
  const structured = <V, K extends Key>(name: string) => db<V, K>(name, sharedStructures);
  // LZ4 (lmdb-js `compression`: each value queued from the main thread to a libuv
  // worker, ~35 µs more main-thread time a value in a replay: bench/README.md, market)
  // where it pays: the ingest log's NDJSON and the actors' snapshots halve, and a snapshot that shrinks under ~2 KB
  // leaves LMDB's overflow pages (a 4 KB page per started 4 KB). Not the trade blocks
  // (random base58 signatures and wallets: 3 % smaller) nor the small indexes. A value
  // written without it starts with a byte under 250 and is read as it is, so data
  // directories written before keep working (lmdb-js marks compressed values 254/255).
  const compressed = { compression: { threshold: COMPRESSION_THRESHOLD_BYTES } };
  // What mds writes there goes through a second handle of the same database whose LZ4
  // has no dictionary. lmdb-js's default one (5.4 KB of text) is loaded into the
  // compressor for each value and buys nothing on msgpack (a pool's snapshot 2,876
  // against 2,865 bytes stored): ~15 µs of a worker's CPU and ~5 µs of the main thread's
  // a compressed put (bench/README.md, market). A block compressed without a
  // dictionary decompresses the same with one, so the handles that read keep the
  // default: values written before, with it, still read.
  const writes = { compression: { threshold: COMPRESSION_THRESHOLD_BYTES, dictionary: Buffer.alloc(0) } };
  const snapshotWrites = db<Snapshot, string>('snapshots', { ...writes, ...sharedStructures });
  // Both handles save a new record shape the same way, through the writing one: saved
  // through this one, the shared structures would be compressed with the dictionary,
  // which `snapshotWrites` cannot read back (a legacy feed snapshots' split at start-up
  // writes here). lmdb-js's save checks the structures stored first (a handle behind
  // reloads them and encodes again), as between processes.
  const snapshots = db<Snapshot, string>('snapshots', {
    ...compressed,
    ...sharedStructures,
    saveStructures: (structures: unknown, isCompatible: unknown) => (snapshotWrites as unknown as { encoder: { saveStructures(s: unknown, c: unknown): unknown } }).encoder.saveStructures(structures, isCompatible),
  });
  const putSnapshot = putCompressed(snapshotWrites, db<Buffer, string>('snapshots', { encoding: 'binary' }));
  return {
    path,
    env,
    putSnapshot,
    ingestLog: db('ingest_log', { encoding: 'binary', ...compressed }),
    ingestLogWrites: db('ingest_log', { encoding: 'binary', ...writes }),
    identities: db('identities'),
    deadLetters: structured('dead_letters'),
    snapshots,
    snapshotWrites,
    meta: db('meta'),
    mints: db('mints'),
    accounts: structured('accounts'),
    usage: db('usage'),
    sessions: db('sessions'),
    trades: structured('trades'),
    tradeBlocks: db<Buffer, Key[]>('trades', { encoding: 'binary' }),
    tradesByToken: db('trades_by_token'),
    tradesByWallet: db('trades_by_wallet'),
    walletJournal: db('wallet_journal', { encoding: 'binary' }),
    candles: structured('candles'),
    tokens: structured('tokens'),
    pools: structured('pools'),
    labels: db('labels'),
    posts: db('posts'),
    postsIndex: db('posts_index'),
    labeledTrades: db('labeled_trades'),
    marks: db('marks'),
    signals: structured('signals'),
    signalIndex: db('signal_index'),
    close: () => env.close(),
  };
}

/**
 * A put for a msgpack database written with LZ4 (`writes`: not a binary one, which has
 * no encoder to take the value's bytes from) that compresses on the calling thread
 * with lz4-napi's `compressSync` (lz4_flex, the LZ4 block format) and stores what lmdb-js
 * would: a value under COMPRESSION_THRESHOLD_BYTES as its msgpack, a larger one as
 * lmdb-js's header (254 and the length in three bytes, big-endian) and the block, which
 * the database's reading handles decompress as their own (a block compressed without a
 * dictionary decompresses the same with one). lmdb-js itself creates a napi async work
 * item per such value and completes it in a later turn of the event loop: ~17 µs of the
 * main thread a value in a loop of puts alone, more beside the engine's work, where
 * `compressSync` takes ~8 µs for a 2 KB snapshot (a wallet's; bench/README.md, market).
 * The value is encoded by `encoding`'s own msgpack (its shared structures saved as they
 * are by lmdb-js's put) and written as bytes through `bytes`, a handle of the same
 * database without encoding or compression; lmdb-js holds the buffer until written.
 */
export function putCompressed<V, K extends Key>(encoding: Database<V, K>, bytes: Database<Buffer, K>): (key: K, value: V) => Promise<boolean> {
  const encoder = (encoding as unknown as { encoder: { encode(value: unknown): Buffer } }).encoder;
  return (key, value) => {
    const encoded = encoder.encode(value);
    const length = encoded.byteLength;
    // A first byte from 250 up marks a compressed value for lmdb-js (never msgpack's
    // first byte of a map or record), and lengths from 16 MiB on take its long header.
    if (length >= 0x1000000 || encoded[0]! >= 250) return encoding.put(key, value);
    if (length >= COMPRESSION_THRESHOLD_BYTES) {
      // lz4_flex prepends the length as 4 bytes, little-endian: lmdb-js's header takes their place.
      const block = compressSync(encoded);
      if (block.byteLength < length) {
        block[0] = 254;
        block[1] = (length >>> 16) & 0xff;
        block[2] = (length >>> 8) & 0xff;
        block[3] = length & 0xff;
        return bytes.put(key, block);
      }
    }
    // A view of the encoder's buffer, which its next values are written after, not over:
    // copied, so that nothing but lmdb-js holds it until it is written.
    return bytes.put(key, Buffer.from(encoded));
  };
}

/** A write's promise as lmdb-js returns it with `separateFlushed`. */
export type WritePromise = Promise<boolean> & { flushed?: Promise<unknown> };

/** Resolves once the given write is durable on disk. */
export function whenFlushed(write: Promise<boolean>): Promise<unknown> {
  return (write as WritePromise).flushed ?? write;
}
