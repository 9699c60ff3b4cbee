import { setup } from 'xstate';
import { isExpired, isGraceOver } from './account.logic.ts';

/**
 * The subscription lifecycle of one API account (SERVICE.md 3.3, DECISIONS.md
 * "Plans"): its own plan while active, the same plan for 2 hours of grace after its
 * expiry, then free. A revoked key is invalid, not free: `revoked` is final.
 *
 * Time reaches the machine only as `account.tick` events carrying the clock's now
 * and the key's current expiry (an operator may move it), so it stays pure and is
 * advanced with xstate's `transition()`; the caller ticks it lazily, only when the
 * expiry changed or a boundary passed, never per request.
 */
export const accountMachine = setup({
  types: {
    events: {} as { type: 'account.tick'; now: number; expiresAt: number | null } | { type: 'account.revoked' },
  },
  guards: {
    graceOver: ({ event }) => event.type === 'account.tick' && isGraceOver(event.expiresAt, event.now),
    expired: ({ event }) => event.type === 'account.tick' && isExpired(event.expiresAt, event.now),
  },
}).createMachine({
  id: 'account',
  initial: 'active',
  states: {
    active: {
      on: {
        // First seen long after its expiry: straight to free.
        'account.tick': [{ guard: 'graceOver', target: 'free' }, { guard: 'expired', target: 'grace' }],
        'account.revoked': 'revoked',
      },
    },
    grace: {
      on: {
        'account.tick': [{ guard: 'graceOver', target: 'free' }, { guard: 'expired' }, { target: 'active' }],
        'account.revoked': 'revoked',
      },
    },
    free: {
      on: {
        // Only a moved expiry brings a free account back (a renewal).
        'account.tick': [{ guard: 'graceOver' }, { guard: 'expired', target: 'grace' }, { target: 'active' }],
        'account.revoked': 'revoked',
      },
    },
    revoked: { type: 'final' },
  },
});

export type AccountPhase = 'active' | 'grace' | 'free' | 'revoked';
