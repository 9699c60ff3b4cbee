import { describe, expect, it } from 'vitest';
import { serveEngine, useTempEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * The incremental rankings (actors/wallet/rankings.ts) against a brute-force
 * recomputation over the same trades: 2,000 wallets trading 8 tokens at random (seed
 * 2020) over 40 days; every row of every top-traders list and of the leaderboard in
 * each window, sort and a set of filters, walked page by page over HTTP.
 */

const SEED = 2020;
const WALLETS = 2_000;
const TOKENS = 8;
const DAY = 86_400_000;
const SOL_USD = 100;
/** 2026-03-01T00:00:00Z; trades go back 40 days from END (13:00 that day). */
const END = 1_772_323_200_000 + 13 * 3_600_000;

const r = rng(SEED);
const mints = Array.from({ length: TOKENS }, () => base58(r, 44));
const pools = Array.from({ length: TOKENS }, () => base58(r, 44));
const wallets = Array.from({ length: WALLETS }, () => base58(r, 44));
/** Token i: 1,000,000 against (i + 1) × 10 SOL, never moved: (i + 1) × 0.001 USD. */
const reserveSol = (i: number) => (i + 1) * 10;
const priceUsd = (i: number) => (reserveSol(i) / 1_000_000) * SOL_USD;

interface Trade {
  at: number;
  wallet: string;
  token: number;
  buy: boolean;
  /** Raw amounts, as ingested. */
  tokensRaw: number;
  lamports: number;
}

function makeTrades(): Trade[] {
  const out: Trade[] = [];
  for (const wallet of wallets) {
    const n = 1 + Math.floor(r() * 6);
    const mine = [Math.floor(r() * TOKENS), Math.floor(r() * TOKENS)];
    for (let k = 0; k < n; k++) {
      const token = mine[Math.floor(r() * 2)]!;
      // A third of trades today, the rest over 40 days; more buys than sells; some sells above what was bought.
      const at = r() < 0.33 ? END - Math.floor(r() * 13 * 3_600_000) : END - Math.floor(r() * 40 * DAY);
      const tokensRaw = (100 + Math.floor(r() * 10_000)) * 1e6;
      const lamports = Math.round((tokensRaw / 1e6) * (reserveSol(token) / 1_000_000) * (0.5 + r()) * 1e9);
      out.push({ at, wallet, token, buy: r() < 0.6, tokensRaw, lamports });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

const TRADES = makeTrades();

function events(): unknown[] {
  const out: unknown[] = [{ type: 'quote_price', quote_address: WSOL, price_usd: SOL_USD, at: END - 41 * DAY }];
  mints.forEach((mint, i) => {
    out.push({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: END - 41 * DAY });
    out.push({ type: 'pool', pool_address: pools[i], base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: END - 41 * DAY, slot: 2 });
  });
  TRADES.forEach((t, k) => {
    out.push({
      type: 'swap', tx_hash: base58(rng(SEED * 100_000 + k), 88), slot: 1_000 + k, tx_index: 0, event_index: 0, at: t.at, pool_address: pools[t.token], wallet_address: t.wallet,
      side: t.buy ? 'buy' : 'sell', base_amount_raw: String(t.tokensRaw), quote_amount_raw: String(t.lamports),
      base_reserve_raw: String(1_000_000 * 1e6), quote_reserve_raw: String(reserveSol(t.token) * 1e9),
    });
  });
  // Labels, and an event 61 s after the last trade: the clock moves past the leaderboard's refresh period.
  for (let i = 0; i < WALLETS; i += 7) out.push({ type: 'label', wallet_address: wallets[i], label: 'kol', action: 'add', at: END + 61_000 });
  return out;
}

/** Average-cost accounting written out plainly, per (wallet, token), with per-day realized PnL and counts. */
interface Pos {
  qty: number;
  cost: number;
  realized: number;
  buys: number;
  sells: number;
  buyUsd: number;
  sellUsd: number;
  days: Map<number, { realized: number; trades: number; volume: number; sells: number }>;
}

function bruteForce(): Map<string, Map<number, Pos>> {
  const all = new Map<string, Map<number, Pos>>();
  for (const t of TRADES) {
    let mine = all.get(t.wallet);
    if (!mine) all.set(t.wallet, (mine = new Map()));
    let p = mine.get(t.token);
    if (!p) mine.set(t.token, (p = { qty: 0, cost: 0, realized: 0, buys: 0, sells: 0, buyUsd: 0, sellUsd: 0, days: new Map() }));
    const tokens = t.tokensRaw / 1e6;
    const usd = (t.lamports / 1e9) * SOL_USD;
    const day = Math.floor(t.at / DAY);
    let d = p.days.get(day);
    if (!d) p.days.set(day, (d = { realized: 0, trades: 0, volume: 0, sells: 0 }));
    d.trades++;
    d.volume += usd;
    if (t.buy) {
      p.qty += tokens;
      p.cost += usd;
      p.buys++;
      p.buyUsd += usd;
    } else {
      const sold = Math.min(tokens, p.qty);
      const costOut = p.qty > 0 ? (p.cost * sold) / p.qty : 0;
      p.realized += usd - costOut;
      d.realized += usd - costOut;
      d.sells++;
      p.cost -= costOut;
      p.qty -= sold;
      if (p.qty <= 1e-9 * tokens) p.qty = p.cost = 0;
      p.sells++;
      p.sellUsd += usd;
    }
  }
  return all;
}

interface Ranked {
  address: string;
  value: number | null;
  fields: Record<string, number | null>;
}

/** Largest first, nulls last, ties by address: the routes' order. */
const byRank = (a: Ranked, b: Ranked) =>
  a.value === b.value ? (a.address < b.address ? -1 : 1) : a.value === null ? 1 : b.value === null ? -1 : b.value - a.value;

async function walk(srv: EngineServer, path: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const { status, body } = await srv.get(`${path}${sep}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(status, JSON.stringify(body)).toBe(200);
    rows.push(...body.data);
    cursor = body.pagination.next_cursor;
  } while (cursor);
  return rows;
}

function compare(actual: any[], expected: Ranked[], what: string): void {
  expect(actual.map((a) => a.wallet_address), what).toEqual(expected.map((e) => e.address));
  actual.forEach((a, i) => {
    for (const [field, value] of Object.entries(expected[i]!.fields)) {
      if (value === null) expect(a[field], `${what} ${field}`).toBeNull();
      else expect(a[field], `${what} row ${i} ${field}`).toBeCloseTo(value, 6);
    }
  });
}

const temp = useTempEngine();

describe('rankings against a brute-force recomputation', () => {
  it('2,000 wallets: every row of top traders per token and of the leaderboard', { timeout: 240_000 }, async () => {
    const engine = await temp.open();
    const results = await Promise.all(events().map((e) => engine.ingest(e)));
    expect(results.filter((x) => x.status !== 'applied')).toEqual([]);
    const srv = await serveEngine(engine);
    try {
      const all = bruteForce();
      const today = Math.floor(END / DAY);

      for (let i = 0; i < TOKENS; i++) {
        const rows: Ranked[] = [];
        for (const [wallet, mine] of all) {
          const p = mine.get(i);
          if (!p) continue;
          const unrealized = p.qty > 0 ? p.qty * priceUsd(i) - p.cost : 0;
          rows.push({ address: wallet, value: p.realized + unrealized, fields: { buy_count: p.buys, sell_count: p.sells, buy_volume_usd: p.buyUsd, sell_volume_usd: p.sellUsd, realized_pnl_usd: p.realized, unrealized_pnl_usd: unrealized, pnl_usd: p.realized + unrealized } });
        }
        expect(rows.length).toBeGreaterThan(200);
        compare(await walk(srv, `/v1/tokens/${mints[i]}/traders`), [...rows].sort(byRank), `traders of token ${i} by pnl`);
        const byVolume = rows.map((x) => ({ ...x, value: (x.fields.buy_volume_usd as number) + (x.fields.sell_volume_usd as number) })).sort(byRank);
        compare(await walk(srv, `/v1/tokens/${mints[i]}/traders?sort=volume_usd`), byVolume, `traders of token ${i} by volume`);
      }
      // The label filter: every 7th wallet.
      const kol = (await walk(srv, `/v1/tokens/${mints[0]}/traders?label=kol`)).map((x) => x.wallet_address);
      const kolWallets = new Set(wallets.filter((_, i) => i % 7 === 0));
      expect(kol.length).toBeGreaterThan(10);
      expect(kol.every((w) => kolWallets.has(w))).toBe(true);

      for (const [window, days] of [['1d', 1], ['7d', 7], ['30d', 30]] as const) {
        const rows: Ranked[] = [];
        for (const [wallet, mine] of all) {
          let realized = 0;
          let trades = 0;
          let volume = 0;
          let tokens = 0;
          let sold = 0;
          let wins = 0;
          for (const p of mine.values()) {
            let r = 0;
            let t = 0;
            let s = 0;
            for (const [day, d] of p.days) {
              if (day < today - days + 1) continue;
              r += d.realized;
              t += d.trades;
              s += d.sells;
              volume += d.volume;
            }
            trades += t;
            if (t > 0) tokens++;
            if (s > 0) {
              sold++;
              realized += r;
              if (r > 0) wins++;
            }
          }
          if (trades === 0) continue;
          const winRate = sold === 0 ? null : (wins / sold) * 100;
          rows.push({ address: wallet, value: realized, fields: { realized_pnl_usd: realized, trade_count: trades, volume_usd: volume, tokens_traded: tokens, win_rate_pct: winRate } });
        }
        expect(rows.length).toBeGreaterThan(300);
        const sorts = {
          pnl_usd: (x: Ranked) => x.fields.realized_pnl_usd!,
          volume_usd: (x: Ranked) => x.fields.volume_usd!,
          win_rate_pct: (x: Ranked) => x.fields.win_rate_pct,
        };
        for (const [sort, key] of Object.entries(sorts)) {
          const expected = rows.map((x) => ({ ...x, value: key(x) })).sort(byRank);
          compare(await walk(srv, `/v1/wallets/leaderboard?window=${window}&sort=${sort}`), expected, `leaderboard ${window} ${sort}`);
        }
        const filtered = rows
          .filter((x) => x.fields.trade_count! >= 2 && x.fields.volume_usd! >= 20 && x.fields.win_rate_pct !== null && x.fields.win_rate_pct >= 50)
          .sort(byRank);
        expect(filtered.length).toBeGreaterThan(5);
        const got = await walk(srv, `/v1/wallets/leaderboard?window=${window}&min_trade_count=2&min_volume_usd=20&min_win_rate_pct=50`);
        compare(got, filtered, `leaderboard ${window} filtered`);
        expect(new Set(got.map((x) => x.as_of))).toEqual(new Set([END + 61_000]));
      }
    } finally {
      srv.close();
    }
  });

  it('the leaderboard lags the trades by at most 60 s and says as_of', async () => {
    const engine = await temp.open();
    const [a, b] = [wallets[0]!, wallets[1]!];
    const swap = (wallet: string, at: number, slot: number) => ({
      type: 'swap', tx_hash: base58(rng(slot), 88), slot, tx_index: 0, event_index: 0, at, pool_address: pools[0], wallet_address: wallet, side: 'buy',
      base_amount_raw: '1000000000', quote_amount_raw: '100000000', base_reserve_raw: '1000000000000', quote_reserve_raw: '10000000000',
    });
    const t0 = END;
    const head = (events() as any[]).slice(0, 3);
    for (const e of [...head, swap(a, t0, 10), swap(b, t0 + 10_000, 11)]) expect((await engine.ingest(e)).status).toBe('applied');
    const srv = await serveEngine(engine);
    try {
      // The first trade refreshed the rows; the second, 10 s later, waits for the next refresh.
      let rows = (await srv.get('/v1/wallets/leaderboard?window=1d')).body.data;
      expect(rows.map((x: any) => [x.wallet_address, x.as_of])).toEqual([[a, t0]]);
      // 60 s after that refresh, on the engine clock, a request refreshes first.
      expect((await engine.ingest({ type: 'label', wallet_address: a, label: 'kol', action: 'add', at: t0 + 60_000 })).status).toBe('applied');
      rows = (await srv.get('/v1/wallets/leaderboard?window=1d&sort=volume_usd')).body.data;
      expect(rows.map((x: any) => [x.wallet_address, x.as_of]).sort()).toEqual([[a, t0 + 60_000], [b, t0 + 60_000]].sort());
    } finally {
      srv.close();
    }
  });
});
