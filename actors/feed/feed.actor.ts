import { WINDOWS } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../engine/supervisor/index.ts';
import { curveProgress, liquidityQuote, type PoolState } from '../pool/index.ts';
import { STOCK_TAG, tagsOf, type TokenState } from '../token/index.ts';
import { FeedBook, type FeedBookData, type FeedFlush } from './feed.logic.ts';
import { FEED_DEFAULTS, FEED_NAMES, LIVE_FEEDS, RANKING_WINDOWS, type FeedName, type FeedSettings, type RankInput, type RankingWindow } from './feed.rules.ts';

/**
 * The feed actors (docs/discovery.md, "Wiring the feeds"): one per feed (`feed:<feed>`,
 * six), each holding the books of its four windows. What each takes:
 * - new_pair: `pool` (a pool the service sees: its `created_at`), `migration` (a pool a
 *   curve graduated into is migrated's, never new_pair's);
 * - almost_bonded: `pool.trade` of bonding-curve pools (the progress after the trade),
 *   `pool.graduated` (complete: out);
 * - migrated: `pool.graduated` into a pool (`migrated_at` = the event's `at`);
 * - popular, top_gainers, stocks: `pool.trade` marks the pool traded (a Map set, no
 *   read of its windows per trade); `recompute` re-scores the pools traded within the
 *   window at the feed's cadence (feed.rules.ts RECOMPUTE_MS);
 * - stocks: also `token` events that carry `tags` (DECISIONS.md "Tokenized stocks"):
 *   the tokens tagged `stock`, as the token actor merged the tags (the latest by slot).
 * Publishing (`flushLive`, `recompute`) is the engine-clock ticker's (engine/topics/
 * rankings.ts), through the host's `update`, never per ingest batch, so a replay under
 * `--clock event` gives the same batches and seqs. Scores and order are plain state in
 * the books; the per-pool membership lifecycle is the xstate machine the books run
 * (feed.machine.ts).
 */

export interface FeedState {
  feed: FeedName;
  books: Record<RankingWindow, FeedBook>;
  /** popular: pools traded in the last 24 h, by the time of their latest trade (top_gainers and stocks recompute over it too; empty in the others). */
  traded: Map<string, number>;
  /** stocks: the tokens whose merged tags hold `stock` (empty in the others); `market.stockMints` adds the configured ones at recompute. */
  stockTokens: Set<string>;
}

/** What the feed behaviour needs beyond its events. */
export interface FeedBehaviorOptions {
  settings?: Readonly<FeedSettings>;
}

const NEW_PAIR: readonly FeedName[] = ['new_pair'];
/**
 * A `pool` event also reaches top_gainers and stocks, which take no trade (popular's
 * traded pools are theirs too): it creates them, since the ticker's changes reach only
 * actors that exist (ActorHost.update).
 */
const ON_POOL: readonly FeedName[] = ['new_pair', 'top_gainers', 'stocks'];
const ON_GRADUATED: readonly FeedName[] = ['almost_bonded', 'migrated'];
const ON_TAGS: readonly FeedName[] = ['stocks'];

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

function newBooks(feed: FeedName, settings: Readonly<FeedSettings>): Record<RankingWindow, FeedBook> {
  const books = {} as Record<RankingWindow, FeedBook>;
  for (const w of RANKING_WINDOWS) books[w] = new FeedBook(feed, w, settings);
  return books;
}

/** updateAll's input, written over per event: FeedBook.update reads an input and keeps nothing of it, and almost_bonded takes one per trade of a curve over 70 %. */
const scratch = emptyInput();

/** The live part of a pool's input: enough for new_pair, migrated and almost_bonded, whose scores need no window. */
function updateAll(state: FeedState, s: PoolState, now: number, patch?: Partial<RankInput>): void {
  const input = rankInput(s, null, now, false, scratch);
  if (patch) Object.assign(input, patch);
  for (const w of RANKING_WINDOWS) state.books[w].update(input, now);
}

