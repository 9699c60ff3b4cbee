import type { Database } from 'lmdb';
import type { Logger } from 'pino';
import type { Storage } from '../../storage/index.ts';

/**
 * Tokens by creator (GET /v1/wallets/{wallet}/deployed_tokens, DECISIONS.md route 27):
 * an index in LMDB, so that a creator's tokens are one range read, not a scan of every
 * token, and nothing of it stays in the heap but the changes not yet committed.
 *
 * Keys, in a database of its own, `creators` (strings and numbers: plain msgpack):
 * - `c:<creator>:<time>:<token>` → 1: one per token with a creator. `<time>` is the
 *   `at` of the token event that named the creator (its creation, for a launchpad
 *   token), 16 digits zero-padded, so that a creator's keys sort oldest first and a
 *   reverse range lists newest first;
 * - `k:<token>` → its `c:` key, to remove it when the creator changes;
 * - `creators_version`: written once every token with a snapshot has been indexed (a
 *   data directory from before this index is indexed once, from the actors, in the
 *   research timer's slices; until that is done a list may miss tokens).
 *
 * What keeps it right: the engine marks a token when an applied `token` event carries
 * `creator_address` (`touch`, replay after a checkpoint included), and `refresh` reads
 * the token actor's creator (last write by slot, token.logic.ts) and queues the puts
 * and removes: before every read, on the research timer, and before every checkpoint's
 * own writes (so a checkpoint never commits before the index entries of the events it
 * covers). A put is visible to reads only once committed: until then it is kept in
 * `pending` and merged into reads.
 */

/** An entry: a token, and the time of the event that named its creator. */
export interface CreatedToken {
  token_address: string;
  created_at: number;
}

/** Where a page of a creator's tokens ended (its last key): the next page is what sorts before it. */
export type CreatorPosition = string;

/** What a read spends indexing an older directory's tokens (the research timer does the rest). */
const REBUILD_SLICE_MS = 20;
const VERSION_KEY = 'creators_version';
const VERSION = 1;
const TIME_DIGITS = 16;

/** What the index reads of a token actor: its creator and the time of the event that set it, or null. */
export type CreatorOf = (token: string) => { creator: string; at: number } | null;

export class CreatorIndex {
  private readonly db: Database<unknown, string>;
  private readonly dirty = new Set<string>();
  /** Keys written or removed whose transaction has not committed: key → value (null: removed). */
  private readonly pending = new Map<string, string | number | null>();
  /** Marking every token with a snapshot, for a directory made before this index: the version is written once they are done. */
  private rebuilding = false;

  constructor(storage: Storage, private readonly creatorOf: CreatorOf, private readonly log: Logger) {
    this.db = storage.env.openDB<unknown, string>({ name: 'creators', encoding: 'msgpack' });
    if (this.db.get(VERSION_KEY) === VERSION) return;
    for (const id of storage.snapshots.getKeys({ start: 'token:', end: 'token;' })) this.dirty.add(id.slice('token:'.length));
    this.rebuilding = true;
    if (this.dirty.size > 0) log.warn({ tokens: this.dirty.size }, 'no creator index yet: indexing the tokens from the actors');
  }

  /** An applied `token` event carried creator_address: its entry may change. */
  touch(token: string): void {
    this.dirty.add(token);
  }

  /** Tokens waiting for a refresh (tests, metrics). */
  get waiting(): number {
    return this.dirty.size;
  }

  /** Queues the entries of marked tokens until done or past `deadline` (performance.now()); true when none is left. */
  refresh(deadline = Infinity): boolean {
    let i = 0;
    for (const token of this.dirty) {
      if (deadline !== Infinity && (++i & 63) === 0 && performance.now() > deadline) return false;
      this.dirty.delete(token);
      this.index(token);
    }
    if (this.rebuilding) {
      this.rebuilding = false;
      this.write(VERSION_KEY, VERSION);
    }
    return true;
  }

  /**
   * A token actor is being passivated, its state still resident: a marked token is
   * indexed now, so that no refresh after reads it back from its snapshot (ResearchFeed.tokenPassivating).
   */
  passivating(token: string): void {
    if (this.dirty.delete(token)) this.index(token);
  }

  /** Queues the puts and removes that bring the token's entry to its actor's creator. */
  private index(token: string): void {
    const c = this.creatorOf(token);
    const key = c === null ? null : `c:${c.creator}:${String(Math.max(0, Math.floor(c.at))).padStart(TIME_DIGITS, '0')}:${token}`;
    const old = this.read(`k:${token}`) as string | undefined | null;
    if ((old ?? null) === key) return;
    if (old) this.write(old, null);
    if (key !== null) this.write(key, 1);
    this.write(`k:${token}`, key);
  }

  /**
   * The creator's tokens, newest first (ties by token address, descending), at most
   * `limit`, after `after`; `next` is the last one's position when more may follow.
   */
  list(creator: string, limit: number, after?: CreatorPosition): { items: CreatedToken[]; next: CreatorPosition | null } {
    // Indexing a whole older directory is left to the research timer's slices: a read
    // takes a slice of it, and may miss what is not indexed yet.
    this.refresh(this.rebuilding ? performance.now() + REBUILD_SLICE_MS : Infinity);
    const prefix = `c:${creator}:`;
    // A reverse range runs from `start` (exclusive of nothing above it) down to `end`.
    const start = after ?? `${prefix.slice(0, -1)};`;
    const keys: string[] = [];
    for (const key of this.db.getKeys({ start, end: prefix, reverse: true, limit: limit + 1 + this.pending.size })) {
      if (key !== after && this.pending.get(key) !== null) keys.push(key);
    }
    for (const [key, value] of this.pending) {
      if (value !== null && key.startsWith(prefix) && (after === undefined || key < after) && !keys.includes(key)) keys.push(key);
    }
    keys.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    const page = keys.slice(0, limit);
    const items = page.map((key) => {
      const rest = key.slice(prefix.length);
      return { token_address: rest.slice(TIME_DIGITS + 1), created_at: Number(rest.slice(0, TIME_DIGITS)) };
    });
    return { items, next: keys.length > limit ? page[page.length - 1]! : null };
  }

  private read(key: string): unknown {
    return this.pending.has(key) ? this.pending.get(key) : this.db.get(key);
  }

  private write(key: string, value: string | number | null): void {
    this.pending.set(key, value);
    const done = () => {
      if (this.pending.get(key) === value) this.pending.delete(key);
    };
    const failed = (err: unknown) => {
      this.log.error({ err, key }, 'a creator index entry was not written');
      done();
    };
    (value === null ? this.db.remove(key) : this.db.put(key, value)).then(done, failed);
  }
}
