import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../engine/clock.ts';
import { createKeyStore, type KeyStore } from '../../engine/plans/index.ts';
import { openStorage, type Storage } from '../../storage/lmdb.ts';

let dir: string;
let storage: Storage;
let clock: SimulatedClock;
let keys: KeyStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mds-keys-'));
  storage = openStorage(dir);
  clock = new SimulatedClock(1_000);
  keys = createKeyStore(storage, clock);
});

afterEach(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('createKeyStore', () => {
  it('creates an mds_ key with a short public id', async () => {
    const created = await keys.create({ plan: 'pro', expiresAt: 5_000 });
    expect(created.key).toMatch(/^mds_[A-Za-z0-9_-]{43}$/);
    expect(created.id).toMatch(/^[0-9a-f]{12}$/);
    expect(created).toMatchObject({ plan: 'pro', expiresAt: 5_000 });
    const other = await keys.create({ plan: 'pro' });
    expect(other.key).not.toBe(created.key);
    expect(other.expiresAt).toBeNull();
  });

  it('stores only a hash of the key, under that hash', async () => {
    const { key, id } = await keys.create({ plan: 'free' });
    const entries = [...storage.accounts.getRange()];
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry!.key).toBe(sha256(key));
    const stored = JSON.stringify(entry!.value);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(4));
    expect(entry!.value).toMatchObject({ id, plan: 'free', createdAt: 1_000, expiresAt: null, revokedAt: null });
    // The raw bytes LMDB holds do not contain the key either.
    const rawValue = storage.accounts.getBinary(sha256(key))!;
    expect(Buffer.from(rawValue).includes(Buffer.from(key.slice(4)))).toBe(false);
  });

  it('verifies a created key and rejects anything else', async () => {
    const { key, id } = await keys.create({ plan: 'starter' });
    expect(keys.verify(key)).toEqual({ id, plan: 'starter', createdAt: 1_000, expiresAt: null, revokedAt: null });
    expect(keys.verify(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toBeNull();
    expect(keys.verify('mds_')).toBeNull();
    expect(keys.verify('')).toBeNull();
    expect(keys.verify(key + 'x')).toBeNull();
    expect(keys.verify(id)).toBeNull();
    expect(keys.verify(sha256(key))).toBeNull();
  });

  it('an expired key still verifies (the plan decides what it may do)', async () => {
    const { key } = await keys.create({ plan: 'pro', expiresAt: 2_000 });
    clock.set(10_000);
    expect(keys.verify(key)).toMatchObject({ plan: 'pro', expiresAt: 2_000 });
  });

  it('revoke makes verify fail at once and keeps the account listed', async () => {
    const { key, id } = await keys.create({ plan: 'scale' });
    const kept = await keys.create({ plan: 'free' });
    expect(keys.verify(key)).not.toBeNull();
    clock.set(3_000);
    expect(await keys.revoke(id)).toBe(true);
    expect(keys.verify(key)).toBeNull();
    expect(keys.verify(kept.key)).not.toBeNull();
    expect(await keys.revoke(id)).toBe(false);
    expect(await keys.revoke('000000000000')).toBe(false);
    expect(keys.list().find((a) => a.id === id)).toEqual({ id, plan: 'scale', createdAt: 1_000, expiresAt: null, revokedAt: 3_000 });
  });

  it('a revoke is seen by another store over the same environment (nothing cached)', async () => {
    const other = createKeyStore(storage, clock);
    const { key, id } = await keys.create({ plan: 'pro' });
    expect(other.verify(key)).not.toBeNull();
    await keys.revoke(id);
    expect(other.verify(key)).toBeNull();
  });

  it('lists accounts oldest first, without key material', async () => {
    const a = await keys.create({ plan: 'free' });
    clock.set(2_000);
    const b = await keys.create({ plan: 'pro', expiresAt: 9_000 });
    const list = keys.list();
    expect(list.map((x) => x.id)).toEqual([a.id, b.id]);
    for (const account of list) expect(Object.keys(account).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'plan', 'revokedAt']);
    const text = JSON.stringify(list);
    for (const secret of [a.key, b.key, sha256(a.key), sha256(b.key)]) expect(text).not.toContain(secret);
  });

  it('list is empty on a fresh store', () => {
    expect(keys.list()).toEqual([]);
  });
});
