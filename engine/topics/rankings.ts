import type { Logger } from 'pino';
import {
  FEED_DEFAULTS,
  LIVE_FEEDS,
  RANKING_WINDOWS,
  RECOMPUTE_MS,
  batchEvents,
  bookOf,
  feedKey,
  flushLive,
  forgetUntraded,
  InputMemo,
  InputsReading,
  recompute,
  snapshotEvent,
  STOCK_TAGS_KEY,
  TRADED_KEY,
  type FeedFlush,
  type FeedMarket,
  type FeedName,
  type FeedState,
  type PoolState,
  type RankInput,
  type RankRow,
  type RankingWindow,
} from '../../actors/index.ts';
import { KNOWN_MINTS } from '../model/index.ts';
import { topics } from './names.ts';
import type { TopicSink } from './sink.ts';

/**
 * What the stream needs of the feed actors: a read, and a change outside apply that
 * marks the actor dirty (ActorHost.update; `create`: the books of popular, top_gainers
 * and stocks, which take no event, are made by their first recompute).
 */
export interface FeedActors {
  get(key: string): Readonly<FeedState> | undefined;
  /** The actor is in memory (ActorHost.isResident): `peek` then reads it where it is. */
  isResident(key: string): boolean;
  /** A read that leaves the actor's place in the LRU order as it is (ActorHost.peek). */
  peek(key: string): Readonly<FeedState> | undefined;
  update<R>(key: string, change: (state: FeedState) => R, create?: boolean): R | undefined;
}

/** The ranking entries (engine/query RankingsQuery.entry). */
export interface RankingEntries {
  entry(row: RankRow): unknown;
}

/** The engine-clock ticker (engine/topics/ticker.ts `every`). */
export interface RankingTicker {
  every(name: string, everyMs: number, onTick: (at: number) => Iterator<void> | void, options?: { holds?: boolean }): unknown;
}

/** The inputs of the windows ticking at `at`, read in steps; each window takes its map out of `out` once. */
interface TickReading {
  at: number;
  out: Map<RankingWindow, Map<string, RankInput | null>>;
  reader: InputsReading;
  steps: Generator<void>;
}

export interface RankingStreamsOptions {
  feeds: FeedActors;
  market: FeedMarket;
  entries: () => RankingEntries;
  sink: () => TopicSink;
  /**
   * Tokens the stocks feed lists whatever their tags (DECISIONS.md "Tokenized stocks":
   * `market.stockMints`), beside those a `token` event tagged `stock` (the stocks feed
   * actor's `stockTokens`).
   */
  stockMints?: ReadonlySet<string>;
  /** Re-read only the pools that may have changed (InputMemo; default on): off only to test that it changes nothing. */
  memo?: boolean;
  /**
   * A recompute holds the events while it reads the pools (Ticker `holds`; default true:
   * an Applier of whole batches, `mds replay`, runs it whole at its tick). False: the
   * events go on between its slices, and the engine calls `beforePoolChange` before
   * each change to a pool (`mds serve`, so that a backlog's WebSocket frames do not wait
   * for the recompute's reads).
   */
  holds?: boolean;
  /** Where a failed read before a pool's change is logged. */
  log?: Logger;
}

/** The live feeds' beat: an `enter` goes out at most a second of engine time after the event that caused it. */
export const LIVE_FLUSH_MS = 1_000;

const NON_LIVE: readonly FeedName[] = ['popular', 'top_gainers', 'stocks'];
const LIVE: readonly FeedName[] = [...LIVE_FEEDS];
/** The keys of the books the memo's skips vouch for: popular's, top_gainers' and stocks', every window. */
const NON_LIVE_KEYS: readonly string[] = NON_LIVE.flatMap((feed) => RANKING_WINDOWS.map((w) => feedKey(feed, w)));

