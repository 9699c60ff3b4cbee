import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * A hand-built market for the signals tests (signals.test.ts, signals-replay.test.ts):
 * one token (and pool) per scenario so the kinds do not meet, each scenario with the
 * trades that fire its kind once and those that must not (under a threshold, inside the
 * cooldown). wSOL is 100 USD; tokens have 6 decimals and 1e9 whole tokens of supply, so
 * 1 SOL for 1,000,000 tokens is a price of 1e-6 SOL and a market cap of 100,000 USD.
 */

export const T0 = 1_767_225_600_000;
const MIN = 60_000;
const r = rng(2323);
const addr = () => base58(r, 44);
export const INITIAL = 793_100_000_000_000;

export const W = {
  sm: addr(), sm2: addr(), sm3: addr(), kol: addr(), kol2: addr(), whale: addr(), u1: addr(), u2: addr(), u3: addr(), u4: addr(), dev: addr(), dev2: addr(),
  cSm: addr(), cKol: addr(), cWhale: addr(), cLate: addr(), c2Sm: addr(), c2Kol: addr(), bot: addr(), base: addr(),
};

export interface Scenario {
  token: string;
  pool: string;
  events: Record<string, unknown>[];
}

let n = 0;
const swap = (pool: string, wallet: string, side: 'buy' | 'sell', tokens: number, sol: number, at: number, progress?: number) => ({
  type: 'swap', tx_hash: base58(rng(50_000 + ++n), 88), slot: 10_000 + n, tx_index: 0, event_index: 0, at, pool_address: pool, wallet_address: wallet, side,
  base_amount_raw: String(Math.round(tokens * 1e6)), quote_amount_raw: String(Math.round(sol * 1e9)), base_reserve_raw: '1000000000000000', quote_reserve_raw: '1000000000000',
  ...(progress === undefined ? {} : { real_base_reserve_raw: String(Math.round(INITIAL * (1 - progress / 100))), real_quote_reserve_raw: '1000000000' }),
});

/** A token and its pool created at `at` (a curve when `curve`). */
function launch(at: number, options: { curve?: boolean; creator?: string } = {}): Scenario {
  const token = addr();
  const pool = addr();
  return {
    token,
    pool,
    events: [
      { type: 'token', token_address: token, decimals: 6, supply_raw: '1000000000000000', symbol: 'S', name: 'Signal test', slot: 1 + ++n, at, ...(options.creator ? { creator_address: options.creator } : {}) },
      {
        type: 'pool', pool_address: pool, base_address: token, quote_address: WSOL, dex: options.curve ? 'pumpfun' : 'raydium', pool_type: options.curve ? 'bonding_curve' : 'amm', created_at: at, slot: 1 + ++n,
        ...(options.curve ? { curve_initial_real_base_raw: String(INITIAL) } : {}),
      },
    ],
  };
}

const label = (wallet: string, name: string, at: number) => ({ type: 'label', wallet_address: wallet, label: name, action: 'add', at });

/** Labels in force from T0 − 1 min. */
export function labels(): Record<string, unknown>[] {
  const at = T0 - MIN;
  return [
    label(W.sm, 'smart_money', at), label(W.sm2, 'smart_money', at), label(W.sm3, 'smart_money', at),
    label(W.kol, 'kol', at), label(W.kol2, 'kol', at), label(W.whale, 'whale', at),
    label(W.cSm, 'smart_money', at), label(W.cKol, 'kol', at), label(W.cWhale, 'whale', at), label(W.cLate, 'kol', at),
    label(W.c2Sm, 'smart_money', at), label(W.c2Kol, 'kol', at), label(W.bot, 'bot', at),
  ];
}

/** Each scenario's start: 30 minutes apart. */
const at = (i: number, minutes = 0) => T0 + i * 30 * MIN + minutes * MIN;

