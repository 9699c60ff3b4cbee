import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { TradeLog } from '../../actors/pool/trade-log.ts';
import { loadConfig, type Config, type ConfigInput } from '../../engine/config.ts';
import { BASE58_ALPHABET } from '../../engine/sources/sim/base58.ts';
import { Rng } from '../../engine/sources/sim/rng.ts';
import { openStorage, type Storage } from '../../storage/lmdb.ts';
import { USDC, WSOL, type StoredTrade } from '../../engine/model/index.ts';

const B58 = BASE58_ALPHABET;

/** Uniform draws in [0, 1) from the project's one seeded generator (the simulator's Rng). */
export function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.float();
}

export function base58(random: () => number, length: number): string {
  let s = B58[1 + Math.floor(random() * 57)]!;
  for (let i = 1; i < length; i++) s += B58[Math.floor(random() * 58)];
  return s;
}

const r = rng(7);
export const MINT = base58(r, 44);
export const POOL = base58(r, 44);
export const WALLET = base58(r, 44);
export const OTHER_WALLET = base58(r, 44);
export const TX = base58(r, 88);
export { USDC, WSOL };

/** One valid event of every INGEST.md type, all fields present. */
export function sampleEvents(): Record<string, Record<string, unknown>> {
  return {
    token: {
      type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'TEST', name: 'Test Token',
      description: 'a token', image_url: 'https://example.com/t.png', socials: { x: 'https://x.com/test' }, creator_address: WALLET,
      launched_at: 1_767_225_600_000, mint_authority: null, freeze_authority: null, lp_burned_pct: 100, dex_paid: false,
      mayhem_mode: false, mayhem_ends_at: null, creator_fee_destination: 'creator', slot: 100, at: 1_767_225_600_000,
    },
    pool: {
      type: 'pool', pool_address: POOL, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve',
      created_at: 1_767_225_600_000, migrated_from_pool_address: null, curve_initial_real_base_raw: '793100000000000', slot: 100,
    },
    swap: {
      type: 'swap', tx_hash: TX, slot: 101, tx_index: 3, event_index: 0, at: 1_767_225_600_400, pool_address: POOL, wallet_address: WALLET,
      side: 'buy', base_amount_raw: '35000000000000', quote_amount_raw: '1000000000', base_reserve_raw: '1038000000000000',
      quote_reserve_raw: '31000000000', real_base_reserve_raw: '758100000000000', real_quote_reserve_raw: '1000000000',
    },
    migration: { type: 'migration', token_address: MINT, from_pool_address: POOL, to_pool_address: OTHER_WALLET, slot: 200, at: 1_767_225_700_000 },
    balance: { type: 'balance', token_address: MINT, wallet_address: WALLET, balance_raw: '35000000000000', slot: 101, at: 1_767_225_600_400 },
    quote_price: { type: 'quote_price', quote_address: WSOL, price_usd: 151.25, at: 1_767_225_600_000 },
    label: { type: 'label', wallet_address: WALLET, label: 'kol', action: 'add', detail: { name: 'k' }, at: 1_767_225_600_000 },
    social_post: {
      type: 'social_post', post_id: 'x-1', platform: 'x', author: 'kol1', author_wallet_address: WALLET, text: 'buy $TEST',
      url: 'https://x.com/kol1/status/1', token_addresses: [MINT], at: 1_767_225_600_000,
    },
  };
}

/** Required fields of each type (INGEST.md "req: yes"). */
export const REQUIRED: Record<string, string[]> = {
  token: ['token_address', 'slot', 'at'],
  pool: ['pool_address', 'base_address', 'quote_address', 'dex', 'pool_type', 'created_at', 'slot', 'curve_initial_real_base_raw'],
  swap: ['tx_hash', 'slot', 'tx_index', 'event_index', 'at', 'pool_address', 'wallet_address', 'side', 'base_amount_raw', 'quote_amount_raw', 'base_reserve_raw', 'quote_reserve_raw'],
  migration: ['token_address', 'from_pool_address', 'to_pool_address', 'slot', 'at'],
  balance: ['token_address', 'wallet_address', 'balance_raw', 'slot', 'at'],
  quote_price: ['quote_address', 'price_usd', 'at'],
  label: ['wallet_address', 'label', 'action', 'at'],
  social_post: ['post_id', 'platform', 'author', 'text', 'token_addresses', 'at'],
};

/**
 * `count` swaps over `poolCount` pools, with a wSOL price every 100 events; with
 * `declare`, each pool's token and pool events come first (AMM pools quoted in wSOL).
 */
