import { describe, expect, it } from 'vitest';
import { Cooldowns, cooldownKey, logRamp, SIGNAL_DEFAULTS, type Signal, type SignalKind, type SignalTrade } from '../../../actors/signals/signals.rules.ts';
import { TokenSignals, type TradeContext } from '../../../actors/signals/token-signals.logic.ts';
import { WalletSignals, type WalletTradeContext } from '../../../actors/signals/wallet-signals.logic.ts';

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const MIN = 60_000;
const TOKEN = 'TokenMint1111111111111111111111111111111111';
const POOL = 'CurvePool111111111111111111111111111111111';
const DEV = 'DevWallet11111111111111111111111111111111';
const W = ['WalletA', 'WalletB', 'WalletC', 'WalletD'];

let txs = 0;
function trade(o: Partial<SignalTrade> = {}): SignalTrade {
  return {
    trade_id: `tx${++txs}:0`,
    token_address: TOKEN,
    pool_address: POOL,
    wallet_address: W[0]!,
    side: 'buy',
    at: T0,
    token_amount: 1_000,
    amount_usd: 10,
    price_usd: 0.001,
    market_cap_usd: 1_000_000,
    ...o,
  };
}
const ctx = (o: Partial<TradeContext> = {}): TradeContext => ({ labels: [], creator_address: DEV, total_supply: 1e9, curve: null, ...o });

/** Feeds trades to a token's signals, returns every signal fired, checking the shape of each. */
function run(s: TokenSignals, steps: [SignalTrade, TradeContext][]): Signal[] {
  const out: Signal[] = [];
  for (const [t, c] of steps) out.push(...s.onTrade(t, c));
  for (const sig of out) {
    expect(sig.score).toBeGreaterThanOrEqual(0);
    expect(sig.score).toBeLessThanOrEqual(1);
    expect(sig.token_address).toBe(TOKEN);
  }
  return out;
}
const only = (signals: Signal[], kind: SignalKind) => signals.filter((s) => s.kind === kind);
/** The default thresholds without cooldowns: what a rule alone lets through. */
const NO_COOLDOWN = Object.fromEntries(Object.entries(SIGNAL_DEFAULTS).map(([k, v]) => [k, { ...v, cooldownMs: 0 }])) as unknown as typeof SIGNAL_DEFAULTS;

