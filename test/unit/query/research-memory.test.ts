import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { WSOL } from '../../../engine/model/index.ts';
import { AddressRows } from '../../../engine/query/columns.ts';
import { PoolDirectory } from '../../../engine/query/pool-directory.ts';
import type { PoolRecord, TokenRecord } from '../../../engine/query/research-store.ts';
import { TokenSearchFeed } from '../../../engine/query/search-feed.ts';
import { BASE58_ALPHABET } from '../../../engine/sources/sim/base58.ts';
import { Rng } from '../../../engine/sources/sim/rng.ts';

// A full collection on demand, as `node --expose-gc` gives it.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A 44-character base58 address, flat (joined, as JSON.parse and msgpack give them). */
function address(r: Rng): string {
  const chars = [BASE58_ALPHABET[1 + r.int(57)]!];
  for (let i = 1; i < 44; i++) chars.push(BASE58_ALPHABET[r.int(58)]!);
  return chars.join('');
}

/** Heap in use after full collections. */
function heapUsed(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

interface Row {
  pool: string;
  token: string;
  name: string;
  symbol: string;
}

/** JS heap per pool and its token in the pool list and the token search, with the rows' strings held by the read models alone. */
function heapPerPool(count: number, makeRows: (r: Rng, count: number) => Row[]): number {
  const r = new Rng(25);
  const before = heapUsed();
  // What the engine's events bring in: the addresses, names and symbols (counted: the read models hold them).
  const rows = makeRows(r, count);
  // As ResearchFeed (engine/query/search.ts) puts them together.
  const mints = new AddressRows();
  const pools = new PoolDirectory(mints);
  const tokens = new TokenSearchFeed(mints, (pool) => pools.canonical(pool));
  rows.forEach((row, i) => {
    const pool: PoolRecord = { pool_address: row.pool, base_address: row.token, quote_address: WSOL, created_at: 1_767_225_600_000 + i * 1_000, liquidity_quote: 30 + i / 7, volume_usd: 1_000 + i * 3.5 };
    pools.upsert(pool);
    const token: TokenRecord = {
      token_address: row.token, name: row.name, symbol: row.symbol, pool_address: row.pool, quote_address: WSOL, created_at: pool.created_at,
      market_cap_quote: 28 + i / 3, liquidity_quote: pool.liquidity_quote, usd_mint: WSOL, usd_factor: 1, own_usd_mint: WSOL, own_usd_factor: 1e-7 * (i + 1),
      volume_usd: pool.volume_usd, trader_count: i % 50, window_usd: [-1, -1, -1, -1], window_epoch: [NaN, NaN, NaN, NaN], multi_quote: false,
    };
    tokens.put(token);
  });
  // The strings the events brought are held by the read models alone from here.
  rows.length = 0;
  const perPool = (heapUsed() - before) / count;
  expect(pools.size + tokens.size).toBe(2 * count);
  return perPool;
}

const nameOf = (i: number) => ['Market', 'token', String(i)].join(' ');
const symbolOf = (i: number) => `M${i.toString(36).toUpperCase()}`;

const flatRows = (r: Rng, count: number): Row[] => Array.from({ length: count }, (_, i) => ({ pool: address(r), token: address(r), name: nameOf(i), symbol: symbolOf(i) }));

describe('research read models: memory per pool and token', () => {
  it('a pool and its token cost under 1.2 KB of JS heap in the pool list and the token search', () => {
    const perPool = heapPerPool(20_000, flatRows);
    console.log(`research read models: ${Math.round(perPool)} B of JS heap per pool and its token`);
    expect(perPool).toBeLessThan(1_200);
  });

  it('as much when the names and addresses come from snapshots read back (msgpackr slices them out of the whole text)', () => {
    const flat = heapPerPool(20_000, flatRows);
    // A token's state as its snapshot holds it, with the text a token carries beside its name.
    const read = heapPerPool(20_000, (r, count) =>
      Array.from({ length: count }, (_, i) => {
        const snapshot = unpack(
          pack({ token_address: address(r), pool_address: address(r), fields: { symbol: symbolOf(i), name: nameOf(i), creator_address: address(r), image_url: `https://ipfs.example/${address(r)}`, description: `${nameOf(i)} to the moon `.repeat(6) } }),
        ) as { token_address: string; pool_address: string; fields: { name: string; symbol: string } };
        return { pool: snapshot.pool_address, token: snapshot.token_address, name: snapshot.fields.name, symbol: snapshot.fields.symbol };
      }),
    );
    console.log(`research read models: ${Math.round(read)} B of JS heap per pool and its token from snapshots, ${Math.round(flat)} B from flat strings`);
    // Slices would keep each snapshot's decoded text (~450 B here) alive in the read models.
    expect(read - flat).toBeLessThan(100);
  });
});
