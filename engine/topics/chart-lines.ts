import { LV, levelQuote, notHolders, spotPrice, supplyOf, type PoolState, type Position, type TokenState, type WalletState } from '../../actors/index.ts';
import { TRADE, type DerivedEvent } from '../model/index.ts';
import type { IngestEvent } from '../ingest/index.ts';
import { topics } from './names.ts';
import type { TopicSink } from './sink.ts';

/**
 * The `chart_lines` stream (SERVICE.md 2.10, 4.4, 6; DECISIONS.md "Signals, posts,
 * markers, chart lines"): price levels to draw on a pool's chart, on topics
 * `chart_lines:<pool>:<token>:<top_holder_count>:<wallet_addresses>:<wallet_address>`
 * (the payload normalized: wallet_addresses as a sorted set, `-` for none), so
 * subscriptions with the same parameters share one topic and one frame.
 *
 * Lines, in this order (a kind without data has no line; ids are stable):
 * - `ath` (id `ath`): the token's highest market cap, as GET /tokens/{token} counts it:
 *   in quote over its pools quoted like the subscribed pool, in USD over all of them;
 *   price = market cap / total supply; set_at: when the quote ATH was set.
 * - `migration` (id `migration`): the token's bonding curve once it graduated or
 *   completed: its spot price after its last trade (USD at that trade's quote price);
 *   set_at: the migration's time (the completing trade's without one).
 * - `dev_buy` / `dev_sell` (ids the same): the creator's average buy / sell level.
 * - `top_buy` / `top_sell` (ids `top_buy:<wallet>`, `top_sell:<wallet>`): for each of
 *   the `top_holder_count` largest holders (GET /tokens/{token}/holders order: pools and
 *   the burn address left out), the price of its largest buy / sell of the token by
 *   tokens; label `Top <rank> buy`; supply_pct: that trade's tokens.
 * - `kol_buy` (id `kol_buy`): the average buy level of every kol-labeled wallet that
 *   bought the token, over all their buys together; wallet_count: how many.
 * - `watchlist_buy` (ids `watchlist_buy:<wallet>`): each of `wallet_addresses`' average buy.
 * - `self_buy` / `self_sell` (ids the same): `wallet_address`'s average buy / sell.
 *
 * An average level is volume-weighted over the wallet's trades of the token where it is
 * the pool's base (wallet accounting's position, actors/wallet Position.lvBuy and lvSell):
 * price_quote = quote paid / tokens bought, over its trades quoted in the asset of its
 * first trade, and only when the subscribed pool is quoted in that asset (else null);
 * price_usd = USD paid / tokens bought over its trades with a USD value (null: none);
 * supply_pct = tokens bought (sold) / total supply × 100; set_at: its latest buy
 * (sell). Market caps are price × the token's total supply now (DECISIONS.md "Prices
 * and market cap"), null without a supply.
 *
 * Cadence: lines are recomputed on the engine-clock ticker every CHART_LINES_MS (1 s)
 * for tokens that changed since the last tick (a trade of the token, a holder
 * balance, its curve's graduation, a token, pool or migration event of it, a kol
 * label anywhere), and an event goes out only when a topic's frame differs from the
 * one it last sent: a busy pool sends at most one event a second. A new subscriber
 * gets the current lines at once (the last frame sent, or computed now when changes
 * are pending). Every event carries every line; the client replaces what it holds.
 *
 * Bounded: state exists only for tokens with subscribers (dropped at the first tick
 * after the last one leaves), a trade costs one Map lookup, and a recompute reads the
 * token, its pools, the named wallets, the top holders' wallets (the holder order,
 * O(log n) per balance change) and the kol wallets seen in the token, never every holder.
 */

/** How often lines are recomputed, in engine time. */
export const CHART_LINES_MS = 1_000;

/** What a subscription names (SERVICE.md 4.4), normalized: wallets sorted and distinct. */
export interface ChartLinesParams {
  pool_address: string;
  token_address: string;
  top_holder_count: number;
  wallet_addresses: readonly string[];
  wallet_address: string | null;
}

