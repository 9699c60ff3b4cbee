import { LOG_TRADES_MAX } from '../../../engine/bounds.ts';
import { WINDOWS, WINDOW_RESOLUTION_MS } from '../../../engine/model/index.ts';
import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { comparePosition, type PoolTrade } from '../../../actors/pool/trade.ts';
import { PoolWindows, type Windowed } from '../../../actors/pool/windows.ts';
import { rng } from '../../helpers/fixtures.ts';

/** 2026-01-01T00:00:00Z: a multiple of every bucket length (1 s ... 24 min). */
const T0 = 1_767_225_600_000;
const S = 1_000;

function trade(seconds: number, wallet: string, side: 'buy' | 'sell', base: number, quote: number, slot: number, txIndex: number, quoteUsd: number | null): PoolTrade {
  const priceQuote = quote / base;
  return {
    at: T0 + seconds * S,
    slot,
    txIndex,
    eventIndex: 0,
    side,
    wallet,
    baseAmount: base,
    quoteAmount: quote,
    priceQuote,
    priceUsd: quoteUsd === null ? null : priceQuote * quoteUsd,
    marketCapQuote: priceQuote * 1e9,
    marketCapUsd: quoteUsd === null ? null : priceQuote * quoteUsd * 1e9,
    quoteUsd,
  };
}

/**
 * The hand-computed tape. Prices are quote / base; USD volume is quote × quoteUsd.
 *   A  T0+0s    W1 buy   4 base for 1    → price 0.25, no USD price yet
 *   B  T0+10s   W2 buy   4 base for 2    → price 0.5,  USD 50  (quote at $100), $200
 *   C  T0+70s   W1 sell  2 base for 1.5  → price 0.75, USD 75  ($100),          $150
 *   D  T0+100s  W3 buy   4 base for 4    → price 1,    USD 110 ($110),          $440
 *   E  T0+100s  W2 sell  1 base for 0.75 → price 0.75, USD 90  ($120),          $90
 * D and E share the second; E is later in the block (tx 5 after tx 2).
 */
const A = trade(0, 'W1', 'buy', 4, 1, 100, 0, null);
const B = trade(10, 'W2', 'buy', 4, 2, 125, 0, 100);
const Cc = trade(70, 'W1', 'sell', 2, 1.5, 275, 0, 100);
const D = trade(100, 'W3', 'buy', 4, 4, 350, 2, 110);
const E = trade(100, 'W2', 'sell', 1, 0.75, 350, 5, 120);
const TAPE = [A, B, Cc, D, E];

/** Window index in `t`: 1m, 5m, 1h, 6h, 24h. */
const [M1, M5, H1, H6, H24] = [0, 1, 2, 3, 4];

const MODES = [
  { mode: 'log', options: { logTradesMax: Infinity } },
  { mode: 'rings', options: { logTradesMax: 0 } },
] as const;

function fill(options: { logTradesMax: number }, trades: PoolTrade[]): PoolWindows {
  const w = new PoolWindows(options);
  for (const t of trades) w.add(t);
  return w;
}

/** One window of a read, as a flat object, for readable expectations. */
function at(r: Windowed, i: number) {
  return { pp: r.pp[i], v: r.v[i], vb: r.vb[i], vs: r.vs[i], tc: r.tc[i], bc: r.bc[i], sc: r.sc[i], m: r.m[i], bm: r.bm[i], sm: r.sm[i] };
}

