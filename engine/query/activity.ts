import type { PoolState } from '../../actors/index.ts';
import { KNOWN_MINTS, TRADE, type PoolTradeEvent, type StoredTrade, type TradeKey } from '../model/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { LabeledWallets } from './labeled-wallets.ts';
import type { TradesQuery } from './trades.ts';
import { TRADE_DEFAULT_WINDOW_MS, TRADE_HISTORY_MS } from './trade-streams.ts';

/**
 * Labeled activity (route 21, GET /v1/wallets/activity; the wallet_activity stream; the
 * markers stream's `labeled_trade`): trades of wallets with a label in force at the
 * trade, from the router's `pool.trade`, described from the pool's base token (a
 * token-to-token pool's quote side is not listed). Each is stored once, in
 * `labeledTrades`, as the JSON text every reader serves:
 *   [0, at, slot, tx_index, event_index, pool]      every labeled trade
 *   [label, at, slot, tx_index, event_index, pool]  per label it carried
 * → [market_cap_usd, item JSON]. The labels are those in force when the trade was
 * applied (a later removal does not rewrite history here; the markers stream withdraws
 * the marks: engine/topics/markers.ts). A trade seen again (start-up replay after a
 * crash) keeps what was stored first.
 */

/** A labeled trade (SERVICE.md 6.1 `labeled_trade`, with token_address): route 21's item and the wallet_activity stream's data. */
export interface LabeledTradeItem {
  trade_id: string;
  at: number;
  token_address: string;
  pool_address: string;
  wallet_address: string;
  labels: Array<{ label: string; detail: unknown }>;
  type: 'buy' | 'sell';
  token_amount: number;
  amount_usd: number | null;
  amount_quote: number;
  price_usd: number | null;
  price_quote: number;
  market_cap_usd: number | null;
  market_cap_quote: number;
}

/** A labeled trade just applied: its item, the JSON text, and the labels by name. */
export interface LabeledTrade {
  item: LabeledTradeItem;
  json: string;
  labels: readonly string[];
}

/** Where a page of activity stopped: the last trade's position and pool. */
export interface ActivityPosition {
  key: TradeKey;
  pool: string;
}

export interface ActivityFilters {
  label?: string;
  /** The caller's own wallets: their trades, labeled or not. */
  wallets?: readonly string[];
  min_market_cap_usd?: number;
  max_market_cap_usd?: number;
  /** Trades at or after; absent: the trade lists' default window (the last 24 hours), never past their 30 days of history. */
  start_time?: number;
}

const EVERY = 0;
const TOP = Number.MAX_SAFE_INTEGER;

/** The labeled trade item of a stored trade from its pool's base side. */
export function labeledItem(t: StoredTrade, pool: { pool_address: string; base_address: string }, labels: Array<{ label: string; detail: unknown }>): LabeledTradeItem {
  const quoteUsd = t[TRADE.quoteUsd];
  const priceQuote = t[TRADE.priceQuote];
  const marketCapQuote = t[TRADE.marketCapQuote];
  return {
    trade_id: `${t[TRADE.txHash]}:${t[TRADE.eventIndex]}`,
    at: t[TRADE.at],
    token_address: pool.base_address,
    pool_address: pool.pool_address,
    wallet_address: t[TRADE.wallet],
    labels,
    type: t[TRADE.side] === 1 ? 'buy' : 'sell',
    token_amount: t[TRADE.baseAmount],
    amount_usd: quoteUsd === null ? null : t[TRADE.quoteAmount] * quoteUsd,
    amount_quote: t[TRADE.quoteAmount],
    price_usd: quoteUsd === null ? null : priceQuote * quoteUsd,
    price_quote: priceQuote,
    market_cap_usd: quoteUsd === null ? null : marketCapQuote * quoteUsd,
    market_cap_quote: marketCapQuote,
  };
}

function inRange(mcap: number | null, filters: ActivityFilters): boolean {
  if (filters.min_market_cap_usd === undefined && filters.max_market_cap_usd === undefined) return true;
  if (mcap === null) return false;
  if (filters.min_market_cap_usd !== undefined && mcap < filters.min_market_cap_usd) return false;
  if (filters.max_market_cap_usd !== undefined && mcap > filters.max_market_cap_usd) return false;
  return true;
}

