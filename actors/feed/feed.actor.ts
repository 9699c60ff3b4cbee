import { WINDOWS, bytesOfDoubles, doublesOfBytes } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../engine/supervisor/index.ts';
import { curveProgress, liquidityQuote, type PoolState } from '../pool/index.ts';
import { STOCK_TAG, tagsOf, type TokenState } from '../token/index.ts';
import { FeedBook, type FeedBookData, type FeedFlush } from './feed.logic.ts';
import { FEED_DEFAULTS, FEED_NAMES, LIVE_FEEDS, RANKING_WINDOWS, type FeedName, type FeedSettings, type RankInput, type RankingWindow } from './feed.rules.ts';

/**
 * The feed actors (docs/discovery.md, "Wiring the feeds"): one per (feed, window),
 * `feed:<feed>:<window>` (24), each holding that window's book, and two that record what
 * several feeds read: `feed:traded`, the pools traded in the last 24 h, and
 * `feed:stock-tags`, the tokens tagged `stock`. What each takes:
 * - new_pair: `pool` (a pool the service sees: its `created_at`), `migration` (a pool a
 *   curve graduated into is migrated's, never new_pair's);
 * - almost_bonded: `pool.trade` of bonding-curve pools at or past the threshold
 *   (PoolTradeEvent.curve_pct), `pool` (its progress at launch), `pool.graduated`
 *   (complete: out);
 * - migrated: `pool.graduated` into a pool (`migrated_at` = the event's `at`);
 * - popular, top_gainers, stocks: no event. `traded` takes every `pool.trade` (the pool's
 *   time and the delivery's seq, no read of its windows per trade; a `pool`, `migration`
 *   or `pool.graduated` event of a pool traded moves its seq on too), and the ticker's
 *   `recompute` re-scores the pools it holds within the window at the feed's cadence
 *   (feed.rules.ts RECOMPUTE_MS), reading again only those a seq or time says may have
 *   changed (InputMemo), into each of the three books of that window;
 * - stock-tags: `token` events that carry `tags` (DECISIONS.md "Tokenized stocks"): the
 *   tokens tagged `stock`, as the token actor merged the tags (the latest by slot).
 * Publishing (`flushLive`, `recompute`) is the engine-clock ticker's (engine/topics/
 * rankings.ts), through the host's `update`, never per ingest batch, so a replay under
 * `--clock event` gives the same batches and seqs. Scores and order are plain state in
 * the books; the per-pool membership lifecycle is the xstate machine the books run
 * (feed.machine.ts).
 */

/** The last book revision given (`recompute`) or read back from a snapshot in this process. */
let lastRevision = 0;

/** One (feed, window): its book. */
export interface FeedBookState {
  role: 'book';
  feed: FeedName;
  window: RankingWindow;
  book: FeedBook;
  /**
   * Set by each recompute past every revision given or read back in this process
   * (`lastRevision`), kept in its snapshot: the same revision is the same book, so the
   * recompute's memo (InputMemo.hold) holds across a passivation and activation of the
   * actor, not across a rebuild from an older snapshot (recomputed since or not). 0: a
   * new book; -1: read from a snapshot written before revisions.
   */
  revision: number;
}

/** `feed:traded`: the pools traded in the last 24 h, with their latest trade (popular, top_gainers and stocks recompute over them). */
export interface TradedState {
  role: 'traded';
  traded: Map<string, TradedPool>;
}

/** `feed:stock-tags`: the tokens whose merged tags hold `stock`; `market.stockMints` adds the configured ones at recompute. */
export interface StockTagsState {
  role: 'stock-tags';
  stockTokens: Set<string>;
}

export type FeedState = FeedBookState | TradedState | StockTagsState;

/** The key of the actor of (feed, window). */
export const feedKey = (feed: FeedName, window: RankingWindow): string => `${feed}:${window}`;
export const TRADED_KEY = 'traded';
export const STOCK_TAGS_KEY = 'stock-tags';

/** The book of a feed actor's state; undefined for the two records. */
export const bookOf = (state: Readonly<FeedState> | undefined): FeedBook | undefined => (state?.role === 'book' ? state.book : undefined);

function bookState(state: FeedState): FeedBookState {
  if (state.role !== 'book') throw new Error(`feed actor: ${state.role} holds no book`);
  return state;
}

/**
 * A pool in `traded`: the engine time of its latest trade, and the seq of the latest
 * delivery that changed what the recompute reads of it (a trade, or its `pool`,
 * `migration` or `pool.graduated` event): InputMemo re-reads a pool whose seq moved on.
 */
export interface TradedPool {
  at: number;
  seq: number;
}

/** What the feed behaviour needs beyond its events. */
export interface FeedBehaviorOptions {
  settings?: Readonly<FeedSettings>;
}

/** The keys of a feed's four actors. */
const keysOf = (feed: FeedName): string[] => RANKING_WINDOWS.map((w) => feedKey(feed, w));
const ON_POOL: readonly string[] = [...keysOf('new_pair'), ...keysOf('almost_bonded'), TRADED_KEY];
const ON_MIGRATION: readonly string[] = [...keysOf('new_pair'), TRADED_KEY];
const ON_GRADUATED: readonly string[] = [...keysOf('almost_bonded'), ...keysOf('migrated'), TRADED_KEY];
const ON_BONDING_TRADE: readonly string[] = [TRADED_KEY, ...keysOf('almost_bonded')];

