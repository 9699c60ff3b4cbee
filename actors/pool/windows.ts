import { LOG_TRADES_MAX } from '../../engine/bounds.ts';
import { WINDOW_BUCKETS, WINDOW_NAMES, WINDOW_RESOLUTION_MS, type WindowName } from '../../engine/model/index.ts';
import type { PoolTrade } from './trade.ts';

/**
 * Rolling windowed metrics of one pool (SERVICE.md 2.5): price change, volumes, trade
 * counts and exact distinct wallets over 1m, 5m, 1h, 6h and 24h. Plain mutable state,
 * no I/O, no clock: `now` is passed to `read`.
 *
 * Buckets. Every window W is cut into 60 time buckets of R = W/60: 1m by 1 s, 5m by
 * 5 s, 1h by 1 min, 6h by 6 min, 24h by 24 min. Bucket b holds trades with `at` in
 * [b·R, (b+1)·R). `read(now)` covers the 60 buckets up to the one holding now, so a
 * window's old edge is rounded up to a bucket start: a trade leaves W between W − R
 * and W after its `at`, never late. Counts are exact, (now − W, now] to the
 * millisecond, whenever now + 1 is a bucket boundary, and for any now when trade times
 * are whole multiples of R: Solana block times are whole seconds, so the 1m window is
 * exact on chain data. Otherwise the edge error is under R, 1/60 of the window (1.7 %).
 *
 * Price change `pp` = price now / price at the window start − 1, in percent. The
 * price at time t is that of the last trade by position (slot, txIndex, eventIndex)
 * in a bucket at or before t's, so the reference is the last trade before the window;
 * for a pool younger than the window it is the pool's first trade. Not the first trade
 * in the window: a window holding one trade would show 0 % whatever that trade moved,
 * and a 1h change would not contain the 1m change. A window with no trade shows 0 %
 * (nothing moved the price); a pool with no trade at all shows null. The USD change
 * uses the same two trades and is null when either has no USD price.
 *
 * USD volume sums quoteAmount × quoteUsd over the window's trades that have a USD
 * value. It is null when the window has trades and none has one (no quote price known
 * yet), 0 for an empty window. Quote values are always numbers.
 *
 * Distinct wallets: a wallet counts in a window iff the bucket of its last trade (last
 * buy, last sell) is in it: exact, and consistent with `tc`.
 *
 * Both representations below keep, per wallet, the `at` of its last buy and last sell
 * (a Map to an index into two arrays of doubles), dropping wallets whose last trade left
 * the 24h window each time its 24-min bucket advances. They give the same results:
 * - Log: a pool with at most LOG_TRADES_MAX trades in its last 24h keeps them raw (8
 *   numbers each) and `read` scans them and the wallets. Most launchpad pools are this
 *   quiet: their state stays a few kB, and `add` touches little of it.
 * - Rings: past that, the pool moves to a ring of 60 buckets per window (sums, counts,
 *   last trade) with running totals per ring, so `add` and `read` cost the same at
 *   any rate. A bucket also counts the wallets whose last trade (buy, sell) falls in
 *   it, so a trade moves its wallet's marks between two buckets: O(1), no expiry
 *   queue. Buckets leaving a ring fold their last trade into a register, the start
 *   price of later windows.
 *
 * Arrival order does not matter: buckets are addressed by `at`, last trades kept by
 * position, wallets keep their latest times, and volume sums are double-double (≈106
 * bits), so ordered and shuffled arrival read the same.
 *
 * `read(now)` with now before the newest trade reads as of that trade's time (block
 * times may run a little ahead of a wall clock).
 *
 * Memory per pool: about 1 kB of fixed fields and headers; log mode 64 B per trade of
 * the last 24h (a typed array doubled as it fills, ≤ 8 kB); ring mode one 36,000-byte ArrayBuffer (5 × 60 buckets × (12
 * float64 + 6 uint32)); both, per wallet of the last 24h, a Map entry and two doubles
 * (≈ 50-80 B besides the address string, which the Map shares with the trade). `add`
 * allocates only the Map entry of a new wallet and amortized growth of its arrays.
 */

/** The columnar windowed metrics of SERVICE.md 2.5, one entry per window of `t`. */
export interface Windowed {
  t: WindowName[];
  /** Price change percent, [quote, usd]. */
  pp: Array<[number | null, number | null]>;
  /** Volume, [quote, usd]. */
  v: Array<[number, number | null]>;
  vb: Array<[number, number | null]>;
  vs: Array<[number, number | null]>;
  tc: number[];
  bc: number[];
  sc: number[];
  m: number[];
  bm: number[];
  sm: number[];
}

/** One window's figures as PoolWindows.figures writes them (the ranking input's fields of the same names). */
export interface WindowFigures {
  volume_usd: number | null;
  trader_count: number;
  trade_count: number;
  price_change_pct: number | null;
}

