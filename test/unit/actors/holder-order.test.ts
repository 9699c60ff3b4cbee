import { describe, expect, it } from 'vitest';
import { compareRanked, type HolderPosition } from '../../../actors/token/holder-order.ts';
import { Holders, type Holding } from '../../../actors/token/holders.ts';
import { HOLDER_LOG_MAX } from '../../../engine/bounds.ts';
import { base58, rng } from '../../helpers/fixtures.ts';

/**
 * The holder order (actors/token/holder-order.ts) against a brute-force sort of the
 * same balances, and walks over pages while balances change: each holder at most once
 * per walk, and every holder whose balance did not change during it exactly once.
 */

/** One page of a walk, as the holders route reads it (engine/query/holders.ts, without exclusions). */
function page(holders: Holders, limit: number, walk: { since: number; after?: HolderPosition }): { rows: string[]; end: HolderPosition | null } {
  const order = holders.ordered();
  const shown = walk.after ? order.shownBefore(walk.since, walk.after) : null;
  const rows: string[] = [];
  let end: HolderPosition | null = null;
  for (const h of order.after(walk.after)) {
    const eligible = walk.after === undefined || (shown !== null ? !shown.has(h.wallet) : h.changed <= walk.since);
    if (eligible) {
      if (rows.length === limit) return { rows, end };
      rows.push(h.wallet);
    }
    end = { balance: h.balance, wallet: h.wallet };
  }
  return { rows, end: null };
}

/** The balances above 0 in list order, by brute force. */
function sorted(balances: Map<string, number>): string[] {
  return [...balances]
    .filter(([, b]) => b > 0)
    .map(([wallet, balance]) => ({ wallet, balance }))
    .sort(compareRanked)
    .map((h) => h.wallet);
}

function walkWhileChanging(seed: number, options: { wallets: number; changesPerPage: number; limit: number; restartAt?: number }) {
  const random = rng(seed);
  const wallets = Array.from({ length: options.wallets }, () => base58(random, 44));
  let holders = new Holders();
  const balances = new Map<string, number>();
  let slot = 1;
  const set = (wallet: string, balance: number) => {
    holders.apply(wallet, String(balance), slot++, -1, 1_000 * slot);
    balances.set(wallet, balance);
  };
  // Ties on purpose: balances from a small set.
  for (const w of wallets) set(w, Math.floor(random() * 20) * 1_000);
  expect([...holders.ordered().after(undefined)].map((h) => h.wallet)).toEqual(sorted(balances));
  const changed = new Set<string>();
  const seen: string[] = [];
  let walk: { since: number; after?: HolderPosition } = { since: holders.changeCount };
  let pages = 0;
  for (;;) {
    const { rows, end } = page(holders, options.limit, walk);
    seen.push(...rows);
    if (end === null) break;
    walk = { since: walk.since, after: end };
    pages++;
    if (pages === options.restartAt) {
      // A restart: the table from its snapshot, the order made again (no log before it).
      holders = Holders.decode(holders.encode());
    }
    for (let i = 0; i < options.changesPerPage; i++) {
      const w = wallets[Math.floor(random() * wallets.length)]!;
      set(w, Math.floor(random() * 20) * 1_000);
      changed.add(w);
    }
    // The order follows every change.
    expect([...holders.ordered().after(undefined)].map((h) => h.wallet)).toEqual(sorted(balances));
  }
  return { seen, changed, holdersAtStart: wallets, pages };
}

