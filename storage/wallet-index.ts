import { JOURNAL_TRADES_PER_STEP, PRUNE_KEYS_PER_TURN } from '../engine/bounds.ts';
import type { Key } from 'lmdb';
import type { Storage } from './lmdb.ts';
import { TRADE, compareKey, type StoredTrade, type TradeKey, type TradeSpan } from '../engine/model/index.ts';
import { TradeBlock, dedup, merge } from './trade-codec.ts';
import { sameKey, type JournalKey, type TradesRepo } from './trades.repo.ts';

/**
 * The wallet order of trades (ARCHITECTURE.md `trades_by_wallet`), in chunks: key
 * [wallet, bucket, chunk], where `bucket` is the start of the BUCKET_MS span the
 * trades fall in and `chunk` the indexing step that wrote it; value a WalletChunk, the
 * positions of the wallet's trades in that span that the step indexed, and their
 * pools. A trade itself is read from its pool's block. A span may have several chunks
 * (one per step that met its trades); a read merges them.
 *
 * Filled off the engine's thread: TradesRepo names every block of trades it writes (a
 * new one, or one a late trade rewrote) in `wallet_journal`, in the same transaction
 * as the block, and the indexer (wallet-index.worker.ts, a thread of its own) reads
 * those blocks into the index, the journal entries removed in the transaction that
 * indexes them. A crash at any point loses nothing. A rewritten block is indexed again
 * whole: a read drops a trade met twice in the chunks of its hour. Reads take the
 * index and the blocks the journal names, so a trade is in the wallet order from the
 * commit of its block on.
 *
 * Why chunks: a put per trade (sorted, 50,000 to a transaction) cost the indexer ~6 µs
 * a trade on the engine benchmark's journal, most of it B-tree inserts and the pages
 * they dirty (keys by wallet land all over the tree); the benchmark's million trades
 * make ~20,000 chunks of an hour (50 trades a put).
 */

/**
 * The span of a bucket. A read decodes every chunk of the hours it crosses (a wallet
 * trading every second has 3,600 trades an hour). Five minutes made 7× more chunks on
 * the engine benchmark, whose event time runs ~100 s a wall second.
 */
export const BUCKET_MS = 60 * 60_000;


/** Where the next step's chunk number is kept (meta), written in the step's transaction. */
const NEXT_CHUNK_KEY = 'walletIndex:nextChunk';

/**
 * One chunk's trades: `refs` holds five numbers a trade (at, slot, tx_index,
 * event_index, index of its pool in `pools`), ascending by position.
 */
export type WalletChunk = [pools: string[], refs: number[]];

const REF = 5;

/** A wallet's trades in one bucket, as a step gathers them. */
interface Gathering {
  wallet: string;
  bucket: number;
  pools: string[];
  refs: number[];
}

/** Sorts refs (REF numbers each) ascending by position. */
function sortRefs(refs: number[]): number[] {
  const n = refs.length / REF;
  const order = Array.from({ length: n }, (_, i) => i * REF);
  order.sort((a, b) => refs[a]! - refs[b]! || refs[a + 1]! - refs[b + 1]! || refs[a + 2]! - refs[b + 2]! || refs[a + 3]! - refs[b + 3]!);
  const out = new Array<number>(refs.length);
  for (let k = 0; k < n; k++) for (let j = 0; j < REF; j++) out[k * REF + j] = refs[order[k]! + j]!;
  return out;
}

/**
 * Moves journal entries (about `maxTrades` trades' worth) into the index in one
 * synchronous write transaction: a chunk per wallet and bucket met. Returns how many
 * entries it took (0: the journal is empty). An entry that does not read as trades
 * (never written so: a bug or a damaged file) is dropped and told to `onBad`, so that
 * it cannot stop the indexer.
 */