export interface PoolWindowsOptions {
  /** Trades of the last 24h kept raw before moving to rings (tests set 0 or Infinity). */
  logTradesMax?: number;
}


const NAMES = WINDOW_NAMES;
const RINGS = NAMES.length;
const N = WINDOW_BUCKETS;
const RES = NAMES.map((name) => WINDOW_RESOLUTION_MS[name]);
const RES_24H = RES[RINGS - 1]!;

/** A logged trade: at, slot, sub, priceQuote, priceUsd, quote, usd (NaN for none), 1 for a buy. */
const L = 8;
/** A log's first length: 4 trades (256 bytes). */
const LOG_CAPACITY_MIN = 4 * L;
/** The log of a pool with no trade yet: empty, shared, never written (the first trade grows it). */
const NO_TRADES = new Float64Array(0);
/** A trade's position within its slot: txIndex × 2^24 + eventIndex (exact below 2^53). */
const SUB_SCALE = 2 ** 24;
/** Float64 fields of a bucket: volume sums as double-double (hi, lo), then its last trade. */
const F_BUY_QUOTE = 0;
const F_SELL_QUOTE = 2;
/** A USD sum sits this far after the quote sum of its side. */
const USD = 4;
const SUMS = 8;
const F_SLOT = 8;
const F = 12;
/** Uint32 fields of a bucket. Traders, buyers, sellers: wallets whose last such trade is in it. */
const C_BUYS = 0;
const C_SELLS = 1;
const C_USD = 2;
const C_TRADERS = 3;
const C_BUYERS = 4;
const C_SELLERS = 5;
const C = 6;
/** A ring's header: newest bucket, register (last trade of the buckets it evicted), totals over its buckets. */
const H_HEAD = 0;
const H_REGISTER = 1;
const H_SUMS = 5;
const H_COUNTS = H_SUMS + SUMS;
const H = H_COUNTS + C;
/** A wallet the windows track: its Map entry and key string, and its two last times (an estimate, as pool.actor.ts POOL_BYTES). */
const WALLET_BYTES = 120;
const FLOAT_BYTES = RINGS * N * F * 8;
const BYTES = FLOAT_BYTES + RINGS * N * C * 4;
/** Non-empty slots of a ring: two words of 30 bits (slots 0-29, 30-59). */
const HALF = 30;
const FULL = (1 << HALF) - 1;

/** Ring slot of bucket b. Not `%`: bucket numbers pass the int32 range, where `%` is a libm call. */
const mod = (b: number) => b - Math.floor(b / N) * N;
const later = (slot: number, sub: number, thanSlot: number, thanSub: number) => slot > thanSlot || (slot === thanSlot && sub > thanSub);

/** Adds (hi, lo) to the double-double (a[i], a[i + 1]): TwoSum, then renormalize. */
function ddAdd(a: Float64Array, i: number, hi: number, lo: number): void {
  const ah = a[i]!;
  const s = ah + hi;
  const bp = s - ah;
  const err = ah - (s - bp) + (hi - bp) + a[i + 1]! + lo;
  const h = s + err;
  a[i + 1] = err - (h - s);
  a[i] = h;
}

/** Copies a trade (slot, sub, priceQuote, priceUsd) into a[i..i + 3]. */
function setTrade(a: Float64Array | number[], i: number, slot: number, sub: number, priceQuote: number, priceUsd: number): void {
  a[i] = slot;
  a[i + 1] = sub;
  a[i + 2] = priceQuote;
  a[i + 3] = priceUsd;
}

/** Scratch of `read` (synchronous): a window's sums (double-double), counts and start price. */
const acc = new Float64Array(SUMS);
const tally = new Float64Array(C);
const ref = new Float64Array(4);
/** Scratch of `selectSlots`: the two words of a slot set. */
const selected = new Int32Array(2);

/** Sets `selected` to the `count` consecutive slots from `first`, wrapping around the ring. */
function selectSlots(first: number, count: number): void {
  selected[0] = selected[1] = count >= N ? FULL : 0;
  if (count >= N || count <= 0) return;
  selectRange(first, Math.min(first + count, N));
  if (first + count > N) selectRange(0, first + count - N);
}

/** Adds slots [x, y), 0 ≤ x ≤ y ≤ 60, to `selected`. */
function selectRange(x: number, y: number): void {
  if (x < HALF) selected[0]! |= bitRange(x, Math.min(y, HALF));
  if (y > HALF) selected[1]! |= bitRange(Math.max(x, HALF) - HALF, y - HALF);
}

/** Bits [from, to) of a 30-bit word. */
function bitRange(from: number, to: number): number {
  return to - from >= HALF ? FULL : ((1 << (to - from)) - 1) << from;
}

/*
 * Hot paths create no closures: tsx (how the project runs TypeScript) names every
 * function it creates, and a closure made per call costs a defineProperty each time.
 */

/** The double-double acc[j], acc[j + 1] as one number. */
function accValue(j: number): number {
  return acc[j]! + acc[j + 1]!;
}

