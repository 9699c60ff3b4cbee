import { WAITING_MAX } from '../../engine/bounds.ts';
import type { EventObject } from 'xstate';
import type { MigrationEvent, SwapEvent } from '../../engine/ingest/index.ts';
import type { ActorBehavior, ActorContext } from '../../engine/supervisor/index.ts';
import type { CandlesRepo } from '../../storage/index.ts';
import { KNOWN_MINTS, compareKey, type StoredTrade, type TradeKey } from '../../engine/model/index.ts';
import { findAt, type TradesRepo } from '../../storage/index.ts';
import type { QuotePriceState } from '../quote-price/index.ts';
import { decimalsOf, supplyOf, type TokenState } from '../token/index.ts';
import { PoolCandles } from './candles.ts';
import { PoolClosedCandles } from './closed-candles.ts';
import { CurveGain } from './curve-gain.ts';
import { DistinctWallets } from './distinct.ts';
import { applyMigrationToPool, applyPool, applySwap, curveProgress, initialPool, tradeSourceOf, type PoolState, type PricingInputs } from './pool.logic.ts';
import { PoolWindows } from './windows.ts';
import { knownMintUsd, quoteUsdOf, type UsdReader } from './usd-price.ts';
import { TradeLog } from './trade-log.ts';
import { poolMachine } from './pool.machine.ts';


/** A pool's candle changes as one taking lists them (PoolCandles.takeChanged). */
export type CandleChanges = ReturnType<PoolCandles['takeChanged']>;

const NO_CANDLE_CHANGES: CandleChanges = [];

/** What takeCandleChanges and countCandleChanges return: one object, filled per call and read before the next (as PRICING). */
export interface CandleTaking {
  state: PoolState;
  changed: CandleChanges;
}
const TAKING: CandleTaking = { state: null as unknown as PoolState, changed: NO_CANDLE_CHANGES };

/**
 * A pool's candle chores, run by the live layer at each flush through ActorHost.update
 * (which marks the pool dirty, so that its next snapshot holds them): closed candles go
 * to the batched writer, then the changes since the last taking are taken, one more
 * seq for each interval with any. For a pool whose candles someone watches or could
 * resume from the history: the changed candles, by interval then start_at, and the
 * state they are read from.
 */
export function takeCandleChanges(state: PoolState): CandleTaking {
  state.closed.drain(state.candles);
  TAKING.state = state;
  TAKING.changed = state.candles.takeChanged();
  return TAKING;
}

/** takeCandleChanges for a pool nobody watches: the seqs move on the same, no list is built. */
export function countCandleChanges(state: PoolState): CandleTaking {
  state.closed.drain(state.candles);
  state.candles.skipChanged();
  TAKING.state = state;
  TAKING.changed = NO_CANDLE_CHANGES;
  return TAKING;
}

export interface PoolBehaviorDeps {
  trades: TradesRepo;
  candles: CandlesRepo;
}

/** What `pricing` returns: one object, filled per swap and read before the next (an allocation per swap otherwise). */
const PRICING: PricingInputs = { baseDecimals: 0, quoteDecimals: 0, supply: null, quoteUsd: null };

/**
 * What valuing a quote at a trade reads (usd-price.ts): the actors as of the trade,
 * known mints at its time. One object, pointed at the swap being priced.
 */
export class AtTrade implements UsdReader {
  ctx: ActorContext | null = null;
  at = 0;
  token(address: string) {
    return this.ctx!.read<TokenState>('token', address) as TokenState | undefined;
  }
  pool(address: string) {
    const s = this.ctx!.read<PoolState>('pool', address) as PoolState | undefined;
    return s?.info ? s : undefined;
  }
  mintUsd(mint: string) {
    return knownMintUsd(mint, this.ctx!.read<QuotePriceState>('quote-price', mint) as QuotePriceState | undefined, this.at);
  }
}
const AT_TRADE = new AtTrade();