export function indexJournalStep(storage: Storage, maxTrades = JOURNAL_TRADES_PER_STEP, onBad?: (message: string) => void): number {
  const { walletJournal, tradesByWallet, meta } = storage;
  let taken = 0;
  storage.env.transactionSync(() => {
    const groups = new Map<string, Gathering[]>();
    const done: unknown[] = [];
    const position: number[] = [0, 0, 0, 0];
    let trades = 0;
    for (const key of walletJournal.getKeys({})) {
      if (trades >= maxTrades) break;
      const [seq, pool] = key as JournalKey;
      // Read whole before any of it is gathered: an entry goes in entirely or not at all.
      const wallets: string[] = [];
      const positions: number[] = [];
      try {
        // Gone: retention pruned it since; its trades are out of the history.
        const block = journalled(storage, key as JournalKey) ?? EMPTY_BLOCK;
        for (let i = 0; i < block.length; i++) {
          block.position(i, position, 0);
          wallets.push(block.wallet());
          positions.push(...position);
        }
      } catch (err) {
        wallets.length = 0;
        onBad?.(`wallet journal entry ${seq} (pool ${pool}) dropped: ${(err as Error).message}`);
      }
      for (let i = 0; i < wallets.length; i++) {
        const wallet = wallets[i]!;
        const at = positions[4 * i]!;
        const bucket = Math.floor(at / BUCKET_MS) * BUCKET_MS;
        let list = groups.get(wallet);
        if (!list) groups.set(wallet, (list = []));
        let g = list.find((x) => x.bucket === bucket);
        if (!g) list.push((g = { wallet, bucket, pools: [], refs: [] }));
        let p = g.pools.lastIndexOf(pool);
        if (p < 0) p = g.pools.push(pool) - 1;
        g.refs.push(at, positions[4 * i + 1]!, positions[4 * i + 2]!, positions[4 * i + 3]!, p);
      }
      trades += wallets.length;
      done.push(key);
    }
    if (done.length === 0) return;
    const chunk = (meta.get(NEXT_CHUNK_KEY) as number | undefined) ?? 0;
    for (const list of groups.values()) {
      for (const g of list) tradesByWallet.putSync([g.wallet, g.bucket, chunk], [g.pools, sortRefs(g.refs)] satisfies WalletChunk);
    }
    meta.putSync(NEXT_CHUNK_KEY, chunk + 1);
    for (const key of done) walletJournal.removeSync(key as never);
    taken = done.length;
  });
  return taken;
}

const EMPTY_BLOCK = { length: 0 } as TradeBlock;

/** The block a journal entry names, as stored now; undefined when it is gone. */
function journalled(storage: Storage, key: JournalKey): TradeBlock | undefined {
  const bytes = storage.tradeBlocks.getBinary(key.slice(1) as Key[]);
  return bytes ? new TradeBlock(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) : undefined;
}


/**
 * Deletes the chunks of buckets that end at or before `before` (the trades' 30-day
 * retention; a bucket that straddles it goes with its last trade): every key is read
 * (the index is by wallet first), in slices of PRUNE_KEYS_PER_TURN that yield between
 * them; deletes are async puts that join the turn's transaction. Returns the chunks
 * deleted.
 */
