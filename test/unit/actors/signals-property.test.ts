import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cooldownKey, SIGNAL_DEFAULTS, type Signal, type SignalKind, type SignalTrade } from '../../../actors/signals/signals.rules.ts';
import { TokenSignals } from '../../../actors/signals/token-signals.logic.ts';
import { WalletSignals } from '../../../actors/signals/wallet-signals.logic.ts';

/**
 * Seeded random trade tapes of a few tokens and labeled wallets, in time order, through
 * the detectors: every signal has a score in 0..1 and a unique id, no (kind, token,
 * wallet set) fires twice within its cooldown (cluster_buy: per token), and the same tape
 * gives the same signals, byte for byte (what a replay under --clock event relies on).
 */

const T0 = Date.UTC(2026, 10, 27, 0, 0, 0);
const TOKENS = ['TokA', 'TokB', 'TokC'];
const WALLETS = ['W0', 'W1', 'W2', 'W3', 'W4', 'W5', 'DEV'];
const LABELS: Record<string, string[]> = { W0: ['smart_money'], W1: ['kol'], W2: ['whale'], W3: ['kol', 'whale'], W4: ['bot'], W5: [], DEV: [] };

const tape = fc.array(
  fc.record({
    dt: fc.nat(120_000),
    token: fc.nat(TOKENS.length - 1),
    wallet: fc.nat(WALLETS.length - 1),
    buy: fc.boolean(),
    usd: fc.option(fc.constantFrom(20, 150, 600, 1_500, 6_000, 40_000), { nil: null }),
    price: fc.double({ min: 0.5, max: 3, noNaN: true }),
    progress: fc.option(fc.constantFrom(50, 69, 71, 90, 100), { nil: null }),
    pnl: fc.constantFrom(-500, 200, 1_200, 8_000),
  }),
  { minLength: 50, maxLength: 400 },
);

type Tape = typeof tape extends fc.Arbitrary<infer T> ? T : never;

function play(steps: Tape): Signal[] {
  const tokens = new Map(TOKENS.map((t) => [t, new TokenSignals(t)]));
  const wallets = new Map(WALLETS.map((w) => [w, new WalletSignals(w)]));
  const bought = new Map<string, number>();
  const out: Signal[] = [];
  let at = T0;
  steps.forEach((s, i) => {
    at += s.dt;
    const token = TOKENS[s.token]!;
    const wallet = WALLETS[s.wallet]!;
    const t: SignalTrade = {
      trade_id: `tx${i}:0`, token_address: token, pool_address: `pool_${token}`, wallet_address: wallet, side: s.buy ? 'buy' : 'sell', at,
      token_amount: 2e7, amount_usd: s.usd, price_usd: s.price, market_cap_usd: s.price * 1e5,
    };
    const labels = LABELS[wallet]!;
    out.push(...tokens.get(token)!.onTrade(t, { labels, creator_address: 'DEV', total_supply: 1e9, curve: s.progress === null ? null : { progress_pct: s.progress, complete: s.progress === 100, gain_5m_pct: 10 } }));
    const key = `${wallet}|${token}`;
    out.push(
      ...wallets.get(wallet)!.onTrade(t, {
        labels, buy_count_before: bought.get(key) ?? 0, realized_pnl_usd: s.buy ? null : s.pnl, cost_usd: s.buy ? null : 500, first_buy_at: null, entry_market_cap_usd: null,
      }),
    );
    if (s.buy) bought.set(key, (bought.get(key) ?? 0) + 1);
    if (s.progress === 100 && i % 7 === 0) out.push(...tokens.get(token)!.onGraduated({ pool_address: `pool_${token}`, token_address: token, migrated_to_pool_address: null, at, launched_at: T0 }));
  });
  return out;
}

