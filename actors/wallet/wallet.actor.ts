import type { BalanceEvent } from '../../engine/ingest/index.ts';
import { KNOWN_MINTS, TRADE } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../engine/supervisor/index.ts';
import { AtTrade } from '../pool/index.ts';
import { tokenUsdOf } from '../pool/index.ts';
import { decimalsOf, type TokenState } from '../token/index.ts';
import { applyBalance, applyPoolTrade, initialWallet, positionFromSnapshot, type Position, type WalletState } from './wallet.logic.ts';

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
 * `balance` events. Its snapshot is its state as it is (plain objects and arrays),
 * written at checkpoints and at passivation with the other actors': no write per trade.
 */
export const walletBehavior: ActorBehavior<WalletState> = {
  kind: 'wallet',
  takes: ['pool.trade', 'balance'],
  route: walletOf,
  initial: (key) => initialWallet(key),
  apply(state, e, ctx) {
    if (e.type === 'pool.trade') applyPoolTrade(state, e.base_address, e.quote_address, e.trade);
    else if (e.type === 'balance') balance(state, e, ctx);
  },
  toSnapshot: (state) => ({ wallet_address: state.wallet_address, positions: [...state.positions] }),
  fromSnapshot: (data) => {
    const s = data as { wallet_address: string; positions: Array<[string, Position]> };
    return { wallet_address: s.wallet_address, positions: new Map(s.positions.map(([token, p]) => [token, positionFromSnapshot(p)])) };
  },
};
