import { describe, expect, it } from 'vitest';
import { createWalletBehavior } from '../../../actors/wallet/wallet.actor.ts';
import { DAY_FIELDS, type Position, type WalletState } from '../../../actors/wallet/wallet.logic.ts';
import { LEVEL_FIELDS, POSITION_FIELDS, positionsFromColumns, positionsToColumns, type PositionColumns } from '../../../actors/wallet/wallet.snapshot.ts';
import { SIGNAL_DEFAULTS } from '../../../actors/signals/index.ts';
import { base58, rng, useTempStorage, WALLET } from '../../helpers/fixtures.ts';

/** Numbers a position may hold, the awkward ones included (NaN stands in the level arrays for "unknown"). */
const NUMBERS = [0, -0, 1, 6, -1, 0.1, 1 / 3, 123_456.789, 1_767_225_600_000, 2 ** 53, 5e-324, Number.MAX_VALUE, -12.5, NaN, Infinity];

function randomPositions(seed: number, count: number): Map<string, Position> {
  const r = rng(seed);
  const pick = () => (r() < 0.3 ? NUMBERS[Math.floor(r() * NUMBERS.length)]! : (r() - 0.3) * 10 ** Math.floor(r() * 12));
  const orNull = () => (r() < 0.25 ? null : pick());
  const levels = () => (r() < 0.3 ? null : Array.from({ length: LEVEL_FIELDS }, pick));
  const positions = new Map<string, Position>();
  for (let i = 0; i < count; i++) {
    const dayRows = Math.floor(r() * 4);
    const p: Position = {
      qty: pick(),
      cost: pick(),
      realized: pick(),
      buys: Math.floor(r() * 50),
      sells: Math.floor(r() * 50),
      buyUsd: pick(),
      sellUsd: pick(),
      unpriced: Math.floor(r() * 3),
      firstBuyAt: orNull(),
      lastTradeAt: orNull(),
      balanceSlot: r() < 0.5 ? -1 : Math.floor(r() * 4e8),
      decimals: r() < 0.2 ? -1 : 6,
      days: Array.from({ length: dayRows * DAY_FIELDS }, pick),
      lvQuote: r() < 0.2 ? base58(r, 44) : null,
      lvBuy: levels(),
      lvSell: levels(),
    };
    // entryMcapUsd: a number, null, or absent (positions of snapshots written before it).
    const entry = r();
    if (entry < 0.6) p.entryMcapUsd = pick();
    else if (entry < 0.8) p.entryMcapUsd = null;
    positions.set(base58(r, 44), p);
  }
  return positions;
}

/** A position with its numbers as strings that tell NaN and −0 apart, and an absent entryMcapUsd as undefined. */
const exact = (p: Position) =>
  JSON.parse(
    JSON.stringify({ ...p, entryMcapUsd: p.entryMcapUsd ?? (p.entryMcapUsd === null ? null : 'absent') }, (_k, v) =>
      typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : v,
    ),
  );
const exactly = (positions: Map<string, Position>) => [...positions].map(([token, p]) => [token, exact(p)]);

describe('wallet snapshot: positions as columns', () => {
  const temp = useTempStorage('mds-wallet-snapshot-');

  it('gives every position back exactly through the snapshots database (msgpack, LZ4, LMDB)', async () => {
    for (const [seed, count] of [
      [1, 0],
      [2, 1],
      [3, 40],
      [4, 700],
    ] as const) {
      const positions = randomPositions(seed, count);
      const key = `wallet:test-${seed}`;
      await temp.storage.snapshots.put(key, { seq: 1, state: { state: { wallet_address: WALLET, columns: positionsToColumns(positions) } } } as never);
      const read = temp.storage.snapshots.get(key) as unknown as { state: { state: { columns: PositionColumns } } };
      const back = positionsFromColumns(read.state.state.columns);
      expect(exactly(back)).toEqual(exactly(positions));
      // Numbers stay where the actor keeps them: the order of the map, each array of its length.
      expect([...back.keys()]).toEqual([...positions.keys()]);
    }
  });

  it('is what the wallet actor snapshots: one binary of numbers, no record per position', () => {
    const behavior = createWalletBehavior({ signals: SIGNAL_DEFAULTS });
    const positions = randomPositions(5, 25);
    const state: WalletState = { wallet_address: WALLET, positions };
    const snapshot = behavior.toSnapshot!(state) as { columns: PositionColumns; positions?: unknown };
    expect(snapshot.positions).toBeUndefined();
    let numbers = positions.size * POSITION_FIELDS;
    for (const p of positions.values()) numbers += p.days.length + (p.lvBuy ? LEVEL_FIELDS : 0) + (p.lvSell ? LEVEL_FIELDS : 0);
    expect(snapshot.columns.n).toBeInstanceOf(Uint8Array);
    expect(snapshot.columns.n.byteLength).toBe(numbers * 8);
    expect(snapshot.columns.t).toEqual([...positions.keys()]);
    const back = behavior.fromSnapshot!(snapshot, 0) as WalletState;
    expect(back.wallet_address).toBe(WALLET);
    expect(exactly(back.positions)).toEqual(exactly(positions));
  });

  it('still reads a snapshot written before the columns (a [token, position] list)', () => {
    const behavior = createWalletBehavior();
    const positions = randomPositions(6, 12);
    const old = { wallet_address: WALLET, positions: [...positions].map(([token, p]) => [token, { ...p }]) };
    const back = behavior.fromSnapshot!(old, 0) as WalletState;
    expect(exactly(back.positions)).toEqual(exactly(positions));
    // And writes it again as columns, the same positions.
    const again = behavior.fromSnapshot!(behavior.toSnapshot!(back), 0) as WalletState;
    expect(exactly(again.positions)).toEqual(exactly(positions));
  });
});
