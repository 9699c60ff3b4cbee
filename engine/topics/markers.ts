import { MARKERS_ATH_CACHED_MAX } from '../bounds.ts';
import type { SocialPostEvent } from '../ingest/index.ts';
import { TRADE, type PoolGraduatedEvent, type PoolTradeEvent, type Signal } from '../model/index.ts';
import { WriteOverlay, type Storage } from '../../storage/index.ts';
import { topics } from './names.ts';
import type { TopicSink } from './sink.ts';

/**
 * The `markers` stream (SERVICE.md 4.4, 6.1; DECISIONS.md "Signals, posts, markers, chart
 * lines"), on `markers:<token_address>`. Events (data.event):
 * - `mark` {token_address, marker_id, at, type, source, detail}:
 *   - `callout`: a post naming the token; source its platform (x, telegram...), detail
 *     {post_id, author, author_wallet_address, url}; marker_id `callout:<post_id>`;
 *   - `signal`: a signal on the token (the `signal` derived event); source its kind,
 *     detail {signal_id, kind, score, pool_address, wallet_addresses}; `signal:<signal_id>`;
 *   - `migration`: a curve of the token graduated into another pool (`pool.graduated` of
 *     its `migration`); source `market`, detail {from_pool_address, to_pool_address};
 *     `migration:<curve>`;
 *   - `ath`: a new all-time high (ATH_RULE below); source `market`, detail
 *     {market_cap_usd, price_usd, pool_address, trade_id}; `ath:<trade_id>`;
 * - `labeled_trade`: a trade of a wallet with a label in force (SERVICE.md 6.1), with
 *   token_address and marker_id `labeled_trade:<trade_id>`;
 * - `remove` {token_address, marker_id}: the mark is withdrawn:
 *   - a label removed from a wallet withdraws its labeled trades that carried it (a
 *     trade whose wallet keeps other labels is sent again as a `labeled_trade` with the
 *     same marker_id and the labels left) and the signal marks that label produced (a
 *     signal of one wallet whose `detail.labels`, or kol_buy's `kol` and
 *     smart_money_buy's `smart_money`, held it);
 *   - a new ATH mark withdraws the previous one (one ATH mark per token);
 *   - posts have no deletion event in INGEST.md: a callout is never withdrawn.
 * marker_ids are built from the events' own ids, so a replay gives the same ones.
 *
 * A new subscriber first gets the token's last RECENT_MARKS marks still in force (marks
 * and labeled trades, oldest first, as `mark` / `labeled_trade` events with the bytes
 * they were first sent with): a chart draws them at once.
 *
 * Stored in `marks` (LMDB), so the recent marks and what withdraws them outlive a restart:
 *   [token, at, marker_id]            → [data JSON, wallet | null, labels producing it | null]
 *   [0, wallet, token, at, marker_id] → true: marks a wallet's labels produced
 *   [1, token]                        → the ATH mark in force: [market cap, marker_id, at, data
 *                                       JSON] (one put per new ATH: the ATH mark is not in
 *                                       the per-token range, the recent marks add it)
 *   [2, token, marker_id]             → at: which marks exist (a mark made again, as on
 *                                       start-up replay after a crash, is not sent twice)
 */

/** Marks a new subscriber gets first. */
export const RECENT_MARKS = 50;

/**
 * The ATH rule: a trade of the token (its pool's base token, USD known) marks a new ATH
 * when its market_cap_usd is at least `minMarketCapUsd` and at least (1 + stepPct/100)
 * times the market cap of the token's previous ATH mark. Every trade at or above that
 * bar is above every earlier trade of the token (any earlier one there would have been
 * marked), so each mark is an all-time high, and a climb of many small highs gives one
 * mark per step, not one per trade.
 */
export const ATH_RULE = { minMarketCapUsd: 10_000, stepPct: 25 } as const;

const BY_WALLET = 0;
const ATH = 1;
const EXISTS = 2;
const TOP = Number.MAX_SAFE_INTEGER;

/** The label each wallet kind of signal needs when the signal's detail names none. */
const SIGNAL_LABEL: Readonly<Record<string, string>> = { kol_buy: 'kol', smart_money_buy: 'smart_money' };

export const markersFrame = (data: string): string => `{"stream":"markers","data":${data}}`;

type StoredMark = [data: string, wallet: string | null, labels: string[] | null];
type AthMark = [marketCapUsd: number, markerId: string, at: number, data: string];