describe('volume_spike', () => {
  /** 100 USD a minute for 20 minutes, then `burst` buys of `usd` within a minute. */
  function market(burst: number, usd: number, burstAt = T0 + 20 * MIN): [SignalTrade, TradeContext][] {
    const steps: [SignalTrade, TradeContext][] = [];
    for (let m = 0; m < 20; m++) steps.push([trade({ at: T0 + m * MIN, amount_usd: 100 }), ctx()]);
    for (let i = 0; i < burst; i++) steps.push([trade({ at: burstAt + i * 5_000, amount_usd: usd }), ctx()]);
    return steps;
  }

  it('fires once when the last 5 minutes out-trade the baseline 3x and pass 5,000 USD', () => {
    const signals = only(run(new TokenSignals(TOKEN), market(11, 1_000)), 'volume_spike');
    expect(signals).toHaveLength(1);
    const [s] = signals;
    // Fires at the buy that takes recent volume past 5,000: 400 of baseline trades in the window + 5 x 1,000.
    expect(s!.detail.volume_usd).toBe(5_400);
    expect(s!.detail.baseline_volume_usd).toBe(1_000); // 15 min x 100 USD scaled to 5 min = 500, under the floor
    expect(s!.detail.ratio).toBeCloseTo(5.4);
    expect(s!.score).toBeCloseTo(logRamp(5.4, 3, 30));
    expect(s!.signal_id).toMatch(/^volume_spike:TokenMint1+:tx\d+:0$/);
  });

  it('goes on identically from a snapshot taken mid-window, in the sparse form and in the older dense one', () => {
    const steps = market(11, 1_000);
    const whole = run(new TokenSignals(TOKEN), steps);
    const half = 24; // inside the burst: the ring holds the baseline's buckets and part of the burst
    const first = new TokenSignals(TOKEN);
    run(first, steps.slice(0, half));
    const data = first.toData();
    // Only the non-zero buckets are written (20 minutes of 30 s buckets: 20 of them, plus the burst's).
    expect(data.volume).toBeUndefined();
    expect(data.volumeSparse!.length / 2).toBeLessThanOrEqual(23);
    const ring = new Float64Array(data.volumeLength!);
    for (let i = 0; i < data.volumeSparse!.length; i += 2) ring[data.volumeSparse![i]!] = data.volumeSparse![i + 1]!;
    const dense = { ...data, volumeSparse: undefined, volumeLength: undefined, volume: new Uint8Array(ring.buffer) };
    for (const d of [data, dense]) {
      const again = TokenSignals.fromData(TOKEN, structuredClone(d));
      expect([...run(new TokenSignals(TOKEN), steps.slice(0, half)), ...run(again, steps.slice(half))]).toEqual(whole);
    }
  });

  it('does not fire under 5,000 USD, under 3x the baseline, nor on a young token', () => {
    expect(only(run(new TokenSignals(TOKEN), market(11, 400)), 'volume_spike')).toEqual([]);
    // 1,000 USD a minute for 20 minutes, then 6,000 in a minute: 2.4x a baseline of 5,000 per 5 minutes.
    const busy: [SignalTrade, TradeContext][] = [];
    for (let m = 0; m < 20; m++) busy.push([trade({ at: T0 + m * MIN, amount_usd: 1_000 }), ctx()]);
    for (let i = 0; i < 6; i++) busy.push([trade({ at: T0 + 20 * MIN + i * 5_000, amount_usd: 1_000 }), ctx()]);
    expect(only(run(new TokenSignals(TOKEN), busy), 'volume_spike')).toEqual([]);
    // The burst 8 minutes after the first trade: younger than 10 minutes.
    const young = market(0, 0).slice(0, 8);
    for (let i = 0; i < 11; i++) young.push([trade({ at: T0 + 8 * MIN + i * 5_000, amount_usd: 1_000 }), ctx()]);
    expect(only(run(new TokenSignals(TOKEN), young), 'volume_spike')).toEqual([]);
  });

  it('does not fire again within 30 minutes; does after', () => {
    const steps = market(11, 1_000);
    for (let i = 0; i < 20; i++) steps.push([trade({ at: T0 + 27 * MIN + i * 5_000, amount_usd: 3_000 }), ctx()]);
    const s = new TokenSignals(TOKEN);
    expect(only(run(s, steps), 'volume_spike')).toHaveLength(1);
    // 31 minutes after the first spike (in a window of its own): again.
    const later: [SignalTrade, TradeContext][] = [];
    for (let i = 0; i < 40; i++) later.push([trade({ at: T0 + 52 * MIN + i * 5_000, amount_usd: 10_000 }), ctx()]);
    expect(only(run(s, later), 'volume_spike')).toHaveLength(1);
  });
});

describe('price_breakout', () => {
  const flat = (): [SignalTrade, TradeContext][] => Array.from({ length: 20 }, (_, m) => [trade({ at: T0 + m * MIN, price_usd: 1, market_cap_usd: 50_000 }), ctx()]);

  it('fires once on a new high past one that stood 10 minutes', () => {
    const steps = flat();
    steps.push([trade({ at: T0 + 20 * MIN, price_usd: 1.05, market_cap_usd: 52_500 }), ctx()]);
    // A higher high a minute later: the last one stood 1 minute.
    steps.push([trade({ at: T0 + 21 * MIN, price_usd: 1.2, market_cap_usd: 60_000 }), ctx()]);
    const signals = only(run(new TokenSignals(TOKEN), steps), 'price_breakout');
    expect(signals).toHaveLength(1);
    expect(signals[0]!.detail).toEqual({ price_usd: 1.05, previous_ath_usd: 1, previous_ath_at: T0, market_cap_usd: 52_500 });
    expect(signals[0]!.score).toBeCloseTo(logRamp(1.05, 1.01, 2));
  });

  it('does not fire under a 1 % break or under the market cap floor', () => {
    const small = flat();
    small.push([trade({ at: T0 + 20 * MIN, price_usd: 1.005, market_cap_usd: 50_250 }), ctx()]);
    expect(only(run(new TokenSignals(TOKEN), small), 'price_breakout')).toEqual([]);
    const tiny = flat();
    tiny.push([trade({ at: T0 + 20 * MIN, price_usd: 1.5, market_cap_usd: 19_999 }), ctx()]);
    expect(only(run(new TokenSignals(TOKEN), tiny), 'price_breakout')).toEqual([]);
  });

  it('does not fire on a steady climb (each high stood a minute), even without a cooldown', () => {
    const climb = flat();
    for (let m = 20; m < 40; m++) climb.push([trade({ at: T0 + m * MIN, price_usd: 1 + (m - 19) * 0.05, market_cap_usd: 60_000 }), ctx()]);
    const s = new TokenSignals(TOKEN, NO_COOLDOWN);
    // The first step of the climb breaks the flat high of 20 minutes; none after it.
    expect(only(run(s, climb), 'price_breakout').map((x) => x.at)).toEqual([T0 + 20 * MIN]);
  });

  it('does not fire again within 30 minutes', () => {
    const steps = flat();
    steps.push([trade({ at: T0 + 20 * MIN, price_usd: 1.05, market_cap_usd: 52_500 }), ctx()]);
    // The 1.05 high stands 15 minutes, then breaks: inside the cooldown.
    steps.push([trade({ at: T0 + 35 * MIN, price_usd: 1.5, market_cap_usd: 75_000 }), ctx()]);
    expect(only(run(new TokenSignals(TOKEN), steps), 'price_breakout')).toHaveLength(1);
  });
});