export function createFeedBehavior(options: FeedBehaviorOptions = {}): ActorBehavior<FeedState> {
  const settings = options.settings ?? FEED_DEFAULTS;
  // stocks takes trades only when some token is a stock.
  // popular records the pools traded for top_gainers and stocks too (one delivery, not three).
  const onTrade: readonly FeedName[] = ['almost_bonded', 'popular'];
  return {
    kind: 'feed',
    takes: ['token', 'pool', 'migration', 'pool.trade', 'pool.graduated'],
    route(e: ActorEvent) {
      switch (e.type) {
        case 'pool':
          return ON_POOL;
        case 'migration':
          return NEW_PAIR;
        case 'pool.trade':
          return onTrade;
        case 'pool.graduated':
          return ON_GRADUATED;
        case 'token':
          return ON_TAGS;
        default:
          return undefined;
      }
    },
    initial: (key) => {
      const feed = key as FeedName;
      if (!FEED_NAMES.includes(feed)) throw new Error(`feed actor: unknown feed ${key}`);
      return { feed, books: newBooks(feed, settings), traded: new Map(), stockTokens: new Set() };
    },
    apply(state, e, ctx) {
      const now = ctx.clock.now();
      switch (state.feed) {
        case 'new_pair':
          if (e.type === 'pool') {
            const s = readPool(ctx, e.pool_address);
            if (s) updateAll(state, s, now);
          } else if (e.type === 'migration') {
            for (const w of RANKING_WINDOWS) state.books[w].remove(e.to_pool_address);
          }
          return;
        case 'almost_bonded':
          if (e.type === 'pool.trade' || e.type === 'pool.graduated') {
            const s = readPool(ctx, e.pool_address);
            if (!s || s.info!.pool_type !== 'bonding_curve') return;
            // The common case per trade, without building an input: a curve under the threshold that is not a member (the four windows agree).
            if (e.type === 'pool.trade' && !state.books['1h'].has(e.pool_address)) {
              const progress = curveProgress(s);
              if (progress === null || progress < settings.almostBondedPct) return;
            }
            updateAll(state, s, now, e.type === 'pool.graduated' ? { complete: true } : undefined);
          }
          return;
        case 'migrated':
          if (e.type === 'pool.graduated' && e.migrated_to_pool_address !== null) {
            const s = readPool(ctx, e.migrated_to_pool_address);
            // The pool graduated into: its migrated_at is the graduation's time.
            if (s) updateAll(state, s, now, { migrated_from_pool_address: e.pool_address, migrated_at: e.at });
          }
          return;
        case 'popular':
          if (e.type === 'pool.trade') state.traded.set(e.pool_address, now);
          return;
        case 'stocks':
          // A token event without `tags` leaves the token's tags as they were.
          if (e.type === 'token' && e.tags !== undefined) {
            // The token actor took the event first (hosts' order): its tags are the latest by slot, whatever the arrival order.
            const token = ctx.read<TokenState>('token', e.token_address);
            if (token && tagsOf(token).includes(STOCK_TAG)) state.stockTokens.add(e.token_address);
            else state.stockTokens.delete(e.token_address);
          }
          return;
        default:
      }
    },
    toSnapshot: (state) => ({
      feed: state.feed,
      books: Object.fromEntries(RANKING_WINDOWS.map((w) => [w, state.books[w].toData()])),
      traded: [...state.traded],
      stockTokens: [...state.stockTokens],
    }),
    fromSnapshot(data) {
      // stockTokens: absent from snapshots written before token tags.
      const d = data as { feed: FeedName; books: Record<RankingWindow, FeedBookData>; traded: Array<[string, number]>; stockTokens?: string[] };
      const books = {} as Record<RankingWindow, FeedBook>;
      for (const w of RANKING_WINDOWS) books[w] = FeedBook.fromData(d.feed, w, d.books[w], settings);
      return { feed: d.feed, books, traded: new Map(d.traded), stockTokens: new Set(d.stockTokens ?? []) };
    },
  };
}

function readPool(ctx: ActorContext, address: string): PoolState | undefined {
  const s = ctx.read<PoolState>('pool', address) as PoolState | undefined;
  return s?.info ? s : undefined;
}

/** What the ticker's pass reads of the market: a pool's state and its quote's latest USD price. */
export interface FeedMarket {
  pool(address: string): PoolState | undefined;
  quoteUsd(quote: string): number | null;
}

/**
 * Live feeds (new_pair, almost_bonded, migrated), every second of engine time: ages
 * members out, then publishes each window's batch (FeedBook.flush).
 */