describe.each(MODES)('PoolWindows ($mode)', ({ mode, options }) => {
  it('reads the hand-computed tape right after its last trade', () => {
    const w = fill(options, TAPE);
    expect(w.mode).toBe(mode);
    const r = w.read(T0 + 100 * S);
    expect(r.t).toEqual(['1m', '5m', '1h', '6h', '24h']);
    // 1m at T0+100s covers (T0+40s, T0+100s]: C, D, E.
    //   v = 1.5 + 4 + 0.75 = 6.25, USD 150 + 440 + 90 = 680; buys D: 4 / $440; sells C, E: 2.25 / $240.
    //   traders W1, W3, W2 = 3; buyers W3 = 1; sellers W1, W2 = 2.
    //   pp: start price = last trade before the window = B (0.5, $50); now = E (0.75, $90):
    //   quote 0.75 / 0.5 − 1 = +50 %, USD 90 / 50 − 1 = +80 %.
    expect(at(r, M1)).toMatchObject({ v: [6.25, 680], vb: [4, 440], vs: [2.25, 240], tc: 3, bc: 1, sc: 2, m: 3, bm: 1, sm: 2 });
    expect(r.pp[M1]![0]).toBeCloseTo(50, 10);
    expect(r.pp[M1]![1]).toBeCloseTo(80, 10);
    // 5m and longer hold all five. A has no USD value: USD sums cover B..E = 200 + 150 + 440 + 90 = 880;
    //   buys A, B, D: 1 + 2 + 4 = 7 / $640; sells 2.25 / $240. Traders and buyers W1, W2, W3; sellers W1, W2.
    //   pp: nothing before the window, so the first trade A opens it: 0.75 / 0.25 − 1 = +200 %;
    //   USD null, since A has no USD price.
    for (const i of [M5, H1, H6, H24]) {
      expect(at(r, i)).toEqual({ pp: [200, null], v: [9.25, 880], vb: [7, 640], vs: [2.25, 240], tc: 5, bc: 3, sc: 2, m: 3, bm: 3, sm: 2 });
    }
  });

  it('slides the 1m window while 5m keeps its trades', () => {
    const w = fill(options, TAPE);
    // T0+140s: 1m covers (T0+80s, T0+140s], so C (70 s) has left: D and E remain.
    //   v = 4 + 0.75 = 4.75, USD 440 + 90 = 530; W1's only trade in it left: traders W3, W2.
    //   pp: start price C (0.75, $75), now E (0.75, $90): quote 0 %, USD 90 / 75 − 1 = +20 %.
    const r = w.read(T0 + 140 * S);
    expect(at(r, M1)).toMatchObject({ v: [4.75, 530], vb: [4, 440], vs: [0.75, 90], tc: 2, bc: 1, sc: 1, m: 2, bm: 1, sm: 1 });
    expect(r.pp[M1]![0]).toBe(0);
    expect(r.pp[M1]![1]).toBeCloseTo(20, 10);
    expect(at(r, M5)).toEqual(at(w.read(T0 + 100 * S), M5));
  });

  it('decays with no trades, window by window, at bucket edges', () => {
    const w = fill(options, TAPE);
    // T0+170s: the 1m window (T0+110s, T0+170s] is empty; the price has not moved since E: 0 %.
    expect(at(w.read(T0 + 170 * S), M1)).toEqual({ pp: [0, 0], v: [0, 0], vb: [0, 0], vs: [0, 0], tc: 0, bc: 0, sc: 0, m: 0, bm: 0, sm: 0 });
    // 5m has 5 s buckets. At T0+299s it covers (T0−1s, T0+299s]: all five.
    expect(w.read(T0 + 299 * S).tc[M5]).toBe(5);
    // At T0+300s it covers (T0, T0+300s]: A leaves (exact, as trade times are multiples of 5 s).
    //   v = 9.25 − 1 = 8.25; buys B, D = 2 (W2, W3); pp from A (0.25) to E: +200 %, USD from A: null.
    expect(at(w.read(T0 + 300 * S), M5)).toEqual({ pp: [200, null], v: [8.25, 880], vb: [6, 640], vs: [2.25, 240], tc: 4, bc: 2, sc: 2, m: 3, bm: 2, sm: 2 });
    // T0+400s: 5m is empty; 1h still holds all five.
    const later = w.read(T0 + 400 * S);
    expect([later.tc[M5], later.m[M5], later.v[M5]]).toEqual([0, 0, [0, 0]]);
    expect(later.tc[H1]).toBe(5);
    // T0+1h+50s: 1h covers (T0+50s, ...] → C, D, E, exactly as 1m did at T0+100s.
    const hour = w.read(T0 + 3_650 * S);
    expect(at(hour, H1)).toEqual(at(w.read(T0 + 100 * S), M1));
    expect(hour.tc[H6]).toBe(5);
    // 6h has 6-min buckets, and the tape sits in its first one: at T0+6h−1ms (a bucket edge)
    // it holds all five, 5 s later none (B..E leave with A's bucket: the same edge error as 24h).
    expect(w.read(T0 + 21_600 * S - 1).tc[H6]).toBe(5);
    expect(at(w.read(T0 + 21_605 * S), H6)).toMatchObject({ v: [0, 0], tc: 0, m: 0 });
    expect(w.read(T0 + 21_605 * S).tc[H24]).toBe(5);
    // 24h has 24-min buckets. At T0+24h−1ms (a bucket edge) it holds all five; 5 s later the
    // window should still hold B..E, but the bucket [T0, T0+24min) has left whole: the documented
    // edge error (a trade leaves up to one bucket early, never late).
    expect(w.read(T0 + 86_400 * S - 1).tc[H24]).toBe(5);
    expect(w.read(T0 + 86_405 * S).tc[H24]).toBe(0);
  });

  it('counts distinct wallets exactly when they trade again', () => {
    // W1 buys three times and sells once, W2 buys twice; all inside one minute.
    const trades = [
      trade(1, 'W1', 'buy', 1, 1, 10, 0, 100),
      trade(2, 'W2', 'buy', 1, 1, 11, 0, 100),
      trade(3, 'W1', 'buy', 1, 1, 12, 0, 100),
      trade(4, 'W1', 'sell', 1, 1, 13, 0, 100),
      trade(5, 'W2', 'buy', 1, 1, 14, 0, 100),
      trade(50, 'W1', 'buy', 1, 1, 200, 0, 100),
    ];
    const w = fill(options, trades);
    // At T0+50s: 6 trades, 5 buys, 1 sell; traders W1, W2 = 2; buyers W1, W2 = 2; sellers W1 = 1.
    expect(at(w.read(T0 + 50 * S), M1)).toMatchObject({ tc: 6, bc: 5, sc: 1, m: 2, bm: 2, sm: 1 });
    // At T0+63s the 1m window is (T0+3s, T0+63s]: W1's sell (4 s), W2's buy (5 s), W1's buy (50 s).
    expect(at(w.read(T0 + 63 * S), M1)).toMatchObject({ tc: 3, bc: 2, sc: 1, m: 2, bm: 2, sm: 1 });
    // At T0+65s: only W1's buy at 50 s: W1 still counts (its last trade is in), W2 not, no seller.
    expect(at(w.read(T0 + 65 * S), M1)).toMatchObject({ tc: 1, bc: 1, sc: 0, m: 1, bm: 1, sm: 0 });
    // At T0+111s nothing is left in 1m; 5m still sees both wallets.
    expect(at(w.read(T0 + 111 * S), M1)).toMatchObject({ tc: 0, m: 0, bm: 0, sm: 0 });
    expect(at(w.read(T0 + 111 * S), M5)).toMatchObject({ tc: 6, m: 2, bm: 2, sm: 1 });
  });

  it('reports USD as null until a quote price is known, 0 for empty windows', () => {
    const w = fill(options, [A]);
    // Only A (no USD price): quote volume 1, USD not derivable; one trade, so pp is 0 % in quote.
    expect(at(w.read(T0 + 5 * S), M1)).toEqual({ pp: [0, null], v: [1, null], vb: [1, null], vs: [0, null], tc: 1, bc: 1, sc: 0, m: 1, bm: 1, sm: 0 });
    w.add(B);
    // A and B: USD covers B only ($200). pp from A: 0.5 / 0.25 − 1 = +100 %, USD null (A has none).
    expect(at(w.read(T0 + 10 * S), M1)).toEqual({ pp: [100, null], v: [3, 200], vb: [3, 200], vs: [0, 0], tc: 2, bc: 2, sc: 0, m: 2, bm: 2, sm: 0 });
    // After A left the 1m window (T0+61s: (T0+1s, T0+61s]): B is in, A is the start price.
    expect(w.read(T0 + 61 * S).pp[M1]).toEqual([100, null]);
    // A pool with no trade at all.
    expect(at(new PoolWindows(options).read(T0), H24)).toEqual({ pp: [null, null], v: [0, 0], vb: [0, 0], vs: [0, 0], tc: 0, bc: 0, sc: 0, m: 0, bm: 0, sm: 0 });
  });

  it('takes the start price from a late trade older than every window', () => {
    const w = fill(options, [trade(90_000, 'W1', 'buy', 1, 2, 9_000_000, 0, 100)]);
    // Pool's only trade in the windows: price 2. A trade from 25 h earlier arrives late at price 1.
    w.add(trade(0, 'W2', 'buy', 1, 1, 100, 0, 100));
    // Nothing in 24h changes but the start price: 2 / 1 − 1 = +100 % everywhere.
    const r = w.read(T0 + 90_000 * S);
    expect(r.tc).toEqual([1, 1, 1, 1, 1]);
    expect(r.m).toEqual([1, 1, 1, 1, 1]);
    expect(r.pp).toEqual(Array(5).fill([100, 100]));
  });

  it('forgets wallets whose last trade left the 24h window', () => {
    const w = fill(options, [trade(0, 'W1', 'buy', 1, 1, 1, 0, 100), trade(10, 'W2', 'buy', 1, 1, 2, 0, 100)]);
    expect(w.walletCount).toBe(2);
    w.add(trade(86_400 + 3_000, 'W3', 'sell', 1, 1, 300_000, 0, 100));
    expect(w.walletCount).toBe(1);
    expect(w.read(T0 + 86_400 * S + 3_000 * S).m).toEqual([1, 1, 1, 1, 1]);
  });
});