/**
 * The `rankings` stream (SERVICE.md 4.4, 6.2; DECISIONS.md "Rankings"), on topics
 * `rankings:<feed>:<window>`, and the ticks that recompute the feeds:
 * - `rankings:live`, every second of engine time: the live feeds (new_pair,
 *   almost_bonded, migrated) age members out and flush; each batch goes out as its
 *   `exit`s, `enter`s and the `window` batch (seq per feed and window);
 * - `rankings:<window>`, at SERVICE.md 6.2's cadence (1, 2, 5, 10 min): popular,
 *   top_gainers and stocks re-score the pools traded in the window, flush, and send a
 *   `snapshot` when the feed changed.
 * A subscriber gets the (feed, window)'s `snapshot` first (`snapshotFrame`), which
 * carries the seq of the last batch it includes. Each event is serialized once, when its
 * topic has subscribers; a snapshot frame is kept until the feed changes, so every
 * subscriber of an unchanged feed gets the same bytes.
 */
export class RankingStreams {
  private readonly snapshots = new Map<string, string>();
  /** When each (feed, window) last changed (its snapshot's `updated_at`). */
  private readonly updatedAt = new Map<string, number>();
  private readonly stockMints: ReadonlySet<string>;
  /** The inputs being read, or read, for the windows still to recompute at its `at` (each taken once). */
  private current: TickReading | null = null;
  /** Whether a recompute holds the events (RankingStreamsOptions.holds). */
  private readonly holds: boolean;
  /** Recomputes ticked and not done, in tick order: run one after the other, as whole ones ran. */
  private readonly jobs: Array<{ window: RankingWindow; at: number; done: boolean }> = [];
  /** The pass over `jobs` under way (any window's pass drives it). */
  private runner: Generator<void> | null = null;
  /** What the recomputes read of each pool (null: every pool traded is read at every recompute). */
  readonly memo: InputMemo | null;

  constructor(private readonly options: RankingStreamsOptions) {
    this.stockMints = options.stockMints ?? new Set();
    this.memo = options.memo === false ? null : new InputMemo();
    this.holds = options.holds !== false;
  }

  /**
   * Registers the feeds' ticks. A window's recompute is a pass in slices; reads and
   * socket writes run between them. Either it holds the events (Ticker `holds`): no
   * event is applied until it ends; or the events go on, and each pool it has not read
   * yet is read right before an event changes it (`beforePoolChange`), the known mints'
   * USD prices as at its tick. Either way it gives what the whole recompute gave at its
   * tick (but for a pool quoted in a token whose pools trade meanwhile: pricedAtTick).
   */
  start(ticker: RankingTicker): void {
    ticker.every('rankings:live', LIVE_FLUSH_MS, (at) => this.flushLive(at));
    for (const w of RANKING_WINDOWS) ticker.every(`rankings:${w}`, RECOMPUTE_MS[w], (at) => this.recomputeSteps(w, at), { holds: this.holds });
  }

  /**
   * An event is about to change `pool` (the engine's pool host, ActorHost.beforeApply),
   * or its state is leaving memory: a reading under way that has not read it reads it
   * now, as it stands at the reading's tick.
   */
  beforePoolChange(pool: string): void {
    const reading = this.current;
    if (reading === null || reading.reader.complete) return;
    try {
      reading.reader.readNow(pool);
    } catch (err) {
      // The pool is read again where the steps reach it, as it stands then.
      this.options.log?.error({ err, pool }, 'a ranking recompute failed to read a pool before it changed');
    }
  }

  /** A recompute is reading the pools (its steps not done): with `holds` false, events go on meanwhile. */
  get reading(): boolean {
    return this.current !== null && !this.current.reader.complete;
  }

  /** The live feeds' tick. */
  flushLive(at: number): void {
    for (const feed of LIVE) {
      for (const w of RANKING_WINDOWS) {
        const flush = this.options.feeds.update(feedKey(feed, w), (state) => flushLive(state, at));
        if (flush) this.published(feed, w, flush, at);
      }
    }
  }

  /** The non-live feeds' tick of one window, all at once (tests; the ticker runs `recomputeSteps` in slices). */
  recompute(window: RankingWindow, at: number): void {
    const steps = this.recomputeSteps(window, at);
    while (!steps.next().done);
  }