describe.each([
  ['smart_money_buy', 'smart_money', 600, 400],
  ['kol_buy', 'kol', 300, 200],
] as const)('%s', (kind, label, over, under) => {
  it('fires once for a labeled wallet buying over the threshold', () => {
    const signals = only(run(new TokenSignals(TOKEN), [[trade({ amount_usd: over }), ctx({ labels: [label] })]]), kind);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.wallet_addresses).toEqual([W[0]]);
    expect(signals[0]!.score).toBeCloseTo(logRamp(over, SIGNAL_DEFAULTS[kind].minUsd, SIGNAL_DEFAULTS[kind].fullUsd));
  });

  it('does not fire under the threshold, unlabeled, or on a sell', () => {
    const s = new TokenSignals(TOKEN);
    expect(only(run(s, [[trade({ amount_usd: under }), ctx({ labels: [label] })]]), kind)).toEqual([]);
    expect(only(run(s, [[trade({ amount_usd: over * 10 }), ctx({ labels: ['retail'] })]]), kind)).toEqual([]);
    expect(only(run(s, [[trade({ amount_usd: over * 10, side: 'sell' }), ctx({ labels: [label] })]]), kind)).toEqual([]);
  });

  it('does not fire again for the same wallet within the hour; another wallet does', () => {
    const s = new TokenSignals(TOKEN);
    const signals = run(s, [
      [trade({ amount_usd: over }), ctx({ labels: [label] })],
      [trade({ amount_usd: over * 5, at: T0 + 59 * MIN }), ctx({ labels: [label] })],
      [trade({ amount_usd: over, at: T0 + 10 * MIN, wallet_address: W[1]! }), ctx({ labels: [label] })],
      [trade({ amount_usd: over, at: T0 + 60 * MIN }), ctx({ labels: [label] })],
    ]);
    expect(only(signals, kind).map((x) => [x.wallet_addresses[0], x.at])).toEqual([[W[0], T0], [W[1], T0 + 10 * MIN], [W[0], T0 + 60 * MIN]]);
  });

  it('takes its thresholds from the table given', () => {
    const strict = { ...SIGNAL_DEFAULTS, [kind]: { ...SIGNAL_DEFAULTS[kind], minUsd: over * 2 } };
    expect(only(run(new TokenSignals(TOKEN, strict), [[trade({ amount_usd: over }), ctx({ labels: [label] })]]), kind)).toEqual([]);
  });
});