/**
 * The inputs a swap needs, read from the token and quote-price actors; null if not
 * known yet. The quote's USD price is at the trade (usd-price.ts): a known mint's
 * price at its time (USDC and USDT 1 until one is known), a token's from its main
 * pool as it stands when the trade is applied and that pool's quote at the trade.
 */
function pricing(state: PoolState, e: SwapEvent, ctx: ActorContext): PricingInputs | null {
  const info = state.info;
  if (!info) return null;
  const baseToken = ctx.read<TokenState>('token', info.base_address);
  const baseDecimals = decimalsOf(baseToken, info.base_address);
  const quoteDecimals = decimalsOf(info.quote_address in KNOWN_MINTS ? undefined : ctx.read<TokenState>('token', info.quote_address), info.quote_address);
  if (baseDecimals === null || quoteDecimals === null) return null;
  AT_TRADE.ctx = ctx;
  AT_TRADE.at = e.at;
  const quoteUsd = quoteUsdOf(info.quote_address, AT_TRADE);
  AT_TRADE.ctx = null;
  PRICING.baseDecimals = baseDecimals;
  PRICING.quoteDecimals = quoteDecimals;
  PRICING.supply = supplyOf(baseToken);
  PRICING.quoteUsd = quoteUsd;
  return PRICING;
}

function trade(state: PoolState, e: SwapEvent, ctx: ActorContext): EventObject | void {
  const inputs = pricing(state, e, ctx);
  if (!inputs) {
    if (state.waiting.length >= WAITING_MAX) {
      ctx.reject(`pool ${state.pool_address} already holds ${WAITING_MAX} swaps waiting for its pool event or its token's decimals`);
      return;
    }
    state.waiting.push(e);
    return;
  }
  const curve = state.info?.pool_type === 'bonding_curve';
  const before = curve ? curveProgress(state) : null;
  const stored = applySwap(state, e, inputs);
  const after = curve ? curveProgress(state) : null;
  emitTrade(state, stored, ctx, before === null || after === null ? null : Math.max(before, after));
  if (state.info?.pool_type === 'bonding_curve' && state.real_base_reserve === 0) {
    if (state.completed_key === null) {
      state.completed_key = [e.at, e.slot, e.tx_index, e.event_index];
      emitGraduated(state, null, e.at, ctx);
    }
    return { type: 'pool.completed' };
  }
}

/** The derived `pool.trade` of an applied swap: one object per trade, the stored tuple shared; `curve`: PoolTradeEvent.curve_pct (undefined: not known). */
function emitTrade(state: PoolState, stored: StoredTrade, ctx: ActorContext, curve?: number | null): void {
  const info = state.info!;
  ctx.emit({ type: 'pool.trade', pool_address: state.pool_address, base_address: info.base_address, quote_address: info.quote_address, trade: stored, curve_pct: curve });
}

function emitGraduated(state: PoolState, to: string | null, at: number, ctx: ActorContext): void {
  ctx.emit({ type: 'pool.graduated', pool_address: state.pool_address, token_address: state.info!.base_address, migrated_to_pool_address: to, at });
}

/** A migration that graduates this pool (applyMigrationToPool says 'graduated'). */
function emitMigrated(state: PoolState, e: MigrationEvent, ctx: ActorContext): void {
  ctx.emit({ type: 'pool.graduated', pool_address: state.pool_address, token_address: e.token_address, migrated_to_pool_address: e.to_pool_address, at: e.at });
}

/** The pool's stored trade at `key`: its unsaved log, the batch being written, or the trades store. */
function storedTrade(state: Readonly<PoolState>, key: TradeKey, trades: TradesRepo): StoredTrade | undefined {
  return findAt(state.unsaved, key) ?? (state.writing ? findAt(state.writing, key) : undefined) ?? trades.find(state.pool_address, key);
}

/** What applying the swap at `key` emitted: its trade, and the curve's completion if it completed it. */
function rederiveTrade(state: Readonly<PoolState>, key: TradeKey, trades: TradesRepo, ctx: ActorContext): void {
  const stored = storedTrade(state, key, trades);
  if (!stored) return;
  emitTrade(state as PoolState, stored, ctx);
  if (state.completed_key !== null && compareKey(state.completed_key, key) === 0) emitGraduated(state as PoolState, null, key[0], ctx);
}

