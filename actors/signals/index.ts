/** The entry point of actors/signals/: what other folders may import from it (STYLE.md 3). */
export { createTokenSignalsBehavior, labelsOf, TOKEN_SIGNALS_PART, type TokenSignalsState } from './signals.actor.ts';
export {
  Cooldowns,
  SignalTradeView,
  SIGNAL_DEFAULTS,
  TOKEN_SIGNAL_KINDS,
  WALLET_SIGNAL_KINDS,
  cooldownKey,
  linearRamp,
  logRamp,
  longestCooldownMs,
  resolveSignalThresholds,
  type Signal,
  type SignalKind,
  type SignalOverrides,
  type SignalThresholds,
  type SignalTrade,
  type TokenSignalKind,
  type WalletSignalKind,
} from './signals.rules.ts';
export { TokenSignals, type GraduationInput, type TokenSignalsData, type TradeContext } from './token-signals.logic.ts';
export { WalletSignals, type WalletTradeContext } from './wallet-signals.logic.ts';
