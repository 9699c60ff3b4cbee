import type { IngestEvent } from '../../ingest/index.ts';
import { distributeHolding, genesis } from './genesis.ts';
import { launch, migrate, secondPool, tick } from './lifecycle.ts';
import type { Action } from './model.ts';
import { resolveSimOptions, SLOT_MS, type ResolvedSimOptions, type SimOptions } from './options.ts';
import { callout, chatter, quotePrices, updateMetadata } from './social.ts';
import { buy, quoteRawForSol, randomSwap, sell, takeProfit, transfer } from './trading.ts';
import { World } from './world.ts';

/** Heat, stock prices and pool weights are recomputed every this many slots (2 s). */
const TICK_SLOTS = 5;
/** Transfers without a swap, per swap of the background flow. */
const TRANSFERS_PER_SWAP = 0.02;

/**
 * The simulated market, one slot at a time. Within a slot: quote prices, launches,
 * due actions (snipers, dumps, migrations, callouts, ...), the background swaps, a
 * few transfers, then posts and labels; every event carries the slot's block time.
 */
export class Market {
  private readonly w: World;
  private readonly swapsPerSlot: number;
  private readonly launchGapMs: number;

  /** A new market from its options, or one that goes on from a saved World (state.ts). */
  constructor(from: SimOptions | World) {
    this.w = from instanceof World ? from : new World(resolveSimOptions(from));
    const resolved = this.w.options;
    this.swapsPerSlot = (resolved.tradeRate * SLOT_MS) / 1000;
    this.launchGapMs = resolved.launchRate > 0 ? 60_000 / resolved.launchRate : Number.POSITIVE_INFINITY;
  }

  /** The state of the market, for saving it between slots (state.ts). */
  get world(): World {
    return this.w;
  }

  /** The options the market was started with (a resumed market keeps its own). */
  get options(): ResolvedSimOptions {
    return this.w.options;
  }

  /** Block time of the slot nextSlot() generates next. */
  get nextAt(): number {
    return this.w.slotAt(this.w.slot);
  }

  /** Generates the next slot and returns its events (a new array each time). */
  nextSlot(): IngestEvent[] {
    const w = this.w;
    const rng = w.rng;
    w.beginSlot();
    quotePrices(w);
    if (w.slot === w.slot0) genesis(w);
    const slotEnd = w.at + SLOT_MS;
    while (w.nextLaunchAt < slotEnd) {
      launch(w);
      w.nextLaunchAt += rng.exp(this.launchGapMs);
    }
    const due = w.takeDue();
    if (due !== undefined) for (const action of due) this.run(action);
    if ((w.slot - w.slot0) % TICK_SLOTS === 0) tick(w, TICK_SLOTS * SLOT_MS);
    for (let n = rng.poisson(this.swapsPerSlot); n > 0; n--) randomSwap(w);
    for (let n = rng.poisson(this.swapsPerSlot * TRANSFERS_PER_SWAP); n > 0; n--) transfer(w);
    chatter(w);
    const out = w.out;
    w.slot++;
    return out;
  }

  private run(action: Action): void {
    const w = this.w;
    switch (action.kind) {
      case 'buy': {
        const token = action.token;
        if (token.dead) return;
        const pool = token.primary;
        if (buy(w, pool, action.wallet, quoteRawForSol(w, pool, action.sizeSol)) && action.takeProfit) {
          w.later(w.rng.range(30_000, 300_000), { kind: 'take_profit', token, wallet: action.wallet, tries: 0 });
        }
        return;
      }
      case 'sell': {
        const token = action.token;
        if (token.dead) return;
        // A curve waiting for its migration takes no trades: try again shortly.
        if (!token.primary.active) w.later(SLOT_MS * 2, action);
        else if (!sell(w, token.primary, action.wallet, action.fraction) && token.holdings.get(action.wallet)?.slot === w.slot) w.later(0, action);
        return;
      }
      case 'take_profit':
        if (!action.token.dead) takeProfit(w, action.token, action.wallet, action.tries);
        return;
      case 'migrate':
        migrate(w, action.token);
        return;
      case 'second_pool':
        secondPool(w, action.token);
        return;
      case 'metadata':
        updateMetadata(w, action.token);
        return;
      case 'callout':
        callout(w, action.token, action.kol, action.buy);
        return;
      case 'distribute':
        distributeHolding(w, action.token, action.wallet, action.amount);
        return;
    }
  }
}
