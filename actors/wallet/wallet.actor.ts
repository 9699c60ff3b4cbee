import type { BalanceEvent } from '../../engine/ingest/index.ts';
import { KNOWN_MINTS, TRADE } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../engine/supervisor/index.ts';
import { AtTrade } from '../pool/index.ts';
import { tokenUsdOf } from '../pool/index.ts';
import { decimalsOf, type TokenState } from '../token/index.ts';
import { WalletSignals, type SignalThresholds } from '../signals/index.ts';
import type { Signal } from '../../engine/model/index.ts';
import { walletTradeSignals } from './wallet-signals.ts';
import { applyBalance, applyPoolTrade, initialWallet, positionFromSnapshot, type Position, type WalletState } from './wallet.logic.ts';
import { Positions, type PackedPositions } from './positions.ts';

/** The token's USD price as the actors stand at the event being applied (its main pool's). */
const AT_EVENT = new AtTrade();
function tokenUsdAtEvent(token: string, at: number, ctx: ActorContext): number | null {
  AT_EVENT.ctx = ctx;
  AT_EVENT.at = at;
  try {
    return tokenUsdOf(token, AT_EVENT);
  } finally {
    AT_EVENT.ctx = null;
  }
}

/** Applies a balance event to the wallet (wallet.logic.ts applyBalance); false when the token's decimals are unknown. */
function balance(state: WalletState, e: BalanceEvent, ctx: ActorContext): boolean {
  const token = ctx.read<TokenState>('token', e.token_address) as TokenState | undefined;
  const decimals = decimalsOf(token, e.token_address);
  if (decimals === null) return false;
  const whole = Number(e.balance_raw) / 10 ** decimals;
  // Priced only when it differs from what the swaps explain (a transfer in needs it).
  const position = state.positions.get(e.token_address);
  const known = position?.qty ?? 0;
  const price = whole > known ? tokenUsdAtEvent(e.token_address, e.at, ctx) : null;
  return applyBalance(state, e.token_address, whole, e.slot, decimals, price);
}

/** The wallet a wallet-kind input concerns: a trade's wallet, a balance's (not of a known quote mint). */
export function walletOf(e: ActorEvent): string | undefined {
  if (e.type === 'pool.trade') return e.trade[TRADE.wallet];
  if (e.type === 'balance') return e.token_address in KNOWN_MINTS ? undefined : e.wallet_address;
  return undefined;
}

/**
 * One actor per wallet (virtual: activated by its first trade or balance, passivated
 * when idle like pools): its positions by token and their per-day rows (wallet.logic.ts). Fed `pool.trade` (the priced trade, from each token's side) and
 * `balance` events. Its snapshot is its address, its positions' bytes (positions.ts:
 * those not changed since the last snapshot or activation copied, not packed again) and
 * its signals' cooldowns, written at checkpoints and at passivation with the other
 * actors': no write per trade.
 */
export function createWalletBehavior(options: { signals?: Readonly<SignalThresholds> | null } = {}): ActorBehavior<WalletState> {
  const signals = options.signals ?? null;
  return {
    kind: 'wallet',
    takes: ['pool.trade', 'balance'],
    // big_win and first_buy (wallet-signals.ts) as derived `signal` events; no actor takes them (see actors/signals).
    ...(signals ? { emits: ['signal'] } : {}),
    route: walletOf,
    initial: (key) => initialWallet(key),
    sizeOf: (state) => WALLET_BYTES + POSITION_BYTES * state.positions.decoded + PACKED_BYTES * (state.positions.size - state.positions.decoded) + state.positions.packedBytes,
    apply(state, e, ctx) {
      if (e.type === 'pool.trade') {
        // Before the trade changes the position: the signals read it as it was.
        if (signals !== null) {
          // Empty unless an earlier apply threw before emitting (a length set is a runtime call: not on every trade).
          if (OUT.length !== 0) OUT.length = 0;
          walletTradeSignals(state, e, ctx, signals, OUT);
          if (OUT.length > 0) {
            for (let i = 0; i < OUT.length; i++) ctx.emit({ type: 'signal', signal: OUT[i]! });
            OUT.length = 0;
          }
        }
        applyPoolTrade(state, e.base_address, e.quote_address, e.trade);
      } else if (e.type === 'balance') balance(state, e, ctx);
    },
    toSnapshot: (state) => ({ wallet_address: state.wallet_address, packed: state.positions.toData(), ...(state.signals ? { cooldowns: state.signals.toData() } : {}) }),
    fromSnapshot: (data) => {
      // `positions`: a snapshot written before the packed form, every position as an object.
      const s = data as { wallet_address: string; packed?: PackedPositions; positions?: Array<[string, Position]>; cooldowns?: Array<[string, number]> };
      const positions = s.packed !== undefined ? Positions.fromData(s.packed) : Positions.of(s.positions!.map(([token, p]) => [token, positionFromSnapshot(p)]));
      const state: WalletState = { wallet_address: s.wallet_address, positions };
      if (s.cooldowns && signals) state.signals = new WalletSignals(s.wallet_address, signals, s.cooldowns);
      return state;
    },
  };
}

const OUT: Signal[] = [];

/**
 * A wallet's heap for the resident bound (ActorBehavior.sizeOf): measured with
 * `--expose-gc` as the heap a kind's passivation freed after a market replay (100,000
 * swaps, 9,977 wallets of 10 positions on average: 7.4 KB a wallet), about 700 bytes a
 * position (its object, day rows and level arrays, its Map entry and token key) and the
 * rest the wallet's own.
 */
const WALLET_BYTES = 400;
const POSITION_BYTES = 700;
/** A position held only as bytes (Positions): its token key and Map entry (a decoded one's are in POSITION_BYTES), its bytes counted apart. */
const PACKED_BYTES = 100;

/** Wallet accounting without signals. */
export const walletBehavior: ActorBehavior<WalletState> = createWalletBehavior();
