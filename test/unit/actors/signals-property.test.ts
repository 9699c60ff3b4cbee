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
