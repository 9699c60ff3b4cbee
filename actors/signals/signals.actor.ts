import { KNOWN_MINTS, TRADE, tradeFromTokenSide, type PoolGraduatedEvent, type PoolTradeEvent, type Signal } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext, ActorEvent, CombinedPart } from '../../engine/supervisor/index.ts';
import type { TokenTradersState } from '../wallet/index.ts';
import { activeLabels, type WalletLabelsState } from '../labels/index.ts';
import { curveGain5m, curveGainTo, curveProgress, type PoolState } from '../pool/index.ts';
import { supplyOf, type TokenState } from '../token/index.ts';
import { SignalTradeView, labeledBuyMinUsd, longestCooldownMs, type SignalThresholds } from './signals.rules.ts';
import { TokenSignals, type TokenSignalsData, type TradeContext } from './token-signals.logic.ts';

/**
 * The token-signals actor (kind `token-signals`, one per token): the token kinds of
 * DECISIONS.md and the token's cluster_buy (token-signals.logic.ts), fed the router's
 * `pool.trade` (from each token's side) and `pool.graduated`; each signal is emitted as
 * the derived event `signal` (engine/model/derived.ts), which the signals store and the
 * token_signals / wallet_signals streams take.
 *
 * Inputs of other actors are read through the read-only port (ActorContext.read) when
 * the trade is delivered, as the pool actor reads the token and quote-price actors to
 * price a swap: the hosts run after the pools and wallet accounting within each event
 * (engine/system.ts), so a read sees the traded pool after the trade (its 5-minute
 * gain), the labels in force and the token's creator and supply, and nothing after the
 * event. The curve's progress after the trade is not read: the pool stores it with the
 * trade (StoredTrade.curvePct), so that a trade the pool derives again on start-up
 * replay, its snapshot past this actor's, gives the progress of its time and not the
 * pool's now (which saw a 70 % crossing at another trade, or missed it and its
 * cooldown: almost_bonded fired twice across a crash). SIGNALS.md, "Wiring".
 */

const VIEW = new SignalTradeView();
const CURVE = { progress_pct: 0, complete: false, gain_5m_pct: null as number | null };
const CONTEXT: TradeContext = { labels: [], creator_address: null, total_supply: null, curve: null };
const OUT: Signal[] = [];
const NO_LABELS: readonly string[] = Object.freeze([]);
/** Cooldown keys a token keeps before pruning those past the longest cooldown. */
const PRUNE_PAST = 64;

/** Labels in force on a wallet (the wallet-labels actor), a shared empty list for the unlabeled. */
export function labelsOf(ctx: ActorContext, wallet: string): readonly string[] {
  const state = ctx.read<WalletLabelsState>('wallet-labels', wallet);
  return state === undefined ? NO_LABELS : activeLabels(state);
}

export interface TokenSignalsState {
  token: string;
  signals: TokenSignals;
}

/** Fills VIEW with `e`'s trade from `token`'s side; false for a token the trade does not move. */
function view(e: PoolTradeEvent, token: string, ctx: ActorContext): boolean {
  const t = e.trade;
  const quoteUsd = t[TRADE.quoteUsd];
  VIEW.stored = t;
  VIEW.token_address = token;
  VIEW.pool_address = e.pool_address;
  VIEW.wallet_address = t[TRADE.wallet];
  VIEW.at = t[TRADE.at];
  if (token === e.base_address) {
    VIEW.side = t[TRADE.side] === 1 ? 'buy' : 'sell';
    VIEW.token_amount = t[TRADE.baseAmount];
    VIEW.amount_usd = quoteUsd === null ? null : t[TRADE.quoteAmount] * quoteUsd;
    VIEW.price_usd = quoteUsd === null ? null : t[TRADE.priceQuote] * quoteUsd;
    VIEW.market_cap_usd = quoteUsd === null ? null : t[TRADE.marketCapQuote] * quoteUsd;
    return true;
  }
  // A token-quoted pool's quote token (rare): its side of the trade, its market cap from its supply.
  const side = tradeFromTokenSide(e, token);
  if (side === null) return false;
  VIEW.side = side.side === 1 ? 'buy' : 'sell';
  VIEW.token_amount = side.token_amount;
  VIEW.amount_usd = side.amount_usd;
  VIEW.price_usd = side.price_usd;
  const supply = supplyOf(ctx.read<TokenState>('token', token) as TokenState | undefined);
  VIEW.market_cap_usd = side.price_usd === null || supply === null ? null : side.price_usd * supply;
  return true;
}