/** The double-doubles acc[j..j + 1] + acc[j + 2..j + 3] as one number. */
function accTotal(j: number): number {
  const s = acc[j]! + acc[j + 2]!;
  const bp = s - acc[j]!;
  return s + (acc[j]! - (s - bp) + (acc[j + 2]! - bp) + acc[j + 1]! + acc[j + 3]!);
}

/** Snapshot of a PoolWindows: plain arrays and numbers (null for none), JSON- and msgpack-safe. */
export interface PoolWindowsSnapshot {
  v: 1;
  maxAt: number | null;
  /** First and last trade by position, as [slot, sub, priceQuote, priceUsd]. */
  first: Array<number | null> | null;
  last: Array<number | null> | null;
  /** Wallets of the last 24h and the `at` of their last buy and sell. */
  wallets: string[];
  lastBuy: Array<number | null>;
  lastSell: Array<number | null>;
  /** Log mode: the last trade out of every window, and the trades as rows of 8 numbers (at, slot, sub, priceQuote, priceUsd, quote, usd, buy). */
  log?: { dropped: Array<number | null> | null; trades: Array<number | null> };
  /** Ring mode: per ring its head, register and non-empty buckets as rows of [b, buys, sells, usd, 12 floats]. */
  rings?: Array<{ head: number | null; register: Array<number | null> | null; rows: Array<number | null> }>;
}
const ROW = 4 + F;

export class PoolWindows {
  private logTradesMax: number;
  private maxAt = -Infinity;
  /** First (min position) and last (max position) trade: slot, sub, priceQuote, priceUsd each. */
  private readonly ends = new Float64Array([Infinity, 0, 0, NaN, -Infinity, 0, 0, NaN]);

  /**
   * Log mode (null in ring mode): the trades of the 24h ring, L numbers each, in
   * [0, logLength). A Float64Array of its own, doubled as it fills: off the V8 heap, so
   * young-generation GCs do not copy it (a plain array's backing store, reallocated as
   * it grew, was ~1/3 of what the engine's scavenges copied). Not a slice of shared
   * slabs (slabs.ts), as it was: a log lives as long as its pool stays resident in log
   * mode, and each slab was held by its last live log. On the market benchmark (1M swaps
   * over 10,000 pools) the logs' slabs held 60-76 MiB for 10-18 MiB of live logs, after a
   * forced GC; logs of their own hold what they use (bench/README, market).
   */
  private log: Float64Array | null = NO_TRADES;
  private logLength = 0;
  /** Log mode: the last trade by position of those out of every window. */
  private readonly dropped = [-Infinity, 0, 0, NaN];

  /**
   * Both modes: per wallet index, the `at` of its last buy and sell (-Infinity for none);
   * doubles stored unboxed, grown on the heap. Wallets out of the 24h ring are dropped.
   */
  private readonly walletIndex = new Map<string, number>();
  private readonly lastBuy: number[] = [];
  private readonly lastSell: number[] = [];
  private readonly freeWallets: number[] = [];

  /** Ring mode, allocated on entering it. Ring r's slot s is bucket k = r × 60 + s, at f[k × F] and c[k × C]; zero when empty. */
  private f = new Float64Array(0);
  private c = new Uint32Array(0);
  /** Ring headers (H_*). A ring holds buckets (head − 60, head]; its totals are their sums. */
  private readonly rings = new Float64Array(RINGS * H);
  /** Per ring, its non-empty slots (two words), so advancing and reading touch only those. */
  private readonly occupied = new Int32Array(RINGS * 2);

  constructor(options: PoolWindowsOptions = {}) {
    this.logTradesMax = options.logTradesMax ?? LOG_TRADES_MAX;
    if (this.logTradesMax <= 0) this.enterRings();
  }

  /** Which representation the pool is in (see the file's comment). */
  get mode(): 'log' | 'rings' {
    return this.log ? 'log' : 'rings';
  }

  /** Distinct wallets held (last 24h, as the 24h ring goes), for tests and memory accounting. */
  get walletCount(): number {
    return this.walletIndex.size;
  }

  /**
   * Estimated bytes it holds (the pool's resident estimate, pool.actor.ts sizeOf): the
   * rings' buffer (36,000 bytes) or the log's slice, and per wallet tracked its map entry,
   * key and last times. A busy pool holds several times a quiet one's whole estimate.
   */
  get bytes(): number {
    return (this.log ? this.log.byteLength : BYTES) + this.walletIndex.size * WALLET_BYTES;
  }