type Windowed = ReturnType<PoolState['windows']['read']>;

const emptyInput = (): RankInput => ({
  pool_address: '',
  created_at: 0,
  migrated_from_pool_address: null,
  migrated_at: null,
  bonding_curve_progress_pct: null,
  complete: false,
  stock: false,
  volume_usd: null,
  trader_count: 0,
  trade_count: 0,
  price_change_pct: null,
  liquidity_usd: null,
});

/**
 * The rank input of a pool read from its state and, for windowed feeds, its metrics of
 * `window` at `now` (`read`: the pool's windows already read at `now`), written into
 * `input` (a new object when not given).
 */
export function rankInput(s: PoolState, window: RankingWindow | null, now: number, stock: boolean, input: RankInput = emptyInput(), read?: Windowed): RankInput {
  const info = s.info!;
  input.pool_address = s.pool_address;
  input.created_at = info.created_at;
  input.migrated_from_pool_address = info.migrated_from_pool_address;
  input.migrated_at = info.migrated_from_pool_address ? info.migrated_at : null;
  input.bonding_curve_progress_pct = curveProgress(s);
  input.complete = info.replaced_by_pool_address !== null || s.completed_key !== null;
  input.stock = stock;
  input.volume_usd = null;
  input.trader_count = 0;
  input.trade_count = 0;
  input.price_change_pct = null;
  input.liquidity_usd = null;
  if (window === null) return input;
  const w = read ?? s.windows.read(now);
  const i = w.t.indexOf(window);
  if (i < 0) return input;
  input.volume_usd = w.v[i]![1];
  input.trader_count = w.m[i]!;
  input.trade_count = w.tc[i]!;
  const [quotePct, usdPct] = w.pp[i]!;
  input.price_change_pct = usdPct ?? quotePct;
  return input;
}

/** updateLive's input, written over per event: FeedBook.update reads an input and keeps nothing of it, and almost_bonded takes one per trade of a curve over 70 %. */
const scratch = emptyInput();

/** The live part of a pool's input: enough for new_pair, migrated and almost_bonded, whose scores need no window. */
function updateLive(state: FeedBookState, s: PoolState, now: number, patch?: Partial<RankInput>): void {
  const input = rankInput(s, null, now, false, scratch);
  if (patch) Object.assign(input, patch);
  state.book.update(input, now);
}

/** The state of a new actor from its key (`<feed>:<window>`, `traded`, `stock-tags`). */
function initialFeed(key: string, settings: Readonly<FeedSettings>): FeedState {
  if (key === TRADED_KEY) return { role: 'traded', traded: new Map() };
  if (key === STOCK_TAGS_KEY) return { role: 'stock-tags', stockTokens: new Set() };
  const [feed, window, rest] = key.split(':') as [FeedName, RankingWindow, string | undefined];
  if (rest !== undefined || !FEED_NAMES.includes(feed) || !RANKING_WINDOWS.includes(window)) throw new Error(`feed actor: unknown key ${key}`);
  return { role: 'book', feed, window, book: new FeedBook(feed, window, settings), revision: 0 };
}

/** A feed actor's snapshot (the `role` tells which). */
type FeedSnapshot =
  | { role: 'book'; feed: FeedName; window: RankingWindow; book: FeedBookData; revision?: number }
  /** `pools` and their (at, seq) pairs as doubles in `times`; `traded` entries in snapshots written before. */
  | { role: 'traded'; pools?: string[]; times?: Uint8Array; traded?: Array<[string, number, number?]> }
  | { role: 'stock-tags'; stockTokens: string[] };

function toFeedSnapshot(state: FeedState): FeedSnapshot {
  switch (state.role) {
    case 'book':
      return { role: 'book', feed: state.feed, window: state.window, book: state.book.toData(), revision: state.revision };
    case 'traded':
      return { role: 'traded', ...tradedData(state.traded) };
    case 'stock-tags':
      return { role: 'stock-tags', stockTokens: [...state.stockTokens] };
  }
}

function fromFeedSnapshot(d: FeedSnapshot, settings: Readonly<FeedSettings>): FeedState {
  switch (d.role) {
    case 'book':
      if (d.revision !== undefined && d.revision > lastRevision) lastRevision = d.revision;
      return { role: 'book', feed: d.feed, window: d.window, book: FeedBook.fromData(d.feed, d.window, d.book, settings), revision: d.revision ?? -1 };
    case 'traded': {
      const traded = new Map<string, TradedPool>();
      if (d.times !== undefined) {
        const times = doublesOfBytes(d.times);
        d.pools!.forEach((pool, i) => traded.set(pool, { at: times[2 * i]!, seq: times[2 * i + 1]! }));
      }
      // [pool, at, seq]; [pool, at] before seqs (-1: the recompute reads such a pool again).
      for (const [pool, at, seq] of d.traded ?? []) traded.set(pool, { at, seq: seq ?? -1 });
      return { role: 'traded', traded };
    }
    case 'stock-tags':
      return { role: 'stock-tags', stockTokens: new Set(d.stockTokens) };
  }
}

