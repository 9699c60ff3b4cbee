import { KNOWN_MINTS } from '../../engine/ingest/events.ts';
import type { ActorBehavior } from '../../engine/supervisor/behavior.ts';
import { applyMigration, applyPoolEvent, applyTokenEvent, initialToken, type TokenState } from './token.logic.ts';

/**
 * One actor per mint: merged metadata, its pools, migration. Pool events reach the
 * base token, and the quote token too when the quote is not wSOL or USDC (a
 * token-to-token pool), so that wSOL's actor does not collect every pool.
 */
export interface TokenOutputs {
  /** symbol, name, image_url, description or socials changed (the token_metadata stream). */
  metadata(state: TokenState): void;
}

export function createTokenBehavior(outputs?: TokenOutputs): ActorBehavior<TokenState> {
  return {
  kind: 'token',
  route(e) {
    switch (e.type) {
      case 'token':
        return e.token_address;
      case 'pool':
        return e.quote_address in KNOWN_MINTS ? e.base_address : [e.base_address, e.quote_address];
      case 'migration':
        return e.token_address;
      default:
        return undefined;
    }
  },
  initial: initialToken,
  apply(state, e) {
    if (e.type === 'token') {
      if (applyTokenEvent(state, e)) outputs?.metadata(state);
    } else if (e.type === 'pool') applyPoolEvent(state, e);
    else if (e.type === 'migration') applyMigration(state, e);
  },
  };
}

/** The token behavior without live output (tests, tools). */
export const tokenBehavior = createTokenBehavior();