/** The topic of a normalized subscription. */
export const chartLinesTopic = (p: ChartLinesParams): string =>
  topics.chartLines(p.pool_address, p.token_address, p.top_holder_count, p.wallet_addresses.length ? p.wallet_addresses.join(',') : '-', p.wallet_address ?? '-');

/** What the lines are read from: the actors (through their hosts' reads). */
export interface ChartReads {
  token(address: string): Readonly<TokenState> | undefined;
  pool(address: string): Readonly<PoolState> | undefined;
  /** Undefined for a wallet that never traded, and always when wallet accounting is off. */
  wallet(address: string): Readonly<WalletState> | undefined;
  labels(wallet: string): readonly string[];
  /** Wallets that traded the token (its top traders' rows), to find its kols when a token's lines begin. */
  traders(token: string): Iterable<string>;
}

export interface ChartLineStreamsOptions {
  reads: ChartReads;
  sink: () => TopicSink;
}

/** A chart line (SERVICE.md 2.10), members in this order. */
export interface ChartLine {
  id: string;
  kind: string;
  label: string | null;
  supply_pct: number | null;
  wallet_count: number | null;
  set_at: number | null;
  price_usd: number | null;
  price_quote: number | null;
  market_cap_usd: number | null;
  market_cap_quote: number | null;
}

const KOL = 'kol';

interface Topic {
  readonly params: ChartLinesParams;
  readonly name: string;
  /** The frame last sent on the topic (or to its first subscriber). */
  sent: string | null;
}

/** The subscribed topics of one token, and what they share. */
interface TokenLines {
  readonly topics: Map<string, Topic>;
  /** Changed since the last tick. */
  dirty: boolean;
  /** Wallets seen trading the token with a kol label (checked again at each recompute). */
  readonly kols: Set<string>;
}

/** One recompute of a token: the lines its topics share, by the subscribed pool's quote asset. */
interface Shared {
  token: Readonly<TokenState> | undefined;
  supply: number | null;
  byQuote: Map<string, QuoteLines>;
  /** The 25 largest holders' wallets (at most), largest first, once read. */
  top: string[] | null;
}

/** A line of the holder of a rank (1: the largest). */
type RankedLine = [rank: number, line: string];

/** The lines every topic of a token on pools of one quote asset shares, each made once per recompute. */
interface QuoteLines {
  /** ath, migration, dev_buy, dev_sell. */
  common: string[];
  /** top_buy and top_sell of the 25 largest holders (null: not made yet). */
  buys: RankedLine[] | null;
  sells: RankedLine[] | null;
  /** kol_buy (null: none; undefined: not made yet). */
  kol: string | null | undefined;
}

export class ChartLineStreams {
  private readonly tokens = new Map<string, TokenLines>();

  constructor(private readonly options: ChartLineStreamsOptions) {}

  /** Registers the recompute tick. */
  start(ticker: { every(name: string, everyMs: number, onTick: (at: number) => void): unknown }): void {
    ticker.every('chart_lines', CHART_LINES_MS, () => this.tick());
  }

  /**
   * A subscription's first frame: its topic's last frame, or the lines now when the
   * topic is new or its token changed since. The caller has joined the topic's channel.
   */
  subscribed(params: ChartLinesParams): string {
    const name = chartLinesTopic(params);
    let lines = this.tokens.get(params.token_address);
    if (lines === undefined) {
      lines = { topics: new Map(), dirty: false, kols: new Set() };
      this.seedKols(params.token_address, lines.kols);
      this.tokens.set(params.token_address, lines);
    }
    let topic = lines.topics.get(name);
    if (topic !== undefined && topic.sent !== null && !lines.dirty) return topic.sent;
    const frame = this.frame(params, lines, this.shared(params.token_address));
    if (topic === undefined) lines.topics.set(name, (topic = { params, name, sent: frame }));
    // A topic others follow keeps what they were sent: the tick compares with that.
    return frame;
  }