export function createFeedBehavior(options: FeedBehaviorOptions = {}): ActorBehavior<FeedState> {
  const settings = options.settings ?? FEED_DEFAULTS;
  // almost_bonded takes only the trades of a curve at or past its threshold before or
  // after the trade (PoolTradeEvent.curve_pct): a member's progress is at least that
  // before any trade that can take it out (its `pool` events and graduation reach it
  // too), so the others could neither make nor unmake one. A trade derived again, whose
  // curve_pct is not known, goes to both. The other trades go to `traded` alone, as one
  // key as a string: the host's fast path (no array to walk per trade).
  const almostBondedPct = settings.almostBondedPct;
  return {
    kind: 'feed',
    takes: ['token', 'pool', 'migration', 'pool.trade', 'pool.graduated'],
    route(e: ActorEvent) {
      switch (e.type) {
        case 'pool':
          return ON_POOL;
        case 'migration':
          return ON_MIGRATION;
        case 'pool.trade':
          return e.curve_pct === null || (e.curve_pct !== undefined && e.curve_pct < almostBondedPct) ? TRADED_KEY : ON_BONDING_TRADE;
        case 'pool.graduated':
          return ON_GRADUATED;
        case 'token':
          return STOCK_TAGS_KEY;
        default:
          return undefined;
      }
    },
    initial: (key) => initialFeed(key, settings),
    apply(state, e, ctx) {
      const now = ctx.clock.now();
      switch (state.role) {
        case 'traded':
          applyTraded(state, e, ctx.seq, now);
          return;
        case 'stock-tags':
          // A token event without `tags` leaves the token's tags as they were.
          if (e.type === 'token' && e.tags !== undefined) {
            // The token actor took the event first (hosts' order): its tags are the latest by slot, whatever the arrival order.
            const token = ctx.read<TokenState>('token', e.token_address);
            if (token && tagsOf(token).includes(STOCK_TAG)) state.stockTokens.add(e.token_address);
            else state.stockTokens.delete(e.token_address);
          }
          return;
        case 'book':
      }
      switch (state.feed) {
        case 'new_pair':
          if (e.type === 'pool') {
            const s = readPool(ctx, e.pool_address);
            if (s) updateLive(state, s, now);
          } else if (e.type === 'migration') {
            state.book.remove(e.to_pool_address);
          }
          return;
        case 'almost_bonded':
          if (e.type === 'pool.trade' || e.type === 'pool.graduated' || e.type === 'pool') {
            const s = readPool(ctx, e.pool_address);
            if (!s || s.info!.pool_type !== 'bonding_curve') return;
            // The common case, without building an input: a curve under the threshold that is not a member.
            // A `pool` event may change the curve's reserve at launch, so its progress.
            if (e.type !== 'pool.graduated' && !state.book.has(e.pool_address)) {
              const progress = curveProgress(s);
              if (progress === null || progress < almostBondedPct) return;
            }
            updateLive(state, s, now, e.type === 'pool.graduated' ? { complete: true } : undefined);
          }
          return;
        case 'migrated':
          if (e.type === 'pool.graduated' && e.migrated_to_pool_address !== null) {
            const s = readPool(ctx, e.migrated_to_pool_address);
            // The pool graduated into: its migrated_at is the graduation's time.
            if (s) updateLive(state, s, now, { migrated_from_pool_address: e.pool_address, migrated_at: e.at });
          }
          return;
        default:
      }
    },
    toSnapshot: toFeedSnapshot,
    fromSnapshot: (data) => fromFeedSnapshot(data as FeedSnapshot, settings),
  };
}

/** `traded`: a trade records the pool; the other events of a pool traded move its seq on. */
function applyTraded(state: TradedState, e: ActorEvent, seq: number, now: number): void {
  if (e.type === 'pool.trade') {
    const t = state.traded.get(e.pool_address);
    if (t === undefined) state.traded.set(e.pool_address, { at: now, seq });
    else {
      t.at = now;
      t.seq = seq;
    }
  } else if (e.type === 'pool') changed(state, e.pool_address, seq);
  else if (e.type === 'migration') {
    changed(state, e.from_pool_address, seq);
    changed(state, e.to_pool_address, seq);
  } else if (e.type === 'pool.graduated') {
    changed(state, e.pool_address, seq);
    if (e.migrated_to_pool_address !== null) changed(state, e.migrated_to_pool_address, seq);
  }
}

/** A pool traded changed otherwise than by a trade: its seq moves on. */
function changed(state: TradedState, pool: string, seq: number): void {
  const t = state.traded.get(pool);
  if (t !== undefined) t.seq = seq;
}

/** `traded` for its snapshot: the pools, and their (at, seq) pairs as one binary of doubles (a msgpack array a pool before: every pool traded in 24 h, at every checkpoint). */
function tradedData(traded: ReadonlyMap<string, TradedPool>): { pools: string[]; times: Uint8Array } {
  const pools: string[] = [];
  const times = new Float64Array(2 * traded.size);
  for (const [pool, t] of traded) {
    times[2 * pools.length] = t.at;
    times[2 * pools.length + 1] = t.seq;
    pools.push(pool);
  }
  return { pools, times: bytesOfDoubles(times) };
}

function readPool(ctx: ActorContext, address: string): PoolState | undefined {
  const s = ctx.read<PoolState>('pool', address) as PoolState | undefined;
  return s?.info ? s : undefined;
}

/** What the ticker's pass reads of the market: a pool's state and its quote's latest USD price. */
export interface FeedMarket {
  pool(address: string): PoolState | undefined;
  /**
   * The pool is in memory, so that reading it costs a scan of its windows only; false for
   * a passivated pool, whose read unpacks its whole snapshot (InputMemo then keeps the
   * steps of its figures ahead). Absent: every pool counts as resident.
   */
  resident?(address: string): boolean;
  quoteUsd(quote: string): number | null;
  /** `quoteUsd` with the known mints' USD prices given (a token quote valued through its pools as they stand). */
  quoteUsdWith?(quote: string, mintUsd: (mint: string) => number | null): number | null;
}

