import { PRESENTED_MAX } from '../bounds.ts';
import { createHash, randomBytes } from 'node:crypto';
import type { PlanName } from '../config.ts';
import type { Account, Storage } from '../../storage/index.ts';
import { GRACE_MS, isExpired, isGraceOver } from '../../actors/account/index.ts';

export type { Account };

/**
 * API keys (DECISIONS.md, "Plans"): the operator's CLI creates, lists and revokes them,
 * HTTP and WebSocket authentication verify them. Only a hash of a key is stored: the
 * `accounts` database is keyed by the sha256 hex of the key, and a leaked data
 * directory gives no usable key.
 *
 * `verify` reads the key's record from LMDB on every call (a synchronous,
 * memory-mapped read), so a revoke is effective for the next request as soon as its
 * write has committed, in this process and in any other reading the same directory.
 * What it keeps in memory (Presented) only saves hashing and decoding the same bytes again.
 */

/**
 * Where a key stands at `now`: `active` (its plan applies), `grace` (expired less than
 * 2 hours ago: its plan still applies), `expired` (past the grace: it authenticates
 * and gets the free plan), `revoked` (rejected).
 */
export type KeyState = 'active' | 'grace' | 'expired' | 'revoked';

export function keyState(account: Account, now: number): KeyState {
  if (account.revokedAt !== null) return 'revoked';
  if (!isExpired(account.expiresAt, now)) return 'active';
  return isGraceOver(account.expiresAt, now) ? 'expired' : 'grace';
}

/** The end of a key's grace: when an expired key's plan drops to free. */
export const graceEndsAt = (expiresAt: number): number => expiresAt + GRACE_MS;

/** What `create` returns: the only time the key itself is seen. */
export interface CreatedKey {
  id: string;
  /** `mds_` + 32 random bytes in base64url; shown once, never stored. */
  key: string;
  plan: PlanName;
  expiresAt: number | null;
}

export interface KeyStore {
  /** Create a key; resolves once the account is committed (verify sees it). */
  create(input: { plan: PlanName; expiresAt?: number | null }): Promise<CreatedKey>;
  /** Every account, revoked ones included, oldest first; no key material. */
  list(): Account[];
  /** Revoke by id; true if an active key was revoked, false if unknown or already revoked. */
  revoke(id: string): Promise<boolean>;
  /** The account of a presented key, or null for an unknown or revoked key. Expired keys still verify. */
  verify(key: string): Readonly<Account> | null;
  /**
   * The account of a key by its hash (`keyHash`), or null for an unknown or revoked key:
   * what a web terminal session holds instead of the key (engine/plans/sessions.ts).
   */
  verifyHash(hash: string): Readonly<Account> | null;
}

/** The stored record: the account plus the key hash it is filed under. @internal */
interface AccountRecord extends Account {
  /** sha256 hex of the key, the same as the record's LMDB key. */
  hash: string;
}

const KEY_PREFIX = 'mds_';
const KEY_RANDOM_BYTES = 32;
/** Length of a generated key: prefix + base64url of 32 bytes (43 characters). */
const KEY_LENGTH = KEY_PREFIX.length + Math.ceil((KEY_RANDOM_BYTES * 4) / 3);
/** Hex characters of the hash used as public id: 48 bits, unique among an operator's keys. */
const ID_HEX_CHARS = 12;

const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The sha256 hex a key is filed under: what may be kept of a key outside the key's holder. */
export const keyHash = hashKey;

const toAccount = (record: AccountRecord): Account => ({
  id: record.id,
  plan: record.plan,
  createdAt: record.createdAt,
  expiresAt: record.expiresAt,
  revokedAt: record.revokedAt,
});

/**
 * What verify knows of a presented key: its sha256 (a key's hash never changes), and
 * the bytes of its account record as last read with what they decoded to. Every call
 * still reads the record from LMDB; only when its bytes are the ones seen before are
 * the sha256 and the decoding skipped (together about 20 % of a cached GET's CPU in a
 * profile). A revoke rewrites the record, so its bytes differ and it is seen at once.
 */
interface Presented {
  hash: string;
  bytes: Uint8Array | null;
  /** null: revoked or damaged. Frozen: every call seeing the same bytes returns this object. */
  account: Readonly<Account> | null;
}

/**
 * Whether `fast` (lmdb's getBinaryFast buffer: its `length` is the value's, its
 * underlying memory larger, so no Buffer method that reads byteLength) holds `bytes`.
 */
function sameBytes(bytes: Uint8Array, fast: Uint8Array): boolean {
  const n = fast.length;
  if (bytes.length !== n) return false;
  for (let i = 0; i < n; i++) if (bytes[i] !== fast[i]) return false;
  return true;
}


export function createKeyStore(storage: Storage, clock: { now(): number }): KeyStore {
  const db = storage.accounts;
  const presented = new Map<string, Presented>();

  const presentedOf = (key: string): Presented => {
    let p = presented.get(key);
    if (p === undefined) {
      if (presented.size >= PRESENTED_MAX) presented.clear();
      p = { hash: hashKey(key), bytes: null, account: null };
      presented.set(key, p);
    }
    return p;
  };

  const records = (): AccountRecord[] => {
    const out: AccountRecord[] = [];
    for (const { value } of db.getRange()) out.push(value as AccountRecord);
    return out;
  };

  return {
    async create({ plan, expiresAt = null }) {
      const taken = new Set(records().map((r) => r.id));
      let key: string;
      let hash: string;
      // A 48-bit id prefix collides with negligible probability; retrying keeps ids unique anyway.
      do {
        key = KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString('base64url');
        hash = hashKey(key);
      } while (taken.has(hash.slice(0, ID_HEX_CHARS)));
      const record: AccountRecord = {
        id: hash.slice(0, ID_HEX_CHARS),
        plan,
        createdAt: clock.now(),
        expiresAt,
        revokedAt: null,
        hash,
      };
      await db.put(hash, record);
      return { id: record.id, key, plan, expiresAt };
    },

    list() {
      return records()
        .map(toAccount)
        .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    },

    async revoke(id) {
      const record = records().find((r) => r.id === id);
      if (!record || record.revokedAt !== null) return false;
      // A read-modify-write without a version check: revokes come from the operator's
      // CLI, and two concurrent revokes of one key only rewrite revokedAt.
      await db.put(record.hash, { ...record, revokedAt: clock.now() });
      return true;
    },

    verifyHash(hash) {
      const record = db.get(hash) as AccountRecord | undefined;
      return record && record.hash === hash && record.revokedAt === null ? toAccount(record) : null;
    },

    verify(key) {
      // Cheap rejects first: only generated keys can match, and this bounds hashing work.
      if (typeof key !== 'string' || key.length !== KEY_LENGTH || !key.startsWith(KEY_PREFIX)) return null;
      const p = presentedOf(key);
      // Read on every call (see above): a new, changed or revoked record is seen at once.
      const bytes = db.getBinaryFast(p.hash);
      if (bytes === undefined) return null;
      if (p.bytes === null || !sameBytes(p.bytes, bytes)) {
        // Copied first: the next read reuses getBinaryFast's buffer.
        p.bytes = Uint8Array.prototype.slice.call(bytes, 0, bytes.length);
        const record = db.get(p.hash) as AccountRecord | undefined;
        // The record is filed under its hash, so the hash check only rejects a damaged
        // record; a plain comparison: both sides derive from the presented key, nothing secret to time.
        p.account = record && record.hash === p.hash && record.revokedAt === null ? Object.freeze(toAccount(record)) : null;
      }
      return p.account;
    },
  };
}