describe('holder order', () => {
  it('lists holders by balance, largest first, ties by wallet, as a brute-force sort does, through every change', () => {
    const { pages } = walkWhileChanging(1, { wallets: 300, changesPerPage: 0, limit: 7 });
    expect(pages).toBeGreaterThan(20);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('shows each holder at most once per walk while balances change (seed %i)', (seed) => {
    const { seen, changed, pages } = walkWhileChanging(seed, { wallets: 400, changesPerPage: 15, limit: 10 });
    expect(pages).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(seen.length);
    // A holder whose balance never changed during the walk (and held at its start) is seen exactly once.
    const initial = walkWhileChanging(seed, { wallets: 400, changesPerPage: 0, limit: 1_000 }).seen;
    for (const w of initial) if (!changed.has(w)) expect(seen, w).toContain(w);
  });

  it('still shows each holder at most once when the log does not reach back (a restart mid-walk, or more changes than it keeps)', () => {
    const restarted = walkWhileChanging(9, { wallets: 400, changesPerPage: 15, limit: 10, restartAt: 3 });
    expect(new Set(restarted.seen).size).toBe(restarted.seen.length);
    const flooded = walkWhileChanging(10, { wallets: 400, changesPerPage: HOLDER_LOG_MAX + 1, limit: 50 });
    expect(new Set(flooded.seen).size).toBe(flooded.seen.length);
  });

  it('leaves out a holder shown on an earlier page whose balance fell below the position', () => {
    const holders = new Holders();
    const [a, b, c, d] = ['A1111111111111111111111111111111', 'B1111111111111111111111111111111', 'C1111111111111111111111111111111', 'D1111111111111111111111111111111'];
    holders.apply(a, '400', 1, -1);
    holders.apply(b, '300', 2, -1);
    holders.apply(c, '200', 3, -1);
    holders.apply(d, '100', 4, -1);
    const first = page(holders, 2, { since: holders.changeCount });
    expect(first.rows).toEqual([a, b]);
    // A falls below C and D: after the position (B, 300) now, but shown already.
    holders.apply(a, '50', 5, -1);
    const second = page(holders, 10, { since: 4, after: first.end! });
    expect(second.rows).toEqual([c, d]);
  });
});

describe('holder order upkeep', () => {
  it('moves only what changed at the next read, and drops an order no read used for as many changes as it has holders (at least HOLDER_LOG_MAX)', () => {
    const random = rng(77);
    const wallets = Array.from({ length: 100 }, () => base58(random, 44));
    const holders = new Holders();
    let slot = 1;
    for (const w of wallets) holders.apply(w, String(1 + Math.floor(random() * 1e6)), slot++, -1);
    holders.ordered();
    // Fewer changes than that: kept, and right at the next read.
    for (let i = 0; i < HOLDER_LOG_MAX; i++) holders.apply(wallets[i % 100]!, String(1 + Math.floor(random() * 1e6)), slot++, -1);
    expect(holders.hasOrder).toBe(true);
    const expected = () => {
      const all = new Holders();
      for (const w of wallets) {
        const b = holders.balanceOf(w);
        if (b > 0) all.apply(w, String(b), 1, -1);
      }
      return [...all.ordered().after(undefined)].map((h) => h.wallet);
    };
    expect([...holders.ordered().after(undefined)].map((h) => h.wallet)).toEqual(expected());
    // One more than that since the read: dropped; the next read makes it again.
    for (let i = 0; i <= HOLDER_LOG_MAX; i++) holders.apply(wallets[i % 100]!, String(1 + Math.floor(random() * 1e6)), slot++, -1);
    expect(holders.hasOrder).toBe(false);
    expect([...holders.ordered().after(undefined)].map((h) => h.wallet)).toEqual(expected());
    expect(holders.hasOrder).toBe(true);
  });
});

describe('holder snapshot formats', () => {
  it('keeps first_seen_at (the earliest holding balance, whatever the arrival order) and change numbers across a snapshot', () => {
    const holders = new Holders();
    const w = 'W1111111111111111111111111111111';
    holders.apply(w, '5', 200, -1, 2_000);
    holders.apply(w, '7', 150, -1, 1_500); // older: first seen earlier, balance unchanged
    const copy = Holders.decode(holders.encode());
    const h = [...copy.ordered().after(undefined)][0] as Holding;
    expect(h).toMatchObject({ wallet: w, balance: 5, first: 150, firstAt: 1_500, changed: 1 });
    expect(copy.changeCount).toBe(1);
  });

  it('decodes a format-1 snapshot (before first_seen_at) with first_seen_at unknown', () => {
    const wallets: Array<[string, number, number, number]> = [
      ['W1111111111111111111111111111111', 5, 200, 200],
      ['X11111111111111111111111111111111', 0, 210, 150],
    ];
    const header = 25;
    const addressBytes = wallets.reduce((n, [a]) => n + a.length, 0);
    const numbersAt = (header + wallets.length + addressBytes + 7) & ~7;
    const buf = Buffer.alloc(numbersAt + wallets.length * 24);
    buf.writeUInt8(1, 0);
    buf.writeUInt32LE(wallets.length, 1);
    buf.writeUInt32LE(addressBytes, 5);
    buf.writeDoubleLE(210, 9);
    buf.writeDoubleLE(4_096, 17);
    let at = header + wallets.length;
    wallets.forEach(([a, balance, slot, first], i) => {
      buf[header + i] = a.length;
      at += buf.write(a, at, 'latin1');
      buf.writeDoubleLE(balance, numbersAt + 24 * i);
      buf.writeDoubleLE(slot, numbersAt + 24 * i + 8);
      buf.writeDoubleLE(first, numbersAt + 24 * i + 16);
    });
    const holders = Holders.decode(buf);
    expect(holders.size).toBe(2);
    expect(holders.holdingCount).toBe(1);
    const [h] = [...holders.ordered().after(undefined)];
    expect(h).toMatchObject({ wallet: wallets[0]![0], balance: 5, first: 200, changed: 0 });
    expect(Number.isNaN(h!.firstAt)).toBe(true);
    // It goes on: a later balance is a change, the tombstone stays one.
    expect(holders.apply(wallets[1]![0], '9', 205, -1, 9_000)).toBe(false);
    expect(holders.apply(wallets[0]![0], '6', 220, -1, 9_100)).toBe(true);
    expect(holders.changeCount).toBe(1);
  });
});
