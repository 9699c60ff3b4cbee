/**
 * Plans: who may call what and how much (SERVICE.md 3.3, 8; DECISIONS.md's plan table).
 * API keys and their accounts (`keys.ts`), plan admission with rate limits, quotas and
 * in-flight caps over one account actor per account (`limits.ts`), and the view of it the
 * WebSocket transport holds (`account-limits.ts`). The folder's entry point: importers
 * outside engine/plans name this file only (STYLE.md 3).
 */
export { createKeyStore, graceEndsAt, keyState } from './keys.ts';
export type { Account, CreatedKey, KeyState, KeyStore } from './keys.ts';
export { Limits, USAGE_FLUSH_MS, createLimits } from './limits.ts';
export type { AccountUsage, HttpLimits, LimitsOptions, RequestDecision } from './limits.ts';
export type { AccountLimits } from './account-limits.ts';
/** Web terminal sessions: one-time login tokens and cookies bound to a key kept on the server. */
export { createSessionStore, LOGIN_TTL_MS, SESSION_TTL_MS } from './sessions.ts';
export type { SessionInfo, SessionStore } from './sessions.ts';
