import type { FeedBookData } from './feed.logic.ts';
import { FEED_NAMES, RANKING_WINDOWS, type RankingWindow } from './feed.rules.ts';
import { feedKey, STOCK_TAGS_KEY, TRADED_KEY } from './feed.actor.ts';

/** What the upgrade needs of the snapshots database (storage/lmdb.ts `snapshots`). */
export interface SnapshotStore {
  get(id: string): unknown;
  putSync(id: string, value: unknown): unknown;
  removeSync(id: string): unknown;
  transactionSync<T>(action: () => T): T;
}

/** A feed actor's snapshot before the actors were split per window: `feed:<feed>`, its four books, popular's `traded`, stocks' `stockTokens`. */
interface LegacyFeed {
  feed: string;
  books: Record<RankingWindow, FeedBookData>;
  traded: unknown[];
  stockTokens?: string[];
}

interface Envelope {
  seq: number;
  state: { state: unknown } & Record<string, unknown>;
}

/**
 * Splits the feed actors' snapshots written before there was one actor per (feed,
 * window) (`feed:<feed>`, six of them) into the actors of now: each book into
 * `feed:<feed>:<window>`, popular's traded pools into `feed:traded`, stocks' tagged
 * tokens into `feed:stock-tags`, each at the old snapshot's seq (and run and epoch, so
 * that it loads as the old one would have), then deletes the old one. One transaction;
 * a snapshot already in the new layout is left as it is. Run at start-up, before any
 * feed actor is read. Returns how many old snapshots it split.
 */
export function splitFeedSnapshots(snapshots: SnapshotStore): number {
  // The common start (nothing to split, or split already): reads only, no write transaction.
  if (FEED_NAMES.every((feed) => snapshots.get(`feed:${feed}`) === undefined)) return 0;
  return snapshots.transactionSync(() => {
    let split = 0;
    for (const feed of FEED_NAMES) {
      const id = `feed:${feed}`;
      const old = snapshots.get(id) as Envelope | undefined;
      if (old === undefined) continue;
      const data = old.state.state as LegacyFeed;
      const put = (key: string, state: unknown) => {
        const to = `feed:${key}`;
        if (snapshots.get(to) === undefined) snapshots.putSync(to, { seq: old.seq, state: { ...old.state, state } });
      };
      for (const w of RANKING_WINDOWS) put(feedKey(feed, w), { role: 'book', feed, window: w, book: data.books[w] });
      if (feed === 'popular') put(TRADED_KEY, { role: 'traded', traded: data.traded });
      if (feed === 'stocks') put(STOCK_TAGS_KEY, { role: 'stock-tags', stockTokens: data.stockTokens ?? [] });
      snapshots.removeSync(id);
      split++;
    }
    return split;
  });
}