  /**
   * The non-live feeds' tick of one window, in steps: the pools traded are read (a yield
   * every few pools: a pass over fewer is one step, and holds nothing), then the three
   * feeds re-scored in the last. With no event applied between the steps, the result is
   * the whole recompute's at `at`. Recomputes run one after the other in the order they
   * ticked (the 24h one forgets pools from `traded`, which the others read), whichever
   * window's pass drives them on: this pass ends once its own is done.
   */
  *recomputeSteps(window: RankingWindow, at: number): Generator<void> {
    // Events going on between the slices: a recompute of an earlier tick still under
    // way ends now, so that this one's reading begins at its tick (one reading at a time).
    if (!this.holds && this.jobs.some((job) => job.at !== at)) this.finishJobs();
    const job = { window, at, done: false };
    this.jobs.push(job);
    while (!job.done) {
      this.runner ??= this.runJobs();
      let step: IteratorResult<void>;
      try {
        step = this.runner.next();
      } catch (err) {
        this.runner = null;
        throw err;
      }
      if (step.done) this.runner = null;
      if (!job.done) yield;
    }
  }

  /** Runs the recomputes ticked and not done to their end now. */
  private finishJobs(): void {
    this.runner ??= this.runJobs();
    try {
      while (!this.runner.next().done);
    } finally {
      this.runner = null;
    }
  }

  private *runJobs(): Generator<void> {
    while (this.jobs.length > 0) {
      const job = this.jobs[0]!;
      try {
        yield* this.recomputeJob(job.window, job.at);
      } finally {
        // Also when it threw: the next recompute is not held behind it.
        this.jobs.shift();
        job.done = true;
      }
    }
  }

  /**
   * A pool is being passivated at engine time `now` (ActorHost.beforePassivate), its
   * state in memory: the memo keeps what the recomputes to come read of it
   * (InputMemo.passivating), so that they read no passivated pool that has not traded
   * since. Nothing when `traded` or `stock-tags` is not resident: no actor is activated,
   * nor moved in the LRU order, here.
   */
  passivating(pool: string, s: PoolState, now: number): void {
    this.beforePoolChange(pool);
    const memo = this.memo;
    const feeds = this.options.feeds;
    if (memo === null || !s.info || !feeds.isResident(TRADED_KEY) || !feeds.isResident(STOCK_TAGS_KEY)) return;
    const traded = feeds.peek(TRADED_KEY);
    const entry = traded?.role === 'traded' ? traded.traded.get(pool) : undefined;
    if (entry === undefined) return;
    const token = s.info.base_address;
    const tags = feeds.peek(STOCK_TAGS_KEY);
    memo.passivating(pool, s, entry, now, this.stockMints.has(token) || (tags?.role === 'stock-tags' && tags.stockTokens.has(token)));
  }

