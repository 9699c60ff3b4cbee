import { describe, expect, it } from 'vitest';
import { computeHeat } from '../../../actors/pool/heat.ts';
import type { PoolTrade } from '../../../actors/pool/trade.ts';
import { PoolWindows, type Windowed } from '../../../actors/pool/windows.ts';

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;

interface Shape {
  v5: [number, number | null];
  v1h: [number, number | null];
  tc5: number;
  tc1h: number;
  m1h: number;
  tc24: number;
  pp5?: [number | null, number | null];
  pp1h?: [number | null, number | null];
}

/** Windowed metrics with what heat reads (5m, 1h, 24h); the rest is filler. */
function windowed(s: Shape): Windowed {
  return {
    t: ['1m', '5m', '1h', '6h', '24h'],
    pp: [[0, 0], s.pp5 ?? [0, 0], s.pp1h ?? [0, 0], [0, 0], [0, 0]],
    v: [[0, 0], s.v5, s.v1h, s.v1h, s.v1h],
    vb: [[0, 0], s.v5, s.v1h, s.v1h, s.v1h],
    vs: Array(5).fill([0, 0]),
    tc: [0, s.tc5, s.tc1h, s.tc1h, s.tc24],
    bc: [0, s.tc5, s.tc1h, s.tc1h, s.tc24],
    sc: [0, 0, 0, 0, 0],
    m: [0, 0, s.m1h, s.m1h, s.m1h],
    bm: [0, 0, s.m1h, s.m1h, s.m1h],
    sm: [0, 0, 0, 0, 0],
  };
}

