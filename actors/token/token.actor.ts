import type { BalanceEvent } from '../../engine/ingest/index.ts';
import { KNOWN_MINTS } from '../../engine/model/index.ts';
import type { ActorBehavior, ActorContext } from '../../engine/supervisor/index.ts';
import { DEFAULT_SNIPER_SLOTS, Holders } from './holders.ts';
import { applyBalance, applyMigration, applyPoolEvent, applyTokenEvent, initialToken, type TokenState } from './token.logic.ts';

/**
 * One actor per mint: merged metadata, its pools, migration, its holders. Pool events
 * reach the base token, and the quote token too when the quote is not wSOL or USDC (a
 * token-to-token pool), so that wSOL's actor does not collect every pool. Balance
 * events reach their token, except wSOL's and USDC's: quote assets held by every
 * wallet of the chain, whose holders nothing serves.
 */
export interface TokenOutputs {
  /** symbol, name, image_url, description or socials changed (the token_metadata stream). */
  metadata(state: TokenState): void;
  /** A balance was applied: the holder totals of the token's pools may have changed (pool_metrics). */
  holders?(state: TokenState): void;
}

/** `sniperSlots`: the sniper window after a curve launch's creation slot (config `market.sniperSlots`). */
export function createTokenBehavior(outputs?: TokenOutputs, { sniperSlots = DEFAULT_SNIPER_SLOTS } = {}): ActorBehavior<TokenState> {
  return {
  kind: 'token',
  takes: ['token', 'pool', 'migration', 'balance'],
  emits: ['token.holders'],
  route(e) {
    switch (e.type) {
      case 'token':
        return e.token_address;
      case 'pool':
        return e.quote_address in KNOWN_MINTS ? e.base_address : [e.base_address, e.quote_address];
      case 'migration':
        return e.token_address;
      case 'balance':
        return e.token_address in KNOWN_MINTS ? undefined : e.token_address;
      default:
        return undefined;
    }
  },
  initial: initialToken,
  // Measured as the pools' (pool.actor.ts POOL_BYTES): 1.3 KB a token without holders; a holder's Map entry and holding ~200 bytes.
  sizeOf: (state) => 1_300 + 200 * state.holders.size,
  /**
   * A balance event's token.holders again, while it is still the wallet's current
   * balance. One a later slot replaced is not (the token keeps one balance per wallet):
   * a consumer gets the balance that replaced it, as a balance is a last write by slot.
   */
  rederive(state, e, ctx) {
    if (e.type === 'balance' && state.holders.isCurrent(e.wallet_address, Number(e.balance_raw), e.slot)) emitHolders(state, e, ctx);
  },
  apply(state, e, ctx) {
    if (e.type === 'balance') {
      // A balance of a later slot than the wallet's current one (or its first) becomes it: token.holders.
      const current = state.holders.slotOf(e.wallet_address) < e.slot;
      if (applyBalance(state, e, sniperSlots)) outputs?.holders?.(state);
      if (current) emitHolders(state, e, ctx);
    } else if (e.type === 'token') {
      if (applyTokenEvent(state, e)) outputs?.metadata(state);
    } else if (e.type === 'pool') applyPoolEvent(state, e);
    else if (e.type === 'migration') applyMigration(state, e);
  },
  // The holders go as one buffer (holders.ts: ~69 bytes per wallet, written in one
  // pass), not as an object per wallet for msgpack to walk at every checkpoint.
  toSnapshot(state): TokenSnapshot {
    return { ...state, holders: state.holders.encode() };
  },
  fromSnapshot(data): TokenState {
    const s = data as TokenSnapshot;
    // Snapshots from before holders lack launch and holders.
    return { ...s, launch: s.launch ?? null, holders: Holders.decode(s.holders) };
  },
  };
}

function emitHolders(state: TokenState, e: BalanceEvent, ctx: ActorContext): void {
  ctx.emit({ type: 'token.holders', token_address: state.token_address, wallet_address: e.wallet_address, balance_raw: e.balance_raw, balance: Number(e.balance_raw), slot: e.slot, at: e.at });
}

interface TokenSnapshot extends Omit<TokenState, 'holders'> {
  holders: Uint8Array | undefined;
}

/** The token behavior without live output (tests, tools). */
export const tokenBehavior = createTokenBehavior();
