import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Positions, type PackedPositions } from '../../../actors/wallet/positions.ts';
import { createWalletBehavior } from '../../../actors/wallet/wallet.actor.ts';
import { applyPoolTrade, initialWallet, windowTotals, type Position, type WalletState } from '../../../actors/wallet/wallet.logic.ts';
import type { StoredTrade } from '../../../engine/model/index.ts';
import { openStorage } from '../../../storage/lmdb.ts';
import { base58, rng, WSOL } from '../../helpers/fixtures.ts';

/** A wallet's positions kept packed until read (actors/wallet/positions.ts), and its snapshot through LMDB. */

const r = rng(7171);
const WALLET = base58(r, 44);
const TOKENS = Array.from({ length: 12 }, () => base58(r, 44));
const T0 = 1_767_225_600_000;

let n = 0;
function trade(at: number, buy: boolean, base: number, quote: number, quoteUsd: number | null): StoredTrade {
  n++;
  return [at, 1000 + n, 0, 0, buy ? 1 : 0, WALLET, base, quote, quote / base, quoteUsd, 1e6 * (quote / base), `tx${n}`];
}

/** A wallet of 12 positions over several days, some sold, some unpriced. */
function wallet(): WalletState {
  const s = initialWallet(WALLET);
  for (let i = 0; i < 60; i++) {
    const token = TOKENS[(i * 7) % TOKENS.length]!;
    applyPoolTrade(s, token, WSOL, trade(T0 + i * 3_600_000, i % 3 !== 2, 100 + i, 0.1 + i / 1000, i % 11 === 5 ? null : 150 + i));
  }
  return s;
}

