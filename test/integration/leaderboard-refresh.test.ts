import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { LEADERBOARD_KEY, LEADERBOARD_STEP_POSITIONS, leaderboardBehavior } from '../../actors/wallet/index.ts';
import type { Engine } from '../../engine/system.ts';
import { serveEngine, useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * The wallet leaderboard's refresh (actors/wallet/rankings.ts) during a backlog (issue
 * 25): a trade that begins a refresh of thousands of marked wallets does not read them
 * all in its apply (it held the event loop 100-800 ms in one swap); the refresh goes on
 * over the trades after it, a bounded number of positions each, with the event loop free
 * between them, and gives the rows the whole refresh gave at its time, though wallets
 * it has still to read trade meanwhile, and across a restart in the middle of it.
 * Compared over HTTP with an engine that stopped at the trade that began the refresh
 * (the rows as of that trade, as a read finds them).
 */

const DAY = 86_400_000;
/** 2026-03-01T12:00:00Z. */
const NOON = 1_772_323_200_000 + 12 * 3_600_000;
const WALLETS = 2_500;
const TOKENS = 6;

const r = rng(2525);
const mints = Array.from({ length: TOKENS }, () => base58(r, 44));
const pools = Array.from({ length: TOKENS }, () => base58(r, 44));
const wallets = Array.from({ length: WALLETS }, () => base58(r, 44));

let slot = 1_000;
/** A swap of 0.5-1.5 SOL (`size` times that). */
function swap(wallet: string, token: number, at: number, buy: boolean, size = 1): unknown {
  slot++;
  return {
    type: 'swap', tx_hash: base58(rng(slot), 88), slot, tx_index: 0, event_index: 0, at, pool_address: pools[token], wallet_address: wallet,
    side: buy ? 'buy' : 'sell', base_amount_raw: String((100 + Math.floor(r() * 10_000)) * 1e6), quote_amount_raw: String(Math.round(size * (0.5 + r()) * 1e9)),
    base_reserve_raw: String(1_000_000 * 1e6), quote_reserve_raw: String((token + 1) * 10 * 1e9),
  };
}

/** The tokens and pools. */
function head(): unknown[] {
  const out: unknown[] = [{ type: 'quote_price', quote_address: WSOL, price_usd: 100, at: NOON - 40 * DAY }];
  mints.forEach((mint, i) => {
    out.push({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: NOON - 40 * DAY });
    out.push({ type: 'pool', pool_address: pools[i], base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: NOON - 40 * DAY, slot: 2 });
  });
  return out;
}

/** Every wallet trading one to three tokens in the 50 s from `start`. */
function everyWallet(start: number): unknown[] {
  const out: unknown[] = [];
  wallets.forEach((wallet, k) => {
    const n = 1 + Math.floor(r() * 3);
    for (let j = 0; j < n; j++) out.push(swap(wallet, Math.floor(r() * TOKENS), start + Math.floor((k / WALLETS) * 50_000), r() < 0.6));
  });
  return out;
}

/**
 * 400 trades over the 40 s from `from`, the first 100 by the wallets that traded last
 * (the last a refresh begun just before reads), ten times the usual size: were they read
 * after them, they would head the lists by volume; then wallets at random (all of them
 * without `lead`).
 */
function later(from: number, lead = true): unknown[] {
  return Array.from({ length: 400 }, (_, k) =>
    lead && k < 100 ? swap(wallets[WALLETS - 1 - k]!, k % TOKENS, from + k * 100, true, 10) : swap(wallets[Math.floor(r() * WALLETS)]!, Math.floor(r() * TOKENS), from + k * 100, r() < 0.5),
  );
}

/**
 * The events up to the trade that begins the refresh looked at (`upTo`, that trade
 * last), and trades after it within the refresh period (`after`). Every wallet trades
 * in the minute before it; at a new UTC day, the day before (a first refresh then, its
 * rows all recomputed at the first trade of the day, which begins the refresh).
 */
function scenario(dayChange: boolean): { upTo: unknown[]; after: unknown[] } {
  if (!dayChange) return { upTo: [...head(), ...everyWallet(NOON), swap(wallets[0]!, 0, NOON + 61_000, true)], after: later(NOON + 62_000) };
  const dayBefore = [...everyWallet(NOON - DAY), swap(wallets[0]!, 0, NOON - DAY + 61_000, true), ...later(NOON - DAY + 62_000, false)];
  return { upTo: [...head(), ...dayBefore, swap(wallets[1]!, 1, NOON, true)], after: later(NOON + 1_000) };
}

const temp = useTempEngine();

async function ingestAll(engine: Engine, events: readonly unknown[]): Promise<void> {
  const results = await Promise.all(events.map((e) => engine.ingest(e)));
  expect(results.filter((x) => x.status !== 'applied')).toEqual([]);
}

/** Every leaderboard list over HTTP, without each row's recent_trades (later trades are in them). */
async function boards(engine: Engine): Promise<unknown[]> {
  const srv = await serveEngine(engine);
  try {
    const out: unknown[] = [];
    for (const window of ['1d', '7d', '30d']) {
      for (const sort of ['pnl_usd', 'win_rate_pct', 'volume_usd']) {
        const { status, body } = await srv.get(`/v1/wallets/leaderboard?window=${window}&sort=${sort}&limit=100`);
        expect(status, JSON.stringify(body)).toBe(200);
        out.push(body.data.map(({ recent_trades: _, ...row }: Record<string, unknown>) => row));
      }
    }
    return out;
  } finally {
    srv.close();
  }
}

const board = (engine: Engine) => engine.wallets!.leaderboard.get(LEADERBOARD_KEY)!;

