import { Cooldowns, cooldownKey, logRamp, SIGNAL_DEFAULTS, type Signal, type SignalThresholds, type SignalTrade } from './signals.rules.ts';

/**
 * The wallet signals of one wallet's trades (DECISIONS.md: big_win, first_buy; the
 * third, cluster_buy, is a token's: token-signals.logic.ts). Their inputs are the
 * wallet actor's accounting (DECISIONS.md "Wallet accounting", issue 22): the position
 * before the trade and what a sell realized. Plain state (the cooldowns), no I/O, no
 * clock. Formulas: SIGNALS.md.
 */

/** What the wallet actor knows of the trade's position (average cost, USD). */
export interface WalletTradeContext {
  /** Labels in force on the wallet (first_buy: tracked when one is among its `labels`). */
  labels: readonly string[];
  /** Buys of this token by this wallet before this trade (any pool). */
  buy_count_before: number;
  /** For a sell: realized PnL of this sell and the cost of the tokens it sold; null for a buy or an unpriced trade. */
  realized_pnl_usd: number | null;
  cost_usd: number | null;
  /** The wallet's first buy of the token and the market cap then (null: none, or unpriced). */
  first_buy_at: number | null;
  entry_market_cap_usd: number | null;
}

export class WalletSignals {
  readonly wallet: string;
  private readonly t: Readonly<SignalThresholds>;
  private readonly cooldowns: Cooldowns;

  constructor(wallet: string, thresholds: Readonly<SignalThresholds> = SIGNAL_DEFAULTS, cooldowns?: Iterable<readonly [string, number]>) {
    this.wallet = wallet;
    this.t = thresholds;
    this.cooldowns = new Cooldowns(cooldowns);
  }

  /** The cooldowns as plain data (the wallet actor's snapshot); the constructor takes them back. */
  toData(): Array<[string, number]> {
    return this.cooldowns.toData();
  }

  get cooldownCount(): number {
    return this.cooldowns.size;
  }

  /** The signals one trade of the wallet fires, pushed to `out` (returned). */
  onTrade(trade: SignalTrade, ctx: WalletTradeContext, out: Signal[] = []): Signal[] {
    if (trade.side === 'sell') this.bigWin(trade, ctx, out);
    else this.firstBuy(trade, ctx, out);
    return out;
  }

  prune(now: number, keepMs: number): void {
    this.cooldowns.prune(now, keepMs);
  }

  /**
   * big_win: a sell realizing at least minProfitUsd with proceeds at least minMultiple
   * times the cost of the tokens sold (a cost of 0, tokens that came free, passes).
   */
  private bigWin(trade: SignalTrade, ctx: WalletTradeContext, out: Signal[]): void {
    const b = this.t.big_win;
    const pnl = ctx.realized_pnl_usd;
    const cost = ctx.cost_usd;
    if (pnl === null || cost === null || pnl < b.minProfitUsd) return;
    const multiple = cost > 0 ? (cost + pnl) / cost : Infinity;
    if (multiple < b.minMultiple) return;
    if (!this.cooldowns.admit(cooldownKey('big_win', trade.token_address, [this.wallet]), trade.at, b.cooldownMs)) return;
    out.push(
      signal('big_win', trade, logRamp(pnl, b.minProfitUsd, b.fullProfitUsd), {
        profit_usd: pnl,
        cost_usd: cost,
        multiple: Number.isFinite(multiple) ? multiple : null,
        hold_time_ms: ctx.first_buy_at === null ? null : trade.at - ctx.first_buy_at,
        entry_market_cap_usd: ctx.entry_market_cap_usd,
        labels: ctx.labels,
      }),
    );
  }

  /** first_buy: a tracked wallet's (one of `labels`) first buy of a token, of at least minUsd. */
  private firstBuy(trade: SignalTrade, ctx: WalletTradeContext, out: Signal[]): void {
    const f = this.t.first_buy;
    if (!ctx.labels.some((l) => f.labels.includes(l)) || ctx.buy_count_before > 0 || trade.amount_usd === null || trade.amount_usd < f.minUsd) return;
    if (!this.cooldowns.admit(cooldownKey('first_buy', trade.token_address, [this.wallet]), trade.at, f.cooldownMs)) return;
    out.push(
      signal('first_buy', trade, logRamp(trade.amount_usd, f.minUsd, f.fullUsd), {
        amount_usd: trade.amount_usd,
        market_cap_usd: trade.market_cap_usd,
        labels: ctx.labels,
      }),
    );
  }
}

function signal(kind: 'big_win' | 'first_buy', trade: SignalTrade, score: number, detail: Signal['detail']): Signal {
  return {
    signal_id: `${kind}:${trade.token_address}:${trade.trade_id}`,
    kind,
    token_address: trade.token_address,
    pool_address: trade.pool_address,
    wallet_addresses: [trade.wallet_address],
    at: trade.at,
    score,
    detail,
  };
}