export function* swapStream(count: number, poolCount: number, seed = 1, declare = false): Generator<Record<string, unknown>> {
  const random = rng(seed);
  const pools = Array.from({ length: poolCount }, () => base58(random, 44));
  const wallets = Array.from({ length: 500 }, () => base58(random, 44));
  const start = 1_767_225_600_000;
  if (declare) {
    for (const [i, pool] of pools.entries()) {
      const mint = base58(rng(seed * 1_000 + i), 44);
      yield { type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: `T${i}`, name: `Token ${i}`, slot: 299_999_000, at: start - 1_000 };
      yield { type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: start - 1_000, slot: 299_999_000 };
    }
  }
  for (let i = 0; i < count; i++) {
    const at = start + i * 10;
    if (i % 100 === 0) yield { type: 'quote_price', quote_address: WSOL, price_usd: 150 + (i % 1000) / 100, at };
    yield {
      type: 'swap', tx_hash: base58(random, 88), slot: 300_000_000 + Math.floor(i / 4), tx_index: i % 4, event_index: 0, at,
      pool_address: pools[i % poolCount], wallet_address: wallets[Math.floor(random() * wallets.length)], side: random() < 0.5 ? 'buy' : 'sell',
      base_amount_raw: String(1_000_000 + Math.floor(random() * 1e9)), quote_amount_raw: String(1_000_000 + Math.floor(random() * 1e9)),
      base_reserve_raw: '800000000000000', quote_reserve_raw: '40000000000',
    };
  }
}

export interface TempDir {
  path: string;
  cleanup(): void;
}

/**
 * A builder of distinct buy swaps in one pool, one slot apart, with fixed amounts
 * (1 token for 1 SOL; reserves 1,000 tokens / 1 SOL) unless `extra` says otherwise.
 */
export function swapMaker(pool: string, wallet: string, seed: number, firstSlot: number) {
  let n = 0;
  return (at: number, extra: Record<string, unknown> = {}) => ({
    type: 'swap', tx_hash: base58(rng(seed + ++n), 88), slot: firstSlot + n, tx_index: 0, event_index: 0, at, pool_address: pool, wallet_address: wallet, side: 'buy',
    base_amount_raw: '1000000', quote_amount_raw: '1000000000', base_reserve_raw: '1000000000', quote_reserve_raw: '1000000000', ...extra,
  });
}

export function tempDir(prefix = 'mds-test-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TempStorage {
  readonly storage: Storage;
  readonly dir: TempDir;
}

/**
 * A fresh LMDB store in a temp dir for each test of the enclosing describe (or file):
 * opened in a beforeEach, closed and deleted in an afterEach. Read its getters inside
 * tests and hooks only; outside a test there is no store, and they throw.
 */
export function useTempStorage(prefix?: string): TempStorage {
  let dir: TempDir | null = null;
  let storage: Storage | null = null;
  beforeEach(() => {
    dir = tempDir(prefix);
    storage = openStorage(dir.path);
  });
  afterEach(async () => {
    const [open, path] = [storage, dir];
    storage = null;
    dir = null;
    try {
      await open?.close();
    } finally {
      path?.cleanup();
    }
  });
  return {
    get storage() {
      if (!storage) throw new Error('useTempStorage: the store is open only inside a test or its hooks');
      return storage;
    },
    get dir() {
      if (!dir) throw new Error('useTempStorage: the temp dir exists only inside a test or its hooks');
      return dir;
    },
  };
}

/**
 * useTempStorage with a repository over each test's store (made on first use in the
 * test): `temp.repo` and `temp.storage` inside tests and hooks.
 */
export function useTempRepo<R>(make: (storage: Storage) => R, prefix?: string): TempStorage & { readonly repo: R } {
  const temp = useTempStorage(prefix);
  let made: { storage: Storage; repo: R } | null = null;
  return {
    get storage() {
      return temp.storage;
    },
    get dir() {
      return temp.dir;
    },
    get repo() {
      const storage = temp.storage;
      if (made?.storage !== storage) made = { storage, repo: make(storage) };
      return made.repo;
    },
  };
}

/** A config for tests: temp data dir, event clock, no source, quiet. */
/**
 * `ingest` overrides that keep the whole ingest log (a year of event time), for tests
 * that read back everything ingested from it; by default the log covered by a
 * checkpoint is deleted (engine/ingest/log-retention.ts).
 */
export const KEEP_LOG = { logRetentionMs: 365 * 86_400_000 };

export function testConfig(data: string, overrides: Partial<ConfigInput> = {}): Config {
  return loadConfig({ flags: { data, source: 'none', clock: 'event', logLevel: 'silent', port: 0, ...overrides } as Record<string, unknown> });
}

/** A pool's unsaved-trade log holding these trades (inserted in the order given). */
export function logOf(trades: StoredTrade[]): TradeLog {
  const log = new TradeLog();
  for (const t of trades) log.insert(t);
  return log;
}