/**
 * A live feed's actor (new_pair, almost_bonded, migrated), every second of engine time:
 * ages members out, then publishes the window's batch (FeedBook.flush).
 */
export function flushLive(state: FeedState, now: number): FeedFlush {
  const { book } = bookState(state);
  book.tick(now);
  return book.flush(now);
}

/**
 * The inputs of the recomputes of `windows` at `now`, read once for popular, top_gainers
 * and stocks, and once for every window of the list (the ticks of several windows fall
 * at one time: every 10 minutes all four): for each window, each pool traded (`traded`, which the three share) within it, from its windowed metrics; null for a pool
 * not traded in it (it leaves). A pool's state and its windowed metrics are read once
 * for all the windows it was traded in. With a `memo`, only what may have changed
 * (InputMemo).
 */
export function windowInputs(
  traded: ReadonlyMap<string, TradedPool>,
  windows: readonly RankingWindow[],
  now: number,
  market: FeedMarket,
  isStock: (token: string) => boolean,
  memo?: InputMemo,
): Map<RankingWindow, Map<string, RankInput | null>> {
  const out = new Map<RankingWindow, Map<string, RankInput | null>>();
  const steps = windowInputSteps(traded, windows, now, market, isStock, out, memo);
  while (!steps.next().done);
  return out;
}

/** Pools read between two steps of `windowInputSteps`: a pool read back from its snapshot takes ~0.1 ms. */
const INPUT_STEP_POOLS = 8;
/** Pools passed over (the memo says nothing changed) between two steps. */
const INPUT_STEP_SKIPS = 2_048;

/**
 * `windowInputs` in steps (a yield every INPUT_STEP_POOLS pools read), into `out`, which
 * has an empty map for each window when this returns. With no event applied between the
 * steps (Ticker `holds`), `traded` and every pool read stay as they were at `now`; where
 * events go on between them, `reading.readNow` must be called before each change to a
 * pool (InputsReading), which `reading` is handed for.
 */
export function windowInputSteps(...args: ConstructorParameters<typeof InputsReading>): Generator<void> {
  return new InputsReading(...args).steps();
}

/** A memo's record of one pool: per window of RANKING_WINDOWS, what its last read gave. */
interface Memo {
  base: string;
  quote: string;
  /** liquidityQuote at the last read (a trade or a pool event moves the seq on). */
  liquidity: number;
  /**
   * The base token was a stock at some read or passivation kept: its input is given to the
   * books again at each recompute (priced now, tagged as now), never passed over.
   */
  stock: boolean;
  created_at: number;
  migrated_from_pool_address: string | null;
  migrated_at: number | null;
  progress: number | null;
  complete: boolean;
  /**
   * Per window w (RANKING_WINDOWS index), MEMO_FIELDS numbers at w × MEMO_FIELDS: the
   * pool's seq when read (-Infinity: its last input was null; NaN: not known), until when the read
   * holds (PoolWindows.stableUntil), volume_usd (NaN: null), trader_count, trade_count,
   * price_change_pct (NaN: null), and when the figures were kept as the pool was
   * passivated (InputMemo.passivating), the engine time they were read at, until a
   * recompute gives them to the books (NaN: given, or read by a recompute).
   */
  w: Float64Array;
  /**
   * Per window (RANKING_WINDOWS index), for a pool read while passivated: the figures
   * its windows will give as its trades leave them, no trade added (`steps`), or null.
   */
  ahead: Array<Float64Array | null>;
}

const MEMO_FIELDS = 7;
const M_SEQ = 0;
const M_UNTIL = 1;
const M_VOLUME = 2;
const M_TRADERS = 3;
const M_TRADES = 4;
const M_CHANGE = 5;
const M_KEPT = 6;
/**
 * Steps of a window's figures kept ahead for a pool read while passivated: each until
 * (PoolWindows.stableUntil), volume_usd, trader_count, trade_count, price_change_pct,
 * the figures from the previous step's until to its own. At most AHEAD_STEPS (a window
 * has at most 60 buckets holding trades; past the last step kept the pool is read again),
 * in an array of the steps taken. 4, not 16: each step is two scans of the window at
 * the first read, paid again whenever the pool trades before its steps are used
 * (bench/rankings-reads.ts at 330 swaps/s of event time: 16 steps made the recomputes
 * 1.29-1.38x the time, reading as many passivated pools; 4 steps 0.78-1.03x).
 */
const AHEAD_FIELDS = 5;
const AHEAD_STEPS = 4;
const WINDOW_INDEX: Readonly<Record<RankingWindow, number>> = Object.fromEntries(RANKING_WINDOWS.map((w, i) => [w, i])) as Record<RankingWindow, number>;
const nullable = (x: number): number | null => (x === x ? x : null);
/** A book's revision (FeedBookState.revision); no actor yet is an empty book's, 0. */
const revisionOf = (state: Readonly<FeedState> | undefined): number => (state === undefined ? 0 : state.role === 'book' ? state.revision : NaN);