  add(trade: PoolTrade): void {
    const { at, slot } = trade;
    const sub = trade.txIndex * SUB_SCALE + trade.eventIndex;
    const priceUsd = trade.priceUsd ?? NaN;
    const usd = trade.quoteUsd === null ? NaN : trade.quoteAmount * trade.quoteUsd;
    const buy = trade.side === 'buy';
    const e = this.ends;
    if (later(e[0]!, e[1]!, slot, sub)) setTrade(e, 0, slot, sub, trade.priceQuote, priceUsd);
    if (later(slot, sub, e[4]!, e[5]!)) setTrade(e, 4, slot, sub, trade.priceQuote, priceUsd);
    const previousMaxAt = this.maxAt;
    if (at > this.maxAt) this.maxAt = at;

    let w = this.walletIndex.get(trade.wallet);
    if (w === undefined) w = this.newWallet(trade.wallet);
    const lastBuy = this.lastBuy[w]!;
    const lastSell = this.lastSell[w]!;
    const oldAny = lastBuy > lastSell ? lastBuy : lastSell;
    const oldSide = buy ? lastBuy : lastSell;
    const newSide = at > oldSide ? at : oldSide;
    if (buy) this.lastBuy[w] = newSide;
    else this.lastSell[w] = newSide;

    const log = this.log;
    if (log === null) {
      this.addToRings(at, slot, sub, trade.priceQuote, priceUsd, trade.quoteAmount, usd, buy);
      for (let r = 0; r < RINGS; r++) {
        const low = this.rings[r * H + H_HEAD]! - N;
        if (at > oldAny) this.move(r, C_TRADERS, oldAny, at, low);
        if (newSide !== oldSide) this.move(r, buy ? C_BUYERS : C_SELLERS, oldSide, newSide, low);
      }
      return;
    }
    const head = Math.floor(this.maxAt / RES_24H);
    if (head > Math.floor(previousMaxAt / RES_24H)) this.compactLog(head - N);
    if (Math.floor(at / RES_24H) <= head - N) {
      // Late and out of every window already: it can only be a start price.
      if (later(slot, sub, this.dropped[0]!, this.dropped[1]!)) setTrade(this.dropped, 0, slot, sub, trade.priceQuote, priceUsd);
      return;
    }
    const n = this.logLength;
    const d = n + L <= log.length ? log : this.growLog();
    d[n] = at;
    d[n + 1] = slot;
    d[n + 2] = sub;
    d[n + 3] = trade.priceQuote;
    d[n + 4] = priceUsd;
    d[n + 5] = trade.quoteAmount;
    d[n + 6] = usd;
    d[n + 7] = buy ? 1 : 0;
    this.logLength = n + L;
    if (this.logLength > this.logTradesMax * L) this.enterRings();
  }

  /**
   * The windows as of `now` (or of the newest trade, if later), or only those of `only`
   * (in the order of WINDOW_NAMES; a ranking feed's recompute needs one or two of the
   * five, and each window is a scan of the log or a ring). Does not change state.
   */
  read(now: number, only?: readonly WindowName[]): Windowed {
    const at = now > this.maxAt ? now : this.maxAt;
    const t = only === undefined ? NAMES.slice() : NAMES.filter((name) => only.includes(name));
    const out: Windowed = { t, pp: [], v: [], vb: [], vs: [], tc: [], bc: [], sc: [], m: [], bm: [], sm: [] };
    for (let r = 0; r < RINGS; r++) {
      if (only !== undefined && !only.includes(NAMES[r]!)) continue;
      this.scan(r, at);
      this.emit(out);
    }
    return out;
  }

  /**
   * What `read` gives of one window, written into `out` (its volume in USD, traders,
   * trades and price change, the USD one when known), allocating nothing: the ranking
   * recompute's read of every pool traded (actors/feed/feed.actor.ts readInputs).
   */
  figures<T extends WindowFigures>(now: number, window: WindowName, out: T): T {
    this.scan(NAMES.indexOf(window), now > this.maxAt ? now : this.maxAt);
    const trades = this.scanned();
    out.volume_usd = trades > 0 && tally[C_USD] === 0 ? null : accTotal(F_BUY_QUOTE + USD);
    out.trader_count = tally[C_TRADERS]!;
    out.trade_count = trades;
    out.price_change_pct = this.change(true) ?? this.change(false);
    return out;
  }

  /** Window r at `at` (not before the newest trade) into the scratch sums, counts and start price. */
  private scan(r: number, at: number): void {
    if (this.log) this.readLog(r, at, this.log, this.logLength);
    else this.readRing(r, Math.floor(at / RES[r]!) - N);
  }

  /**
   * Until when (exclusive) `read` of `window` gives what it gives at `now`, no trade
   * added: the time its oldest bucket holding a trade leaves it (a window reads the
   * buckets (⌊t/R⌋ − 60, head], so bucket b leaves at (b + 60)·R). Every figure of the
   * window (sums, counts, distinct wallets, whose marks sit in buckets holding trades,
   * and the start price, the last trade out of it) changes only as a trade enters or
   * leaves it. Infinity for a window holding none. The ranking feeds' recompute re-reads
   * a pool no trade has reached only past this time (actors/feed/feed.actor.ts).
   */
  stableUntil(now: number, window: WindowName): number {
    this.leaveTimes(now, window, FIRST_LEAVE);
    return FIRST_LEAVE[0]!;
  }