describe('signals over seeded random tapes', () => {
  it('scores in 0..1, unique ids, one fire per key per cooldown, the same tape the same bytes', () => {
    const kinds = new Set<SignalKind>();
    fc.assert(
      fc.property(tape, (steps) => {
        const signals = play(steps);
        expect(JSON.stringify(play(steps))).toBe(JSON.stringify(signals));
        expect(new Set(signals.map((s) => s.signal_id)).size).toBe(signals.length);
        const last = new Map<string, number>();
        for (const s of signals) {
          kinds.add(s.kind);
          expect(s.score).toBeGreaterThanOrEqual(0);
          expect(s.score).toBeLessThanOrEqual(1);
          const key = cooldownKey(s.kind, s.token_address, s.kind === 'cluster_buy' || s.kind === 'migration' || s.kind === 'almost_bonded' || s.kind === 'volume_spike' || s.kind === 'price_breakout' ? [] : s.wallet_addresses);
          const prev = last.get(key);
          if (prev !== undefined) expect(s.at - prev).toBeGreaterThanOrEqual(SIGNAL_DEFAULTS[s.kind].cooldownMs);
          last.set(key, s.at);
        }
      }),
      { seed: 1127, numRuns: 80 },
    );
    // The tapes reached the kinds a tape of trades can fire (volume_spike and price_breakout need a market's history: signals.test.ts).
    for (const kind of ['smart_money_buy', 'kol_buy', 'dev_sell', 'whale_buy', 'almost_bonded', 'migration', 'cluster_buy', 'big_win', 'first_buy'] as const) expect(kinds).toContain(kind);
  });
});

describe('volume_spike ring over seeded random tapes', () => {
  // Times jump forward by up to a ring and more, or step back inside it (trades of a
  // slot arrive out of order), and the state is written and read back now and then.
  const steps = fc.array(
    fc.record({ dt: fc.integer({ min: -2_400_000, max: 5_000_000 }), usd: fc.constantFrom(1, 25, 300, 7_000), snapshot: fc.boolean() }),
    { minLength: 20, maxLength: 300 },
  );

  it('keeps per bucket and in both running sums what a sum over the trades it took gives', () => {
    const v = SIGNAL_DEFAULTS.volume_spike;
    const n = Math.ceil((v.windowMs + v.baselineMs) / v.bucketMs);
    const windowBuckets = Math.round(v.windowMs / v.bucketMs);
    fc.assert(
      fc.property(steps, (tape) => {
        let signals = new TokenSignals('Tok');
        const taken: Array<{ b: number; usd: number }> = [];
        let newest = -Infinity;
        let at = T0;
        tape.forEach((s, i) => {
          at += s.dt;
          const b = Math.floor(at / v.bucketMs);
          // Older than the ring: not taken.
          if (b > newest - n) taken.push({ b, usd: s.usd });
          if (b > newest) newest = b;
          signals.onTrade(tradeAt(i, at, s.usd), NO_CONTEXT);
          if (s.snapshot) signals = TokenSignals.fromData('Tok', JSON.parse(JSON.stringify(signals.toData())));
        });
        const data = signals.toData();
        const inRing = taken.filter((t) => t.b > newest - n);
        const sum = (ts: typeof taken) => ts.reduce((a, t) => a + t.usd, 0);
        expect(data.newest).toBe(newest);
        expect(data.totalUsd).toBeCloseTo(sum(inRing), 6);
        expect(data.recentUsd).toBeCloseTo(sum(inRing.filter((t) => t.b > newest - windowBuckets)), 6);
        const bySlot = new Map<number, number>();
        for (const t of inRing) bySlot.set(((t.b % n) + n) % n, (bySlot.get(((t.b % n) + n) % n) ?? 0) + t.usd);
        const stored = new Map<number, number>();
        for (let i = 0; i < data.volumeSparse!.length; i += 2) stored.set(data.volumeSparse![i]!, data.volumeSparse![i + 1]!);
        expect(stored).toEqual(bySlot);
      }),
      { seed: 1128, numRuns: 200 },
    );
  });
});

const NO_CONTEXT = { labels: [], creator_address: null, total_supply: null, curve: null };

function tradeAt(i: number, at: number, usd: number): SignalTrade {
  return { trade_id: `tx${i}:0`, token_address: 'Tok', pool_address: 'pool_Tok', wallet_address: 'W5', side: 'buy', at, token_amount: 1, amount_usd: usd, price_usd: 1, market_cap_usd: 1e5 };
}