/**
 * What the recomputes read of each pool (ranking streams, one per engine), so that they
 * read again only what may have changed. A pool's windowed metrics move only as a trade
 * enters or leaves the window, so its input in a window is the one last read while its
 * seq in `traded` is the same and `now` is before the read's
 * PoolWindows.stableUntil: such a pool is passed over, not read (a passivated one would be
 * read back from its snapshot), since the books already hold its score. Except where
 * the score can move without the pool: top_gainers' liquidity in USD is the quote side's
 * liquidity × the quote's price now, and stocks follow the tags; a pool with a rising
 * price (a top_gainers candidate) or a stock then gets its input again from the memo,
 * priced now. A pool read while passivated (FeedMarket.resident false: its read unpacks
 * its whole snapshot) also gets the steps its figures will take as its trades leave each
 * window read (Memo.ahead, PoolWindows.figures at each stableUntil): it is not read again
 * until it trades or past the steps kept. A pool being passivated, its state still in
 * memory, gets the same before it goes (`passivating`: the engine's pool host calls it):
 * the figures of each window it traded in at the passivation's time, unless the memo
 * already holds them for its seq, and the steps ahead, so that a recompute reads no
 * passivated pool that has not traded since (its snapshot is not unpacked). Those
 * figures are given to the books at the window's next recompute (M_KEPT), not passed
 * over. The same inputs as reading every pool, by
 * construction and by test/integration/rankings-memo.test.ts. Not kept across restarts (the first recompute
 * reads every pool traded). A book actor rebuilt from an older snapshot empties it, one
 * passivated and activated again does not (FeedBookState.revision, `hold`).
 */
export class InputMemo {
  private readonly pools = new Map<string, Memo>();
  /** The revision (FeedBookState.revision) of each book the memo vouches for, in `hold`'s order. */
  private readonly revisions: number[] = [];
  /** Pools read from the market, pool-windows passed over, and inputs given again from the memo, since made (diagnostics, tests). */
  reads = 0;
  skips = 0;
  reused = 0;
  /** Pool-windows whose figures came from the steps kept ahead (`ahead`), the pool not read. */
  ahead = 0;
  /** Pools read while passivated (FeedMarket.resident false): each a snapshot read and unpacked whole. */
  passivatedReads = 0;
  /** Pool-windows whose figures, or steps ahead, were kept as the pool was passivated (`passivating`). */
  kept = 0;

  get size(): number {
    return this.pools.size;
  }

  /**
   * Keeps the memo only while the books it fed are as it left them (`given`): the same
   * revision, so also after the actor was passivated and activated again (its snapshot
   * written at passivation holds its book as it was: during a 1M-swap backlog the byte
   * bound's LRU passivates the books between recomputes, and the memo was emptied each
   * time); a book rebuilt from an older snapshot has books the memo cannot vouch for,
   * and empties it.
   */
  hold(states: ReadonlyArray<FeedState | undefined>): void {
    let same = states.length === this.revisions.length;
    for (let i = 0; same && i < states.length; i++) same = revisionOf(states[i]) === this.revisions[i];
    if (same) return;
    this.pools.clear();
    this.revisions.length = 0;
    for (const state of states) this.revisions.push(revisionOf(state));
  }

  /**
   * The book at `hold`'s index `i` took a recompute's inputs, from revision `before` to
   * `after`: the memo vouches for the new one if it vouched for the old (a book rebuilt
   * meanwhile stays unvouched for, and the next `hold` empties the memo).
   */
  given(i: number, before: number, after: number): void {
    if (this.revisions[i] === before) this.revisions[i] = after;
  }

  /** Forgets the pools `traded` no longer holds (after the 24h pass). */
  prune(traded: ReadonlyMap<string, TradedPool>): void {
    for (const pool of this.pools.keys()) if (!traded.has(pool)) this.pools.delete(pool);
  }

  get(pool: string): Memo | undefined {
    return this.pools.get(pool);
  }

  /**
   * A pool traded in the last 24 h (`entry`: its record in `traded`) is being passivated
   * at engine time `now`, its state `s` still in memory; `stock`: its base token is a
   * stock now. For each window it traded in at `now`: the figures the memo holds at its
   * seq get their steps ahead if they have none (a pool read while resident gets none);
   * otherwise its figures at `now`, their PoolWindows.stableUntil and the steps ahead are
   * kept, to be given to the books at the window's next recompute (M_KEPT). What a read
   * of the pool gives there is the same: its windows and info change only with its seq,
   * and a window's figures only as trades leave it, at the times kept.
   */
  passivating(pool: string, s: PoolState, entry: TradedPool, now: number, stock: boolean): void {
    let m = this.pools.get(pool);
    let recorded = false;
    for (let i = 0; i < RANKING_WINDOWS.length; i++) {
      const window = RANKING_WINDOWS[i]!;
      // Not traded in the window: a recompute gives null without reading it.
      if (entry.at <= now - WINDOWS[window]) continue;
      const o = i * MEMO_FIELDS;
      if (m !== undefined && m.w[o + M_SEQ] === entry.seq) {
        if (m.ahead[i] === null) {
          m.ahead[i] = stepsAhead(s.windows, window, m.w[o + M_UNTIL]!);
          this.kept++;
        }
        continue;
      }
      if (!recorded) {
        m = this.record(pool, s, stock);
        recorded = true;
      }
      const w = m!.w;
      const f = s.windows.figures(now, window, scratchFigures);
      w[o + M_SEQ] = entry.seq;
      w[o + M_UNTIL] = s.windows.stableUntil(now, window);
      w[o + M_VOLUME] = f.volume_usd ?? NaN;
      w[o + M_TRADERS] = f.trader_count;
      w[o + M_TRADES] = f.trade_count;
      w[o + M_CHANGE] = f.price_change_pct ?? NaN;
      w[o + M_KEPT] = now;
      m!.ahead[i] = stepsAhead(s.windows, window, w[o + M_UNTIL]!);
      this.kept++;
    }
  }