/** What the trade's signals read besides it: labels, the creator and supply (sells), the pool's curve after the trade. */
function context(state: TokenSignalsState, e: PoolTradeEvent, ctx: ActorContext, t: Readonly<SignalThresholds>, labelsFromUsd: number): TradeContext {
  // Labels matter only to buys of at least the smallest labeled threshold: no read for the others.
  CONTEXT.labels = VIEW.side === 'buy' && VIEW.amount_usd !== null && VIEW.amount_usd >= labelsFromUsd ? labelsOf(ctx, VIEW.wallet_address) : NO_LABELS;
  if (VIEW.side === 'sell') {
    const token = ctx.read<TokenState>('token', state.token) as TokenState | undefined;
    const creator = token?.fields.creator_address;
    CONTEXT.creator_address = typeof creator === 'string' ? creator : null;
    // The supply only matters to a sell by the creator (dev_sell).
    CONTEXT.total_supply = CONTEXT.creator_address === VIEW.wallet_address ? supplyOf(token) : null;
  } else {
    CONTEXT.creator_address = null;
    CONTEXT.total_supply = null;
  }
  CONTEXT.curve = null;
  if (state.token !== e.base_address) return CONTEXT;
  const stored = e.trade[TRADE.curvePct];
  if (stored !== undefined) {
    // The curve after the trade as its pool stored it (StoredTrade.curvePct: null once
    // migrated, 100 once complete), the same live and on a trade derived again.
    if (stored === null) return CONTEXT;
    CURVE.progress_pct = stored;
    CURVE.complete = stored >= 100;
    // The gain only scores a crossing: read when the curve is past the threshold.
    CURVE.gain_5m_pct = null;
    if (stored >= t.almost_bonded.minProgressPct && stored < 100) {
      const pool = ctx.read<PoolState>('pool', e.pool_address) as PoolState | undefined;
      if (pool !== undefined) CURVE.gain_5m_pct = curveGainTo(pool, stored, VIEW.at);
    }
    CONTEXT.curve = CURVE;
  } else if (e.curve_pct !== null) {
    // No curvePct and a curve_pct not null (which says "not a curve's trade"): a trade
    // derived again from the trades store, of an AMM pool or of a curve's trade stored
    // before StoredTrade.curvePct existed. The latter read the pool as it stands now,
    // which on start-up replay may be past the trade (as before curvePct).
    const pool = ctx.read<PoolState>('pool', e.pool_address) as PoolState | undefined;
    const progress = pool === undefined ? null : curveProgress(pool);
    if (pool !== undefined && progress !== null && !pool.info!.replaced_by_pool_address) {
      CURVE.progress_pct = progress;
      CURVE.complete = pool.completed_key !== null || pool.real_base_reserve === 0;
      CURVE.gain_5m_pct = progress >= t.almost_bonded.minProgressPct ? curveGain5m(pool, VIEW.at) : null;
      CONTEXT.curve = CURVE;
    }
  }
  return CONTEXT;
}

function emitAll(ctx: ActorContext): void {
  for (let i = 0; i < OUT.length; i++) ctx.emit({ type: 'signal', signal: OUT[i]! });
  OUT.length = 0;
}

/** The tokens a trade concerns: its base token, and its quote token when that is not a known quote mint. */
function tokensOf(e: ActorEvent): string | readonly string[] | undefined {
  if (e.type === 'pool.trade') return e.quote_address in KNOWN_MINTS ? e.base_address : [e.base_address, e.quote_address];
  if (e.type === 'pool.graduated') return e.token_address;
  return undefined;
}

function graduated(state: TokenSignalsState, e: PoolGraduatedEvent, ctx: ActorContext): void {
  const token = ctx.read<TokenState>('token', state.token) as TokenState | undefined;
  const launched = token?.fields.launched_at;
  for (const s of state.signals.onGraduated({ ...e, launched_at: typeof launched === 'number' ? launched : null })) OUT.push(s);
}

/** The token-signals behaviour over these thresholds (config `signals.<kind>.<name>` resolved: resolveSignalThresholds). */
export function createTokenSignalsBehavior(thresholds: Readonly<SignalThresholds>): ActorBehavior<TokenSignalsState> {
  const keepMs = longestCooldownMs(thresholds);
  const labelsFromUsd = labeledBuyMinUsd(thresholds);
  return {
    kind: 'token-signals',
    takes: ['pool.trade', 'pool.graduated'],
    // No rederive: no actor takes `signal` (the store and the streams are router
    // subscribers, the store fed during start-up replay too and idempotent by signal_id).
    emits: ['signal'],
    route: tokensOf,
    initial: (token) => ({ token, signals: new TokenSignals(token, thresholds) }),
    // Measured as the pools' (pool.actor.ts POOL_BYTES): 1.2 KB a token's signal state on the market replay.
    sizeOf: () => 1_200,
    apply(state, e, ctx) {
      // Empty unless an earlier apply threw between a push and emitAll (setting a length is a runtime call: not on every trade).
      if (OUT.length !== 0) OUT.length = 0;
      if (e.type === 'pool.trade') {
        if (!view(e, state.token, ctx)) return;
        state.signals.onTrade(VIEW, context(state, e, ctx, thresholds, labelsFromUsd), OUT);
        if (state.signals.cooldownCount > PRUNE_PAST) state.signals.prune(VIEW.at, keepMs);
      } else if (e.type === 'pool.graduated') graduated(state, e, ctx);
      if (OUT.length > 0) emitAll(ctx);
    },
    toSnapshot: (state) => ({ token: state.token, data: state.signals.toData() }),
    fromSnapshot: (data) => {
      const s = data as { token: string; data: TokenSignalsData };
      return { token: s.token, signals: TokenSignals.fromData(s.token, s.data, thresholds) };
    },
  };
}

/**
 * A token's signals run in its token-traders actor when wallet accounting is on
 * (engine/system.ts, engine/supervisor/combine.ts): both take each trade of the token,
 * keyed by it, so one delivery and one snapshot instead of two. Their state is the
 * token-traders state's `part`.
 */
export const TOKEN_SIGNALS_PART: CombinedPart<TokenTradersState, TokenSignalsState> = {
  get: (state) => state.part as TokenSignalsState,
  set: (state, part) => {
    state.part = part;
  },
  keyOf: (state) => state.token_address,
};