// log10 values used below: log10(101) = 2.00432, log10(1,000,001) = 6.00000, log10(6) = 0.77815,
// log10(5,001) = 3.69906, log10(4) = 0.60206, log10(1,001) = 3.00043. Spans: volume 3.99568,
// trades 2.92091, traders 2.39837.
describe('computeHeat', () => {
  it('is null without a trade in 24h', () => {
    expect(computeHeat({ windowed: windowed({ v5: [0, 0], v1h: [0, 0], tc5: 0, tc1h: 0, m1h: 0, tc24: 0 }), ageMs: DAY, liquidityUsd: 1_000 })).toBeNull();
  });

  it('rates a quiet old pool low, flat and with modest confidence', () => {
    const quiet = windowed({ v5: [0.2, 40], v1h: [2.5, 500], tc5: 1, tc1h: 12, m1h: 8, tc24: 200, pp5: [0.5, 0.6] });
    // absolute: volume (log10 501 − 2.00432) / 3.99568 = 0.17407; trades (log10 13 − 0.77815) / 2.92091 = 0.11496;
    //   traders (log10 9 − 0.60206) / 2.39837 = 0.14684 → 0.5·0.17407 + 0.3·0.11496 + 0.2·0.14684 = 0.15089 → 15.
    // momentum: activity 1/10 = 0.1; price 0.5/20 · 0.1 = 0.0025; volume rate (0.2/5)/(2.5/60) = 0.96 ≤ 1 → 0;
    //   trades (1/5)/(12/60) = 1 → 0. 100 · 0.4 · 0.0025 = 0.1 → 0. No driver; the 5m move is up.
    // confidence: age 3 days → 1; 12 trades / 30 = 0.4; liquidity $20k ≥ $5k → 1. 0.4.
    expect(computeHeat({ windowed: quiet, ageMs: 3 * DAY, liquidityUsd: 20_000 })).toEqual({ absolute: 15, momentum: 0, direction: 'up', drivers: [], confidence: 0.4 });
    // Without a USD price the volume term drops out: (0.3·0.11496 + 0.2·0.14684) / 0.5 = 0.12771 → 13;
    // unknown liquidity does not lower confidence.
    const noUsd = windowed({ v5: [0.2, null], v1h: [2.5, null], tc5: 1, tc1h: 12, m1h: 8, tc24: 200, pp5: [0.5, null] });
    expect(computeHeat({ windowed: noUsd, ageMs: 3 * DAY, liquidityUsd: null })).toEqual({ absolute: 13, momentum: 0, direction: 'up', drivers: [], confidence: 0.4 });
  });

  it('rates a surging 30-minute-old pool hot, up, on all three drivers', () => {
    const surging = windowed({ v5: [600, 90_000], v1h: [1_000, 150_000], tc5: 500, tc1h: 800, m1h: 300, tc24: 800, pp5: [45, 46] });
    // absolute: (log10 150,001 − 2.00432) / 3.99568 = 0.79380; (log10 801 − 0.77815) / 2.92091 = 0.72768;
    //   (log10 301 − 0.60206) / 2.39837 = 0.78241 → 0.39690 + 0.21830 + 0.15648 = 0.77168 → 77.
    // momentum (the pool's hour is its 30 min): volume (600/5)/(1,000/30) = 3.6 → ln 3.6 / ln 4 = 0.92400;
    //   trades (500/5)/(800/30) = 3.75 → 0.95345; price 45 % ≥ 20 % → 1; activity 1.
    //   100 · (0.4 + 0.35·0.92400 + 0.25·0.95345) = 96.18 → 96. Drivers by strength: price, txns, volume.
    // confidence: 30 min ≥ 10 min, 800 trades, $40k: 1.
    expect(computeHeat({ windowed: surging, ageMs: 30 * MINUTE, liquidityUsd: 40_000 })).toEqual({ absolute: 77, momentum: 96, direction: 'up', drivers: ['price', 'txns', 'volume'], confidence: 1 });
  });

  it('rates a dumping pool hot and down', () => {
    const dumping = windowed({ v5: [200, 30_000], v1h: [300, 45_000], tc5: 150, tc1h: 240, m1h: 150, tc24: 2_000, pp5: [-35, -36], pp1h: [-20, -21] });
    // absolute: (log10 45,001 − 2.00432) / 3.99568 = 0.66294; (log10 241 − 0.77815) / 2.92091 = 0.54910;
    //   (log10 151 − 0.60206) / 2.39837 = 0.65750 → 0.33147 + 0.16473 + 0.13150 = 0.62770 → 63.
    // momentum: |−35 %| → 1; volume (200/5)/(300/60) = 8 → capped 1; trades (150/5)/(240/60) = 7.5 → 1: 100.
    //   All tie at 1: listed price, volume, txns. Direction from the 5m move: down.
    expect(computeHeat({ windowed: dumping, ageMs: 2 * DAY, liquidityUsd: 8_000 })).toEqual({ absolute: 63, momentum: 100, direction: 'down', drivers: ['price', 'volume', 'txns'], confidence: 1 });
  });

  it('gives a 2-minute-old pool low confidence and momentum from price only', () => {
    const fresh = windowed({ v5: [50, 7_500], v1h: [50, 7_500], tc5: 40, tc1h: 40, m1h: 25, tc24: 40, pp5: [120, 120] });
    // absolute: (log10 7,501 − 2.00432) / 3.99568 = 0.46821; (log10 41 − 0.77815) / 2.92091 = 0.28575;
    //   (log10 26 − 0.60206) / 2.39837 = 0.33894 → 0.23411 + 0.08573 + 0.06779 = 0.38762 → 39.
    // momentum: both spans are its 2 minutes, so rates are equal (no surge without a history);
    //   price 120 % → 1: 100 · 0.4 = 40, driver price.
    // confidence: 2/10 = 0.2; 40 trades → 1; $3,000 → 0.5 + 0.5·0.6 = 0.8. 0.2 · 0.8 = 0.16.
    expect(computeHeat({ windowed: fresh, ageMs: 2 * MINUTE, liquidityUsd: 3_000 })).toEqual({ absolute: 39, momentum: 40, direction: 'up', drivers: ['price'], confidence: 0.16 });
  });

  it('stays in range at the extremes and falls back to longer moves for direction', () => {
    const huge = windowed({ v5: [1e9, 1e12], v1h: [1e9, 1e12], tc5: 1e6, tc1h: 1e6, m1h: 1e6, tc24: 1e6, pp5: [0, 0], pp1h: [-3, -3] });
    const heat = computeHeat({ windowed: huge, ageMs: -5_000, liquidityUsd: 0 })!;
    expect(heat.absolute).toBe(100);
    expect(heat.momentum).toBe(0);
    expect(heat.confidence).toBe(0); // a creation time in the future is age 0
    expect(heat.direction).toBe('down'); // flat 5m, so the 1h move decides
    expect(() => computeHeat({ windowed: { ...huge, t: ['1m', '5m'] }, ageMs: 0, liquidityUsd: null })).toThrow(/lack 1h/);
  });

  it('reads a PoolWindows read directly', () => {
    const t0 = 1_767_225_600_000;
    const w = new PoolWindows();
    for (let i = 0; i < 60; i++) {
      const priceQuote = 0.001 * (1 + i / 100);
      const trade: PoolTrade = {
        at: t0 + i * 5_000, slot: 1_000 + i, txIndex: 0, eventIndex: 0, side: i % 3 ? 'buy' : 'sell', wallet: `W${i % 7}`,
        baseAmount: 1_000, quoteAmount: priceQuote * 1_000, priceQuote, priceUsd: priceQuote * 150, marketCapQuote: 0, marketCapUsd: null, quoteUsd: 150,
      };
      w.add(trade);
    }
    // At t0+5min the 5m window (t0, t0+5min] has trades 1..59; trade 0 (price 0.001) is its start price,
    // trade 59 (0.00159) the last: +59 % → price component 1. The pool is 5 minutes old, so 5m and 1h
    // rates share one span and 59 < 60 trades: no volume or txns surge. Momentum 100 · 0.4 = 40.
    const input = { windowed: w.read(t0 + 300_000), ageMs: 300_000, liquidityUsd: 10_000 };
    const heat = computeHeat(input)!;
    expect(input.windowed.pp[1]![0]).toBeCloseTo(59, 10);
    expect(heat).toMatchObject({ momentum: 40, direction: 'up', drivers: ['price'] });
    expect(computeHeat(input)).toEqual(heat);
  });
});