export async function pruneWalletIndex(storage: Storage, before: number): Promise<number> {
  const db = storage.tradesByWallet;
  let removed = 0;
  let start: Key[] | undefined;
  for (;;) {
    let seen = 0;
    let last: Key[] | undefined;
    for (const key of db.getKeys(start ? { start } : {})) {
      const k = key as Key[];
      if (seen === 0 && start && sameKey(k, start)) continue;
      last = k;
      seen++;
      if ((k[1] as number) + BUCKET_MS <= before) {
        void db.remove(k as never);
        removed++;
      }
      if (seen === PRUNE_KEYS_PER_TURN) break;
    }
    if (seen < PRUNE_KEYS_PER_TURN) return removed;
    start = last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One trade of a wallet and its pool. */
export type WalletTrade = [trade: StoredTrade, pool: string];

/** Whether trade key `t` is in the window (on the far side of `after`). */
function inWindow(t: ArrayLike<unknown>, w: TradeSpan): boolean {
  const at = t[TRADE.at] as number;
  if (at < w.minAt || at > w.maxAt) return false;
  if (!w.after) return true;
  const c = compareKey(t, w.after);
  return w.order === 'asc' ? c > 0 : c < 0;
}

/**
 * The wallet's stored trades in the window, in order, each once: the index, bucket by
 * bucket (each trade read from its pool's block as it is taken), merged with the
 * blocks the journal names (read whole: the indexer keeps it short; other wallets'
 * trades in them are skipped by their wallet's bytes). The indexer moves entries in
 * one transaction, and this reads in one (a synchronous walk), so no trade falls
 * between the two; one may be in both (a block rewritten since it was indexed).
 */
export function* storedWalletTrades(storage: Storage, trades: TradesRepo, wallet: string, w: TradeSpan): Generator<WalletTrade> {
  const asc = w.order === 'asc';
  const pending: Array<[TradeKey, () => WalletTrade]> = [];
  const utf8 = Buffer.from(wallet, 'utf8');
  for (const key of storage.walletJournal.getKeys({})) {
    const pool = (key as JournalKey)[1];
    const block = journalled(storage, key as JournalKey);
    for (let i = 0; block && i < block.length; i++) {
      const position: TradeKey = [0, 0, 0, 0];
      block.position(i, position, 0);
      if (block.walletIs(utf8) && inWindow(position, w)) pending.push([position, () => [block.decode(i), pool]]);
    }
  }
  pending.sort((a, b) => (asc ? compareKey(a[0], b[0]) : compareKey(b[0], a[0])));
  // Each trade read only once the merge takes it (a page takes a few of a wallet's).
  const blocks = new Map<string, TradeBlock>();
  const fromIndex = function* (): Generator<[TradeKey, () => WalletTrade | undefined]> {
    for (const [position, pool] of indexedRefs(storage, wallet, w)) {
      yield [position, () => {
        const trade = trades.find(pool, position, blocks);
        return trade ? [trade, pool] : undefined; // undefined: pruned with its block
      }];
    }
  };
  for (const [, read] of dedup(merge([pending.values(), fromIndex()], asc, positionOf), positionOf)) {
    const found = read();
    if (found) yield found;
  }
}

const positionOf = (item: [TradeKey, unknown]) => item[0];

/** The wallet's indexed trade positions in the window, in order, bucket by bucket. */
function* indexedRefs(storage: Storage, wallet: string, w: TradeSpan): Generator<[TradeKey, string]> {
  const asc = w.order === 'asc';
  const bucketOf = (at: number) => Math.floor(at / BUCKET_MS) * BUCKET_MS;
  const near = w.after ? (asc ? Math.max(w.after[0], w.minAt) : Math.min(w.after[0], w.maxAt)) : asc ? w.minAt : w.maxAt;
  const range = asc
    ? storage.tradesByWallet.getRange({ start: [wallet, bucketOf(near)], end: [wallet, w.maxAt + 1] })
    : storage.tradesByWallet.getRange({ start: [wallet, bucketOf(near), Number.MAX_SAFE_INTEGER], end: [wallet, bucketOf(w.minAt)], reverse: true });
  let bucket = NaN;
  let chunks: WalletChunk[] = [];
  const flush = function* (): Generator<[TradeKey, string]> {
    const refs: Array<[TradeKey, string]> = [];
    for (const [pools, numbers] of chunks) {
      for (let k = 0; k < numbers.length; k += REF) {
        const position: TradeKey = [numbers[k]!, numbers[k + 1]!, numbers[k + 2]!, numbers[k + 3]!];
        if (inWindow(position, w)) refs.push([position, pools[numbers[k + 4]!]!]);
      }
    }
    refs.sort((a, b) => (asc ? compareKey(a[0], b[0]) : compareKey(b[0], a[0])));
    chunks = [];
    yield* refs;
  };
  for (const { key, value } of range) {
    const b = (key as Key[])[1] as number;
    if (b !== bucket && chunks.length > 0) yield* flush();
    bucket = b;
    chunks.push(value);
  }
  if (chunks.length > 0) yield* flush();
}
