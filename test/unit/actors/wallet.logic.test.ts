import { describe, expect, it } from 'vitest';
import { DAY_MS, DAYS_KEPT, DAY_FIELDS, LV, levelQuote, applyBalance, applyPoolTrade, avgCost, dailyRows, initialWallet, rawOf, windowTotals, winRatePct } from '../../../actors/wallet/wallet.logic.ts';
import type { StoredTrade } from '../../../engine/model/index.ts';
import { base58, rng, USDC, WSOL } from '../../helpers/fixtures.ts';

/** Wallet accounting (DECISIONS.md, "Wallet accounting"), by hand. */

const r = rng(2222);
const MINT = base58(r, 44);
const OTHER = base58(r, 44);
const POOL_A = base58(r, 44);
const POOL_B = base58(r, 44);
const POOL_T = base58(r, 44);
const WALLET = base58(r, 44);
/** 2026-01-01T00:00:00Z */
const T0 = 1_767_225_600_000;
const DAY0 = T0 / DAY_MS;

let n = 0;
/** A stored trade: `buy` of `base` tokens for `quote` units at `quoteUsd` USD each. */
function trade(at: number, buy: boolean, base: number, quote: number, quoteUsd: number | null): StoredTrade {
  n++;
  return [at, 1000 + n, 0, 0, buy ? 1 : 0, WALLET, base, quote, quote / base, quoteUsd, 0, `tx${n}`];
}

describe('wallet accounting', () => {
  it('average cost across pools, a sell, transfers in and out, and a sell above the known quantity', () => {
    const s = initialWallet(WALLET);
    // Two pools of MINT against wSOL at $100: 100 tokens for 0.1 SOL ($10), 100 for 0.3 SOL ($30).
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 1000, true, 100, 0.1, 100));
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 2000, true, 100, 0.3, 100));
    const p = s.positions.get(MINT)!;
    expect([p.qty, p.cost, avgCost(p)]).toEqual([200, 40, 0.2]);
    // Sells 50 for $20: realizes 20 − 50 × 0.2 = 10.
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 3000, false, 50, 0.2, 100));
    expect([p.qty, p.cost, p.realized]).toEqual([150, 30, 10]);
    // A balance of 250 (slot 5000): 100 came by transfer at $0.5, cost + 50; not a buy.
    expect(applyBalance(s, MINT, 250, 5000, 6, 0.5)).toBe(true);
    expect([p.qty, p.cost, p.buys, p.realized]).toEqual([250, 80, 2, 10]);
    // An older balance changes nothing (last write by slot).
    expect(applyBalance(s, MINT, 1, 4999, 6, 0.5)).toBe(false);
    // 200 (slot 5001): 50 left by transfer at average cost 0.32: cost 64, no realized PnL.
    expect(applyBalance(s, MINT, 200, 5001, 6, 9)).toBe(true);
    expect(p.qty).toBe(200);
    expect(p.cost).toBeCloseTo(64, 9);
    expect(p.realized).toBe(10);
    // Sells 300 for $150: 200 at their cost 64, the 100 beyond at cost 0: realized + 86.
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 4000, false, 300, 1.5, 100));
    expect([p.qty, p.cost]).toEqual([0, 0]);
    expect(p.realized).toBeCloseTo(96, 9);
    expect([p.buys, p.sells, p.buyUsd, p.sellUsd, p.unpriced]).toEqual([2, 2, 40, 170, 0]);
    expect(p.firstBuyAt).toBe(T0 + 1000);
    expect(p.lastTradeAt).toBe(T0 + 4000);
  });

  it('unpriced trades count, move the quantity at average cost and realize nothing', () => {
    const s = initialWallet(WALLET);
    applyPoolTrade(s, MINT, WSOL, trade(T0, true, 100, 1, 50));
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 1, true, 100, 1, null));
    const p = s.positions.get(MINT)!;
    expect([p.qty, p.cost, p.buyUsd, p.unpriced, p.buys]).toEqual([200, 100, 50, 1, 2]);
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 2, false, 50, 1, null));
    expect([p.qty, p.cost, p.realized, p.sellUsd, p.unpriced, p.sells]).toEqual([150, 75, 0, 0, 2, 1]);
    const w = windowTotals(s, null);
    expect([w.buys, w.sells, w.unpriced, w.volume]).toEqual([2, 1, 2, 50]);
  });

  it('a token-quoted pool moves both tokens, the quote token from its side', () => {
    const s = initialWallet(WALLET);
    // OTHER against MINT, MINT at $2: buys 10 OTHER for 5 MINT ($10), so sells 5 MINT.
    applyPoolTrade(s, MINT, WSOL, trade(T0, true, 20, 0.2, 100));
    applyPoolTrade(s, OTHER, MINT, trade(T0 + 1, true, 10, 5, 2));
    expect(s.positions.get(OTHER)!).toMatchObject({ qty: 10, cost: 10, buys: 1, sells: 0 });
    // MINT: 20 at $20, 5 sold for $10 at cost 5: realized 5.
    expect(s.positions.get(MINT)!).toMatchObject({ qty: 15, cost: 15, realized: 5, buys: 1, sells: 1 });
  });

  it('per-UTC-day rows: a trade at midnight is the new day; windows, win rate, best and worst', () => {
    const s = initialWallet(WALLET);
    applyPoolTrade(s, MINT, WSOL, trade(T0 + DAY_MS - 1, true, 100, 1, 10)); // day 0, $10
    applyPoolTrade(s, MINT, WSOL, trade(T0 + DAY_MS, false, 50, 1, 20)); // midnight: day 1, +15
    applyPoolTrade(s, OTHER, WSOL, trade(T0 + DAY_MS + 5, true, 10, 1, 10)); // day 1
    applyPoolTrade(s, OTHER, WSOL, trade(T0 + 2 * DAY_MS, false, 10, 0.5, 10)); // day 2, −5
    const rows = dailyRows(s, DAY0, DAY0 + 3);
    expect(rows).toEqual([
      { date: '2026-01-01', realized_pnl_usd: 0, volume_usd: 10, buy_count: 1, sell_count: 0 },
      { date: '2026-01-02', realized_pnl_usd: 15, volume_usd: 30, buy_count: 1, sell_count: 1 },
      { date: '2026-01-03', realized_pnl_usd: -5, volume_usd: 5, buy_count: 0, sell_count: 1 },
      { date: '2026-01-04', realized_pnl_usd: 0, volume_usd: 0, buy_count: 0, sell_count: 0 },
    ]);
    const today = windowTotals(s, DAY0 + 2);
    expect([today.realized, today.sold, today.wins, today.tokens, today.buys, today.sells]).toEqual([-5, 1, 0, 1, 0, 1]);
    const two = windowTotals(s, DAY0 + 1);
    expect([two.realized, two.sold, two.wins, winRatePct(two), two.volume, two.tokens]).toEqual([10, 2, 1, 50, 35, 2]);
    expect(two.best).toEqual({ token: MINT, realized: 15 });
    expect(two.worst).toEqual({ token: OTHER, realized: -5 });
    expect(winRatePct(windowTotals(s, DAY0 + 3))).toBeNull();
  });

  it('keeps DAYS_KEPT days of rows', () => {
    const s = initialWallet(WALLET);
    for (let d = 0; d < DAYS_KEPT + 10; d++) applyPoolTrade(s, MINT, WSOL, trade(T0 + d * DAY_MS, true, 1, 1, 1));
    const days = s.positions.get(MINT)!.days;
    expect(days.length / DAY_FIELDS).toBe(DAYS_KEPT);
    expect(days[0]).toBe(DAY0 + 10);
    // A late trade of a day no longer kept counts in the totals only.
    applyPoolTrade(s, MINT, WSOL, trade(T0, false, 1, 1, 1));
    const after = s.positions.get(MINT)!;
    expect(after.days[0]).toBe(DAY0 + 10);
    expect(Object.keys(after.days).length).toBe(DAYS_KEPT * DAY_FIELDS);
    expect([after.sells, after.realized]).toEqual([1, 1 - (after.cost + 1) / (after.qty + 1)]);
  });

  it('balance_raw from the quantity and decimals', () => {
    const s = initialWallet(WALLET);
    applyBalance(s, MINT, 1.5, 10, 6, null);
    expect(rawOf(s.positions.get(MINT)!, null)).toBe('1500000');
    // Entered with no USD price and nothing held: at cost 0.
    expect(s.positions.get(MINT)!.cost).toBe(0);
  });
});

