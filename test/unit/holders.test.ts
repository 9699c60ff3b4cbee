import { describe, expect, it } from 'vitest';
import { initialPool, applyPool } from '../../actors/pool/pool.logic.ts';
import { DEFAULT_SNIPER_SLOTS, Holders, LATE_SLOTS } from '../../actors/token/holders.ts';
import { tokenBehavior } from '../../actors/token/token.actor.ts';
import { applyBalance, applyPoolEvent, applyTokenEvent, holderStats, initialToken, type TokenState } from '../../actors/token/token.logic.ts';
import { SimulatedClock } from '../../engine/clock.ts';
import { loadConfig } from '../../engine/config.ts';
import type { BalanceEvent, IngestEvent, PoolEvent, TokenEvent } from '../../engine/ingest/events.ts';
import type { ActorContext } from '../../engine/supervisor/behavior.ts';
import { totalsOf } from '../../engine/query/views.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

const r = rng(606);
const MINT = base58(r, 44);
const CURVE = base58(r, 44);
const AMM = base58(r, 44);
const DEV = base58(r, 44);
const [B1, B2, S1, S2, L1, W] = Array.from({ length: 6 }, () => base58(r, 44));
const H = Array.from({ length: 8 }, () => base58(r, 44));
const T0 = 1_767_225_600_000;

const token: TokenEvent = { type: 'token', token_address: MINT, decimals: 3, supply_raw: '1000000000', creator_address: DEV, slot: 99, at: T0 };
const curvePool: PoolEvent = {
  type: 'pool', pool_address: CURVE, base_address: MINT, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, curve_initial_real_base_raw: '793100000', slot: 100,
};
const balance = (wallet: string, raw: number, slot: number): BalanceEvent => ({ type: 'balance', token_address: MINT, wallet_address: wallet, balance_raw: String(raw), slot, at: T0 + (slot - 100) * 400 });
const M = 1_000_000;

/**
 * Supply 1e9 raw. The curve is created in slot 100 (the launch); the sniper window is
 * slots 101-103. Final balances (raw): W 70M, L1 60M, DEV 50M, B1 30M, S1 25M, S2 10M,
 * H 1M..8M, B2 0, the curve itself 500M (a pool, not a holder).
 */
const EVENTS: IngestEvent[] = [
  token,
  curvePool,
  balance(DEV, 50 * M, 100), // the creator's buy in the creation slot: neither bundler nor sniper
  balance(B1, 30 * M, 100), // bundler
  balance(B2, 20 * M, 100), // bundler
  balance(S1, 40 * M, 101), // sniper
  balance(S2, 10 * M, 103), // sniper (last slot of the window)
  balance(L1, 60 * M, 104), // after the window
  balance(B2, 0, 150), // sold out: still a bundler, holds nothing, not a holder
  balance(S1, 25 * M, 120),
  balance(S1, 40 * M, 101), // the same event twice
  balance(W, 70 * M, 200),
  balance(W, 1 * M, 180), // older, arriving late: must not overwrite
  balance(CURVE, 500 * M, 120),
  ...H.map((wallet, i) => balance(wallet, (i + 1) * M, 300 + i)),
];

const EXPECTED = {
  holderCount: 14, // DEV, B1, S1, S2, L1, W and H1-H8
  top10Raw: (70 + 60 + 50 + 30 + 25 + 10 + 8 + 7 + 6 + 5) * M, // 271M: 27.1 %
  creatorRaw: 50 * M,
  bundlerCount: 2,
  bundleRaw: 30 * M,
  sniperCount: 2,
  sniperRaw: 35 * M,
};

/** The token actor reads no other actor and rejects nothing; should that change, these tests say so. */
const ctx: ActorContext = {
  clock: new SimulatedClock(T0),
  read: (kind, key) => {
    throw new Error(`the token actor read ${kind}:${key}`);
  },
  peek: (kind, key) => {
    throw new Error(`the token actor read ${kind}:${key}`);
  },
  reject: (reason) => {
    throw new Error(`the token actor rejected an event: ${reason}`);
  },
  // Its token.holders events: not what these tests look at.
  emit: () => {},
  seq: 0,
};