  /** Derived events (router subscriber): what changes a token's lines. */
  derived(e: DerivedEvent): void {
    if (this.tokens.size === 0) return;
    if (e.type === 'pool.trade') {
      const lines = this.tokens.get(e.base_address);
      if (lines === undefined) return;
      lines.dirty = true;
      const wallet = e.trade[TRADE.wallet];
      if (!lines.kols.has(wallet) && this.options.reads.labels(wallet).includes(KOL)) lines.kols.add(wallet);
    } else if (e.type === 'token.holders' || e.type === 'pool.graduated') this.mark(e.token_address);
  }

  /** Ingest events (after the actors applied them): token, pool and migration events of a token, kol labels. */
  ingested(e: IngestEvent): void {
    if (this.tokens.size === 0) return;
    switch (e.type) {
      case 'token':
      case 'migration':
        return this.mark(e.token_address);
      case 'pool':
        return this.mark(e.base_address);
      case 'label':
        if (e.label !== KOL) return;
        for (const [token, lines] of this.tokens) {
          lines.dirty = true;
          if (e.action === 'add' && this.options.reads.wallet(e.wallet_address)?.positions.has(token)) lines.kols.add(e.wallet_address);
        }
    }
  }

  private mark(token: string): void {
    const lines = this.tokens.get(token);
    if (lines) lines.dirty = true;
  }

  /** The tick: topics nobody follows are dropped; changed tokens' topics get a new frame if it differs. */
  tick(): void {
    const sink = this.options.sink();
    for (const [token, lines] of this.tokens) {
      for (const [name] of lines.topics) if (!sink.has(name)) lines.topics.delete(name);
      if (lines.topics.size === 0) {
        this.tokens.delete(token);
        continue;
      }
      if (!lines.dirty) continue;
      lines.dirty = false;
      const shared = this.shared(token);
      for (const topic of lines.topics.values()) {
        const frame = this.frame(topic.params, lines, shared);
        if (frame === topic.sent) continue;
        topic.sent = frame;
        sink.publish(topic.name, frame);
      }
    }
  }

  /** Tokens with subscribed topics (tests, metrics). */
  get size(): number {
    return this.tokens.size;
  }

  private seedKols(token: string, kols: Set<string>): void {
    const { reads } = this.options;
    for (const wallet of reads.traders(token)) if (reads.labels(wallet).includes(KOL)) kols.add(wallet);
  }

  private shared(token: string): Shared {
    const state = this.options.reads.token(token);
    return { token: state, supply: supplyOf(state as TokenState | undefined), byQuote: new Map(), top: null };
  }

  /** The frame of a topic (serialized once per topic and change). */
  private frame(p: ChartLinesParams, lines: TokenLines, shared: Shared): string {
    const pool = this.options.reads.pool(p.pool_address)?.info;
    // The subscribed pool's quote asset, when it is a pool of the token (as base).
    const quote = pool && pool.base_address === p.token_address ? pool.quote_address : null;
    let q = shared.byQuote.get(quote ?? '');
    if (q === undefined) shared.byQuote.set(quote ?? '', (q = { common: this.commonLines(p.token_address, quote, shared), buys: null, sells: null, kol: undefined }));
    const out = q.common.slice();
    const n = p.top_holder_count;
    if (n > 0) {
      if (q.buys === null) this.topLines(p.token_address, quote, shared, q);
      for (const [rank, l] of q.buys!) if (rank <= n) out.push(l);
      for (const [rank, l] of q.sells!) if (rank <= n) out.push(l);
    }
    if (q.kol === undefined) q.kol = this.kolLine(lines, p.token_address, quote, shared.supply);
    if (q.kol !== null) out.push(q.kol);
    for (const wallet of p.wallet_addresses) {
      const line = this.walletLine(wallet, p.token_address, 'buy', quote, shared.supply, 'watchlist_buy', `watchlist_buy:${wallet}`, `${wallet.slice(0, 4)}…${wallet.slice(-4)} buy`);
      if (line) out.push(line);
    }
    if (p.wallet_address !== null) {
      for (const side of ['buy', 'sell'] as const) {
        const line = this.walletLine(p.wallet_address, p.token_address, side, quote, shared.supply, `self_${side}`, `self_${side}`, `Your ${side}`);
        if (line) out.push(line);
      }
    }
    return `{"stream":"chart_lines","data":{"pool_address":${JSON.stringify(p.pool_address)},"token_address":${JSON.stringify(p.token_address)},"wallet_address":${JSON.stringify(p.wallet_address)},"lines":[${out.join(',')}]}}`;
  }

