import btree from 'sorted-btree';
import { bytesOfDoubles, doublesOfBytes } from '../../engine/model/index.ts';
import { membershipStep, type MembershipState } from './feed.machine.ts';
import { AGE_LIMIT_MS, FEED_DEFAULTS, SCORE_RULES, type FeedName, type FeedSettings, type RankInput, type RankingWindow, type ScoreRule } from './feed.rules.ts';

/**
 * sorted-btree is CommonJS with `exports.default`: Node's ESM loader hands over the
 * exports object, vitest's interop the class itself.
 */
const BTree: typeof btree.default = (btree as unknown as { default?: typeof btree.default }).default ?? (btree as unknown as typeof btree.default);
type Bench = InstanceType<typeof btree.default<Ranked, undefined>>;

/** One pool in a feed book: plain mutable state, changed in place per update. */
interface Ranked {
  readonly pool: string;
  score: number;
  /** In the top `depth` rows (the window), else on the bench. */
  inWindow: boolean;
}

/** A row of a feed as published: what a ranking entry (SERVICE.md 2.11) is built around. */
export interface RankRow {
  pool_address: string;
  /** 1-based: position + 1 when published. */
  rank: number;
  score: number;
  entered_at: number;
}

/** A `window` op (SERVICE.md 6.2): insert at a zero-based position, or remove. */
export type RankOp = { op: 'insert'; pool_address: string; position: number; row: RankRow } | { op: 'remove'; pool_address: string };

/** What one recompute changed, in the order it is sent: exits, enters, then the batch. */
export interface FeedBatch {
  feed: FeedName;
  window: RankingWindow;
  at: number;
  /** One per batch of this (feed, window), from 1, never reused in a run. */
  seq: number;
  ops: RankOp[];
  exited: string[];
  entered: RankRow[];
  /** The full order after the ops, every `reconcileEvery` batches; null otherwise. */
  pool_addresses: string[] | null;
}

/** A book as plain data (FeedBook.toData). */
export interface FeedBookData {
  /** Every eligible pool, and its score at the same index in `scores` (doubles). */
  poolAddresses?: string[];
  scores?: Uint8Array;
  /** Snapshots written before `scores`: [pool, score] entries. */
  pools?: Array<[string, number]>;
  published: RankRow[];
  members: Array<[string, number]>;
  seq: number;
  touched: boolean;
}

export interface FeedFlush {
  /** The order or a published score changed: non-live feeds send a snapshot. */
  changed: boolean;
  /** Membership or order changed: the batch, with the next seq; null when nothing moved. */
  batch: FeedBatch | null;
}

const NOTHING: FeedFlush = Object.freeze({ changed: false, batch: null });

/** Score descending, then address ascending: a total order, so ranks are the same on every run. */
function compareRanked(a: Ranked, b: Ranked): number {
  return b.score - a.score || (a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0);
}

/**
 * One (feed, window): its members in order, maintained incrementally.
 *
 * The best `depth` pools are a sorted array (the window, at most 100 rows: a binary
 * search and a splice of a few hundred bytes); every other eligible pool is on the
 * bench, a B+ tree (sorted-btree) in the same order, from which the best is promoted
 * when a row leaves. So an update of one pool costs O(log n + depth) whatever the number
 * of pools, and nothing sorts every pool. Invariant: every window row ranks before every
 * bench pool, and the window is full unless the bench is empty.
 *
 * `update` and `tick` change the order at once; `flush` publishes: it diffs the order
 * against the last published one into the fewest `window` ops (a pool whose relative
 * order held stays; the others are removed and inserted), runs the membership machine
 * for each pool that joined or left, and numbers the batch. Scores that change without
 * moving a row make no op (SERVICE.md 6.2: tick-by-tick values come from pool_metrics);
 * they do count as a change for the snapshot of the next recompute.
 */
export class FeedBook {
  readonly feed: FeedName;
  readonly window: RankingWindow;
  readonly settings: Readonly<FeedSettings>;
  private readonly rule: ScoreRule;
  private readonly ageLimitMs: number | null;
  private readonly pools = new Map<string, Ranked>();
  private readonly rows: Ranked[] = [];
  private readonly bench: Bench = new BTree<Ranked, undefined>(undefined, compareRanked);
  /** As of the last flush: the rows, and each member's lifecycle state and entry time. */
  private published: RankRow[] = [];
  private readonly members = new Map<string, { state: MembershipState; entered_at: number }>();
  private seq = 0;
  /** The window (its rows or their scores) changed since the last flush: nothing else can change what a flush publishes. */
  private windowTouched = false;