describe('dev_sell', () => {
  const sell = (pct: number, o: Partial<SignalTrade> = {}) => trade({ side: 'sell', wallet_address: DEV, token_amount: pct * 1e7, ...o });

  it('fires once when the creator sells 0.5 % of supply or more in a trade', () => {
    const signals = only(run(new TokenSignals(TOKEN), [[sell(2), ctx()]]), 'dev_sell');
    expect(signals).toHaveLength(1);
    expect(signals[0]!.detail.supply_pct).toBeCloseTo(2);
    expect(signals[0]!.wallet_addresses).toEqual([DEV]);
  });

  it('does not fire under 0.5 %, for another wallet, or without a known creator', () => {
    const s = new TokenSignals(TOKEN);
    expect(run(s, [[sell(0.4), ctx()]])).toEqual([]);
    expect(run(s, [[sell(5, { wallet_address: W[1]! }), ctx()]])).toEqual([]);
    expect(run(s, [[sell(5), ctx({ creator_address: null })]])).toEqual([]);
  });

  it('does not fire again within 15 minutes', () => {
    const signals = run(new TokenSignals(TOKEN), [
      [sell(1), ctx()],
      [sell(20, { at: T0 + 14 * MIN }), ctx()],
    ]);
    expect(only(signals, 'dev_sell')).toHaveLength(1);
  });
});

describe('whale_buy', () => {
  it('fires once for any wallet buying 5,000 USD, or a whale-labeled one 1,000', () => {
    expect(only(run(new TokenSignals(TOKEN), [[trade({ amount_usd: 6_000 }), ctx()]]), 'whale_buy')).toHaveLength(1);
    const labeled = only(run(new TokenSignals(TOKEN), [[trade({ amount_usd: 1_500 }), ctx({ labels: ['whale'] })]]), 'whale_buy');
    expect(labeled).toHaveLength(1);
    expect(labeled[0]!.score).toBeCloseTo(logRamp(1_500, 1_000, 50_000));
  });

  it('does not fire under the thresholds', () => {
    expect(run(new TokenSignals(TOKEN), [[trade({ amount_usd: 4_999 }), ctx()]])).toEqual([]);
    expect(run(new TokenSignals(TOKEN), [[trade({ amount_usd: 999 }), ctx({ labels: ['whale'] })]])).toEqual([]);
  });

  it('does not fire again for the same wallet within the hour', () => {
    const signals = run(new TokenSignals(TOKEN), [
      [trade({ amount_usd: 6_000 }), ctx()],
      [trade({ amount_usd: 60_000, at: T0 + 30 * MIN }), ctx()],
    ]);
    expect(only(signals, 'whale_buy')).toHaveLength(1);
  });
});

describe('migration', () => {
  const grad = (at: number, launched_at: number | null) => ({ pool_address: POOL, token_address: TOKEN, migrated_to_pool_address: 'AmmPool', at, launched_at });

  it('fires once on graduation, scoring a fast one higher', () => {
    const fast = new TokenSignals(TOKEN).onGraduated(grad(T0 + 4 * MIN, T0));
    expect(fast).toEqual([
      {
        signal_id: `migration:${TOKEN}:${POOL}`, kind: 'migration', token_address: TOKEN, pool_address: 'AmmPool', wallet_addresses: [], at: T0 + 4 * MIN, score: 1,
        detail: { from_pool_address: POOL, to_pool_address: 'AmmPool', time_to_graduate_ms: 4 * MIN },
      },
    ]);
    expect(new TokenSignals(TOKEN).onGraduated(grad(T0 + 48 * 60 * MIN, T0))[0]!.score).toBe(0.5);
    const midway = new TokenSignals(TOKEN).onGraduated(grad(T0 + 60 * MIN, T0))[0]!.score;
    expect(midway).toBeGreaterThan(0.5);
    expect(midway).toBeLessThan(1);
  });

  it('does not fire twice within 24 h (a second graduation event of the token)', () => {
    const s = new TokenSignals(TOKEN);
    expect(s.onGraduated(grad(T0, null))).toHaveLength(1);
    expect(s.onGraduated(grad(T0 + 60 * MIN, null))).toEqual([]);
  });
});

