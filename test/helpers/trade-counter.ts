import { poolTrades } from '../../engine/query/trade-streams.ts';
import { TRADE } from '../../engine/model/index.ts';
import type { ActorBehavior } from '../../engine/supervisor/behavior.ts';
import type { Engine } from '../../engine/system.ts';

export interface TradeCounterState {
  /** pool.trade events applied. */
  trades: number;
  /** swap events applied (only the `wallet-swap-trade-counter` kind takes them). */
  swaps: number;
}

/**
 * Arms a one-time throw: the next pool.trade the counter of kind `kind` applies for
 * `wallet` throws (once: the supervisor's retry after the rebuild goes through).
 */
export const throwOnce = { kind: '', wallet: null as string | null, thrown: 0 };

function counter(kind: string, takes: readonly string[]): ActorBehavior<TradeCounterState> {
  return {
    kind,
    takes,
    route: (e) => (e.type === 'pool.trade' ? e.trade[TRADE.wallet] : e.type === 'swap' ? e.wallet_address : undefined),
    initial: () => ({ trades: 0, swaps: 0 }),
    apply(state, e, ctx) {
      if (e.type === 'swap') {
        state.swaps++;
        return;
      }
      if (e.type !== 'pool.trade') return;
      if (throwOnce.wallet === e.trade[TRADE.wallet] && throwOnce.kind === kind) {
        throwOnce.wallet = null;
        throwOnce.thrown++;
        throw new Error(`trade counter: the armed throw at seq ${ctx.seq}`);
      }
      state.trades++;
    },
  };
}

/**
 * A consumer of derived events (a test actor kind): the pool.trade events applied per
 * wallet. A trade derived twice, or lost, across a crash, a restart or a rebuild, shows
 * here against the trades stored per wallet.
 */
export const tradeCounter = counter('wallet-trade-counter', ['pool.trade']);

/**
 * The same, taking the wallet's swap events too: an actor taking an ingest event and a
 * derived event of the same seq (its swaps and its trades must count alike).
 */
export const swapTradeCounter = counter('wallet-swap-trade-counter', ['swap', 'pool.trade']);

/** The trades each wallet has in the engine's pools (stored, and in memory), by wallet. */
export function storedTradesByWallet(engine: Engine, pools: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const pool of pools) {
    const state = engine.pools.get(pool);
    for (const t of poolTrades(engine.trades, pool, state, { order: 'asc', minAt: 0, maxAt: Number.MAX_SAFE_INTEGER })) {
      const wallet = t[TRADE.wallet];
      out.set(wallet, (out.get(wallet) ?? 0) + 1);
    }
  }
  return out;
}

/** A counter kind's counts by wallet, for `wallets`. */
export function countsOf(engine: Engine, kind: string, wallets: Iterable<string>, field: keyof TradeCounterState = 'trades'): Map<string, number> {
  const host = engine.hosts.find((h) => h.kind === kind)!;
  const out = new Map<string, number>();
  for (const wallet of wallets) {
    const state = host.get(wallet) as TradeCounterState | undefined;
    if (state && state[field] > 0) out.set(wallet, state[field]);
  }
  return out;
}