  constructor(feed: FeedName, window: RankingWindow, settings: Readonly<FeedSettings> = FEED_DEFAULTS) {
    this.feed = feed;
    this.window = window;
    this.settings = settings;
    this.rule = SCORE_RULES[feed];
    this.ageLimitMs = AGE_LIMIT_MS[feed]?.(window, settings) ?? null;
  }

  /** Eligible pools (window and bench). */
  get size(): number {
    return this.pools.size;
  }

  /** Whether the pool is eligible (in the window or on the bench). */
  has(pool: string): boolean {
    return this.pools.has(pool);
  }

  /** The seq of the last batch (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Re-scores one pool from its inputs at `now`: it joins, moves or leaves the order. */
  update(input: RankInput, now: number): void {
    const score = this.rule(input, this.window, this.settings, now);
    const pool = input.pool_address;
    let r = this.pools.get(pool);
    // A score that is not a number (an input gone wrong) would break the order: not a member.
    if (score === null || !Number.isFinite(score)) {
      if (r !== undefined) this.drop(r);
      return;
    }
    if (r !== undefined) {
      if (r.score === score) return;
      this.detach(r);
    } else {
      r = { pool, score, inWindow: false };
      this.pools.set(pool, r);
    }
    r.score = score;
    this.place(r);
  }

  /** Takes a pool out (it no longer exists for this feed). */
  remove(pool: string): void {
    const r = this.pools.get(pool);
    if (r !== undefined) this.drop(r);
  }

  /**
   * Moves time on: in feeds whose members leave at an age (new_pair, migrated), removes
   * those past it. Their score is their time, so they are the last of the order: the
   * loop reads the worst pool and stops at the first one young enough.
   */
  tick(now: number): void {
    if (this.ageLimitMs === null) return;
    const oldest = now - this.ageLimitMs;
    for (;;) {
      const worst = this.bench.size > 0 ? this.bench.maxKey()! : this.rows[this.rows.length - 1];
      if (worst === undefined || worst.score > oldest) return;
      this.drop(worst);
    }
  }

  /** Publishes what changed since the last flush (see the class comment). */
  flush(now: number): FeedFlush {
    // A tick of the ticker with nothing moved in the window costs this test.
    if (!this.windowTouched) return NOTHING;
    const prev = this.published;
    const rows = this.rows;
    const at = new Map<string, number>();
    for (let i = 0; i < rows.length; i++) at.set(rows[i]!.pool, i);
    // The pools kept in their relative order: a longest increasing run of their new positions.
    const kept: number[] = [];
    for (const row of prev) {
      const i = at.get(row.pool_address);
      if (i !== undefined) kept.push(i);
    }
    const stable = longestIncreasing(kept);
    const ops: RankOp[] = [];
    const exited: string[] = [];
    for (const row of prev) {
      const i = at.get(row.pool_address);
      if (i === undefined) {
        exited.push(row.pool_address);
        this.step(row.pool_address, 'feed.leave', now);
      }
      if (i === undefined || !stable.has(i)) ops.push({ op: 'remove', pool_address: row.pool_address });
    }
    const entered: RankRow[] = [];
    const next: RankRow[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const joined = !this.members.has(r.pool);
      if (joined) this.step(r.pool, 'feed.join', now);
      const row: RankRow = { pool_address: r.pool, rank: i + 1, score: r.score, entered_at: this.members.get(r.pool)!.entered_at };
      next[i] = row;
      if (joined) entered.push(row);
      if (!stable.has(i)) ops.push({ op: 'insert', pool_address: r.pool, position: i, row });
    }
    const changed = ops.length > 0 || next.some((row, i) => row.score !== prev[i]!.score);
    this.windowTouched = false;
    if (changed) this.published = next;
    if (ops.length === 0) return { changed, batch: null };
    const seq = ++this.seq;
    const pool_addresses = seq % this.settings.reconcileEvery === 0 ? next.map((r) => r.pool_address) : null;
    return { changed, batch: { feed: this.feed, window: this.window, at: now, seq, ops, exited, entered, pool_addresses } };
  }

  /** The rows as of the last flush, best first (what a `snapshot` carries). */
  snapshot(): readonly RankRow[] {
    return this.published;
  }

