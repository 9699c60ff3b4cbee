import { describe, expect, it } from 'vitest';
import { pack, unpack } from 'msgpackr';
import { CANDLE_CURRENCIES, CANDLE_MODES, INTERVAL_NAMES, type CandleInterval, type StoredTrade } from '../../../engine/model/index.ts';
import { PoolCandles, snapshotCandles, type CandlesSnapshot } from '../../../actors/pool/candles.ts';
import { PoolClosedCandles } from '../../../actors/pool/closed-candles.ts';
import { poolTrades } from '../../../actors/pool/pool-trades.ts';
import type { PoolState } from '../../../actors/pool/pool.logic.ts';
import type { PoolTrade } from '../../../actors/pool/trade.ts';
import { TradeLog } from '../../../actors/pool/trade-log.ts';
import { MemoryStore, drainClosed } from '../../helpers/candle-store.ts';
import { rng } from '../../helpers/fixtures.ts';

/**
 * Issue 25: a pool's closed 1s and 15s candles are folded from its trades when read
 * (actors/pool/trade-candles.ts), not stored. The same trades in the same arrival
 * order, with the same drains and takings, through PoolCandles over a stored series
 * (the Map store, every interval kept: the old way) and over PoolClosedCandles folding
 * from the pool's trade log: every series, every changed candle a live frame would
 * carry and every seq are equal, to the bit.
 */

const T0 = 1_767_225_600_000;

/** A pool with its trades (the log the fold reads) and its candles over PoolClosedCandles; `insert` before `add`, as applySwap does. */
function foldingPool(encodedClosed?: Uint8Array, candlesSnapshot?: unknown) {
  const state = { unsaved: new TradeLog(), writing: null } as unknown as PoolState;
  const source = (w: Parameters<typeof poolTrades>[3]) => poolTrades(null, 'P', state, w);
  const closed = encodedClosed ? PoolClosedCandles.fromSnapshot('P', null, encodedClosed, source) : new PoolClosedCandles('P', null, undefined, source);
  const candles = candlesSnapshot ? PoolCandles.fromSnapshot(candlesSnapshot, closed) : new PoolCandles(closed);
  return { state, closed, candles };
}

/** The StoredTrade applySwap keeps for a PoolTrade. */
const stored = (t: PoolTrade): StoredTrade => [t.at, t.slot, t.txIndex, t.eventIndex, t.side === 'buy' ? 1 : 0, t.wallet, t.baseAmount, t.quoteAmount, t.priceQuote, t.quoteUsd, t.marketCapQuote, `tx${t.slot}.${t.txIndex}.${t.eventIndex}`];

/** Random trades as applySwap derives them (USD values are the quote values × the quote's price), in a seeded arrival order with some minutes late. */
function market(seed: number): PoolTrade[] {
  const next = rng(seed);
  const trades: PoolTrade[] = [];
  let at = 0;
  for (let k = 0; k < 400; k++) {
    at += Math.floor(next() * 1500);
    const price = 0.1 + next();
    const cap = price * 1e6;
    const quoteUsd = next() < 0.2 ? null : 100 + next() * 100;
    const quoteAmount = 0.01 + next() * 10;
    const slot = 1000 + Math.floor(at / 400);
    trades.push({
      at: T0 + at, slot, txIndex: Math.floor(next() * 3), eventIndex: k, side: next() < 0.5 ? 'buy' : 'sell', wallet: 'W1111111111111111111111111111111',
      baseAmount: quoteAmount / price, quoteAmount, priceQuote: price, priceUsd: quoteUsd === null ? null : price * quoteUsd, marketCapQuote: cap, marketCapUsd: quoteUsd === null ? null : cap * quoteUsd, quoteUsd,
    });
  }
  return trades.map((t) => ({ t, key: t.at + (next() < 0.1 ? next() * 120_000 : next() * 3000) })).sort((a, b) => a.key - b.key).map((x) => x.t);
}

function everySeries(c: PoolCandles, opts: { startTime?: number; endTime?: number; limit: number }) {
  return INTERVAL_NAMES.flatMap((interval) => CANDLE_MODES.flatMap((mode) => CANDLE_CURRENCIES.map((currency) => [interval, mode, currency, c.series(interval, mode, currency, opts)])));
}