  /** ath, migration, dev_buy, dev_sell: the same for every topic of the token on pools of one quote asset. */
  private commonLines(token: string, quote: string | null, shared: Shared): string[] {
    const out: string[] = [];
    const state = shared.token;
    if (!state) return out;
    const { reads } = this.options;
    const supply = shared.supply;
    let athQuote = 0;
    let athUsd: number | null = null;
    let athAt: number | null = null;
    let curve: Readonly<PoolState> | null = null;
    for (const address of state.pools) {
      const pool = reads.pool(address);
      const info = pool?.info;
      if (!pool || !info || info.base_address !== token) continue;
      const t = pool.totals;
      if (t.ath_market_cap_usd !== null && t.ath_market_cap_usd > (athUsd ?? -Infinity)) athUsd = t.ath_market_cap_usd;
      if (info.quote_address === quote && t.ath_market_cap_quote > athQuote) {
        athQuote = t.ath_market_cap_quote;
        athAt = t.ath_at ?? null;
      }
      if (info.pool_type === 'bonding_curve' && (info.replaced_by_pool_address !== null || pool.completed_key !== null)) curve = pool;
    }
    if (athQuote > 0 || athUsd !== null) {
      const mcQuote = athQuote > 0 ? athQuote : null;
      out.push(line('ath', 'ath', 'ATH', null, null, athAt, per(athUsd, supply), per(mcQuote, supply), athUsd, mcQuote));
    }
    if (curve !== null) {
      const info = curve.info!;
      const spot = spotPrice(curve as PoolState);
      if (spot > 0) {
        const priceQuote = info.quote_address === quote ? spot : null;
        const priceUsd = curve.last_quote_usd !== null ? spot * curve.last_quote_usd : null;
        const at = info.migrated_at ?? curve.completed_key?.[0] ?? null;
        out.push(line('migration', 'migration', 'Migration', null, null, at, priceUsd, priceQuote, times(priceUsd, supply), times(priceQuote, supply)));
      }
    }
    const creator = state.fields.creator_address;
    if (typeof creator === 'string') {
      for (const side of ['buy', 'sell'] as const) {
        const l = this.walletLine(creator, token, side, quote, supply, `dev_${side}`, `dev_${side}`, `Dev ${side}`);
        if (l) out.push(l);
      }
    }
    return out;
  }

  /** top_buy and top_sell lines of the 25 largest holders, by rank (a topic takes those of its top_holder_count). */
  private topLines(token: string, quote: string | null, shared: Shared, q: QuoteLines): void {
    const top = this.topHolders(token, shared);
    const buys: RankedLine[] = (q.buys = []);
    const sells: RankedLine[] = (q.sells = []);
    for (let i = 0; i < top.length; i++) {
      const wallet = top[i]!;
      const p = this.options.reads.wallet(wallet)?.positions.get(token);
      if (!p) continue;
      for (const [side, kind, list] of [[p.lvBuy, 'buy', buys], [p.lvSell, 'sell', sells]] as const) {
        if (!side || !(side[LV.topTokens]! > 0)) continue;
        const tokens = side[LV.topTokens]!;
        const usd = side[LV.topPriceUsd]!;
        const priceUsd = Number.isNaN(usd) ? null : usd;
        const at = side[LV.topAt]!;
        const priceQuote = side[LV.topPriceQuote]!;
        const pq = levelQuote(p) === quote ? priceQuote : null;
        list.push([i + 1, line(`top_${kind}:${wallet}`, `top_${kind}`, `Top ${i + 1} ${kind}`, pct(tokens, shared.supply), 1, at, priceUsd, pq, times(priceUsd, shared.supply), times(pq, shared.supply))]);
      }
    }
  }