  /** The pool's record, made (every window not known) if it has none. */
  entry(pool: string): Memo {
    let m = this.pools.get(pool);
    if (m === undefined) {
      const w = new Float64Array(RANKING_WINDOWS.length * MEMO_FIELDS);
      for (let i = 0; i < RANKING_WINDOWS.length; i++) {
        w[i * MEMO_FIELDS + M_SEQ] = NaN;
        w[i * MEMO_FIELDS + M_KEPT] = NaN;
      }
      const ahead = new Array<Float64Array | null>(RANKING_WINDOWS.length).fill(null);
      m = { base: '', quote: '', liquidity: 0, stock: false, created_at: 0, migrated_from_pool_address: null, migrated_at: null, progress: null, complete: false, w, ahead };
      this.pools.set(pool, m);
    }
    return m;
  }

  /** Records what was read of `pool` besides its windows (written by the caller). */
  record(pool: string, s: PoolState, stock: boolean): Memo {
    const m = this.entry(pool);
    const info = s.info!;
    m.base = info.base_address;
    m.quote = info.quote_address;
    m.liquidity = liquidityQuote(s);
    // A stock once stays one (Memo.stock): a read by one window's pass (the 5m one runs
    // alone every other minute) must not make the others pass the pool over, whose stocks
    // book still holds it if its token lost the tag since their last pass.
    m.stock ||= stock;
    m.created_at = info.created_at;
    m.migrated_from_pool_address = info.migrated_from_pool_address;
    m.migrated_at = info.migrated_from_pool_address ? info.migrated_at : null;
    m.progress = curveProgress(s);
    m.complete = info.replaced_by_pool_address !== null || s.completed_key !== null;
    return m;
  }
}

/**
 * The figures `windows` gives of `window` from `from` on, no trade added, in steps (at
 * most AHEAD_STEPS; see Memo.ahead): the read of a passivated pool is kept for the
 * recomputes to come, which then read it again only when it trades (its seq moves on) or
 * past the last step. Each step is PoolWindows.figures at the previous step's until,
 * which it gives until PoolWindows.stableUntil there: the same figures as a read.
 */
function stepsAhead(windows: PoolState['windows'], window: RankingWindow, from: number): Float64Array | null {
  if (from === Infinity) return null;
  // Each step's until at once (one pass over the window, not one a step).
  const steps = windows.leaveTimes(from, window, scratchUntils);
  let t = from;
  let o = 0;
  for (let k = 0; k < steps; k++, o += AHEAD_FIELDS) {
    const f = windows.figures(t, window, scratchFigures);
    const until = scratchUntils[k]!;
    scratchAhead[o] = until;
    scratchAhead[o + 1] = f.volume_usd ?? NaN;
    scratchAhead[o + 2] = f.trader_count;
    scratchAhead[o + 3] = f.trade_count;
    scratchAhead[o + 4] = f.price_change_pct ?? NaN;
    t = until;
  }
  // Kept at the length of the steps taken: most launchpad pools' trades sit in a few buckets.
  return scratchAhead.slice(0, o);
}

const scratchUntils = new Float64Array(AHEAD_STEPS);
const scratchAhead = new Float64Array(AHEAD_STEPS * AHEAD_FIELDS);

/** PoolWindows.figures' out (WindowFigures, actors/pool/windows.ts). */
const scratchFigures: Parameters<PoolState['windows']['figures']>[2] = { volume_usd: null, trader_count: 0, trade_count: 0, price_change_pct: null };

/**
 * Moves the memo's figures of window `wi` to the step kept ahead that holds at `now`:
 * false when it has none (no steps, or `now` past the last one kept).
 */
function stepTo(m: Memo, wi: number, now: number): boolean {
  const ahead = m.ahead[wi];
  if (ahead === null || ahead === undefined) return false;
  for (let o = 0; o < ahead.length; o += AHEAD_FIELDS) {
    const until = ahead[o]!;
    if (until > now) {
      const w = m.w;
      const p = wi * MEMO_FIELDS;
      w[p + M_UNTIL] = until;
      w[p + M_VOLUME] = ahead[o + 1]!;
      w[p + M_TRADERS] = ahead[o + 2]!;
      w[p + M_TRADES] = ahead[o + 3]!;
      w[p + M_CHANGE] = ahead[o + 4]!;
      return true;
    }
  }
  return false;
}

/** The input of window `wi` from a memo, priced at `q` (a new object: the three feeds take it later). */
function memoInput(pool: string, m: Memo, wi: number, q: number | null, stock: boolean): RankInput {
  const o = wi * MEMO_FIELDS;
  return {
    pool_address: pool,
    created_at: m.created_at,
    migrated_from_pool_address: m.migrated_from_pool_address,
    migrated_at: m.migrated_at,
    bonding_curve_progress_pct: m.progress,
    complete: m.complete,
    stock,
    volume_usd: nullable(m.w[o + M_VOLUME]!),
    trader_count: m.w[o + M_TRADERS]!,
    trade_count: m.w[o + M_TRADES]!,
    price_change_pct: nullable(m.w[o + M_CHANGE]!),
    liquidity_usd: q === null ? null : m.liquidity * q,
  };
}