describe('the wallet leaderboard refresh', () => {
  for (const [name, dayChange] of [['of the wallets traded since the last', false], ['of every row at a new UTC day', true]] as const) {
    it(`${name} goes on over the trades after the one that began it, a bounded number of positions each, and gives the whole refresh's rows at its time`, { timeout: 120_000 }, async () => {
      const { upTo, after } = scenario(dayChange);
      const whole = await temp.open({ data: `${temp.dir.path}/whole` });
      await ingestAll(whole, upTo);
      const expected = await boards(whole);
      expect((expected[8] as unknown[]).length, "30d by volume: a full page").toBe(100);

      const stepped = await temp.open({ data: `${temp.dir.path}/stepped` });
      await ingestAll(stepped, upTo);
      const begun = board(stepped);
      // The trade that began it read no wallet: every marked one (every row too at a new day) is left.
      expect(begun.refresh?.left.size, 'wallets left to read after the trade that began the refresh').toBeGreaterThanOrEqual(WALLETS);
      const version = begun.version;
      let left = begun.refresh!.left.size;
      let trades = 0;
      // One at a time: the event loop turns between them, as reads do between apply slices.
      for (const e of after) {
        expect((await stepped.ingest(e)).status).toBe('applied');
        trades++;
        const now = board(stepped).refresh?.left.size ?? 0;
        // Each wallet read has a position at least; the trade's own wallet besides.
        expect(left - now, 'wallets read by one trade').toBeLessThanOrEqual(LEADERBOARD_STEP_POSITIONS + 1);
        left = now;
        if (left === 0) break;
      }
      expect(trades, 'trades the refresh went on over').toBeGreaterThan(2);
      expect(board(stepped).refresh).toBeNull();
      expect(board(stepped).version).toBe(version + 1);
      // The rest of the trades (wallets read by the refresh trading again) change nothing before the next refresh.
      await ingestAll(stepped, after.slice(trades));
      expect(await boards(stepped)).toEqual(expected);
    });
  }

  it('goes on after a restart in the middle of it, from the leaderboard`s snapshot, to the same rows', { timeout: 120_000 }, async () => {
    const { upTo, after } = scenario(false);
    const whole = await temp.open({ data: `${temp.dir.path}/whole` });
    await ingestAll(whole, upTo);
    const expected = await boards(whole);

    const path = `${temp.dir.path}/restarted`;
    let engine = await temp.open({ data: path });
    await ingestAll(engine, upTo);
    expect((await engine.ingest(after[0])).status).toBe('applied');
    const left = board(engine).refresh?.left.size ?? 0;
    expect(left, 'wallets left when stopped').toBeGreaterThan(0);
    await engine.stop();
    engine = await temp.open({ data: path });
    expect(board(engine).refresh?.left.size).toBe(left);
    await ingestAll(engine, after.slice(1));
    expect(board(engine).refresh).toBeNull();
    expect(await boards(engine)).toEqual(expected);
  });

  it('begun while the one before is under way, does that one first: the rows of both times, as reads between them find them', { timeout: 120_000 }, async () => {
    const { upTo } = scenario(false);
    // 61 s after the refresh under way began: the next begins at once.
    const next = [swap(wallets[2]!, 2, NOON + 122_000, true, 10), swap(wallets[3]!, 3, NOON + 123_000, true, 10)];
    const read = await temp.open({ data: `${temp.dir.path}/read` });
    await ingestAll(read, upTo);
    const first = await boards(read);
    await ingestAll(read, next);
    const expected = await boards(read);
    expect(expected).not.toEqual(first);

    const stepped = await temp.open({ data: `${temp.dir.path}/stepped` });
    await ingestAll(stepped, upTo);
    const left = board(stepped).refresh!.left.size;
    expect((await stepped.ingest(next[0])).status).toBe('applied');
    const after = board(stepped);
    // The first done in that trade's apply, the second begun (the trade's wallet in it).
    expect(after.version).toBe(board(read).version - 1);
    expect(after.refresh?.at).toBe(NOON + 122_000);
    expect(left).toBeGreaterThan(LEADERBOARD_STEP_POSITIONS);
    expect((await stepped.ingest(next[1])).status).toBe('applied');
    expect(await boards(stepped)).toEqual(expected);
  });

  it('keeps its rows in its snapshot as one binary, and reads the entries snapshots written before held', () => {
    const rows = new Map(wallets.slice(0, 3).map((w, k) => [w, Array.from({ length: 21 }, (_, i) => (i % 5 === 0 ? 0 : k * 1_000 + i + 0.25))] as [string, number[]]));
    const state = { asOf: NOON, rows, dirty: new Set([wallets[4]!]), version: 3, refresh: { at: NOON + 1, day: 20_000, left: new Set([wallets[5]!]) } };
    const data = unpack(pack(leaderboardBehavior.toSnapshot!(state))) as { figures?: Uint8Array; rows?: unknown };
    expect(data.figures).toBeInstanceOf(Uint8Array);
    expect(data.rows).toBeUndefined();
    expect(leaderboardBehavior.fromSnapshot!(data)).toEqual(state);
    const { figures: _f, wallets: _w, width: _n, ...before } = data as Record<string, unknown>;
    expect(leaderboardBehavior.fromSnapshot!({ ...before, rows: [...rows] })).toEqual(state);
  });

  it('reads a snapshot written before (rows by wallet in an object, no refresh under way)', () => {
    const row = Array.from({ length: 21 }, (_, i) => i);
    const state = leaderboardBehavior.fromSnapshot!({ asOf: NOON, rows: { [wallets[0]!]: row }, count: 1, dirty: [wallets[1]], version: 7 });
    expect(state).toEqual({ asOf: NOON, rows: new Map([[wallets[0]!, row]]), dirty: new Set([wallets[1]]), version: 7, refresh: null });
  });
});