  /** The token's 25 largest holders (at most), made once per recompute of the token. */
  private topHolders(token: string, shared: Shared): string[] {
    if (shared.top !== null) return shared.top;
    const top: string[] = [];
    const state = shared.token;
    if (state?.holders.seen) {
      const excluded = notHolders(state as TokenState);
      for (const h of state.holders.ordered().after(undefined)) {
        if (excluded.includes(h.wallet)) continue;
        top.push(h.wallet);
        if (top.length === 25) break;
      }
    }
    return (shared.top = top);
  }

  /** The kol wallets' average buy, over all their buys of the token (wallets in address order: the same sums every run). */
  private kolLine(lines: TokenLines, token: string, quote: string | null, supply: number | null): string | null {
    if (lines.kols.size === 0) return null;
    const { reads } = this.options;
    const sum = newSums();
    let wallets = 0;
    for (const wallet of [...lines.kols].sort()) {
      if (!reads.labels(wallet).includes(KOL)) continue;
      const p = reads.wallet(wallet)?.positions.get(token);
      if (!p?.lvBuy) continue;
      wallets++;
      addSide(sum, p, 'buy', quote);
    }
    if (wallets === 0) return null;
    return levelLine('kol_buy', 'kol_buy', 'KOL buy', sum, wallets, supply);
  }

  /** A wallet's average buy or sell level in the token, or null when it has none. */
  private walletLine(wallet: string, token: string, side: 'buy' | 'sell', quote: string | null, supply: number | null, kind: string, id: string, label: string): string | null {
    const p = this.options.reads.wallet(wallet)?.positions.get(token);
    if (!p || (side === 'buy' ? !p.lvBuy : !p.lvSell)) return null;
    const sum = newSums();
    addSide(sum, p, side, quote);
    if (!(sum.tokens > 0)) return null;
    return levelLine(id, kind, label, sum, 1, supply);
  }
}

interface Sums {
  tokens: number;
  quoteTokens: number;
  quote: number;
  pricedTokens: number;
  usd: number;
  at: number | null;
}

const newSums = (): Sums => ({ tokens: 0, quoteTokens: 0, quote: 0, pricedTokens: 0, usd: 0, at: null });

/** Adds a position's buys or sells; quote sums only from a position quoted in `quote`. */
function addSide(s: Sums, p: Position, which: 'buy' | 'sell', quote: string | null): void {
  const side = which === 'buy' ? p.lvBuy : p.lvSell;
  if (side === null) return;
  s.tokens += side[LV.tokens]!;
  if (quote !== null && levelQuote(p) === quote) {
    s.quoteTokens += side[LV.quoteTokens]!;
    s.quote += side[LV.quote]!;
  }
  s.pricedTokens += side[LV.pricedTokens]!;
  s.usd += side[LV.usd]!;
  const at = side[LV.at]!;
  if (s.at === null || at > s.at) s.at = at;
}

function levelLine(id: string, kind: string, label: string, s: Sums, wallets: number, supply: number | null): string {
  const priceQuote = s.quoteTokens > 0 ? s.quote / s.quoteTokens : null;
  const priceUsd = s.pricedTokens > 0 ? s.usd / s.pricedTokens : null;
  return line(id, kind, label, pct(s.tokens, supply), wallets, s.at, priceUsd, priceQuote, times(priceUsd, supply), times(priceQuote, supply));
}

const per = (mc: number | null, supply: number | null): number | null => (mc === null || !supply ? null : mc / supply);
const times = (price: number | null, supply: number | null): number | null => (price === null || !supply ? null : price * supply);
const pct = (tokens: number, supply: number | null): number | null => (!supply ? null : Math.min(100, (tokens / supply) * 100));

function line(id: string, kind: string, label: string | null, supply_pct: number | null, wallet_count: number | null, set_at: number | null, price_usd: number | null, price_quote: number | null, market_cap_usd: number | null, market_cap_quote: number | null): string {
  const l: ChartLine = { id, kind, label, supply_pct, wallet_count, set_at, price_usd, price_quote, market_cap_usd, market_cap_quote };
  return JSON.stringify(l);
}
