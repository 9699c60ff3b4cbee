import { describe, expect, it, vi } from 'vitest';
import type { StoredTrade, TradeSpan } from '../../engine/model/index.ts';
import { TradesRepo } from '../../storage/trades.repo.ts';
import { WalletIndexer } from '../../storage/wallet-indexer.ts';
import { BUCKET_MS, indexJournalStep, storedWalletTrades, type WalletChunk } from '../../storage/wallet-index.ts';
import { base58, logOf, rng, useTempRepo } from '../helpers/fixtures.ts';

/**
 * The wallet order of trades in LMDB (storage/wallet-index.ts): TradesRepo journals
 * what it stores, indexJournalStep moves the journal into the index, and a read takes
 * both, so it answers the same before, during and after indexing.
 */

const r = rng(7_373);
const ALICE = base58(r, 44);
const BOB = base58(r, 44);
const TX = base58(r, 88);

const trade = (at: number, wallet: string, slot = at): StoredTrade => [at, slot, 0, 0, 1, wallet, 1, 2, 2, null, 100, TX];

let journalled = 0;
const temp = useTempRepo((storage) => new TradesRepo(storage, () => journalled++));

/** Trades in the index (chunks hold five numbers a trade), and chunks. */
function indexed(): { trades: number; chunks: number } {
  let trades = 0;
  let chunks = 0;
  for (const { value } of temp.storage.tradesByWallet.getRange({})) {
    trades += (value as WalletChunk)[1].length / 5;
    chunks++;
  }
  return { trades, chunks };
}

const ALL: TradeSpan = { order: 'asc', minAt: 0, maxAt: Number.MAX_SAFE_INTEGER };
const read = (wallet: string, w: TradeSpan = ALL) =>
  [...storedWalletTrades(temp.storage, temp.repo, wallet, w)].map(([t, pool]) => `${pool}@${t[0]}`);