  /**
   * `stableUntil` at `now`, then at that time, and so on: the times window's buckets
   * holding a trade leave it, no trade added, into `out` (ascending; the last
   * Infinity when the window is empty by then), `out.length` at most; returns how many.
   * One pass over the log or the ring's marks (the ranking recompute's steps ahead for a
   * passivated pool, actors/feed/feed.actor.ts, took one pass per step).
   */
  leaveTimes(now: number, window: WindowName, out: Float64Array): number {
    const max = out.length;
    if (max === 0) return 0;
    const r = NAMES.indexOf(window);
    const res = RES[r]!;
    const start = Math.floor((now > this.maxAt ? now : this.maxAt) / res) - N;
    // The smallest distinct buckets after start, ascending, in out (n of them so far).
    let n = 0;
    const log = this.log;
    if (log !== null) {
      for (let t = 0; t < this.logLength; t += L) n = keepSmallest(out, n, Math.floor(log[t]! / res), start);
    } else {
      const head = this.rings[r * H + H_HEAD]!;
      for (let half = 0; half < 2; half++) {
        for (let bits = this.occupied[r * 2 + half]!; bits !== 0; bits &= bits - 1) {
          const slot = half * HALF + 31 - Math.clz32(bits & -bits);
          n = keepSmallest(out, n, head - mod(head - slot), start);
        }
      }
    }
    for (let i = 0; i < n; i++) out[i] = (out[i]! + N) * res;
    if (n < max) out[n++] = Infinity;
    return n;
  }

  toSnapshot(): PoolWindowsSnapshot {
    const finite = (x: number) => (Number.isFinite(x) ? x : null);
    const trade = (a: ArrayLike<number>, i: number) => (Number.isFinite(a[i]!) ? [a[i]!, a[i + 1]!, a[i + 2]!, finite(a[i + 3]!)] : null);
    const indices = [...this.walletIndex.values()];
    const snapshot: PoolWindowsSnapshot = {
      v: 1,
      maxAt: finite(this.maxAt),
      first: trade(this.ends, 0),
      last: trade(this.ends, 4),
      wallets: [...this.walletIndex.keys()],
      lastBuy: indices.map((i) => finite(this.lastBuy[i]!)),
      lastSell: indices.map((i) => finite(this.lastSell[i]!)),
    };
    if (this.log) return { ...snapshot, log: { dropped: trade(this.dropped, 0), trades: Array.from(this.log.subarray(0, this.logLength), finite) } };
    snapshot.rings = [];
    for (let r = 0; r < RINGS; r++) {
      const head = this.rings[r * H + H_HEAD]!;
      const rows: Array<number | null> = [];
      for (let s = 0; s < N; s++) {
        if ((this.occupied[r * 2 + (s >= HALF ? 1 : 0)]! & (1 << s % HALF)) === 0) continue;
        const k = r * N + s;
        rows.push(head - mod(head - s), this.c[k * C + C_BUYS]!, this.c[k * C + C_SELLS]!, this.c[k * C + C_USD]!);
        for (let j = 0; j < F; j++) rows.push(finite(this.f[k * F + j]!));
      }
      snapshot.rings.push({ head: finite(head), register: trade(this.rings, r * H + H_REGISTER), rows });
    }
    return snapshot;
  }

  static fromSnapshot(data: unknown, options: PoolWindowsOptions = {}): PoolWindows {
    const s = data as PoolWindowsSnapshot;
    if (s?.v !== 1 || !Array.isArray(s.wallets) || !(s.log || s.rings?.length === RINGS)) throw new Error('PoolWindows.fromSnapshot: not a version 1 snapshot');
    const w = new PoolWindows({ logTradesMax: Infinity });
    const restore = (a: Float64Array | number[], i: number, t: Array<number | null> | null | undefined) => {
      if (t) setTrade(a, i, t[0]!, t[1]!, t[2]!, t[3] ?? NaN);
    };
    w.maxAt = s.maxAt ?? -Infinity;
    restore(w.ends, 0, s.first);
    restore(w.ends, 4, s.last);
    s.wallets.forEach((wallet, i) => {
      const index = w.newWallet(wallet);
      w.lastBuy[index] = s.lastBuy[i] ?? -Infinity;
      w.lastSell[index] = s.lastSell[i] ?? -Infinity;
    });
    if (s.log) {
      restore(w.dropped, 0, s.log.dropped);
      const trades = s.log.trades;
      const log = (w.log = new Float64Array(Math.max(LOG_CAPACITY_MIN, trades.length)));
      for (let i = 0; i < trades.length; i++) log[i] = trades[i] ?? NaN; // only USD values are ever null
      w.logLength = trades.length;
    } else {
      w.allocateRings();
      s.rings!.forEach((ring, r) => {
        const h = r * H;
        w.rings[h + H_HEAD] = ring.head ?? -Infinity;
        restore(w.rings, h + H_REGISTER, ring.register);
        for (let i = 0; i < ring.rows.length; i += ROW) {
          const slot = mod(ring.rows[i]!);
          const k = r * N + slot;
          w.occupied[r * 2 + (slot >= HALF ? 1 : 0)]! |= 1 << slot % HALF;
          for (let j = 0; j < F; j++) w.f[k * F + j] = ring.rows[i + 4 + j] ?? NaN;
          for (let j = 0; j < SUMS; j += 2) ddAdd(w.rings, h + H_SUMS + j, w.f[k * F + j]!, w.f[k * F + j + 1]!);
          for (let j = C_BUYS; j <= C_USD; j++) {
            w.c[k * C + j] = ring.rows[i + 1 + j]!;
            w.rings[h + H_COUNTS + j]! += ring.rows[i + 1 + j]!;
          }
        }
      });
      w.markWallets();
    }
    w.logTradesMax = options.logTradesMax ?? LOG_TRADES_MAX;
    if (w.log && (w.logLength > w.logTradesMax * L || w.logTradesMax <= 0)) w.enterRings();
    return w;
  }