/** A seeded random tape: 2,500 trades over 30 h, bursts and gaps, 40 wallets, USD price known after the first 50. */
function randomTape(seed: number): PoolTrade[] {
  const next = rng(seed);
  const trades: PoolTrade[] = [];
  let at = T0 + 123;
  let price = 0.001;
  for (let i = 0; i < 2_500; i++) {
    at += next() < 0.05 ? Math.floor(next() * 3_600_000) : Math.floor(next() * 40_000);
    price *= 1 + (next() - 0.5) * 0.1;
    const quote = 0.01 + next() * 3;
    const quoteUsd = i < 50 ? null : 100 + next() * 50;
    trades.push({
      at,
      slot: Math.floor(at / 400),
      txIndex: Math.floor(next() * 50),
      eventIndex: i,
      side: next() < 0.5 ? 'buy' : 'sell',
      wallet: `W${Math.floor(next() ** 2 * 40)}`,
      baseAmount: quote / price,
      quoteAmount: quote,
      priceQuote: price,
      priceUsd: quoteUsd === null ? null : price * quoteUsd,
      marketCapQuote: price * 1e9,
      marketCapUsd: null,
      quoteUsd,
    });
  }
  return trades;
}

function shuffled<T>(items: T[], seed: number): T[] {
  const out = items.slice();
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The documented semantics computed the slow way, from the whole trade list. */
function oracle(trades: PoolTrade[], now: number): Windowed {
  const t = Object.keys(WINDOWS) as Windowed['t'];
  const out: Windowed = { t, pp: [], v: [], vb: [], vs: [], tc: [], bc: [], sc: [], m: [], bm: [], sm: [] };
  const end = Math.max(now, ...trades.map((x) => x.at));
  const last = trades.reduce((a, b) => (comparePosition(a, b) >= 0 ? a : b));
  const first = trades.reduce((a, b) => (comparePosition(a, b) <= 0 ? a : b));
  for (const name of t) {
    const res = WINDOW_RESOLUTION_MS[name];
    const start = Math.floor(end / res) - 60;
    const inside = trades.filter((x) => Math.floor(x.at / res) > start);
    const before = trades.filter((x) => Math.floor(x.at / res) <= start);
    const ref = before.length ? before.reduce((a, b) => (comparePosition(a, b) >= 0 ? a : b)) : first;
    const sum = (xs: PoolTrade[], usd: boolean) => xs.reduce((a, x) => a + (usd ? (x.quoteUsd === null ? 0 : x.quoteAmount * x.quoteUsd) : x.quoteAmount), 0);
    const noUsd = inside.length > 0 && inside.every((x) => x.quoteUsd === null);
    const buys = inside.filter((x) => x.side === 'buy');
    const sells = inside.filter((x) => x.side === 'sell');
    out.pp.push([(last.priceQuote / ref.priceQuote - 1) * 100, last.priceUsd === null || ref.priceUsd === null ? null : (last.priceUsd / ref.priceUsd - 1) * 100]);
    out.v.push([sum(inside, false), noUsd ? null : sum(inside, true)]);
    out.vb.push([sum(buys, false), noUsd ? null : sum(buys, true)]);
    out.vs.push([sum(sells, false), noUsd ? null : sum(sells, true)]);
    out.tc.push(inside.length);
    out.bc.push(buys.length);
    out.sc.push(sells.length);
    out.m.push(new Set(inside.map((x) => x.wallet)).size);
    out.bm.push(new Set(buys.map((x) => x.wallet)).size);
    out.sm.push(new Set(sells.map((x) => x.wallet)).size);
  }
  return out;
}

function expectClose(actual: Windowed, expected: Windowed): void {
  const { pp, v, vb, vs, ...counts } = actual;
  const { pp: epp, v: ev, vb: evb, vs: evs, ...expectedCounts } = expected;
  expect(counts).toEqual(expectedCounts);
  for (const [got, want] of [[pp, epp], [v, ev], [vb, evb], [vs, evs]] as const) {
    got.forEach((pair, i) => pair.forEach((x, j) => {
      const y = want[i]![j]!;
      if (y === null) expect(x).toBeNull();
      else expect(x).toBeCloseTo(y, 6);
    }));
  }
}

describe('PoolWindows arrival order, modes and snapshots', () => {
  const tape = randomTape(42);
  const end = tape[tape.length - 1]!.at;
  const nows = [tape[1_200]!.at, tape[1_200]!.at + 45_000, end, end + 30_000, end + 4 * 3_600_000, end + 23 * 3_600_000];
  /** Log mode, ring mode, and log mode that turns to rings on the way. */
  const MODES = [{ logTradesMax: Infinity }, { logTradesMax: 0 }, { logTradesMax: LOG_TRADES_MAX }];
  /** In each mode, the tape added up to each of `times` in turn, `visit` called at each with how many trades were added. */
  const growing = (modes: ReadonlyArray<{ logTradesMax: number }>, times: readonly number[], visit: (w: PoolWindows, now: number, added: number) => void) => {
    for (const options of modes) {
      const w = new PoolWindows(options);
      let i = 0;
      for (const now of times) {
        for (; i < tape.length && tape[i]!.at <= now; i++) w.add(tape[i]!);
        visit(w, now, i);
      }
    }
  };

  it('matches the slow oracle, counts exactly, in both modes and in between', () => {
    growing(MODES, nows, (w, now, added) => expectClose(w.read(now), oracle(tape.slice(0, added), now)));
  });

  it('reads the same, to the bit, whatever the arrival order and the mode', () => {
    const reference = new PoolWindows({ logTradesMax: 0 });
    for (const t of tape) reference.add(t);
    const expected = nows.slice(2).map((now) => reference.read(now));
    for (const seed of [1, 2, 3]) {
      for (const options of MODES) {
        const w = new PoolWindows(options);
        for (const t of shuffled(tape, seed)) w.add(t);
        expect(nows.slice(2).map((now) => w.read(now))).toEqual(expected);
      }
    }
  });

  it('reads only the windows asked for, each the same as in the full read', () => {
    const picks = [['5m'], ['1h', '24h'], ['24h', '1m'], []] as const;
    for (const options of [{ logTradesMax: Infinity }, { logTradesMax: 0 }]) {
      const w = new PoolWindows(options);
      for (const t of tape) w.add(t);
      for (const now of nows.slice(2)) {
        const full = w.read(now);
        for (const only of picks) {
          const part = w.read(now, only);
          // In WINDOW_NAMES order whatever the order asked, each entry that of the full read.
          expect(part.t).toEqual(full.t.filter((name) => (only as readonly string[]).includes(name)));
          part.t.forEach((name, i) => expect(at(part, i)).toEqual(at(full, full.t.indexOf(name))));
        }
      }
    }
  });

  it('figures: one window into an object, what the full read gives of it', () => {
    growing(MODES, nows, (w, now) => {
      const full = w.read(now);
      const out = { volume_usd: -1 as number | null, trader_count: -1, trade_count: -1, price_change_pct: -1 as number | null };
      full.t.forEach((name, k) => {
        const [quotePct, usdPct] = full.pp[k]!;
        expect(w.figures(now, name, out)).toEqual({ volume_usd: full.v[k]![1], trader_count: full.m[k], trade_count: full.tc[k], price_change_pct: usdPct ?? quotePct });
      });
    });
  });

  it('stableUntil: the window reads the same up to it, and not at it (a trade has left); leaveTimes gives it and the next ones in one pass', () => {
    const names = ['1m', '5m', '1h', '6h', '24h'] as const;
    for (const options of [{ logTradesMax: Infinity }, { logTradesMax: 0 }]) {
      let i = 0;
      const w = new PoolWindows(options);
      let checked = 0;
      let finite = 0;
      for (const now of [...nows, end + 90_000, end + 7 * 3_600_000]) {
        for (; i < tape.length && tape[i]!.at <= now; i++) w.add(tape[i]!);
        for (const name of names) {
          const until = w.stableUntil(now, name);
          expect(until).toBeGreaterThan(now);
          // leaveTimes: stableUntil at now, then at each time it gave (Infinity last once the window is empty).
          for (const max of [1, 4, 9]) {
            const expected: number[] = [];
            for (let t = now; expected.length < max && t !== Infinity; ) expected.push((t = w.stableUntil(t, name)));
            const out = new Float64Array(max);
            expect([...out.subarray(0, w.leaveTimes(now, name, out))], `${name} ${max} at ${now}`).toEqual(expected);
          }
          const first = at(w.read(now, [name]), 0);
          const last = Number.isFinite(until) ? until - 1 : now + 2 * WINDOWS['24h'];
          for (const t of [now + 1, Math.floor((now + last) / 2), last]) expect(at(w.read(t, [name]), 0)).toEqual(first);
          checked++;
          if (!Number.isFinite(until)) continue;
          finite++;
          // At `until` the oldest bucket holding trades has left: fewer trades in the window.
          expect(at(w.read(until, [name]), 0).tc).toBeLessThan(first.tc);
        }
      }
      expect(checked).toBe(8 * names.length);
      expect(finite).toBeGreaterThan(20);
    }
  });

  it('round-trips a snapshot through JSON and msgpack and goes on identically', () => {
    for (const options of [{ logTradesMax: Infinity }, { logTradesMax: 0 }]) {
      const original = new PoolWindows(options);
      for (const t of tape.slice(0, 1_500)) original.add(t);
      const snapshot = original.toSnapshot();
      const viaJson = PoolWindows.fromSnapshot(JSON.parse(JSON.stringify(snapshot)), options);
      const viaMsgpack = PoolWindows.fromSnapshot(unpack(pack(snapshot)), options);
      for (const copy of [viaJson, viaMsgpack]) {
        expect(copy.mode).toBe(original.mode);
        expect(copy.read(tape[1_499]!.at)).toEqual(original.read(tape[1_499]!.at));
      }
      for (const t of tape.slice(1_500)) {
        original.add(t);
        viaJson.add(t);
      }
      expect(viaJson.read(end + 60_000)).toEqual(original.read(end + 60_000));
      expect(viaJson.walletCount).toBe(original.walletCount);
    }
  });

  it('restores a log snapshot into rings when the limit says so', () => {
    const log = new PoolWindows({ logTradesMax: Infinity });
    for (const t of tape.slice(0, 300)) log.add(t);
    const rings = PoolWindows.fromSnapshot(log.toSnapshot(), { logTradesMax: 0 });
    expect(rings.mode).toBe('rings');
    expect(rings.read(tape[299]!.at)).toEqual(log.read(tape[299]!.at));
    expect(() => PoolWindows.fromSnapshot({ v: 2 })).toThrow(/version 1/);
  });
});

describe('PoolWindows.bytes (the pool actor counts it in its resident estimate)', () => {
  it('grows with the log and the wallets tracked, takes the rings buffer on entering ring mode, and drops the wallets leaving 24h', () => {
    const w = new PoolWindows({ logTradesMax: 8 });
    const empty = w.bytes;
    w.add(trade(0, 'W0', 'buy', 1, 1, 100, 0, 100));
    const one = w.bytes;
    expect(one).toBeGreaterThan(empty);
    for (let i = 1; i < 8; i++) w.add(trade(i, `W${i}`, 'buy', 1, 1, 100 + i, 0, 100));
    expect(w.mode).toBe('log');
    const logged = w.bytes;
    // Eight wallets and a log grown to hold eight trades.
    expect(logged - one).toBeGreaterThanOrEqual(7 * 100);
    w.add(trade(8, 'W8', 'buy', 1, 1, 108, 0, 100));
    expect(w.mode).toBe('rings');
    // The rings: five windows of 60 buckets, 12 doubles and 6 counts each.
    expect(w.bytes).toBeGreaterThanOrEqual(5 * 60 * (12 * 8 + 6 * 4));
    const rings = w.bytes;
    // A day later one trade: the nine wallets before it left the 24h ring.
    w.add(trade(86_400 + 3_000, 'W9', 'sell', 1, 1, 300_000, 0, 100));
    expect(w.walletCount).toBe(1);
    expect(w.bytes).toBeLessThan(rings);
  });
});
