import type { EventObject } from 'xstate';
import { KNOWN_MINTS, type SwapEvent } from '../../engine/ingest/events.ts';
import type { ActorBehavior, ActorContext } from '../../engine/supervisor/behavior.ts';
import { compareKey, keyOf, type TradesRepo } from '../../storage/trades.repo.ts';
import { quotePriceAt, type QuotePriceState } from '../quote-price/quote-price.logic.ts';
import { decimalsOf, supplyOf, type TokenState } from '../token/token.logic.ts';
import { applyMigrationToPool, applyPool, applySwap, initialPool, type PoolState, type PricingInputs } from './pool.logic.ts';
import { poolMachine } from './pool.machine.ts';

/** Swaps kept while a pool's `pool` event or its token's decimals are unknown. */
const WAITING_MAX = 10_000;

/** The inputs a swap needs, read from the token and quote-price actors; null if not known yet. */
function pricing(state: PoolState, e: SwapEvent, ctx: ActorContext): PricingInputs | null {
  const info = state.info;
  if (!info) return null;
  const baseToken = ctx.read<TokenState>('token', info.base_address);
  const baseDecimals = decimalsOf(baseToken, info.base_address);
  const quoteDecimals = decimalsOf(info.quote_address in KNOWN_MINTS ? undefined : ctx.read<TokenState>('token', info.quote_address), info.quote_address);
  if (baseDecimals === null || quoteDecimals === null) return null;
  let quoteUsd: number | null = null;
  if (info.quote_address in KNOWN_MINTS) {
    const quotes = ctx.read<QuotePriceState>('quote-price', info.quote_address);
    quoteUsd = quotes ? quotePriceAt(quotes, e.at) : null;
  }
  return { baseDecimals, quoteDecimals, supply: supplyOf(baseToken), quoteUsd };
}

function trade(state: PoolState, e: SwapEvent, ctx: ActorContext): EventObject | void {
  const inputs = pricing(state, e, ctx);
  if (!inputs) {
    if (state.waiting.length < WAITING_MAX) state.waiting.push(e);
    return;
  }
  applySwap(state, e, inputs);
  if (state.info?.pool_type === 'bonding_curve' && state.real_base_reserve === 0) return { type: 'pool.completed' };
}

/**
 * One actor per pool: its reserves, totals and trades (candles and windows join in
 * the next step). Swaps before the pool event or the token's decimals wait in the
 * state and are applied once those are known. Trades reach the trades store in blocks,
 * in the same transaction as the pool's snapshot.
 */
export function createPoolBehavior(trades: TradesRepo): ActorBehavior<PoolState> {
  return {
    kind: 'pool',
    machine: poolMachine,
    route(e) {
      switch (e.type) {
        case 'swap':
          return e.pool_address;
        case 'pool':
          return e.pool_address;
        case 'migration':
          return [e.from_pool_address, e.to_pool_address];
        default:
          return undefined;
      }
    },
    initial: initialPool,
    apply(state, e, ctx) {
      if (e.type === 'swap') return trade(state, e, ctx);
      if (e.type === 'pool') {
        const base = ctx.read<TokenState>('token', e.base_address);
        applyPool(state, e, decimalsOf(base, e.base_address));
        // Swaps that came first; a curve they complete is seen complete on its next swap.
        for (const swap of state.waiting.splice(0)) trade(state, swap, ctx);
        return { type: 'pool.created', curve: e.pool_type === 'bonding_curve' };
      }
      if (e.type === 'migration') {
        const effect = applyMigrationToPool(state, e);
        if (effect === 'graduated') return { type: 'pool.graduated' };
      }
    },
    beforeSnapshot(state, key) {
      if (state.unsaved.length === 0) return;
      trades.write(key, state.unsaved, state.persisted_up_to);
      const last = state.unsaved[state.unsaved.length - 1]!;
      if (!state.persisted_up_to || compareKey(last, state.persisted_up_to) > 0) state.persisted_up_to = keyOf(last);
      state.unsaved = [];
    },
  };
}