  /** Drops logged trades and wallets whose 24h bucket is ≤ `low` (out of every window), keeping the last such trade by position. */
  private compactLog(low: number): void {
    const log = this.log!;
    let kept = 0;
    for (let t = 0; t < this.logLength; t += L) {
      if (Math.floor(log[t]! / RES_24H) <= low) {
        if (later(log[t + 1]!, log[t + 2]!, this.dropped[0]!, this.dropped[1]!)) setTrade(this.dropped, 0, log[t + 1]!, log[t + 2]!, log[t + 3]!, log[t + 4]!);
        continue;
      }
      for (let j = 0; j < L; j++) log[kept + j] = log[t + j]!;
      kept += L;
    }
    this.logLength = kept;
    this.pruneWallets((low + 1) * RES_24H);
  }

  /** Log mode: window r by one scan of the trades and one of the wallets' last times. */
  private readLog(r: number, at: number, log: Float64Array, length: number): void {
    const { lastBuy, lastSell } = this;
    {
      const res = RES[r]!;
      const start = Math.floor(at / res) - N;
      acc.fill(0);
      tally.fill(0);
      ref.set(this.dropped);
      for (let t = 0; t < length; t += L) {
        if (Math.floor(log[t]! / res) > start) {
          const sum = log[t + 7] ? F_BUY_QUOTE : F_SELL_QUOTE;
          ddAdd(acc, sum, log[t + 5]!, 0);
          tally[log[t + 7] ? C_BUYS : C_SELLS]++;
          if (log[t + 6] === log[t + 6]) {
            ddAdd(acc, sum + USD, log[t + 6]!, 0);
            tally[C_USD]++;
          }
        } else if (later(log[t + 1]!, log[t + 2]!, ref[0]!, ref[1]!)) setTrade(ref, 0, log[t + 1]!, log[t + 2]!, log[t + 3]!, log[t + 4]!);
      }
      for (let w = 0; w < lastBuy.length; w++) {
        const buyer = Math.floor(lastBuy[w]! / res) > start;
        const seller = Math.floor(lastSell[w]! / res) > start;
        if (buyer || seller) tally[C_TRADERS]++;
        if (buyer) tally[C_BUYERS]++;
        if (seller) tally[C_SELLERS]++;
      }
    }
  }

  /** Ring mode: the ring's totals less its buckets (head − 60, start] that `now` has left. */
  private readRing(r: number, start: number): void {
    const { f, c, rings } = this;
    const h = r * H;
    const head = rings[h + H_HEAD]!;
    for (let j = 0; j < 4; j++) ref[j] = rings[h + H_REGISTER + j]!;
    for (let j = 0; j < SUMS; j++) acc[j] = rings[h + H_SUMS + j]!;
    for (let j = 0; j < C; j++) tally[j] = rings[h + H_COUNTS + j]!;
    selectSlots(mod(head + 1), start - head + N);
    for (let half = 0; half < 2; half++) {
      for (let bits = this.occupied[r * 2 + half]! & selected[half]!; bits !== 0; bits &= bits - 1) {
        const k = r * N + half * HALF + 31 - Math.clz32(bits & -bits);
        const row = k * F;
        for (let j = 0; j < SUMS; j += 2) ddAdd(acc, j, -f[row + j]!, -f[row + j + 1]!);
        for (let j = 0; j < C; j++) tally[j]! -= c[k * C + j]!;
        if (later(f[row + F_SLOT]!, f[row + F_SLOT + 1]!, ref[0]!, ref[1]!)) setTrade(ref, 0, f[row + F_SLOT]!, f[row + F_SLOT + 1]!, f[row + F_SLOT + 2]!, f[row + F_SLOT + 3]!);
      }
    }
  }

