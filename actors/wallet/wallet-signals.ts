import { KNOWN_MINTS, TRADE, type PoolTradeEvent, type Signal } from '../../engine/model/index.ts';
import type { ActorContext } from '../../engine/supervisor/index.ts';
import { SignalTradeView, labelsOf, longestCooldownMs, WalletSignals, type SignalThresholds, type WalletTradeContext } from '../signals/index.ts';
import { sellCost, type WalletState } from './wallet.logic.ts';

/**
 * The wallet kinds big_win and first_buy (actors/signals/wallet-signals.logic.ts), run by
 * the wallet actor on each of its trades before the trade changes its positions: their
 * inputs are the wallet's own accounting (DECISIONS.md "Wallet accounting"): the buys of
 * the token before the trade, and for a sell the average cost of the tokens it sells
 * (wallet.logic.ts sellCost, the same number applyTokenTrade realizes against), the first
 * buy's time and market cap. Run inside the actor that owns those numbers, no other actor
 * reads them: no copy of the position on a derived event, nothing to re-derive, no extra
 * actor per wallet. Their cooldowns are the wallet's state (`state.signals`, created by
 * its first signal, in its snapshot). Labels are read (wallet-labels) only for a trade
 * that passes the kind's USD threshold.
 */

const VIEW = new SignalTradeView();
/** Cooldown keys a wallet keeps before pruning those past the longest cooldown. */
const PRUNE_PAST = 64;
const CONTEXT: WalletTradeContext = { labels: [], buy_count_before: 0, realized_pnl_usd: null, cost_usd: null, first_buy_at: null, entry_market_cap_usd: null };

/** Signals of the wallet's trade `e`, from its base token's side and a non-known quote's, pushed to `out`. */
export function walletTradeSignals(state: WalletState, e: PoolTradeEvent, ctx: ActorContext, t: Readonly<SignalThresholds>, out: Signal[]): void {
  const trade = e.trade;
  const quoteUsd = trade[TRADE.quoteUsd];
  if (quoteUsd === null) return; // every threshold is in USD
  const usd = trade[TRADE.quoteAmount] * quoteUsd;
  const buy = trade[TRADE.side] === 1;
  VIEW.stored = trade;
  VIEW.pool_address = e.pool_address;
  VIEW.wallet_address = state.wallet_address;
  VIEW.at = trade[TRADE.at];
  VIEW.amount_usd = usd;
  side(state, e.base_address, buy, trade[TRADE.baseAmount], trade[TRADE.priceQuote] * quoteUsd, trade[TRADE.marketCapQuote] * quoteUsd, ctx, t, out);
  if (!(e.quote_address in KNOWN_MINTS)) {
    const price = trade[TRADE.priceQuote];
    side(state, e.quote_address, !buy, trade[TRADE.quoteAmount], price > 0 ? (usd / trade[TRADE.quoteAmount]) : null, null, ctx, t, out);
  }
}

function side(state: WalletState, token: string, buy: boolean, tokens: number, priceUsd: number | null, mcapUsd: number | null, ctx: ActorContext, t: Readonly<SignalThresholds>, out: Signal[]): void {
  const usd = VIEW.amount_usd!;
  // Most trades fire nothing: the USD threshold first, before the position lookup.
  if (buy ? usd < t.first_buy.minUsd : usd < t.big_win.minProfitUsd) return;
  const p = state.positions.get(token);
  if (buy) {
    if (p !== undefined && p.buys > 0) return;
    CONTEXT.buy_count_before = 0;
    CONTEXT.realized_pnl_usd = null;
    CONTEXT.cost_usd = null;
    CONTEXT.first_buy_at = null;
    CONTEXT.entry_market_cap_usd = null;
  } else {
    if (p === undefined) return;
    const cost = sellCost(p, tokens);
    const pnl = usd - cost;
    if (pnl < t.big_win.minProfitUsd) return;
    CONTEXT.buy_count_before = p.buys;
    CONTEXT.realized_pnl_usd = pnl;
    CONTEXT.cost_usd = cost;
    CONTEXT.first_buy_at = p.firstBuyAt;
    CONTEXT.entry_market_cap_usd = p.entryMcapUsd ?? null;
  }
  CONTEXT.labels = labelsOf(ctx, state.wallet_address);
  if (buy && !anyOf(CONTEXT.labels, t.first_buy.labels)) return;
  VIEW.token_address = token;
  VIEW.side = buy ? 'buy' : 'sell';
  VIEW.token_amount = tokens;
  VIEW.price_usd = priceUsd;
  VIEW.market_cap_usd = mcapUsd;
  state.signals ??= new WalletSignals(state.wallet_address, t);
  state.signals.onTrade(VIEW, CONTEXT, out);
  if (state.signals.cooldownCount > PRUNE_PAST) state.signals.prune(VIEW.at, longestCooldownMs(t));
}

/** Whether `labels` holds one of `wanted` (no closure per trade). */
function anyOf(labels: readonly string[], wanted: readonly string[]): boolean {
  for (let i = 0; i < labels.length; i++) if (wanted.includes(labels[i]!)) return true;
  return false;
}
