import { createHash, randomBytes } from 'node:crypto';
import type { PlanName } from '../config.ts';
import type { Storage } from '../../storage/index.ts';
import { keyHash, type Account, type KeyStore } from './keys.ts';

/**
 * Web terminal sessions (SERVICE.md 5.6: keys stay on the server; README "Web terminal").
 *
 * `mds terminal-url` (or the line `mds serve` logs at start) makes a one-time login
 * token; opening `/session/<token>` redeems it for a session whose secret goes to the
 * browser as an HttpOnly, SameSite=Strict cookie. A session is bound to an API key kept
 * on the server, one per plan (`terminal:<plan>`, created on first use and kept): the
 * page's HTTP and /ws requests are authorized with that key's account, so its plan,
 * rate limits, quotas and watched items apply, and a revoked key ends its sessions.
 * The browser never holds the key; the store never holds the key either, only its hash
 * (as `accounts` does), nor a token or cookie, only their sha256: a leaked data
 * directory gives no usable session.
 *
 * Every check reads LMDB (synchronous, memory-mapped), so a revoke by the CLI in another
 * process is seen by the next request.
 */

/** What the sessions database holds under `login:<hash>` and `session:<hash>`. @internal */
interface SessionRecord {
  /** Public id: 12 hex characters of the secret's hash (`mds sessions revoke <id>`). */
  id: string;
  /** sha256 hex of the bound key (its `accounts` record's key). */
  accountHash: string;
  plan: PlanName;
  createdAt: number;
  /** A login: when the token stops being redeemable; a session: when it ends. */
  expiresAt: number;
  /** A login: how long the session it opens lasts. */
  sessionTtlMs: number;
  revokedAt: number | null;
}

/** A session as `mds sessions list` shows it: never its secret. */
export interface SessionInfo {
  id: string;
  kind: 'login' | 'session';
  plan: PlanName;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface SessionStore {
  /**
   * A one-time login token for a session of `plan`, redeemable until `loginTtlMs` from
   * now, opening a session of `sessionTtlMs`. Creates the plan's terminal key the first
   * time (or after it was revoked).
   */
  createLogin(input: { plan: PlanName; sessionTtlMs?: number; loginTtlMs?: number }): Promise<{ token: string; id: string; expiresAt: number }>;
  /**
   * Redeems a login token: the new session's cookie value, or null when the token is
   * unknown, used, expired or revoked. Synchronous (one LMDB write transaction), so a
   * uWS handler can call it; the token is gone once it returns.
   */
  redeem(token: string): { cookie: string; id: string; expiresAt: number } | null;
  /** The account a session cookie stands for, or null: unknown, expired, revoked, or its key revoked. */
  verify(cookie: string): Readonly<Account> | null;
  /** Logins not yet redeemed and sessions, oldest first. */
  list(): SessionInfo[];
  /** Revokes a session or login by id; false if unknown or already revoked. */
  revoke(id: string): Promise<boolean>;
}

/** Login tokens are opened by hand from a terminal's output: ten minutes is plenty. */
export const LOGIN_TTL_MS = 10 * 60_000;
/** A working day; `mds terminal-url --ttl` sets another. */
export const SESSION_TTL_MS = 12 * 3_600_000;

/** How long `mds sessions list` still shows an ended link or session. */
const PRUNE_AFTER_MS = 86_400_000;
const SECRET_BYTES = 32;
/** base64url of 32 bytes. */
const SECRET_LENGTH = 43;
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const ID_HEX_CHARS = 12;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const newSecret = (): string => randomBytes(SECRET_BYTES).toString('base64url');

export function createSessionStore(storage: Storage, keys: KeyStore, clock: { now(): number }): SessionStore {
  const db = storage.sessions;

  /** The plan's terminal key: kept by hash only; a new one when it is missing or revoked. */
  const terminalKey = async (plan: PlanName): Promise<string> => {
    const name = `terminal:${plan}`;
    const kept = db.get(name) as string | undefined;
    if (kept !== undefined && keys.verifyHash(kept) !== null) return kept;
    const created = await keys.create({ plan });
    const hash = keyHash(created.key);
    await db.put(name, hash);
    return hash;
  };

  const live = (record: SessionRecord | undefined, now: number): record is SessionRecord =>
    record !== undefined && record.revokedAt === null && now < record.expiresAt;

  /** Links and sessions ended more than a day ago are dropped (each start of mds serve makes a link). */
  const prune = async (now: number): Promise<void> => {
    for (const { key, value } of db.getRange()) {
      const name = String(key);
      if ((name.startsWith('login:') || name.startsWith('session:')) && (value as SessionRecord).expiresAt < now - PRUNE_AFTER_MS) await db.remove(name);
    }
  };

  return {
    async createLogin({ plan, sessionTtlMs = SESSION_TTL_MS, loginTtlMs = LOGIN_TTL_MS }) {
      await prune(clock.now());
      const accountHash = await terminalKey(plan);
      const token = newSecret();
      const hash = sha256(token);
      const now = clock.now();
      const record: SessionRecord = { id: hash.slice(0, ID_HEX_CHARS), accountHash, plan, createdAt: now, expiresAt: now + loginTtlMs, sessionTtlMs, revokedAt: null };
      await db.put(`login:${hash}`, record);
      return { token, id: record.id, expiresAt: record.expiresAt };
    },

    redeem(token) {
      if (typeof token !== 'string' || token.length !== SECRET_LENGTH || !SECRET.test(token)) return null;
      const name = `login:${sha256(token)}`;
      // One transaction: the token is removed in the same commit that opens the session,
      // so two redeems (two processes on one directory included) cannot both succeed.
      return db.transactionSync(() => {
        const login = db.get(name) as SessionRecord | undefined;
        if (login === undefined) return null;
        db.removeSync(name);
        const now = clock.now();
        if (!live(login, now)) return null;
        const cookie = newSecret();
        const hash = sha256(cookie);
        const session: SessionRecord = { ...login, id: hash.slice(0, ID_HEX_CHARS), createdAt: now, expiresAt: now + login.sessionTtlMs };
        db.putSync(`session:${hash}`, session);
        return { cookie, id: session.id, expiresAt: session.expiresAt };
      });
    },

    verify(cookie) {
      if (typeof cookie !== 'string' || cookie.length !== SECRET_LENGTH || !SECRET.test(cookie)) return null;
      const record = db.get(`session:${sha256(cookie)}`) as SessionRecord | undefined;
      if (!live(record, clock.now())) return null;
      return keys.verifyHash(record.accountHash);
    },

    list() {
      const out: SessionInfo[] = [];
      for (const { key, value } of db.getRange()) {
        const name = String(key);
        const kind = name.startsWith('login:') ? 'login' : name.startsWith('session:') ? 'session' : null;
        if (kind === null) continue;
        const r = value as SessionRecord;
        out.push({ id: r.id, kind, plan: r.plan, createdAt: r.createdAt, expiresAt: r.expiresAt, revokedAt: r.revokedAt });
      }
      return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    },

    async revoke(id) {
      for (const { key, value } of db.getRange()) {
        const name = String(key);
        if (!name.startsWith('login:') && !name.startsWith('session:')) continue;
        const r = value as SessionRecord;
        if (r.id !== id) continue;
        if (r.revokedAt !== null) return false;
        await db.put(name, { ...r, revokedAt: clock.now() });
        return true;
      }
      return false;
    },
  };
}