  /** The scanned window's price change in percent, in USD or in the quote (null: no price to start from). */
  private change(usd: boolean): number | null {
    const e = this.ends;
    if (e[4] === -Infinity) return null;
    // With nothing before the window, the pool is younger than it: its first trade opens it.
    const start = ref[0] === -Infinity ? e[usd ? 3 : 2]! : ref[usd ? 3 : 2]!;
    const last = e[usd ? 7 : 6]!;
    return start > 0 && (!usd || last === last) ? (last / start - 1) * 100 : null;
  }

  /** The scanned window's trade count; an empty window's sums are set to exactly 0, whatever rounding subtractions left. */
  private scanned(): number {
    const trades = tally[C_BUYS]! + tally[C_SELLS]!;
    if (trades === 0) acc.fill(0);
    return trades;
  }

  /** Appends the scanned window (scratch sums, counts and start price). */
  private emit(out: Windowed): void {
    out.pp.push([this.change(false), this.change(true)]);
    const trades = this.scanned();
    const noUsd = trades > 0 && tally[C_USD] === 0;
    out.v.push([accTotal(F_BUY_QUOTE), noUsd ? null : accTotal(F_BUY_QUOTE + USD)]);
    out.vb.push([accValue(F_BUY_QUOTE), noUsd ? null : accValue(F_BUY_QUOTE + USD)]);
    out.vs.push([accValue(F_SELL_QUOTE), noUsd ? null : accValue(F_SELL_QUOTE + USD)]);
    out.tc.push(trades);
    out.bc.push(tally[C_BUYS]!);
    out.sc.push(tally[C_SELLS]!);
    out.m.push(tally[C_TRADERS]!);
    out.bm.push(tally[C_BUYERS]!);
    out.sm.push(tally[C_SELLERS]!);
  }

  /** A log twice as long (LOG_CAPACITY_MIN at first), holding the trades so far. */
  private growLog(): Float64Array {
    const log = this.log!;
    const grown = new Float64Array(Math.max(LOG_CAPACITY_MIN, log.length * 2));
    grown.set(log.subarray(0, this.logLength));
    this.log = grown;
    return grown;
  }

  /** Moves the pool from its log to rings: replays the log (in any order) and marks every wallet's buckets. */
  private enterRings(): void {
    const log = this.log ?? NO_TRADES;
    const length = this.logLength;
    this.log = null;
    this.logLength = 0;
    this.allocateRings();
    for (let t = 0; t < length; t += L) this.addToRings(log[t]!, log[t + 1]!, log[t + 2]!, log[t + 3]!, log[t + 4]!, log[t + 5]!, log[t + 6]!, log[t + 7] === 1);
    this.markWallets();
  }

  private allocateRings(): void {
    this.log = null;
    const buffer = new ArrayBuffer(BYTES);
    this.f = new Float64Array(buffer, 0, RINGS * N * F);
    this.c = new Uint32Array(buffer, FLOAT_BYTES, RINGS * N * C);
    for (let r = 0; r < RINGS; r++) {
      this.rings[r * H + H_HEAD] = -Infinity;
      setTrade(this.rings, r * H + H_REGISTER, this.dropped[0]!, this.dropped[1]!, this.dropped[2]!, this.dropped[3]!);
    }
  }

  /** Marks, in every ring, the buckets of each wallet's last trade, last buy and last sell (rings without marks yet). */
  private markWallets(): void {
    for (const i of this.walletIndex.values()) {
      for (let r = 0; r < RINGS; r++) {
        const low = this.rings[r * H + H_HEAD]! - N;
        this.move(r, C_TRADERS, -Infinity, Math.max(this.lastBuy[i]!, this.lastSell[i]!), low);
        this.move(r, C_BUYERS, -Infinity, this.lastBuy[i]!, low);
        this.move(r, C_SELLERS, -Infinity, this.lastSell[i]!, low);
      }
    }
  }

  /** Adds a trade to each ring's bucket (advancing the ring first); wallet marks are the caller's. */
  private addToRings(at: number, slot: number, sub: number, priceQuote: number, priceUsd: number, quote: number, usd: number, buy: boolean): void {
    const { f, c, rings, occupied } = this;
    const hasUsd = usd === usd;
    const sum = buy ? F_BUY_QUOTE : F_SELL_QUOTE;
    const count = buy ? C_BUYS : C_SELLS;
    for (let r = 0; r < RINGS; r++) {
      const h = r * H;
      const b = Math.floor(at / RES[r]!);
      if (b > rings[h + H_HEAD]!) this.advance(r, b);
      if (b > rings[h + H_HEAD]! - N) {
        const s = mod(b);
        const k = r * N + s;
        const row = k * F;
        const word = r * 2 + (s >= HALF ? 1 : 0);
        const bit = 1 << (s >= HALF ? s - HALF : s);
        const empty = (occupied[word]! & bit) === 0;
        occupied[word]! |= bit;
        ddAdd(f, row + sum, quote, 0);
        ddAdd(rings, h + H_SUMS + sum, quote, 0);
        if (hasUsd) {
          ddAdd(f, row + sum + USD, usd, 0);
          ddAdd(rings, h + H_SUMS + sum + USD, usd, 0);
          c[k * C + C_USD]++;
          rings[h + H_COUNTS + C_USD]++;
        }
        c[k * C + count]++;
        rings[h + H_COUNTS + count]++;
        if (empty || later(slot, sub, f[row + F_SLOT]!, f[row + F_SLOT + 1]!)) setTrade(f, row + F_SLOT, slot, sub, priceQuote, priceUsd);
      } else if (later(slot, sub, rings[h + H_REGISTER]!, rings[h + H_REGISTER + 1]!)) {
        // Older than the ring (a late arrival): in order, it would have been evicted into the register.
        setTrade(rings, h + H_REGISTER, slot, sub, priceQuote, priceUsd);
      }
    }
  }