export class LabeledActivity {
  constructor(
    private readonly storage: Pick<Storage, 'labeledTrades'>,
    private readonly labeled: LabeledWallets,
    private readonly trades: () => TradesQuery,
    /** The engine clock. */
    private readonly now: () => number,
  ) {}

  /** A trade the router delivered: stored and returned when its wallet has a label in force, else null (a map lookup). */
  onTrade(e: PoolTradeEvent): LabeledTrade | null {
    const t = e.trade;
    const wallet = t[TRADE.wallet];
    const labels = this.labeled.labelsOf(wallet);
    if (labels === undefined || e.base_address in KNOWN_MINTS) return null;
    const item = labeledItem(t, e, this.labeled.labelDetails(wallet));
    const json = JSON.stringify(item);
    const db = this.storage.labeledTrades;
    const tail = [t[TRADE.at], t[TRADE.slot], t[TRADE.txIndex], t[TRADE.eventIndex], e.pool_address];
    const value = [item.market_cap_usd, json];
    // First write wins: a trade re-derived on start-up replay keeps the labels it had.
    if (db.get([EVERY, ...tail]) !== undefined) return { item, json, labels };
    void db.put([EVERY, ...tail], value);
    for (const label of labels) void db.put([label, ...tail], value);
    return { item, json, labels };
  }

  /**
   * Retention: deletes the labeled trades before `cutoff` (route 21 reads 30 days, as the
   * trade lists), every label's copy with them. Returns how many trades went.
   */
  prune(cutoff: number): number {
    const db = this.storage.labeledTrades;
    let pruned = 0;
    for (const { key, value } of db.getRange({ start: [EVERY, 0], end: [EVERY, cutoff] })) {
      const tail = (key as Array<string | number>).slice(1);
      void db.remove(key as Array<string | number>);
      for (const { label } of (JSON.parse((value as [number | null, string])[1]) as LabeledTradeItem).labels) void db.remove([label, ...tail]);
      pruned++;
    }
    return pruned;
  }

  /** Route 21: newest first, a page after `after`. */
  list(filters: ActivityFilters, limit: number, after: ActivityPosition | undefined): { items: LabeledTradeItem[]; next: ActivityPosition | null } {
    if (filters.wallets !== undefined) return this.ofWallets(filters, limit, after);
    const prefix = filters.label ?? EVERY;
    const start = after ? [prefix, ...after.key, after.pool] : [prefix, TOP];
    const items: LabeledTradeItem[] = [];
    const keys: ActivityPosition[] = [];
    let more = false;
    const now = this.now();
    const from = Math.max(filters.start_time ?? now - TRADE_DEFAULT_WINDOW_MS, now - TRADE_HISTORY_MS);
    for (const { key, value } of this.storage.labeledTrades.getRange({ start, end: [prefix, from], reverse: true })) {
      const k = key as [unknown, number, number, number, number, string];
      if (after && k[5] === after.pool && k[1] === after.key[0] && k[2] === after.key[1] && k[3] === after.key[2] && k[4] === after.key[3]) continue;
      const [mcap, json] = value as [number | null, string];
      if (!inRange(mcap, filters)) continue;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(JSON.parse(json) as LabeledTradeItem);
      keys.push({ key: [k[1], k[2], k[3], k[4]], pool: k[5] });
    }
    return { items, next: more ? keys[keys.length - 1]! : null };
  }

  /** The caller's own wallets: their trades, labeled or not, with the labels in force now. */
  private ofWallets(filters: ActivityFilters, limit: number, after: ActivityPosition | undefined) {
    const keep = (t: StoredTrade, p: PoolState) => {
      if (p.info!.base_address in KNOWN_MINTS) return false;
      const quoteUsd = t[TRADE.quoteUsd];
      if (filters.label !== undefined && !this.labeled.labelsOf(t[TRADE.wallet])?.includes(filters.label)) return false;
      return inRange(quoteUsd === null ? null : t[TRADE.marketCapQuote] * quoteUsd, filters);
    };
    const page = this.trades().walletsTrades(filters.wallets!, { order: 'desc', limit, startTime: filters.start_time, after: after?.key }, keep);
    const items = page.items.map(([t, p]) => labeledItem(t, { pool_address: p.pool_address, base_address: p.info!.base_address }, this.labeled.labelDetails(t[TRADE.wallet])));
    const last = page.items[page.items.length - 1];
    return { items, next: page.next && last ? { key: page.next, pool: last[1].pool_address } : null };
  }
}