/** What a recompute does with one pool in one window. */
const SKIP = 0;
const NULL = 1;
const MEMO = 2;
const READ = 3;
/** The memo's figures moved on to the step kept ahead that holds now (Memo.ahead): given again, the pool not read. */
const AHEAD = 4;
/** Per window of the list, for the pool at hand (synchronous use only). */
let plan = new Uint8Array(RANKING_WINDOWS.length);

/**
 * The reading of one recompute tick's inputs (`windowInputSteps`): the pools of `traded`
 * as it was at `now`, read one by one in its order by `steps`. `readNow` reads one pool at once, out of that order, where an event
 * is about to change it (the ranking streams' reads that do not hold the events,
 * engine/topics/rankings.ts): what it gives is kept and put into `out` when the steps
 * reach the pool, so that `out` holds the same inputs in the same order as a reading with
 * no event between its steps.
 */
export class InputsReading {
  /** `traded`'s pools at `now`, in its order, where events may go on (`eventsBetween`); empty otherwise, `traded` itself walked. */
  private readonly pools: string[] = [];
  /** Each pool's `traded` record at `now`: at, seq (its records change in place as the pool trades). */
  private readonly entries: number[] = [];
  private readonly since: number[];
  private readonly index: number[];
  private readonly outs: Array<Map<string, RankInput | null>>;
  private readonly earliest: number;
  /** The pools not read yet and their places, made by the first `readNow` (a reading never read early builds none). */
  private places: Map<string, number> | null = null;
  /** What `readNow` gave, by place, until the steps reach it: per window of the list, the input (undefined: passed over). */
  private readonly early = new Map<number, Array<RankInput | null | undefined>>();
  /** Where the steps are: the places before it are done (read, or taken from `early`). */
  private next = 0;
  private reads = 0;
  private skips = 0;

  /** The steps have walked every pool. */
  private done = false;

  /**
   * `eventsBetween`: events may change the pools before the steps reach them
   * (`readNow`), so `traded` is copied as it is now; otherwise the steps walk it as it
   * stands, no event applied between them.
   */
  constructor(
    private readonly traded: ReadonlyMap<string, TradedPool>,
    private readonly windows: readonly RankingWindow[],
    private readonly now: number,
    private readonly market: FeedMarket,
    private readonly isStock: (token: string) => boolean,
    out: Map<RankingWindow, Map<string, RankInput | null>>,
    private readonly memo?: InputMemo,
    private readonly eventsBetween = false,
  ) {
    if (eventsBetween) {
      for (const [pool, entry] of traded) {
        this.pools.push(pool);
        this.entries.push(entry.at, entry.seq);
      }
    }
    this.since = windows.map((w) => now - WINDOWS[w]);
    this.index = windows.map((w) => WINDOW_INDEX[w]);
    for (const w of windows) out.set(w, new Map());
    this.outs = windows.map((w) => out.get(w)!);
    let earliest = Infinity;
    for (const t of this.since) if (t < earliest) earliest = t;
    this.earliest = earliest;
  }

  /** Every pool has been read (the steps are done). */
  get complete(): boolean {
    return this.done;
  }

  /**
   * Reads `pool` now if this reading has it and has not read it yet (an event is about
   * to change it, or its state is leaving memory). Only for a reading made with `eventsBetween`.
   */
  readNow(pool: string): void {
    if (this.done || !this.eventsBetween) return;
    if (this.places === null) {
      this.places = new Map();
      for (let i = this.next; i < this.pools.length; i++) this.places.set(this.pools[i]!, i);
    }
    const i = this.places.get(pool);
    if (i === undefined || i < this.next || this.early.has(i)) return;
    const got: Array<RankInput | null | undefined> = new Array(this.windows.length);
    this.readOne(pool, this.entries[2 * i]!, this.entries[2 * i + 1]!, got);
    this.early.set(i, got);
  }

  /** The pools in order, a yield every INPUT_STEP_POOLS read (or INPUT_STEP_SKIPS passed over). */
  *steps(): Generator<void> {
    if (!this.eventsBetween) {
      for (const [pool, entry] of this.traded) if (this.step(this.readOne(pool, entry.at, entry.seq, null))) yield;
      this.done = true;
      return;
    }
    const outs = this.outs;
    while (this.next < this.pools.length) {
      const i = this.next;
      const got = this.early.get(i);
      let read = false;
      if (got !== undefined) {
        this.early.delete(i);
        for (let w = 0; w < got.length; w++) if (got[w] !== undefined) outs[w]!.set(this.pools[i]!, got[w]!);
      } else read = this.readOne(this.pools[i]!, this.entries[2 * i]!, this.entries[2 * i + 1]!, null);
      this.next = i + 1;
      if (this.step(read)) yield;
    }
    this.done = true;
  }

  /** Counts one pool read or passed over: true for a yield (every INPUT_STEP_POOLS read, INPUT_STEP_SKIPS passed over). */
  private step(read: boolean): boolean {
    return read ? ++this.reads % INPUT_STEP_POOLS === 0 : ++this.skips % INPUT_STEP_SKIPS === 0;
  }