  private *recomputeJob(window: RankingWindow, at: number): Generator<void> {
    const traded = this.options.feeds.get(TRADED_KEY);
    if (traded?.role !== 'traded') return;
    // The pools traded are `traded`'s (it alone takes the trades); each is read once for
    // the three feeds and for every window whose tick falls at `at` (they tick one after
    // the other, with no event between: the ticker's one pass over what is due). The
    // reading is shared: the first window's pass begins it, any of them drives it on.
    let reading = this.current;
    if (reading === null || reading.at !== at || !reading.out.has(window)) {
      const tags = this.options.feeds.get(STOCK_TAGS_KEY);
      const live = tags?.role === 'stock-tags' ? tags.stockTokens : undefined;
      // Events going on between the steps: the stock tags and the quotes' USD prices as at the tick.
      const tagged = this.holds || live === undefined ? live : new Set(live);
      const isStock = (token: string) => this.stockMints.has(token) || tagged?.has(token) === true;
      const market = this.holds ? this.options.market : pricedAtTick(this.options.market);
      const due = RANKING_WINDOWS.filter((w) => w === window || (at % RECOMPUTE_MS[w] === 0 && RANKING_WINDOWS.indexOf(w) > RANKING_WINDOWS.indexOf(window)));
      const out = new Map<RankingWindow, Map<string, RankInput | null>>();
      this.memo?.hold(NON_LIVE_KEYS.map((key) => this.options.feeds.get(key)));
      const reader = new InputsReading(traded.traded, due, at, market, isStock, out, this.memo ?? undefined, !this.holds);
      reading = this.current = { at, out, reader, steps: reader.steps() };
    }
    while (!reading.steps.next().done) yield;
    const inputs = reading.out.get(window)!;
    reading.out.delete(window);
    if (reading.out.size === 0 && this.current === reading) this.current = null;
    for (const feed of NON_LIVE) {
      const key = feedKey(feed, window);
      const flush = this.options.feeds.update(
        key,
        (state) => {
          const before = state.role === 'book' ? state.revision : NaN;
          const flush = recompute(state, at, inputs);
          // The memo vouches for the book as this recompute left it (InputMemo.hold).
          if (state.role === 'book') this.memo?.given(NON_LIVE_KEYS.indexOf(key), before, state.revision);
          return flush;
        },
        true,
      );
      if (flush) this.published(feed, window, flush, at);
    }
    if (window === '24h') {
      this.options.feeds.update(TRADED_KEY, (state) => forgetUntraded(state, at));
      const after = this.options.feeds.get(TRADED_KEY);
      if (after?.role === 'traded') this.memo?.prune(after.traded);
    }
  }

  private published(feed: FeedName, window: RankingWindow, flush: FeedFlush, at: number): void {
    if (!flush.changed && flush.batch === null) return;
    const topic = topics.rankings(feed, window);
    this.snapshots.delete(topic);
    this.updatedAt.set(topic, at);
    const sink = this.options.sink();
    if (!sink.has(topic)) return;
    if (LIVE_FEEDS.has(feed)) {
      if (flush.batch === null) return;
      const entries = this.options.entries();
      for (const e of batchEvents(flush.batch, FEED_DEFAULTS.depth, (row) => entries.entry(row))) sink.publish(topic, `{"stream":"rankings","data":${JSON.stringify(e)}}`);
    } else {
      sink.publish(topic, this.snapshotFrame(feed, window));
    }
  }

  /** The `snapshot` frame of (feed, window) as of its last recompute: what a new subscriber gets first. */
  snapshotFrame(feed: FeedName, window: RankingWindow): string {
    const topic = topics.rankings(feed, window);
    let frame = this.snapshots.get(topic);
    if (frame === undefined) {
      const book = bookOf(this.options.feeds.get(feedKey(feed, window)));
      const entries = this.options.entries();
      const event = snapshotEvent(feed, window, book?.snapshot() ?? [], this.updatedAt.get(topic) ?? 0, book?.lastSeq ?? 0, (row) => entries.entry(row));
      frame = `{"stream":"rankings","data":${JSON.stringify(event)}}`;
      this.snapshots.set(topic, frame);
    }
    return frame;
  }
}

/**
 * `live` with the known mints' USD prices (wSOL, USDC, USDT) as at a reading's tick, for
 * a reading that lets the events go on: taken when it begins. A quote that is a token is
 * valued through its pools as they stand when read (a pool quoted in another launchpad
 * token: its liquidity in USD may then follow a trade in that token's pools made after
 * the tick). A market without `quoteUsdWith` (tests') is read as it stands.
 */
function pricedAtTick(live: FeedMarket): FeedMarket {
  const mints = new Map<string, number | null>();
  for (const mint of Object.keys(KNOWN_MINTS)) mints.set(mint, live.quoteUsd(mint));
  const mintUsd = (mint: string): number | null => mints.get(mint) ?? null;
  const market: FeedMarket = {
    pool: (address) => live.pool(address),
    quoteUsd: (quote) => (live.quoteUsdWith ? live.quoteUsdWith(quote, mintUsd) : live.quoteUsd(quote)),
  };
  if (live.resident) market.resident = (address) => live.resident!(address);
  return market;
}
