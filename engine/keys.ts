/**
 * @deprecated Moved to engine/plans/ (issue 21): import from engine/plans/index.ts. Kept
 * only for transport/ws/, which another branch is splitting at the same time; delete
 * this file once transport/ws imports engine/plans/index.ts.
 */
export type { Account, KeyStore } from './plans/index.ts';