  /**
   * The inputs of `pool` (its `traded` record at, seq as at `now`), into `out` (the
   * steps') or `got` (by window of the list; undefined where passed over); true when the
   * pool needed a read.
   */
  private readOne(pool: string, at: number, entrySeq: number, got: Array<RankInput | null | undefined> | null): boolean {
    const { windows, since, index, now, market, isStock, memo } = this;
    const outs = this.outs;
    const m = memo?.get(pool);
    let needs = 0;
    if (plan.length < windows.length) plan = new Uint8Array(windows.length);
    for (let w = 0; w < windows.length; w++) {
      const o = index[w]! * MEMO_FIELDS;
      // Figures kept as the pool was passivated, at `kept` (NaN: none): not in the books yet, and usable from that time on.
      const kept = m === undefined ? NaN : m.w[o + M_KEPT]!;
      const seq = m === undefined || now < kept ? NaN : m.w[o + M_SEQ]!;
      if (at <= since[w]!) {
        // Not traded in the window: null, unless the memo says its last input already was.
        plan[w] = seq === -Infinity ? SKIP : NULL;
      } else if (seq === entrySeq && now < m!.w[o + M_UNTIL]!) {
        const change = m!.w[o + M_CHANGE]!;
        plan[w] = kept === kept || m!.stock || change > 0 || isStock(m!.base) ? MEMO : SKIP;
      } else if (seq === entrySeq && stepTo(m!, index[w]!, now)) {
        plan[w] = AHEAD;
      } else {
        plan[w] = READ;
        needs++;
      }
    }
    const reading = needs > 0 && at > this.earliest;
    // Asked before the read: a passivated pool's read may activate it.
    const passivated = reading && memo !== undefined && market.resident !== undefined && !market.resident(pool);
    if (passivated) memo.passivatedReads++;
    const s = reading ? market.pool(pool) : undefined;
    if (needs > 0 && memo) memo.reads++;
    let q: number | null | undefined;
    let rec: Memo | undefined;
    let stock = false;
    if (s !== undefined) {
      const info = s.info!;
      q = market.quoteUsd(info.quote_address);
      stock = isStock(info.base_address);
      if (memo) rec = memo.record(pool, s, stock);
    }
    for (let w = 0; w < windows.length; w++) {
      const p = plan[w]!;
      if (p === SKIP) {
        if (memo) memo.skips++;
        continue;
      }
      const o = index[w]! * MEMO_FIELDS;
      if (p === NULL || (p === READ && s === undefined)) {
        if (got === null) outs[w]!.set(pool, null);
        else got[w] = null;
        // Known null from now on: passed over until it trades again.
        if (memo) {
          const mw = memo.entry(pool).w;
          mw[o + M_SEQ] = -Infinity;
          mw[o + M_KEPT] = NaN;
        }
        continue;
      }
      if (p === MEMO || p === AHEAD) {
        const mm = m!;
        q ??= market.quoteUsd(mm.quote);
        const input = memoInput(pool, mm, index[w]!, q, isStock(mm.base));
        if (got === null) outs[w]!.set(pool, input);
        else got[w] = input;
        // In the books from now on.
        mm.w[o + M_KEPT] = NaN;
        if (p === MEMO) memo!.reused++;
        else memo!.ahead++;
        continue;
      }
      // Only the windows due: each is a scan of the pool's trade log or a ring, into the input itself.
      const input = s!.windows.figures(now, windows[w]!, rankInput(s!, null, now, stock));
      // Liquidity in USD as the snapshot has it: the quote side's liquidity × the quote's USD price.
      input.liquidity_usd = q === null || q === undefined ? null : liquidityQuote(s!) * q;
      if (got === null) outs[w]!.set(pool, input);
      else got[w] = input;
      if (rec !== undefined) {
        const rw = rec.w;
        rw[o + M_SEQ] = entrySeq;
        rw[o + M_UNTIL] = s!.windows.stableUntil(now, windows[w]!);
        rw[o + M_VOLUME] = input.volume_usd ?? NaN;
        rw[o + M_TRADERS] = input.trader_count;
        rw[o + M_TRADES] = input.trade_count;
        rw[o + M_CHANGE] = input.price_change_pct ?? NaN;
        rw[o + M_KEPT] = NaN;
        // A passivated pool's figures to come, so that its trades leaving the window do not read it again.
        rec.ahead[index[w]!] = passivated ? stepsAhead(s!.windows, windows[w]!, rw[o + M_UNTIL]!) : null;
      }
    }
    return needs > 0;
  }
}

/** A book of popular, top_gainers or stocks at the cadence of its window: re-scores from `windowInputs` (its window's), then flushes. */
export function recompute(state: FeedState, now: number, inputs: ReadonlyMap<string, RankInput | null>): FeedFlush {
  const books = bookState(state);
  const { feed, book } = books;
  books.revision = ++lastRevision;
  const stocksOnly = feed === 'stocks';
  for (const [pool, input] of inputs) {
    if (input === null || (stocksOnly && !input.stock)) book.remove(pool);
    else book.update(input, now);
  }
  return book.flush(now);
}

/** `traded`, at the 24h pass, after every feed's: forgets the pools not traded in 24 h (every book took them out). */
export function forgetUntraded(state: FeedState, now: number): void {
  if (state.role !== 'traded') throw new Error(`feed actor: ${state.role} holds no traded pools`);
  const forget = now - WINDOWS['24h'];
  for (const [pool, t] of state.traded) if (t.at <= forget) state.traded.delete(pool);
}

export const isLiveFeed = (feed: FeedName): boolean => LIVE_FEEDS.has(feed);