describe('almost_bonded', () => {
  const at = (progress: number, minute: number, complete = false) =>
    [trade({ at: T0 + minute * MIN }), ctx({ curve: { progress_pct: progress, complete, gain_5m_pct: 12 } })] as [SignalTrade, TradeContext];

  it('fires once when a curve crosses 70 %', () => {
    const signals = only(run(new TokenSignals(TOKEN), [at(60, 0), at(69.9, 1), at(72, 2), at(80, 3)]), 'almost_bonded');
    expect(signals).toHaveLength(1);
    expect(signals[0]!.at).toBe(T0 + 2 * MIN);
    expect(signals[0]!.score).toBeCloseTo(12 / 30);
  });

  it('does not fire under 70 %, for a curve that completed, or again while above, even without a cooldown', () => {
    expect(run(new TokenSignals(TOKEN), [at(10, 0), at(69.99, 1)])).toEqual([]);
    expect(run(new TokenSignals(TOKEN), [at(60, 0), at(100, 1, true)])).toEqual([]);
    const above = run(new TokenSignals(TOKEN, NO_COOLDOWN), [at(60, 0), at(72, 1), at(80, 2), at(90, 3), at(60, 4), at(71, 5)]);
    expect(only(above, 'almost_bonded').map((x) => x.at)).toEqual([T0 + MIN, T0 + 5 * MIN]);
  });

  it('does not fire again within the hour when the curve dips and crosses again', () => {
    const signals = run(new TokenSignals(TOKEN), [at(60, 0), at(75, 1), at(65, 10), at(71, 20)]);
    expect(only(signals, 'almost_bonded')).toHaveLength(1);
  });
});

describe('cluster_buy', () => {
  const buy = (wallet: string, minute: number, labels: string[], usd = 200) =>
    [trade({ wallet_address: wallet, at: T0 + minute * MIN, amount_usd: usd }), ctx({ labels })] as [SignalTrade, TradeContext];

  it('fires once when 3 labeled wallets buy the token within 10 minutes', () => {
    const signals = only(run(new TokenSignals(TOKEN), [buy(W[0]!, 0, ['smart_money']), buy(W[1]!, 4, ['kol']), buy(W[0]!, 5, ['smart_money']), buy(W[2]!, 9, ['whale'])]), 'cluster_buy');
    expect(signals).toHaveLength(1);
    expect(signals[0]!.wallet_addresses).toEqual([W[0], W[1], W[2]]);
    expect(signals[0]!.detail).toEqual({ wallet_count: 3, buys_usd: 800, window_ms: 10 * MIN, market_cap_usd: 1_000_000 });
    expect(signals[0]!.score).toBeCloseTo(0.3);
  });

  it('does not fire with an unlabeled or small buyer, or buys spread over more than 10 minutes', () => {
    expect(only(run(new TokenSignals(TOKEN), [buy(W[0]!, 0, ['smart_money']), buy(W[1]!, 1, ['kol']), buy(W[2]!, 2, [])]), 'cluster_buy')).toEqual([]);
    expect(only(run(new TokenSignals(TOKEN), [buy(W[0]!, 0, ['smart_money']), buy(W[1]!, 1, ['kol']), buy(W[2]!, 2, ['whale'], 99)]), 'cluster_buy')).toEqual([]);
    expect(only(run(new TokenSignals(TOKEN), [buy(W[0]!, 0, ['smart_money']), buy(W[1]!, 5, ['kol']), buy(W[2]!, 10, ['whale'])]), 'cluster_buy')).toEqual([]);
  });

  it('does not fire again within the hour as the cluster grows', () => {
    const signals = run(new TokenSignals(TOKEN), [buy(W[0]!, 0, ['smart_money']), buy(W[1]!, 1, ['kol']), buy(W[2]!, 2, ['whale']), buy(W[3]!, 3, ['kol'])]);
    expect(only(signals, 'cluster_buy')).toHaveLength(1);
  });
});