export function flushLive(state: FeedState, now: number): FeedFlush[] {
  const out: FeedFlush[] = [];
  for (const w of RANKING_WINDOWS) {
    const book = state.books[w];
    book.tick(now);
    out.push(book.flush(now));
  }
  return out;
}

/**
 * The inputs of the recomputes of `windows` at `now`, read once for popular, top_gainers
 * and stocks, and once for every window of the list (the ticks of several windows fall
 * at one time: every 10 minutes all four): for each window, each pool traded (popular's
 * `traded`, which the three share) within it, from its windowed metrics; null for a pool
 * not traded in it (it leaves). A pool's state and its windowed metrics are read once
 * for all the windows it was traded in.
 */
export function windowInputs(
  traded: ReadonlyMap<string, number>,
  windows: readonly RankingWindow[],
  now: number,
  market: FeedMarket,
  isStock: (token: string) => boolean,
): Map<RankingWindow, Map<string, RankInput | null>> {
  const out = new Map<RankingWindow, Map<string, RankInput | null>>();
  const steps = windowInputSteps(traded, windows, now, market, isStock, out);
  while (!steps.next().done);
  return out;
}

/** Pools read between two steps of `windowInputSteps`: a pool read back from its snapshot takes ~0.1 ms. */
const INPUT_STEP_POOLS = 8;

/**
 * `windowInputs` in steps (a yield every INPUT_STEP_POOLS pools), into `out`, which has
 * an empty map for each window when this returns: the ranking streams run it in slices
 * with no event applied between them (Ticker `holds`), so `traded` and every pool read
 * stay as they were at `now`.
 */
export function windowInputSteps(...args: Parameters<typeof readInputs>): Generator<void> {
  const [, windows, , , , out] = args;
  for (const w of windows) out.set(w, new Map());
  return readInputs(...args);
}

function* readInputs(
  traded: ReadonlyMap<string, number>,
  windows: readonly RankingWindow[],
  now: number,
  market: FeedMarket,
  isStock: (token: string) => boolean,
  out: Map<RankingWindow, Map<string, RankInput | null>>,
): Generator<void> {
  const since = windows.map((w) => now - WINDOWS[w]);
  let earliest = Infinity;
  for (const t of since) if (t < earliest) earliest = t;
  let k = 0;
  for (const [pool, at] of traded) {
    if (++k % INPUT_STEP_POOLS === 0) yield;
    const s = at > earliest ? market.pool(pool) : undefined;
    if (!s) {
      for (const w of windows) out.get(w)!.set(pool, null);
      continue;
    }
    const info = s.info!;
    const q = market.quoteUsd(info.quote_address);
    const stock = isStock(info.base_address);
    // Only the windows due: each is a scan of the pool's trade log or a ring.
    const read = s.windows.read(now, windows);
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i]!;
      if (at <= since[i]!) {
        out.get(w)!.set(pool, null);
        continue;
      }
      const input = rankInput(s, w, now, stock, emptyInput(), read);
      // Liquidity in USD as the snapshot has it: the quote side's liquidity × the quote's USD price.
      input.liquidity_usd = q === null ? null : liquidityQuote(s) * q;
      out.get(w)!.set(pool, input);
    }
  }
}

/** popular, top_gainers, stocks at the cadence of `window`: re-scores from `windowInputs`, then flushes. */
export function recompute(state: FeedState, window: RankingWindow, now: number, inputs: ReadonlyMap<string, RankInput | null>): FeedFlush {
  const book = state.books[window];
  const stocksOnly = state.feed === 'stocks';
  for (const [pool, input] of inputs) {
    if (input === null || (stocksOnly && !input.stock)) book.remove(pool);
    else book.update(input, now);
  }
  return book.flush(now);
}

/** popular's 24h pass, after every feed's: forgets the pools not traded in 24 h (every book took them out). */
export function forgetUntraded(state: FeedState, now: number): void {
  const forget = now - WINDOWS['24h'];
  for (const [pool, at] of state.traded) if (at <= forget) state.traded.delete(pool);
}

export const isLiveFeed = (feed: FeedName): boolean => LIVE_FEEDS.has(feed);