export function scenarios() {
  // smart_money_buy and first_buy: sm fires both (1,000 USD), sm again in the cooldown fires neither;
  // sm2 buys 400 USD (under 500: first_buy only), sm3 40 USD (under first_buy's 50), u1 is untracked.
  const smart = launch(at(0));
  smart.events.push(
    swap(smart.pool, W.sm, 'buy', 10_000_000, 10, at(0, 1)),
    swap(smart.pool, W.sm2, 'buy', 4_000_000, 4, at(0, 2)),
    swap(smart.pool, W.sm3, 'buy', 400_000, 0.4, at(0, 3)),
    swap(smart.pool, W.u1, 'buy', 1_000_000, 1, at(0, 4)),
    swap(smart.pool, W.sm, 'buy', 10_000_000, 10, at(0, 10)),
  );
  // kol_buy: kol 300 USD fires, kol2 200 USD (under 250) does not, kol 500 USD inside the hour does not.
  const kol = launch(at(1));
  kol.events.push(swap(kol.pool, W.kol, 'buy', 3_000_000, 3, at(1, 1)), swap(kol.pool, W.kol2, 'buy', 2_000_000, 2, at(1, 2)), swap(kol.pool, W.kol, 'buy', 5_000_000, 5, at(1, 20)));
  // whale_buy: u1 6,000 USD fires, u2 4,000 (under 5,000) does not, the labeled whale 1,500 (over 1,000) fires, u1 again inside the hour does not.
  const whale = launch(at(2));
  whale.events.push(
    swap(whale.pool, W.u1, 'buy', 60_000_000, 60, at(2, 1)),
    swap(whale.pool, W.u2, 'buy', 40_000_000, 40, at(2, 2)),
    swap(whale.pool, W.whale, 'buy', 15_000_000, 15, at(2, 3)),
    swap(whale.pool, W.u1, 'buy', 60_000_000, 60, at(2, 4)),
  );
  // dev_sell: the creator sells 1 % of the supply (fires), 2 % five minutes later (cooldown); u2 sells 2 % (not the dev).
  const dev = launch(at(3), { creator: W.dev });
  dev.events.push(swap(dev.pool, W.dev, 'sell', 10_000_000, 1, at(3, 1)), swap(dev.pool, W.dev, 'sell', 20_000_000, 2, at(3, 6)), swap(dev.pool, W.u2, 'sell', 20_000_000, 2, at(3, 7)));
  // ...and a creator selling 0.1 % (under 0.5 %).
  const dev2 = launch(at(3), { creator: W.dev2 });
  dev2.events.push(swap(dev2.pool, W.dev2, 'sell', 1_000_000, 0.1, at(3, 2)));
  // cluster_buy: three labeled wallets buy 200 USD within 5 minutes (fires at the third), a fourth inside the hour does not.
  const cluster = launch(at(4));
  cluster.events.push(
    swap(cluster.pool, W.cSm, 'buy', 2_000_000, 2, at(4, 1)),
    swap(cluster.pool, W.cKol, 'buy', 2_000_000, 2, at(4, 3)),
    swap(cluster.pool, W.cWhale, 'buy', 2_000_000, 2, at(4, 5)),
    swap(cluster.pool, W.cLate, 'buy', 2_000_000, 2, at(4, 7)),
  );
  // ...and two labeled wallets only (under 3).
  const cluster2 = launch(at(4));
  cluster2.events.push(swap(cluster2.pool, W.c2Sm, 'buy', 2_000_000, 2, at(4, 1)), swap(cluster2.pool, W.c2Kol, 'buy', 2_000_000, 2, at(4, 2)));
  // big_win: u3 buys 1M for 1,000 USD and sells them for 3,000 (2,000 profit, 3x: fires), then again
  // inside the hour (cooldown); u4 sells for 1,500 (500 profit: under 1,000); the bot's win is a big_win
  // route 22 leaves out unless include_bots.
  const win = launch(at(5));
  win.events.push(
    swap(win.pool, W.u3, 'buy', 1_000_000, 10, at(5, 1)),
    swap(win.pool, W.u4, 'buy', 1_000_000, 10, at(5, 1)),
    swap(win.pool, W.bot, 'buy', 1_000_000, 10, at(5, 1)),
    swap(win.pool, W.u3, 'sell', 1_000_000, 30, at(5, 5)),
    swap(win.pool, W.u4, 'sell', 1_000_000, 15, at(5, 6)),
    swap(win.pool, W.bot, 'sell', 1_000_000, 40, at(5, 7)),
    swap(win.pool, W.u3, 'buy', 1_000_000, 1, at(5, 8)),
    swap(win.pool, W.u3, 'sell', 1_000_000, 30, at(5, 9)),
  );
  // almost_bonded: a curve crossing 70 % (fires), staying above, dropping and crossing again inside the hour (no).
  const bond = launch(at(6), { curve: true });
  bond.events.push(
    swap(bond.pool, W.u1, 'buy', 1_000_000, 1, at(6, 1), 50),
    swap(bond.pool, W.u1, 'buy', 1_000_000, 1, at(6, 2), 65),
    swap(bond.pool, W.u1, 'buy', 1_000_000, 1, at(6, 3), 75),
    swap(bond.pool, W.u1, 'buy', 1_000_000, 1, at(6, 4), 80),
    swap(bond.pool, W.u1, 'sell', 1_000_000, 1, at(6, 5), 65),
    swap(bond.pool, W.u1, 'buy', 1_000_000, 1, at(6, 6), 72),
  );
  // ...and a curve that stops at 69 %.
  const bond2 = launch(at(6), { curve: true });
  bond2.events.push(swap(bond2.pool, W.u1, 'buy', 1_000_000, 1, at(6, 1), 60), swap(bond2.pool, W.u1, 'buy', 1_000_000, 1, at(6, 2), 69));
  // migration: the curve completes (fires), then its migration graduates it again (inside 24 h: no).
  const mig = launch(at(7), { curve: true });
  const ammOfMig = addr();
  mig.events.push(
    swap(mig.pool, W.u2, 'buy', 1_000_000, 1, at(7, 1), 40),
    swap(mig.pool, W.u2, 'buy', 1_000_000, 1, at(7, 3), 100),
    { type: 'pool', pool_address: ammOfMig, base_address: mig.token, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: at(7, 4), migrated_from_pool_address: mig.pool, slot: 1 + ++n },
    { type: 'migration', token_address: mig.token, from_pool_address: mig.pool, to_pool_address: ammOfMig, slot: 1 + ++n, at: at(7, 4) },
  );
  // volume_spike: 100 USD a minute for 20 minutes, then 1,000 USD buys every 5 s: fires at the fifth
  // (5,500 in 5 minutes against a baseline of 1,000), not again inside 30 minutes.
  const spike = launch(at(8));
  for (let m = 0; m < 20; m++) spike.events.push(swap(spike.pool, W.base, 'buy', 1_000_000, 1, at(8, m)));
  for (let i = 0; i < 8; i++) spike.events.push(swap(spike.pool, W.u4, 'buy', 10_000_000, 10, at(8, 20) + i * 5_000));
  // ...and a burst of 3,000 USD (4,000 in the window: under 5,000).
  const spike2 = launch(at(8));
  for (let m = 0; m < 20; m++) spike2.events.push(swap(spike2.pool, W.base, 'buy', 1_000_000, 1, at(8, m)));
  for (let i = 0; i < 3; i++) spike2.events.push(swap(spike2.pool, W.u4, 'buy', 10_000_000, 10, at(8, 20) + i * 5_000));
  // price_breakout: a flat price for 20 minutes (ATH at minute 0), then 1.5x at minute 20 (fires:
  // ATH stood 20 min, token 20 min old, market cap 150,000 USD), 2x at minute 25 (ATH of minute 20 only 5 min old).
  const ath = launch(at(9));
  for (let m = 0; m < 20; m++) ath.events.push(swap(ath.pool, W.base, 'buy', 1_000_000, 1, at(9, m)));
  ath.events.push(swap(ath.pool, W.u2, 'buy', 1_000_000, 1.5, at(9, 20)), swap(ath.pool, W.u2, 'buy', 1_000_000, 2, at(9, 25)));
  // ...and a breakout at minute 12 of a token 12 minutes old (under 15).
  const ath2 = launch(at(9));
  for (let m = 0; m < 12; m++) ath2.events.push(swap(ath2.pool, W.base, 'buy', 1_000_000, 1, at(9, m)));
  ath2.events.push(swap(ath2.pool, W.u2, 'buy', 1_000_000, 1.5, at(9, 12)));
  return { smart, kol, whale, dev, dev2, cluster, cluster2, win, bond, bond2, mig, ammOfMig, spike, spike2, ath, ath2 };
}

export type Scenarios = ReturnType<typeof scenarios>;

/** Every event of the market in time order (stable): the quote price first, the labels, then the scenarios'. */
export function marketEvents(s: Scenarios): Record<string, unknown>[] {
  const all = Object.values(s).flatMap((x) => (typeof x === 'string' ? [] : x.events));
  const timeOf = (e: Record<string, unknown>) => (e.at ?? e.created_at) as number;
  const sorted = all.map((e, i) => ({ e, i })).sort((a, b) => timeOf(a.e) - timeOf(b.e) || a.i - b.i).map((x) => x.e);
  return [{ type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 - 2 * MIN }, ...labels(), ...sorted];
}