const sameSwap = (a: SwapEvent, b: SwapEvent) => a.slot === b.slot && a.tx_index === b.tx_index && a.event_index === b.event_index && a.at === b.at;

interface PoolSnapshot extends Omit<PoolState, 'candles' | 'closed' | 'windows' | 'distinct' | 'curveGain' | 'writing' | 'unsaved'> {
  /** The TradeLog's bytes; an array of trades in snapshots written before it existed. */
  unsaved: Uint8Array | StoredTrade[];
  candles: unknown;
  /** The closed-candle buffer, encodeRows'd (no 1s or 15s candles: closed-candles.ts). */
  closed: Uint8Array;
  windows: unknown;
  distinct: ReturnType<DistinctWallets["toSnapshot"]>;
  /** CurveGain's bytes; absent in snapshots written before it existed. */
  curveGain?: Uint8Array | null;
}

/**
 * A pool's heap for the resident bound (ActorBehavior.sizeOf), measured with `--expose-gc`
 * as the heap the pools' passivation freed after a market replay (100,000 swaps over
 * 10,000 pools, their trades written: 7.7 KB a pool; windows, candle buckets, counters),
 * less what its windows and distinct counters held there (a log of ~16 trades, ~8
 * wallets, three small hash lists: ~2.2 KB), which each pool now counts at its own size
 * (PoolWindows.bytes, DistinctWallets.bytes); plus what it holds off the JS heap, which
 * that measure of the heap did not see (its unsaved trade logs' slab, its live and closed
 * candles' buffers, its curve's gain ring: `bytes` of each), and the swaps it holds
 * waiting. A busy pool's windows alone (rings of 36,000 bytes, thousands of wallets in
 * 24 h) are several times this base: a pool of 300 trades by 300 wallets was counted at
 * 7.7 KB and holds over 66 KB (test/integration/pool-bytes.test.ts).
 */
const POOL_BYTES = 5_500;
const WAITING_SWAP_BYTES = 1_000;

/**
 * One actor per pool: its reserves, totals, trades, candles, rolling windows and
 * distinct wallets. Swaps before the pool event or the token's decimals wait in the
 * state and are applied once those are known. Trades reach the trades store in blocks,
 * and closed candles the candles store, in the same transaction as the pool's snapshot.
 */