const plain = (s: WalletState): Array<[string, Position]> => [...s.positions].map(([t, p]) => [t, structuredClone(p)]);
const bytesOf = (d: PackedPositions, i: number): number[] => [...d.blob.subarray(i === 0 ? 0 : d.ends[i - 1]!, d.ends[i]!)];

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a wallet`s positions, packed until read', () => {
  it('give back every position, in order, from their bytes, decoding only those read', () => {
    const s = wallet();
    const data = s.positions.toData();
    expect(data.tokens).toEqual([...s.positions].map(([token]) => token));
    const back = Positions.fromData(data);
    expect(back.size).toBe(s.positions.size);
    expect(back.decoded).toBe(0);
    expect(back.get(TOKENS[3]!)).toEqual(s.positions.get(TOKENS[3]!));
    expect(back.decoded).toBe(1);
    expect(back.has(TOKENS[5]!)).toBe(true);
    expect(back.decoded).toBe(1);
    // A pass over every position decodes those not read for the pass only.
    expect([...back].map(([t, p]) => [t, structuredClone(p)])).toEqual(plain(s));
    expect(back.decoded).toBe(1);
    // Sums over them add in the same order: the same numbers to the last bit.
    expect(windowTotals({ wallet_address: WALLET, positions: back }, null)).toEqual(windowTotals(s, null));
  });

  it('write again the bytes they were read from, only a changed or new position packed again', () => {
    const s = wallet();
    const first = s.positions.toData();
    const state: WalletState = { wallet_address: WALLET, positions: Positions.fromData(first) };
    // Reads (another actor's, a query's) change nothing: the same bytes, the same object.
    state.positions.get(TOKENS[1]!);
    expect([...state.positions.values()].length).toBe(TOKENS.length);
    expect(state.positions.toData()).toBe(first);
    // One trade of one token: that position's bytes change, the others' are copied.
    const changed = TOKENS[4]!;
    applyPoolTrade(state, changed, WSOL, trade(T0 + 90 * 3_600_000, false, 50, 0.05, 160));
    const second = state.positions.toData();
    expect(second).not.toBe(first);
    expect(second.tokens).toEqual(first.tokens);
    for (let i = 0; i < first.tokens.length; i++) {
      if (first.tokens[i] === changed) expect(bytesOf(second, i)).not.toEqual(bytesOf(first, i));
      else expect(bytesOf(second, i)).toEqual(bytesOf(first, i));
    }
    // The same trade on the wallet never read back from bytes gives the same position.
    applyPoolTrade(s, changed, WSOL, trade(T0 + 90 * 3_600_000, false, 50, 0.05, 160));
    expect(Positions.fromData(second).get(changed)).toEqual(s.positions.get(changed));
    // A new token goes last; a snapshot with nothing changed since is the last one again.
    const fresh = base58(r, 44);
    applyPoolTrade(state, fresh, WSOL, trade(T0 + 91 * 3_600_000, true, 10, 0.01, 160));
    const third = state.positions.toData();
    expect(third.tokens).toEqual([...first.tokens, fresh]);
    expect(state.positions.toData()).toBe(third);
  });

  it('pack a wallet of many positions changed at once (more bytes than toData`s first scratch), and give them back', () => {
    const many = Array.from({ length: 120 }, () => base58(r, 44));
    const s = initialWallet(WALLET);
    many.forEach((token, i) => applyPoolTrade(s, token, WSOL, trade(T0 + i * 60_000, true, 100 + i, 0.1 + i / 1000, 150 + (i % 7))));
    const data = s.positions.toData();
    expect(data.blob.byteLength).toBeGreaterThan(4_096);
    expect(plain({ wallet_address: WALLET, positions: Positions.fromData(data) })).toEqual(plain(s));
    // Every other one changed again: packed again between runs of bytes copied.
    const state: WalletState = { wallet_address: WALLET, positions: Positions.fromData(data) };
    many.forEach((token, i) => {
      if (i % 2 === 0) return;
      applyPoolTrade(state, token, WSOL, trade(T0 + 10 * 3_600_000 + i, false, 10, 0.02, 151));
      applyPoolTrade(s, token, WSOL, trade(T0 + 10 * 3_600_000 + i, false, 10, 0.02, 151));
    });
    const again = state.positions.toData();
    for (let i = 0; i < many.length; i += 2) expect(bytesOf(again, i)).toEqual(bytesOf(data, i));
    expect(plain({ wallet_address: WALLET, positions: Positions.fromData(again) })).toEqual(plain(s));
  });

  it('pack a wallet past the scratch toData keeps (its grown scratch let go), then a small one, each giving its positions back', () => {
    const many = Array.from({ length: 2_500 }, () => base58(r, 44));
    const big = initialWallet(WALLET);
    many.forEach((token, i) => applyPoolTrade(big, token, WSOL, trade(T0 + i * 1_000, true, 100 + i, 0.1 + i / 1000, 150 + (i % 7))));
    const bigData = big.positions.toData();
    expect(bigData.blob.byteLength).toBeGreaterThan(64 * 1_024);
    const small = wallet();
    const smallData = small.positions.toData();
    expect(plain({ wallet_address: WALLET, positions: Positions.fromData(bigData) })).toEqual(plain(big));
    expect(plain({ wallet_address: WALLET, positions: Positions.fromData(smallData) })).toEqual(plain(small));
  });

  it('hold no position decoded after a snapshot, and read and change them as before it', () => {
    const s = wallet();
    const state: WalletState = { wallet_address: WALLET, positions: Positions.fromData(s.positions.toData()) };
    // Three read, one of them changed by a trade: four held decoded.
    for (const token of TOKENS.slice(0, 3)) state.positions.get(token);
    applyPoolTrade(state, TOKENS[6]!, WSOL, trade(T0 + 90 * 3_600_000, true, 40, 0.04, 155));
    applyPoolTrade(s, TOKENS[6]!, WSOL, trade(T0 + 90 * 3_600_000, true, 40, 0.04, 155));
    expect(state.positions.decoded).toBe(4);
    const written = state.positions.toData();
    expect(state.positions.decoded).toBe(0);
    // A snapshot with nothing changed since lets go of those read, and is the same bytes.
    state.positions.get(TOKENS[2]!);
    expect(state.positions.decoded).toBe(1);
    expect(state.positions.toData()).toBe(written);
    expect(state.positions.decoded).toBe(0);
    // Decoded again on the next read, as the wallet never packed gives them.
    expect(plain(state)).toEqual(plain(s));
    applyPoolTrade(state, TOKENS[6]!, WSOL, trade(T0 + 91 * 3_600_000, false, 20, 0.03, 150));
    applyPoolTrade(s, TOKENS[6]!, WSOL, trade(T0 + 91 * 3_600_000, false, 20, 0.03, 150));
    expect(state.positions.decoded).toBe(1);
    expect(state.positions.get(TOKENS[6]!)).toEqual(s.positions.get(TOKENS[6]!));
    expect(Positions.fromData(state.positions.toData()).get(TOKENS[6]!)).toEqual(s.positions.get(TOKENS[6]!));
  });

  it('go through LMDB as the wallet`s snapshot, and a snapshot of the earlier form (every position an object) still reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mds-positions-'));
    dirs.push(dir);
    const storage = openStorage(dir);
    const behavior = createWalletBehavior();
    const s = wallet();
    return (async () => {
      await storage.snapshots.put('wallet:a', { seq: 1, state: behavior.toSnapshot!(s) });
      await storage.snapshots.put('wallet:old', { seq: 1, state: { wallet_address: WALLET, positions: plain(s) } });
      for (const key of ['wallet:a', 'wallet:old']) {
        const back = behavior.fromSnapshot!(storage.snapshots.get(key)!.state) as WalletState;
        expect(back.wallet_address).toBe(WALLET);
        expect(plain(back)).toEqual(plain(s));
      }
      await storage.close();
    })();
  });
});