  /** Moves a wallet's mark in ring r from the bucket of time `from` to that of `to`; marks outside the ring (≤ low) do not count. */
  private move(r: number, field: number, from: number, to: number, low: number): void {
    const fromBucket = Math.floor(from / RES[r]!);
    const toBucket = Math.floor(to / RES[r]!);
    if (fromBucket === toBucket) return;
    if (fromBucket > low) {
      this.c[(r * N + mod(fromBucket)) * C + field]--;
      this.rings[r * H + H_COUNTS + field]--;
    }
    if (toBucket > low) {
      this.c[(r * N + mod(toBucket)) * C + field]++;
      this.rings[r * H + H_COUNTS + field]++;
    }
  }

  /** Makes b the newest bucket of ring r: buckets (head − 60, b − 60] leave, their slots taken by (head, b]. */
  private advance(r: number, b: number): void {
    const { f, c, rings, occupied } = this;
    const h = r * H;
    const head = rings[h + H_HEAD]!;
    selectSlots(head === -Infinity ? 0 : mod(head + 1), b - head);
    for (let half = 0; half < 2; half++) {
      let bits = occupied[r * 2 + half]! & selected[half]!;
      occupied[r * 2 + half]! &= ~selected[half]!;
      for (; bits !== 0; bits &= bits - 1) {
        const k = r * N + half * HALF + 31 - Math.clz32(bits & -bits);
        const row = k * F;
        if (later(f[row + F_SLOT]!, f[row + F_SLOT + 1]!, rings[h + H_REGISTER]!, rings[h + H_REGISTER + 1]!)) {
          setTrade(rings, h + H_REGISTER, f[row + F_SLOT]!, f[row + F_SLOT + 1]!, f[row + F_SLOT + 2]!, f[row + F_SLOT + 3]!);
        }
        for (let j = 0; j < SUMS; j += 2) ddAdd(rings, h + H_SUMS + j, -f[row + j]!, -f[row + j + 1]!);
        for (let j = 0; j < C; j++) rings[h + H_COUNTS + j]! -= c[k * C + j]!;
        f.fill(0, row, row + F);
        c.fill(0, k * C, k * C + C);
      }
    }
    // An emptied ring restarts its sums at exactly 0, so rounding left by subtractions never lingers.
    if ((occupied[r * 2]! | occupied[r * 2 + 1]!) === 0) rings.fill(0, h + H_SUMS, h + H_SUMS + SUMS);
    rings[h + H_HEAD] = b;
    if (r === RINGS - 1) this.pruneWallets((b - N + 1) * RES_24H);
  }

  /** Drops wallets whose last trade is before `before`: out of every ring, as the 24h ring reaches furthest back. */
  private pruneWallets(before: number): void {
    for (const [wallet, i] of this.walletIndex) {
      if (this.lastBuy[i]! >= before || this.lastSell[i]! >= before) continue;
      this.walletIndex.delete(wallet);
      this.lastBuy[i] = this.lastSell[i] = -Infinity;
      this.freeWallets.push(i);
    }
  }

  private newWallet(wallet: string): number {
    let i = this.freeWallets.pop();
    if (i === undefined) {
      i = this.lastBuy.length;
      this.lastBuy.push(-Infinity);
      this.lastSell.push(-Infinity);
    }
    this.walletIndex.set(wallet, i);
    return i;
  }
}

/** `stableUntil`'s out: the first of `leaveTimes`. */
const FIRST_LEAVE = new Float64Array(1);

/**
 * `leaveTimes`' set: bucket `b`, if after `start`, into `out`'s first `n` (ascending,
 * distinct), the largest dropped when `out` is full; returns how many it holds.
 */
function keepSmallest(out: Float64Array, n: number, b: number, start: number): number {
  if (!(b > start)) return n;
  let i = 0;
  while (i < n && out[i]! < b) i++;
  if ((i < n && out[i] === b) || i === out.length) return n;
  for (let j = n < out.length ? n : out.length - 1; j > i; j--) out[j] = out[j - 1]!;
  out[i] = b;
  return n < out.length ? n + 1 : n;
}