export function createPoolBehavior({ trades, candles }: PoolBehaviorDeps): ActorBehavior<PoolState> {
  return {
    kind: 'pool',
    takes: ['swap', 'pool', 'migration'],
    emits: ['pool.trade', 'pool.graduated'],
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
    initial: (key, staleGaps) => initialPool(key, candles, staleGaps, trades),
    sizeOf: (state) =>
      POOL_BYTES +
      state.unsaved.reservedBytes +
      (state.writing?.reservedBytes ?? 0) +
      state.waiting.length * WAITING_SWAP_BYTES +
      state.windows.bytes +
      state.distinct.bytes +
      state.candles.bytes +
      state.closed.bytes +
      state.curveGain.bytes,
    // Its trades not in the trades store yet: a snapshot writes them (beforeSnapshot).
    unsavedBytes: (state) => state.unsaved.reservedBytes,
    apply(state, e, ctx) {
      if (e.type === 'swap') return trade(state, e, ctx);
      if (e.type === 'pool') {
        const base = ctx.read<TokenState>('token', e.base_address);
        applyPool(state, e, decimalsOf(base, e.base_address));
        // Swaps that came first; a curve they complete is seen complete on its next swap.
        // Their trades are derived now, under this seq: `drained` says so to rederive.
        let keys: TradeKey[] | null = null;
        for (const swap of state.waiting.splice(0)) {
          const waiting = state.waiting.length;
          trade(state, swap, ctx);
          if (state.waiting.length === waiting) (keys ??= []).push([swap.at, swap.slot, swap.tx_index, swap.event_index]);
        }
        if (keys) state.drained.push([ctx.seq, keys]);
        return { type: 'pool.created', curve: e.pool_type === 'bonding_curve' };
      }
      if (e.type === 'migration') {
        const effect = applyMigrationToPool(state, e);
        if (effect === 'graduated') {
          emitMigrated(state, e, ctx);
          return { type: 'pool.graduated' };
        }
      }
    },
    /**
     * What apply emitted for an event the pool holds (router.ts): a swap's trade, looked
     * up by its key among the pool's stored trades (in memory, or in the trades store:
     * written with or before the snapshot that holds the swap), unless it waited (still
     * waiting, or derived later by the pool event that drained it); a pool event's
     * drained trades (`drained`, by seq); a migration that graduated it.
     */
    rederive(state, e, ctx) {
      if (e.type === 'swap') {
        for (const w of state.waiting) if (sameSwap(w, e)) return;
        const key: TradeKey = [e.at, e.slot, e.tx_index, e.event_index];
        for (const [, keys] of state.drained) for (const k of keys) if (compareKey(k, key) === 0) return;
        rederiveTrade(state, key, trades, ctx);
      } else if (e.type === 'pool') {
        for (const [seq, keys] of state.drained) if (seq === ctx.seq) for (const key of keys) rederiveTrade(state, key, trades, ctx);
      } else if (e.type === 'migration') {
        if (e.from_pool_address === state.pool_address && state.info?.replaced_by_pool_address === e.to_pool_address) emitMigrated(state as PoolState, e, ctx);
      }
    },
    beforeSnapshot(state, key) {
      // Closed candles wait in the snapshot until enough gathered for a batched write.
      state.closed.drain(state.candles);
      // One trades write per pool at a time, as for candles: the repo merges late trades
      // into the blocks LMDB shows, and a write in flight is not shown yet (two at once
      // made overlapping blocks). Meanwhile the trades stay in `unsaved`, and so in this
      // snapshot; the first snapshot after the commit writes them, and `true` asks the
      // host for one even if the pool never trades again.
      if (state.unsaved.length === 0) return;
      if (state.writing !== null) return true;
      const batch = state.unsaved;
      const committed = trades.write(key, batch, state.persisted_up_to);
      const last = batch.length - 1;
      if (!state.persisted_up_to || batch.compareAt(last, state.persisted_up_to) > 0) state.persisted_up_to = batch.keyAt(last);
      // The written log stays as it is (readable below) until its batch commits.
      state.unsaved = new TradeLog();
      // Readable from memory until LMDB shows it (engine/query/trade-streams.ts merges both).
      state.writing = batch;
      const done = () => {
        if (state.writing === batch) state.writing = null;
      };
      committed.then(done, done);
    },
    toSnapshot(state): PoolSnapshot {
      // `writing` commits with this snapshot: not part of it.
      const { writing: _inFlight, ...rest } = state;
      return { ...rest, unsaved: state.unsaved.toSnapshot(), candles: state.candles.toSnapshot(), closed: state.closed.toSnapshot(), windows: state.windows.toSnapshot(), distinct: state.distinct.toSnapshot(), curveGain: state.curveGain.toSnapshot() };
    },
    fromSnapshot(data, staleGaps = 0): PoolState {
      const s = data as PoolSnapshot;
      const closed = PoolClosedCandles.fromSnapshot(s.pool_address, candles, s.closed, tradeSourceOf(s.pool_address, trades, () => state));
      const state: PoolState = {
        ...s,
        unsaved: TradeLog.fromSnapshot(s.unsaved),
        closed,
        candles: PoolCandles.fromSnapshot(s.candles, closed, staleGaps),
        windows: PoolWindows.fromSnapshot(s.windows),
        distinct: new DistinctWallets(s.distinct),
        curveGain: new CurveGain(s.curveGain),
        writing: null,
        // Absent in snapshots written before derived events.
        drained: s.drained ?? [],
        completed_key: s.completed_key ?? null,
      };
      return state;
    },
  };
}