export interface MarkerStreamsOptions {
  storage: Pick<Storage, 'marks'>;
  sink: () => TopicSink;
}

export class MarkerStreams {
  /**
   * token → its ATH mark [market cap, marker_id, at, data] (null: none yet), read from
   * `marks` on first use; a cache of at most MARKERS_ATH_CACHED_MAX tokens, the first
   * cached dropped past it (`db`, committed or not, is what it caches).
   */
  private readonly athOf = new Map<string, AthMark | null>();

  /** The marks database as the writes issued left it, committed or not (storage/overlay.ts): what is sent never depends on commit timing. */
  private readonly db: WriteOverlay<unknown>;

  constructor(private readonly options: MarkerStreamsOptions) {
    this.db = new WriteOverlay(options.storage.marks);
  }

  /** A post naming tokens: a callout mark on each. */
  onPost(e: SocialPostEvent): void {
    for (const token of new Set(e.token_addresses)) {
      const detail = { post_id: e.post_id, author: e.author, author_wallet_address: e.author_wallet_address ?? null, url: e.url ?? null };
      this.mark(token, `callout:${e.post_id}`, e.at, 'callout', e.platform, detail, null, null);
    }
  }

  /** A signal (the `signal` derived event): a mark on its token. */
  onSignal(s: Signal): void {
    const detail = { signal_id: s.signal_id, kind: s.kind, score: s.score, pool_address: s.pool_address, wallet_addresses: s.wallet_addresses };
    let wallet: string | null = null;
    let labels: string[] | null = null;
    if (s.wallet_addresses.length === 1) {
      const named = s.detail.labels;
      labels = Array.isArray(named) ? [...(named as readonly string[])] : SIGNAL_LABEL[s.kind] ? [SIGNAL_LABEL[s.kind]!] : null;
      if (labels !== null && labels.length > 0) wallet = s.wallet_addresses[0]!;
      else labels = null;
    }
    this.mark(s.token_address, `signal:${s.signal_id}`, s.at, 'signal', s.kind, detail, wallet, labels);
  }

  /** A curve graduated into another pool (its `migration`): a migration mark. A curve that completed and has not migrated yet has none. */
  onGraduated(e: PoolGraduatedEvent): void {
    if (e.migrated_to_pool_address === null) return;
    const detail = { from_pool_address: e.pool_address, to_pool_address: e.migrated_to_pool_address };
    this.mark(e.token_address, `migration:${e.pool_address}`, e.at, 'migration', 'market', detail, null, null);
  }

  /**
   * A trade (the router's `pool.trade`): a new ATH mark when it passes ATH_RULE; with
   * `labeled` (its wallet had labels in force: engine/query LabeledActivity), a
   * `labeled_trade` on its token.
   */
  onTrade(e: PoolTradeEvent, labeled: { json: string; labels: readonly string[] } | null): void {
    const t = e.trade;
    const token = e.base_address;
    if (labeled !== null) {
      const id = `labeled_trade:${t[TRADE.txHash]}:${t[TRADE.eventIndex]}`;
      const data = `{"event":"labeled_trade","marker_id":${JSON.stringify(id)},${labeled.json.slice(1)}`;
      this.store(token, id, t[TRADE.at], data, t[TRADE.wallet], [...labeled.labels]);
    }
    const quoteUsd = t[TRADE.quoteUsd];
    if (quoteUsd === null) return;
    const mcap = t[TRADE.marketCapQuote] * quoteUsd;
    if (!(mcap >= ATH_RULE.minMarketCapUsd)) return;
    let previous = this.athOf.get(token);
    if (previous === undefined) {
      previous = (this.db.get([ATH, token]) as AthMark | undefined) ?? null;
      this.cacheAth(token, previous);
    }
    if (previous !== null && mcap < previous[0] * (1 + ATH_RULE.stepPct / 100)) return;
    const tradeId = `${t[TRADE.txHash]}:${t[TRADE.eventIndex]}`;
    const id = `ath:${tradeId}`;
    if (previous !== null && previous[1] === id) return;
    const at = t[TRADE.at];
    const detail = { market_cap_usd: mcap, price_usd: t[TRADE.priceQuote] * quoteUsd, pool_address: e.pool_address, trade_id: tradeId };
    const data = JSON.stringify({ event: 'mark', token_address: token, marker_id: id, at, type: 'ath', source: 'market', detail });
    const now: AthMark = [mcap, id, at, data];
    this.cacheAth(token, now);
    // One write replaces the previous ATH mark (most tokens reach several: one per 25 % step).
    this.db.put([ATH, token], now);
    if (previous !== null) this.publishRemove(token, previous[1]);
    this.publish(token, data);
  }