describe('wallet index', () => {
  it('reads the same from the journal, from a journal half indexed, and from the index', async () => {
    journalled = 0;
    // Two pools, two wallets; P1 in two blocks (blockMax 2), then a late trade merged into P1's first block.
    await temp.repo.write('P1', logOf([trade(10, ALICE), trade(20, BOB), trade(30, ALICE)]), null, 2);
    await temp.repo.write('P2', logOf([trade(15, ALICE), trade(25, ALICE), trade(35, BOB)]), null);
    await temp.repo.write('P1', logOf([trade(12, ALICE), trade(40, ALICE)]), [30, 30, 0, 0]);
    // One entry per block put: P1 2, P2 1, then P1's first block rewritten and a new one.
    expect(journalled).toBe(5);
    expect(temp.storage.walletJournal.getKeysCount()).toBe(5);
    const alice = ['P1@10', 'P1@12', 'P2@15', 'P2@25', 'P1@30', 'P1@40'];
    const bob = ['P1@20', 'P2@35'];
    expect(read(ALICE)).toEqual(alice);
    expect(read(BOB)).toEqual(bob);
    // The first entry names P1's first block as it is now (10, 12, 20): 3 trades, a step.
    expect(indexJournalStep(temp.storage, 3)).toBe(1);
    expect(read(ALICE)).toEqual(alice);
    expect(read(BOB)).toEqual(bob);
    expect(indexJournalStep(temp.storage)).toBe(4);
    expect(indexJournalStep(temp.storage)).toBe(0);
    expect(temp.storage.walletJournal.getKeysCount()).toBe(0);
    // Two steps, each a chunk per wallet (all in one bucket), and that block's trades
    // in both (named twice): the read merges the chunks and drops the repeats.
    expect(indexed()).toEqual({ trades: 11, chunks: 4 });
    expect(read(ALICE)).toEqual(alice);
    expect(read(BOB)).toEqual(bob);
    // Newest first, a window, and a cursor position (exclusive) in both orders.
    expect(read(ALICE, { order: 'desc', minAt: 0, maxAt: Number.MAX_SAFE_INTEGER })).toEqual([...alice].reverse());
    expect(read(ALICE, { order: 'asc', minAt: 12, maxAt: 30 })).toEqual(['P1@12', 'P2@15', 'P2@25', 'P1@30']);
    expect(read(ALICE, { order: 'asc', minAt: 0, maxAt: 100, after: [15, 15, 0, 0] })).toEqual(['P2@25', 'P1@30', 'P1@40']);
    expect(read(ALICE, { order: 'desc', minAt: 0, maxAt: 100, after: [25, 25, 0, 0] })).toEqual(['P2@15', 'P1@12', 'P1@10']);
    expect(read(base58(r, 44))).toEqual([]);
  });

  it('walks buckets in order, merging the chunks of each, with windows and cursors in both orders', async () => {
    const B = BUCKET_MS;
    // Pool P1 then P2, one step each, over four buckets: a chunk per wallet and bucket a step met.
    await temp.repo.write('P1', logOf([trade(5, ALICE), trade(B + 5, ALICE), trade(B + 7, BOB), trade(3 * B + 1, ALICE)]), null);
    indexJournalStep(temp.storage);
    await temp.repo.write('P2', logOf([trade(1, ALICE), trade(B + 6, ALICE), trade(2 * B, ALICE), trade(3 * B + 2, ALICE)]), null);
    indexJournalStep(temp.storage);
    expect(indexed()).toEqual({ trades: 8, chunks: 8 });
    const all = ['P2@1', 'P1@5', `P1@${B + 5}`, `P2@${B + 6}`, `P2@${2 * B}`, `P1@${3 * B + 1}`, `P2@${3 * B + 2}`];
    expect(read(ALICE)).toEqual(all);
    expect(read(ALICE, { order: 'desc', minAt: 0, maxAt: 10 * B })).toEqual([...all].reverse());
    // A window that starts and ends inside buckets.
    expect(read(ALICE, { order: 'asc', minAt: 5, maxAt: 3 * B + 1 })).toEqual(all.slice(1, 6));
    expect(read(ALICE, { order: 'desc', minAt: 5, maxAt: 3 * B + 1 })).toEqual(all.slice(1, 6).reverse());
    // Cursors inside a bucket.
    expect(read(ALICE, { order: 'asc', minAt: 0, maxAt: 10 * B, after: [B + 5, B + 5, 0, 0] })).toEqual(all.slice(3));
    expect(read(ALICE, { order: 'desc', minAt: 0, maxAt: 10 * B, after: [B + 6, B + 6, 0, 0] })).toEqual(all.slice(0, 3).reverse());
    expect(read(BOB)).toEqual([`P1@${B + 7}`]);
  });

  it('drops a journal entry whose block does not read as trades, tells why, and indexes the rest', async () => {
    await temp.repo.write('P1', logOf([trade(10, ALICE)]), null);
    await temp.storage.tradeBlocks.put(['BAD', 1, 1, 0, 0], Buffer.from([0x92, 0xc1]));
    await temp.storage.walletJournal.put([1_000, 'BAD', 1, 1, 0, 0], Buffer.alloc(0) as never);
    const told: string[] = [];
    expect(indexJournalStep(temp.storage, 64, (m) => told.push(m))).toBe(2);
    expect(told).toEqual([expect.stringMatching(/^wallet journal entry 1000 \(pool BAD\) dropped: /)]);
    expect(temp.storage.walletJournal.getKeysCount()).toBe(0);
    expect(read(ALICE)).toEqual(['P1@10']);
  });

  it('starts its thread again with the next stored trades after the thread died, and loses nothing', async () => {
    const told: string[] = [];
    const indexer = new WalletIndexer(temp.storage.path, (m) => told.push(m), 5);
    try {
      await temp.repo.write('P1', logOf([trade(10, ALICE), trade(20, BOB)]), null);
      indexer.poke();
      await indexer.drain();
      expect(indexed().trades).toBe(2);
      // The thread ends without being asked (as a crash in it would).
      const first = (indexer as unknown as { worker: { terminate(): Promise<number> } }).worker;
      await first.terminate();
      await vi.waitFor(() => expect(told).toEqual([expect.stringMatching(/^wallet indexer exited with code 1; it starts again/)]));
      // Stored meanwhile: in the journal, read from it, and indexed by the next thread.
      await temp.repo.write('P2', logOf([trade(15, ALICE), trade(25, ALICE)]), null);
      expect(temp.storage.walletJournal.getKeysCount()).toBe(1);
      expect(read(ALICE)).toEqual(['P1@10', 'P2@15', 'P2@25']);
      indexer.poke();
      const second = (indexer as unknown as { worker: unknown }).worker;
      expect(second).not.toBe(first);
      await indexer.drain();
      expect(temp.storage.walletJournal.getKeysCount()).toBe(0);
      expect(indexed().trades).toBe(4);
      expect(read(ALICE)).toEqual(['P1@10', 'P2@15', 'P2@25']);
      expect(read(BOB)).toEqual(['P1@20']);
      expect(told).toHaveLength(1);
    } finally {
      await indexer.close();
    }
  });
});