describe('chart levels of a position (chart_lines)', () => {
  it('sums the base side by side, quote sums only in the first quote asset, USD only priced, and keeps the largest trade', () => {
    const s = initialWallet(WALLET);
    // In wSOL at $100: 100 tokens for 1 SOL, 300 for 2 SOL; unpriced: 50 for 1 SOL.
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 1000, true, 100, 1, 100));
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 2000, true, 300, 2, 100));
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 2500, true, 50, 1, null));
    // In USDC (another quote asset): 400 for 10 USDC, $1 each: USD and tokens only.
    applyPoolTrade(s, MINT, USDC, trade(T0 + 3000, true, 400, 10, 1));
    // A sell of 200 for 4 SOL.
    applyPoolTrade(s, MINT, WSOL, trade(T0 + 4000, false, 200, 4, 100));
    const p = s.positions.get(MINT)!;
    expect(levelQuote(p)).toBe(WSOL);
    // wSOL is not spelled in the position (nor in its snapshot).
    expect(p.lvQuote).toBeNull();
    // tokens, in wSOL: tokens and quote, priced: tokens and USD, latest, largest: tokens, price in quote and USD, time.
    expect(p.lvBuy).toEqual([850, 450, 4, 800, 100 + 200 + 10, T0 + 3000, 300, 2 / 300, (2 / 300) * 100, T0 + 2000]);
    expect(p.lvSell).toEqual([200, 200, 4, 200, 400, T0 + 4000, 200, 4 / 200, (4 / 200) * 100, T0 + 4000]);
    // The quote token of a token-quoted pool gets no levels (its trades are not base-side).
    applyPoolTrade(s, OTHER, MINT, trade(T0 + 5000, true, 10, 10, null));
    expect(s.positions.get(MINT)!.lvBuy![LV.tokens]).toBe(850);
    expect(s.positions.get(OTHER)!.lvBuy![LV.tokens]).toBe(10);
    expect(levelQuote(s.positions.get(OTHER)!)).toBe(MINT);
  });
});