  /** Tokens whose ATH mark is cached (tests, metrics). */
  get athCached(): number {
    return this.athOf.size;
  }

  private cacheAth(token: string, mark: AthMark | null): void {
    if (this.athOf.size >= MARKERS_ATH_CACHED_MAX && !this.athOf.has(token)) this.athOf.delete(this.athOf.keys().next().value!);
    this.athOf.set(token, mark);
  }

  /**
   * Labels removed from a wallet: its marks those labels produced are withdrawn (a
   * labeled trade keeping other labels is sent again with those).
   */
  onLabelsRemoved(wallet: string, removed: readonly string[]): void {
    if (removed.length === 0) return;
    const db = this.db;
    const refs = db.keys([BY_WALLET, wallet], [BY_WALLET, wallet, '\uffff']).map((k) => [k[2], k[3], k[4]] as [string, number, string]);
    for (const [token, at, id] of refs) {
      const stored = db.get([token, at, id]) as StoredMark | undefined;
      if (!stored || !stored[2]?.some((l) => removed.includes(l))) continue;
      const left = stored[2].filter((l) => !removed.includes(l));
      this.remove(token, at, id);
      if (left.length === 0 || !id.startsWith('labeled_trade:')) continue;
      // Sent again with the labels left, under the same marker_id.
      const data = JSON.parse(stored[0]) as { labels: Array<{ label: string }> };
      data.labels = data.labels.filter((l) => left.includes(l.label));
      this.store(token, id, at, JSON.stringify(data), wallet, left);
    }
  }

  /** The frames a new subscriber of `token` gets first: its last RECENT_MARKS marks, oldest first. */
  recentFrames(token: string): string[] {
    const recent = this.db.last([token], [token, TOP], RECENT_MARKS).map((value) => (value as StoredMark)[0]);
    const ath = (this.athOf.get(token) ?? this.db.get([ATH, token])) as AthMark | null | undefined;
    if (ath) {
      // In time order among the others (ties: after them); the oldest goes if it makes one too many.
      let at = recent.length;
      while (at > 0 && (JSON.parse(recent[at - 1]!) as { at: number }).at > ath[2]) at--;
      recent.splice(at, 0, ath[3]);
      if (recent.length > RECENT_MARKS) recent.shift();
    }
    return recent.map(markersFrame);
  }

  private mark(token: string, id: string, at: number, type: string, source: string, detail: object, wallet: string | null, producedBy: string[] | null): void {
    const data = JSON.stringify({ event: 'mark', token_address: token, marker_id: id, at, type, source, detail });
    this.store(token, id, at, data, wallet, producedBy);
  }

  /** Stores a mark and publishes it, unless it exists (made again on start-up replay after a crash). */
  private store(token: string, id: string, at: number, data: string, wallet: string | null, producedBy: string[] | null): void {
    const db = this.db;
    if (db.get([EXISTS, token, id]) !== undefined) return;
    const value: StoredMark = [data, wallet, producedBy];
    db.put([token, at, id], value);
    db.put([EXISTS, token, id], at);
    if (wallet !== null) db.put([BY_WALLET, wallet, token, at, id], true);
    this.publish(token, data);
  }

  private remove(token: string, at: number, id: string): void {
    const db = this.db;
    const stored = db.get([token, at, id]) as StoredMark | undefined;
    db.remove([token, at, id]);
    db.remove([EXISTS, token, id]);
    if (stored?.[1]) db.remove([BY_WALLET, stored[1], token, at, id]);
    this.publishRemove(token, id);
  }

  /** A `remove` of `id`, serialized only when the token's topic has subscribers. */
  private publishRemove(token: string, id: string): void {
    const sink = this.options.sink();
    const topic = topics.markers(token);
    if (sink.has(topic)) sink.publish(topic, markersFrame(JSON.stringify({ event: 'remove', token_address: token, marker_id: id })));
  }

  private publish(token: string, data: string): void {
    const sink = this.options.sink();
    const topic = topics.markers(token);
    if (sink.has(topic)) sink.publish(topic, markersFrame(data));
  }
}