  /**
   * Plain data for the feed actor's snapshot: every eligible pool and its score, the
   * rows as last published, the members with their entry times, the seq. `fromData`
   * gives a book that flushes and numbers batches as this one would.
   */
  toData(): FeedBookData {
    // The scores as one binary of doubles: a book of a feed over 24 h holds every pool
    // traded in it (tens of thousands in a day's replay), each a msgpack [pool, score]
    // array walked at every checkpoint.
    const poolAddresses: string[] = [];
    const scores = new Float64Array(this.pools.size);
    for (const r of this.pools.values()) {
      scores[poolAddresses.length] = r.score;
      poolAddresses.push(r.pool);
    }
    const members: Array<[string, number]> = [];
    for (const [pool, m] of this.members) members.push([pool, m.entered_at]);
    return { poolAddresses, scores: bytesOfDoubles(scores), published: this.published, members, seq: this.seq, touched: this.windowTouched };
  }

  /** A book from `toData`'s data (see there), or from the entries snapshots written before held. */
  static fromData(feed: FeedName, window: RankingWindow, data: FeedBookData, settings: Readonly<FeedSettings> = FEED_DEFAULTS): FeedBook {
    const book = new FeedBook(feed, window, settings);
    const add = (pool: string, score: number) => {
      const r: Ranked = { pool, score, inWindow: false };
      book.pools.set(pool, r);
      book.place(r);
    };
    if (data.scores !== undefined) {
      const scores = doublesOfBytes(data.scores);
      data.poolAddresses!.forEach((pool, i) => add(pool, scores[i]!));
    }
    for (const [pool, score] of data.pools ?? []) add(pool, score);
    book.published = data.published;
    for (const [pool, entered_at] of data.members) book.members.set(pool, { state: 'in_feed', entered_at });
    book.seq = data.seq;
    book.windowTouched = data.touched;
    return book;
  }

  /** The current order, best first, before any flush (for checks and the HTTP route's live read). */
  order(): string[] {
    return this.rows.map((r) => r.pool);
  }

  private step(pool: string, event: 'feed.join' | 'feed.leave', now: number): void {
    const m = this.members.get(pool);
    const step = membershipStep(m?.state ?? 'not_in_feed', event);
    if (step.next === 'in_feed') this.members.set(pool, { state: step.next, entered_at: now });
    else this.members.delete(pool);
  }

  private drop(r: Ranked): void {
    this.detach(r);
    this.pools.delete(r.pool);
    this.refill();
  }

  /** Takes `r` out of the window or the bench, its score unchanged (the bench finds it by it). */
  private detach(r: Ranked): void {
    if (r.inWindow) {
      this.rows.splice(this.indexOf(r), 1);
      r.inWindow = false;
      this.windowTouched = true;
    } else {
      this.bench.delete(r);
    }
  }

  /** Puts a detached `r` where its score ranks it, keeping the invariant. */
  private place(r: Ranked): void {
    const rows = this.rows;
    if (rows.length < this.settings.depth) {
      const best = this.bench.size > 0 ? this.bench.minKey()! : undefined;
      if (best === undefined || compareRanked(r, best) < 0) this.insertRow(r);
      else {
        this.bench.set(r, undefined);
        this.refill();
      }
      return;
    }
    const last = rows[rows.length - 1]!;
    if (compareRanked(r, last) < 0) {
      rows.pop();
      last.inWindow = false;
      this.bench.set(last, undefined);
      this.insertRow(r);
    } else {
      this.bench.set(r, undefined);
    }
  }

  /** Promotes the bench's best while the window has room. */
  private refill(): void {
    while (this.rows.length < this.settings.depth && this.bench.size > 0) {
      const best = this.bench.minKey()!;
      this.bench.delete(best);
      best.inWindow = true;
      this.rows.push(best);
      this.windowTouched = true;
    }
  }

  private insertRow(r: Ranked): void {
    this.rows.splice(this.lowerBound(r), 0, r);
    r.inWindow = true;
    this.windowTouched = true;
  }

  /** The first row position not ranking before `r`. */
  private lowerBound(r: Ranked): number {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareRanked(this.rows[mid]!, r) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(r: Ranked): number {
    const i = this.lowerBound(r);
    if (this.rows[i] !== r) throw new Error(`feed ${this.feed}/${this.window}: ${r.pool} not at its place in the window`);
    return i;
  }
}

/**
 * The values of a longest strictly increasing subsequence of `xs` (patience sorting,
 * O(k log k)); of several, the one ending at the last tail found, the same on every run.
 */
export function longestIncreasing(xs: readonly number[]): Set<number> {
  const tails: number[] = [];
  const tailAt: number[] = [];
  const parent = new Int32Array(xs.length).fill(-1);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (tails[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = x;
    tailAt[lo] = i;
    if (lo > 0) parent[i] = tailAt[lo - 1]!;
  }
  const out = new Set<number>();
  for (let i = tails.length > 0 ? tailAt[tails.length - 1]! : -1; i >= 0; i = parent[i]!) out.add(xs[i]!);
  return out;
}