/** What a live frame of each changed candle holds, per mode and currency. */
function frames(c: PoolCandles, changed: Array<{ interval: CandleInterval; start_at: number }>) {
  return changed.map(({ interval, start_at }) => CANDLE_MODES.flatMap((mode) => CANDLE_CURRENCIES.map((currency) => c.candle(interval, start_at, mode, currency))));
}

describe('1s and 15s candles folded from the trades', () => {
  it('equal the stored series: series, changed candles and seqs, for random trades some minutes late and random drain cadences', () => {
    let lateFolded = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const arrival = market(seed);
      const store = new MemoryStore();
      const old = new PoolCandles(store);
      const folding = foldingPool();
      const cadence = 1 + (seed % 7) * 3;
      let newest = -Infinity;
      arrival.forEach((t, k) => {
        if (t.at < newest - 11_000) lateFolded++;
        newest = Math.max(newest, t.at);
        old.add(t);
        folding.state.unsaved.insert(stored(t));
        folding.candles.add(t);
        if (k % cadence === 0) {
          store.put(drainClosed(old));
          folding.closed.drain(folding.candles);
          const changed = old.takeChanged();
          expect(folding.candles.takeChanged(), `seed ${seed} trade ${k}`).toEqual(changed);
          expect(frames(folding.candles, changed), `seed ${seed} trade ${k}`).toEqual(frames(old, changed));
        }
      });
      for (const interval of INTERVAL_NAMES) expect(folding.candles.seqOf(interval)).toBe(old.seqOf(interval));
      // Nothing 1s or 15s waits to be written, in the buffer or in the candles' snapshot.
      expect(folding.closed.buffer.toRows().filter((row) => row[0]! < 2)).toEqual([]);
      expect(snapshotCandles(folding.candles.toSnapshot()).pending.filter((c) => c[0] === '1s' || c[0] === '15s')).toEqual([]);
      const next = rng(seed + 100);
      for (const opts of [{ limit: 1_000 }, { limit: 300 }, { limit: 1 }, { startTime: T0 + Math.floor(next() * 300_000), endTime: T0 + Math.floor(next() * 600_000), limit: 1 + Math.floor(next() * 200) }]) {
        expect(everySeries(folding.candles, opts), `seed ${seed} ${JSON.stringify(opts)}`).toEqual(everySeries(old, opts));
      }
    }
    // Late trades into closed 1s buckets took the folded late path.
    expect(lateFolded).toBeGreaterThan(50);
  });

  it('a snapshot written while 1s and 15s candles were stored restores without them, and its series are the trades\'', () => {
    const arrival = market(42);
    // Before: every interval's closed candles buffered (PoolClosedCandles without trades) and pending.
    const before = new PoolClosedCandles('P', null);
    const oldCandles = new PoolCandles(before);
    const log = new TradeLog();
    arrival.forEach((t, k) => {
      log.insert(stored(t));
      oldCandles.add(t);
      if (k % 10 === 0) before.drain(oldCandles);
    });
    const closedBytes = before.toSnapshot();
    const written = oldCandles.toSnapshot();
    const { live, pending } = snapshotCandles(written);
    expect(before.buffer.toRows().some((row) => row[0] === 0)).toBe(true);
    expect(pending.some((c) => c[0] === '1s')).toBe(true);
    // As this version writes it (binary rows), and as versions before wrote it (StoredCandle arrays).
    const { liveRows: _l, pendingRows: _p, ...rest } = written;
    for (const form of [written, { ...rest, live, pending } satisfies CandlesSnapshot]) {
      const restored = foldingPool(closedBytes, unpack(pack(form)));
      for (const t of log) restored.state.unsaved.insert(t);
      expect(restored.closed.buffer.toRows().filter((row) => row[0]! < 2)).toEqual([]);
      expect(restored.closed.buffer.length).toBeGreaterThan(0);
      expect(snapshotCandles(restored.candles.toSnapshot()).pending.filter((c) => c[0] === '1s' || c[0] === '15s')).toEqual([]);
      expect(everySeries(restored.candles, { limit: 1_000 })).toEqual(everySeries(oldCandles, { limit: 1_000 }));
    }
  });
});