describe('wallet signals', () => {
  const wctx = (o: Partial<WalletTradeContext> = {}): WalletTradeContext => ({
    labels: ['smart_money'], buy_count_before: 0, realized_pnl_usd: null, cost_usd: null, first_buy_at: null, entry_market_cap_usd: null, ...o,
  });
  const sell = (o: Partial<SignalTrade> = {}) => trade({ side: 'sell', amount_usd: 2_500, ...o });

  describe('big_win', () => {
    it('fires once for a sell realizing 1,000 USD at 2x or more', () => {
      const s = new WalletSignals(W[0]!);
      const out = s.onTrade(sell({ at: T0 + 30 * MIN }), wctx({ realized_pnl_usd: 1_500, cost_usd: 1_000, first_buy_at: T0, entry_market_cap_usd: 8_000, buy_count_before: 2 }));
      expect(out).toHaveLength(1);
      expect(out[0]!.kind).toBe('big_win');
      expect(out[0]!.wallet_addresses).toEqual([W[0]]);
      expect(out[0]!.detail).toEqual({ profit_usd: 1_500, cost_usd: 1_000, multiple: 2.5, hold_time_ms: 30 * MIN, entry_market_cap_usd: 8_000, labels: ['smart_money'] });
      expect(out[0]!.score).toBeCloseTo(logRamp(1_500, 1_000, 100_000));
    });

    it('does not fire under 1,000 USD of profit, under 2x, or unpriced', () => {
      const s = new WalletSignals(W[0]!);
      expect(s.onTrade(sell(), wctx({ realized_pnl_usd: 999, cost_usd: 100 }))).toEqual([]);
      expect(s.onTrade(sell(), wctx({ realized_pnl_usd: 1_500, cost_usd: 2_000 }))).toEqual([]);
      expect(s.onTrade(sell({ amount_usd: null }), wctx())).toEqual([]);
    });

    it('does not fire again on the same token within the hour; another token does', () => {
      const s = new WalletSignals(W[0]!);
      const win = wctx({ realized_pnl_usd: 5_000, cost_usd: 1_000 });
      expect(s.onTrade(sell(), win)).toHaveLength(1);
      expect(s.onTrade(sell({ at: T0 + 59 * MIN }), win)).toEqual([]);
      expect(s.onTrade(sell({ at: T0 + 5 * MIN, token_address: 'OtherToken' }), win)).toHaveLength(1);
    });
  });

  describe('first_buy', () => {
    it("fires once on a tracked wallet's first buy of a token", () => {
      const out = new WalletSignals(W[0]!).onTrade(trade({ amount_usd: 500, market_cap_usd: 30_000 }), wctx());
      expect(out.map((s) => [s.kind, s.detail])).toEqual([['first_buy', { amount_usd: 500, market_cap_usd: 30_000, labels: ['smart_money'] }]]);
      expect(out[0]!.score).toBeCloseTo(0.5);
    });

    it('does not fire for an untracked wallet (unlabeled, or a bot), a later buy, or under 50 USD', () => {
      const s = new WalletSignals(W[0]!);
      expect(s.onTrade(trade({ amount_usd: 500 }), wctx({ labels: [] }))).toEqual([]);
      expect(s.onTrade(trade({ amount_usd: 500 }), wctx({ labels: ['bot', 'sniper'] }))).toEqual([]);
      expect(s.onTrade(trade({ amount_usd: 500 }), wctx({ buy_count_before: 1 }))).toEqual([]);
      expect(s.onTrade(trade({ amount_usd: 49 }), wctx())).toEqual([]);
    });

    it('does not fire twice for the same token within 24 h', () => {
      const s = new WalletSignals(W[0]!);
      expect(s.onTrade(trade({ amount_usd: 500 }), wctx())).toHaveLength(1);
      expect(s.onTrade(trade({ amount_usd: 500, at: T0 + 60 * MIN }), wctx())).toEqual([]);
    });
  });
});

describe('score ramps', () => {
  it('logRamp is 0 at the threshold, 1 at full, log in between, and never NaN', () => {
    expect(logRamp(100, 100, 10_000)).toBe(0);
    expect(logRamp(1_000, 100, 10_000)).toBeCloseTo(0.5);
    expect(logRamp(1e9, 100, 10_000)).toBe(1);
    expect(logRamp(50, 100, 10_000)).toBe(0);
    expect(logRamp(5, 0, 10)).toBe(0.5);
  });
});

describe('cooldowns', () => {
  it('key by kind, token and the wallet set in any order, hold either side of a fire, and prune', () => {
    expect(cooldownKey('cluster_buy', TOKEN, ['b', 'a'])).toBe(cooldownKey('cluster_buy', TOKEN, ['a', 'b']));
    const c = new Cooldowns();
    expect(c.admit('k', T0, 1_000)).toBe(true);
    expect(c.admit('k', T0 + 999, 1_000)).toBe(false);
    expect(c.admit('k', T0 - 999, 1_000)).toBe(false); // a trade arriving late
    expect(c.admit('k', T0 + 1_000, 1_000)).toBe(true);
    c.prune(T0 + 5_000, 4_000);
    expect(c.size).toBe(0);
  });
});