/** The events as the token actor applies them (its dispatch, with the default sniper window). */
function applyAll(events: readonly IngestEvent[]): TokenState {
  const state = tokenBehavior.initial(MINT);
  for (const e of events) tokenBehavior.apply(state, e, ctx);
  return state;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = rng(seed);
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('holders from balance events', () => {
  it('counts holders, top 10, dev, bundlers and snipers as computed by hand', () => {
    // The config's default window (market.sniperSlots) is the one computed by hand here.
    expect(loadConfig().market.sniperSlots).toBe(DEFAULT_SNIPER_SLOTS);
    expect(holderStats(applyAll(EVENTS), DEFAULT_SNIPER_SLOTS)).toEqual(EXPECTED);
    // market.sniperSlots: a window of 1 slot keeps S1 (slot 101) and drops S2 (slot 103); 4 slots take L1 (slot 104) too.
    expect(holderStats(applyAll(EVENTS), 1)).toEqual({ ...EXPECTED, sniperCount: 1, sniperRaw: 25 * M });
    expect(holderStats(applyAll(EVENTS), 4)).toEqual({ ...EXPECTED, sniperCount: 3, sniperRaw: 95 * M });
  });

  it('gives the same result in any arrival order (20 shuffles)', () => {
    for (let seed = 1; seed <= 20; seed++) expect(holderStats(applyAll(shuffled(EVENTS, seed)), DEFAULT_SNIPER_SLOTS), `seed ${seed}`).toEqual(EXPECTED);
  });

  it('is null before the first balance; dev and sniper fields follow what is known', () => {
    const state = applyAll([balance(B1, 5 * M, 100)]);
    expect(holderStats(initialToken(MINT), DEFAULT_SNIPER_SLOTS)).toBeNull();
    // No creator, no launch pool yet: dev and the launch fields are null.
    expect(holderStats(state, DEFAULT_SNIPER_SLOTS)).toEqual({ holderCount: 1, top10Raw: 5 * M, creatorRaw: null, bundlerCount: null, bundleRaw: null, sniperCount: null, sniperRaw: null });
    applyTokenEvent(state, token);
    applyPoolEvent(state, curvePool);
    expect(holderStats(state, DEFAULT_SNIPER_SLOTS)).toMatchObject({ creatorRaw: 0, bundlerCount: 1, bundleRaw: 5 * M, sniperCount: 0 });
  });

  it('has no snipers or bundlers for a token first seen on an AMM (an existing distribution)', () => {
    const amm: PoolEvent = { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 100 };
    const s = holderStats(applyAll([token, amm, balance(B1, 5 * M, 100), balance(S1, 5 * M, 101)]), DEFAULT_SNIPER_SLOTS)!;
    expect(s).toMatchObject({ holderCount: 2, bundlerCount: null, sniperRaw: null });
    // The earliest pool is the launch, whatever arrives first.
    const late = holderStats(applyAll([token, amm, { ...curvePool, slot: 90 }, balance(B1, 5 * M, 90)]), DEFAULT_SNIPER_SLOTS)!;
    expect(late.bundlerCount).toBe(1);
  });

  it('says whether a balance changed the holders: a repeated one or an older zero changes nothing', () => {
    const h = new Holders();
    expect(h.apply(W, '5', 200, 0)).toBe(true);
    expect(h.apply(W, '5', 201, 0)).toBe(false);
    expect(h.apply(W, '0', 150, 0)).toBe(false);
    // An older positive balance moves the wallet's first holding slot back (snipers).
    expect(h.apply(W, '9', 150, 0)).toBe(true);
    expect(h.apply(W, '0', 202, 0)).toBe(true);
    expect(h.apply(B1, '0', 202, 0)).toBe(true);
  });

  it('drops a wallet at 0 and takes it back on a newer balance', () => {
    const state = applyAll([token, curvePool, balance(L1, 5 * M, 200), balance(L1, 0, 210)]);
    expect(holderStats(state, DEFAULT_SNIPER_SLOTS)).toMatchObject({ holderCount: 0, top10Raw: 0 });
    applyBalance(state, balance(L1, 7 * M, 205), DEFAULT_SNIPER_SLOTS); // older than the 0: ignored
    expect(holderStats(state, DEFAULT_SNIPER_SLOTS)).toMatchObject({ holderCount: 0 });
    applyBalance(state, balance(L1, 7 * M, 220), DEFAULT_SNIPER_SLOTS);
    expect(holderStats(state, DEFAULT_SNIPER_SLOTS)).toMatchObject({ holderCount: 1, top10Raw: 7 * M });
  });

  it('keeps memory bounded: old tombstones go, early buyers stay snipers after selling out', () => {
    const holders = new Holders();
    const early = 103; // launch 100 + DEFAULT_SNIPER_SLOTS
    holders.apply(S1, String(M), 101, early);
    holders.apply(S1, '0', 102, early);
    const n = 30_000;
    for (let i = 0; i < n; i++) {
      const wallet = base58(r, 44);
      holders.apply(wallet, String(M), 1_000 + i, early);
      holders.apply(wallet, '0', 1_001 + i, early);
    }
    // 60,000 balances of 30,001 wallets, all sold out: tombstones are pruned in passes.
    expect(holders.size).toBeLessThan(10_000);
    expect(holders.stats({ creator: null, launchSlot: 100, exclude: [], sniperSlots: DEFAULT_SNIPER_SLOTS })).toMatchObject({ holderCount: 0, sniperCount: 1 });
    // The sniper buys back much later: still first seen holding in slot 101.
    holders.apply(S1, String(3 * M), 1_000 + n + LATE_SLOTS * 2, early);
    expect(holders.stats({ creator: null, launchSlot: 100, exclude: [], sniperSlots: DEFAULT_SNIPER_SLOTS })).toMatchObject({ holderCount: 1, sniperCount: 1, sniperRaw: 3 * M });
  });

  it('round-trips through its snapshot buffer, and goes on identically', () => {
    const state = applyAll(EVENTS);
    const snapshot = tokenBehavior.toSnapshot!(state) as { holders: Uint8Array };
    expect(Buffer.isBuffer(snapshot.holders)).toBe(true);
    // 16 wallets (the curve included) with 44-character addresses: a 33-byte header, a
    // length byte and the address each (753, padded to 760), then 5 float64 each: 85 bytes a wallet.
    expect(snapshot.holders.length).toBe(760 + 16 * 40);
    const copy = tokenBehavior.fromSnapshot!(snapshot);
    expect(holderStats(copy, DEFAULT_SNIPER_SLOTS)).toEqual(EXPECTED);
    const more = [balance(W, 0, 400), balance(B2, 9 * M, 401), balance(W, 3 * M, 350)];
    for (const e of more) {
      applyBalance(state, e, DEFAULT_SNIPER_SLOTS);
      applyBalance(copy, e, DEFAULT_SNIPER_SLOTS);
    }
    expect(holderStats(copy, DEFAULT_SNIPER_SLOTS)).toEqual(holderStats(state, DEFAULT_SNIPER_SLOTS));
    expect(holderStats(copy, DEFAULT_SNIPER_SLOTS)).toMatchObject({ holderCount: 14, bundleRaw: 39 * M });
    // A snapshot from before holders decodes as an empty table.
    const old = tokenBehavior.fromSnapshot!({ ...snapshot, holders: undefined, launch: undefined });
    expect(holderStats(old, DEFAULT_SNIPER_SLOTS)).toBeNull();
  });
});

describe('totals from holders', () => {
  const state = applyAll(EVENTS);

  it('fills the holder-based totals as shares of the total supply', () => {
    const pool = initialPool(CURVE);
    applyPool(pool, curvePool, 3);
    const t = totalsOf(pool, state, null);
    expect(t.holder_count).toBe(14);
    expect(t.top10_pct).toBeCloseTo(27.1, 12);
    expect(t.dev_pct).toBeCloseTo(5, 12);
    expect(t.bundle_pct).toBeCloseTo(3, 12);
    expect(t.sniper_pct).toBeCloseTo(3.5, 12);
    expect(t.bundler_count).toBe(2);
    expect(t.bonding_curve_gain_5m_pct).toBeNull();
    expect(totalsOf(pool, undefined, null)).toMatchObject({ holder_count: null, top10_pct: null, dev_pct: null, circulating_supply: null });
  });

  it('derives circulating supply from what the pools hold', () => {
    // Supply 1,000,000 whole tokens; the curve has 793,100 for sale and keeps 206,900 back.
    const curve = initialPool(CURVE);
    applyPool(curve, curvePool, 3);
    expect(totalsOf(curve, state, null).circulating_supply).toBe(0); // nothing sold yet
    curve.real_base_reserve = 758_100; // 35,000 sold
    expect(totalsOf(curve, state, null).circulating_supply).toBeCloseTo(35_000, 9);
    // Graduated: its tokens are in the AMM pool (206,900 + what it had left, here 0).
    curve.real_base_reserve = 0;
    curve.info!.replaced_by_pool_address = AMM;
    const amm = initialPool(AMM);
    applyPool(amm, { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 500 }, 3);
    amm.base_reserve = 206_900;
    expect(totalsOf(curve, state, null).circulating_supply).toBeNull(); // the AMM pool not given
    expect(totalsOf(curve, state, null, { pools: [curve, amm] }).circulating_supply).toBeCloseTo(793_100, 9);
    expect(totalsOf(amm, state, null, { pools: [amm, curve] }).circulating_supply).toBeCloseTo(793_100, 9);
    // A token-to-token pool quoted in this token holds 1,000 of it as its quote reserve.
    const PAIR = base58(r, 44);
    const pair = initialPool(PAIR);
    applyPool(pair, { type: 'pool', pool_address: PAIR, base_address: base58(r, 44), quote_address: MINT, dex: 'meteora_dlmm', pool_type: 'clmm', created_at: T0, slot: 600 }, 6);
    pair.quote_reserve = 1_000;
    expect(totalsOf(amm, state, null, { pools: [amm, curve, pair] }).circulating_supply).toBeCloseTo(792_100, 9);
  });
});
