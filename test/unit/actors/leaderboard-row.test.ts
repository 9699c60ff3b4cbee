import { describe, expect, it } from 'vitest';
import { LB_FIELDS, LEADERBOARD_WINDOWS, addWindow, leaderboardRow } from '../../../actors/wallet/rankings.ts';
import { DAY_FIELDS, DAY_MS, applyPoolTrade, initialWallet, type WalletState } from '../../../actors/wallet/wallet.logic.ts';
import type { StoredTrade } from '../../../engine/model/index.ts';
import { base58, rng, WSOL } from '../../helpers/fixtures.ts';

/**
 * A wallet's leaderboard row (actors/wallet/rankings.ts leaderboardRow), one pass over
 * each position's day rows for the three windows, against a pass per window over the
 * same rows in the same order (each position's sums added to the row as the refresh
 * adds them, addWindow): the same numbers to the bit (the refresh's rows, and so
 * the replay test's bytes, do not change with how they are summed).
 */

const r = rng(4141);
const TOKENS = Array.from({ length: 40 }, () => base58(r, 44));
/** 2026-03-01T00:00:00Z */
const T0 = 1_772_323_200_000;

/** The row as a pass per window sums it (the refresh before the single pass). */
function perWindow(s: WalletState, day: number): number[] {
  const windows = Object.values(LEADERBOARD_WINDOWS);
  const out = new Array<number>(windows.length * LB_FIELDS).fill(0);
  for (const p of s.positions.values()) {
    const d = p.days;
    windows.forEach((days, w) => {
      let realized = 0;
      let trades = 0;
      let sells = 0;
      let volume = 0;
      let unpriced = 0;
      for (let i = d.length - DAY_FIELDS; i >= 0 && d[i]! >= day - days + 1; i -= DAY_FIELDS) {
        trades += d[i + 1]! + d[i + 2]!;
        sells += d[i + 2]!;
        volume += d[i + 3]!;
        realized += d[i + 4]!;
        unpriced += d[i + 5]!;
      }
      addWindow(out, w * LB_FIELDS, realized, trades, sells, volume, unpriced);
    });
  }
  return out;
}

describe('leaderboardRow', () => {
  it('gives what a pass per window gives, bit for bit, over 60 days of trades in 40 tokens, unpriced ones among them', () => {
    for (let k = 0; k < 50; k++) {
      const s = initialWallet(base58(r, 44));
      const trades = 1 + Math.floor(r() * 400);
      for (let n = 0; n < trades; n++) {
        const at = T0 - Math.floor(r() * 60 * DAY_MS);
        const base = 1 + r() * 1e6;
        const quote = r() * 3;
        const t: StoredTrade = [at, n, 0, 0, r() < 0.55 ? 1 : 0, s.wallet_address, base, quote, quote / base, r() < 0.1 ? null : 80 + r() * 60, 0, `tx${n}`];
        applyPoolTrade(s, TOKENS[Math.floor(r() * r() * TOKENS.length)]!, WSOL, t);
      }
      for (const day of [T0 / DAY_MS - 1, T0 / DAY_MS, T0 / DAY_MS + 3, T0 / DAY_MS + 40]) {
        const row: number[] = [];
        const traded = leaderboardRow(s, day, row);
        const expected = perWindow(s, day);
        expect(row).toEqual(expected);
        expect(traded).toBe(expected[2 * LB_FIELDS + 2]! > 0);
      }
    }
  });
});
