import type { Clock } from '../clock.ts';
import type { Signal, SignalKind } from '../model/index.ts';
import type { SignalPage, SignalPosition, SignalsRepo } from '../../storage/index.ts';

/**
 * Routes 17 (GET /tokens/signals) and 22 (GET /wallets/signals) over the signals store
 * (storage/signals.repo.ts), newest first. Route 22's window ends at the engine clock's
 * now (the newest event's time under `--clock event`), and its filters read the
 * signal's `detail` (actors/signals/SIGNALS.md):
 * - min_wallets: signals naming at least that many wallets (a cluster_buy its cluster;
 *   big_win and first_buy one wallet);
 * - min_profit_usd, max_hold_time_ms: big_win's profit_usd and hold_time_ms (a signal
 *   without the number does not pass the filter);
 * - min_cost_usd: what the wallets put in: big_win cost_usd, first_buy amount_usd,
 *   cluster_buy buys_usd;
 * - min/max_entry_market_cap_usd: big_win entry_market_cap_usd (the first buy's), first_buy
 *   and cluster_buy market_cap_usd (at the buy);
 * - include_bots false (default): no signal of a wallet labeled bot, sniper or bundler.
 */

export const SIGNAL_WINDOWS_MS = { '5m': 300_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 } as const;
export type SignalWindow = keyof typeof SIGNAL_WINDOWS_MS;
/** Labels that make a wallet a bot for include_bots. */
export const BOT_LABELS: readonly string[] = ['bot', 'sniper', 'bundler'];

export interface WalletSignalFilters {
  window: SignalWindow;
  wallets?: readonly string[];
  token_address?: string;
  min_wallets?: number;
  min_profit_usd?: number;
  min_cost_usd?: number;
  max_hold_time_ms?: number;
  min_entry_market_cap_usd?: number;
  max_entry_market_cap_usd?: number;
  include_bots: boolean;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The cost of a wallet signal for min_cost_usd. */
function costOf(s: Signal): number | null {
  const d = s.detail;
  return s.kind === 'big_win' ? num(d.cost_usd) : s.kind === 'first_buy' ? num(d.amount_usd) : num(d.buys_usd);
}

/** The entry market cap of a wallet signal. */
function entryOf(s: Signal): number | null {
  return s.kind === 'big_win' ? num(s.detail.entry_market_cap_usd) : num(s.detail.market_cap_usd);
}

/** The test route 22's filters make of one signal. */
export function walletSignalFilter(f: WalletSignalFilters): (s: Signal) => boolean {
  return (s) => {
    if (f.min_wallets !== undefined && new Set(s.wallet_addresses).size < f.min_wallets) return false;
    if (f.min_profit_usd !== undefined && !((num(s.detail.profit_usd) ?? -Infinity) >= f.min_profit_usd)) return false;
    if (f.max_hold_time_ms !== undefined && !((num(s.detail.hold_time_ms) ?? Infinity) <= f.max_hold_time_ms)) return false;
    if (f.min_cost_usd !== undefined && !((costOf(s) ?? -Infinity) >= f.min_cost_usd)) return false;
    if (f.min_entry_market_cap_usd !== undefined && !((entryOf(s) ?? -Infinity) >= f.min_entry_market_cap_usd)) return false;
    if (f.max_entry_market_cap_usd !== undefined && !((entryOf(s) ?? Infinity) <= f.max_entry_market_cap_usd)) return false;
    if (!f.include_bots) {
      const labels = s.detail.labels;
      if (Array.isArray(labels) && labels.some((l) => BOT_LABELS.includes(l))) return false;
    }
    if (f.token_address !== undefined && s.token_address !== f.token_address) return false;
    return true;
  };
}

export class SignalsQuery {
  constructor(private readonly options: { store: SignalsRepo; clock: Clock }) {}

  /** Route 17. */
  tokenSignals(q: { token?: string; kind?: SignalKind; startTime: number; limit: number; before?: SignalPosition }): SignalPage {
    return this.options.store.tokenSignals(q);
  }

  /** Where route 22's window starts now: `window` before the engine clock's now. */
  windowStart(window: SignalWindow): number {
    return this.options.clock.now() - SIGNAL_WINDOWS_MS[window];
  }

  /** Route 22: the signals from `from` (windowStart; a next page keeps its first page's), then the filters. */
  walletSignals(f: WalletSignalFilters, from: number, limit: number, before?: SignalPosition): SignalPage {
    return this.options.store.walletSignals({ wallets: f.wallets, token: f.token_address, from, limit, before, keep: walletSignalFilter(f) });
  }
}
