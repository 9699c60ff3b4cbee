import { describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { serveEngine, useTempEngine, type EngineServer } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';

/**
 * Wallet accounting through the real engine and HTTP (DECISIONS.md, "Wallet
 * accounting"; routes 5, 20, 23, 24, 26): a wallet that buys MINT in two pools, sells
 * part, receives MINT by transfer, sends some away, sells more than it bought through
 * swaps (at exactly 00:00 UTC), then opens two positions. Every figure by hand.
 */

const r = rng(2323);
const MINT = base58(r, 44);
const OTHER = base58(r, 44);
const POOL_A = base58(r, 44);
const POOL_B = base58(r, 44);
const POOL_C = base58(r, 44);
const WALLET = base58(r, 44);
const WHALE = base58(r, 44);
const NOBODY = base58(r, 44);
const DAY = 86_400_000;
/** 2026-01-01T00:00:00Z; the trades start at 10:00 that day. */
const D0 = 1_767_225_600_000;
const T = D0 + 10 * 3_600_000;
const D1 = D0 + DAY;

const token = (mint: string) => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', slot: 1, at: D0 });
const pool = (address: string, base: string) => ({ type: 'pool', pool_address: address, base_address: base, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: D0, slot: 2 });
/** 6 and 9 decimals: whole tokens and SOL to raw. */
const raw6 = (n: number) => String(Math.round(n * 1e6));
const raw9 = (n: number) => String(Math.round(n * 1e9));

let slot = 100;
/** A swap of `tokens` for `sol`; the pool's reserves after it set its spot price (quote / base). */
function swap(at: number, p: string, wallet: string, side: 'buy' | 'sell', tokens: number, sol: number, reserves: [number, number]) {
  slot++;
  return {
    type: 'swap', tx_hash: base58(rng(slot), 88), slot, tx_index: 0, event_index: 0, at, pool_address: p, wallet_address: wallet, side,
    base_amount_raw: raw6(tokens), quote_amount_raw: raw9(sol), base_reserve_raw: raw6(reserves[0]), quote_reserve_raw: raw9(reserves[1]),
  };
}
function balance(at: number, mint: string, wallet: string, tokens: number) {
  slot++;
  return { type: 'balance', token_address: mint, wallet_address: wallet, balance_raw: raw6(tokens), slot, at };
}

/** Pool A: 1,000,000 MINT against 1,000 SOL, 0.001 SOL ($0.10) a token, the most liquid: MINT's main pool. */
const A: [number, number] = [1_000_000, 1_000];
/** Pool B: 1,000 MINT against 1 SOL. */
const B: [number, number] = [1_000, 1];
/** Pool C: 1,000,000 OTHER against 100 SOL: $0.01 an OTHER. */
const C: [number, number] = [1_000_000, 100];

/** Until the last 00:00 UTC sell: the first part of the story (a checkpoint goes after it in the crash test). */
const FIRST = [
  token(MINT),
  token(OTHER),
  pool(POOL_A, MINT),
  pool(POOL_B, MINT),
  pool(POOL_C, OTHER),
  { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: D0 },
  { type: 'label', wallet_address: WHALE, label: 'kol', action: 'add', at: D0 },
  // 100 MINT for $10 in A, 100 for $30 in B: 200 at $40 (avg $0.20).
  swap(T, POOL_A, WALLET, 'buy', 100, 0.1, A),
  balance(T, MINT, WALLET, 100),
  swap(T + 1_000, POOL_B, WALLET, 'buy', 100, 0.3, B),
  balance(T + 1_000, MINT, WALLET, 200),
  // Sells 50 for $20: realized 20 − 50 × 0.20 = 10; 150 left at $30.
  swap(T + 2_000, POOL_A, WALLET, 'sell', 50, 0.2, A),
  balance(T + 2_000, MINT, WALLET, 150),
];
const SECOND = [
  // 100 come in by transfer at MINT's price then ($0.10): cost 40 for 250 (not a buy).
  balance(T + 3_000, MINT, WALLET, 250),
  // 50 leave by transfer at average cost ($0.16): cost 32 for 200, nothing realized.
  balance(T + 4_000, MINT, WALLET, 200),
  // The whale buys 1,000 MINT for $300.
  swap(T + 5_000, POOL_A, WHALE, 'buy', 1_000, 3, A),
  // At exactly 00:00 UTC the next day: sells 300 for $150 (200 at cost 32, 100 beyond what
  // it held at cost 0): realized 118, 128 in all; 350 sold against 200 bought by swaps.
  swap(D1, POOL_A, WALLET, 'sell', 300, 1.5, A),
  balance(D1, MINT, WALLET, 0),
  // Opens OTHER (1,000 for $50; worth $10) and MINT again (10 for $1; worth $1).
  swap(D1 + 3_600_000, POOL_C, WALLET, 'buy', 1_000, 0.5, C),
  swap(D1 + 7_200_000, POOL_A, WALLET, 'buy', 10, 0.01, A),
];

const temp = useTempEngine();

async function ingest(engine: Engine, events: readonly unknown[]) {
  for (const e of events) expect((await engine.ingest(e)).status, JSON.stringify(e)).toBe('applied');
}

const PATHS = [
  `/v1/wallets/${WALLET}/performance?window=1d`,
  `/v1/wallets/${WALLET}/performance?window=7d`,
  `/v1/wallets/${WALLET}/performance?window=all`,
  `/v1/wallets/${WALLET}/positions`,
  `/v1/wallets/${WALLET}/positions?min_value_usd=5`,
  `/v1/wallets/${WALLET}/daily_pnl?days=3`,
  `/v1/tokens/${MINT}/traders`,
  `/v1/tokens/${MINT}/traders?sort=volume_usd`,
  `/v1/tokens/${MINT}/traders?label=kol`,
  `/v1/wallets/leaderboard`,
  `/v1/wallets/leaderboard?window=1d&sort=volume_usd`,
  `/v1/wallets/${NOBODY}/performance`,
];

async function answers(srv: EngineServer): Promise<string[]> {
  const out: string[] = [];
  for (const p of PATHS) out.push(await srv.text(p));
  return out;
}

describe('wallet accounting over HTTP', () => {
  it('performance, positions, daily rows, top traders and the leaderboard, by hand', async () => {
    const engine = await temp.open();
    await ingest(engine, [...FIRST, ...SECOND]);
    const srv = await serveEngine(engine);
    try {
      const perf = async (window: string) => (await srv.get(`/v1/wallets/${WALLET}/performance?window=${window}`)).body.data;
      const today = await perf('1d');
      expect(today).toMatchObject({ wallet_address: WALLET, window: '1d', realized_pnl_usd: 118, win_rate_pct: 100, trade_count: 3, buy_count: 2, sell_count: 1, tokens_traded: 2, unpriced_trade_count: 0 });
      expect(today.volume_usd).toBeCloseTo(201, 9);
      // OTHER: 1,000 × 0.01 − 50 = −40; MINT: 10 × 0.10 − 1 = 0.
      expect(today.unrealized_pnl_usd).toBeCloseTo(-40, 9);
      expect(today.best_token).toEqual({ token_address: MINT, realized_pnl_usd: 118 });
      expect(today.worst_token).toEqual({ token_address: MINT, realized_pnl_usd: 118 });
      expect(today.as_of).toBe(D1 + 7_200_000);
      const week = await perf('7d');
      expect(week).toMatchObject({ realized_pnl_usd: 128, win_rate_pct: 100, trade_count: 6, buy_count: 4, sell_count: 2, tokens_traded: 2 });
      expect(week.volume_usd).toBeCloseTo(261, 9);
      expect((await perf('all')).realized_pnl_usd).toBe(128);

      const positions = (await srv.get(`/v1/wallets/${WALLET}/positions`)).body;
      expect(positions.pagination).toEqual({ next_cursor: null, has_more: false });
      expect(positions.data.map((p: any) => p.token_address)).toEqual([OTHER, MINT]);
      const [other, mint] = positions.data;
      expect(other).toMatchObject({ balance: 1000, balance_raw: '1000000000', cost_basis_usd: 50, avg_cost_usd: 0.05, realized_pnl_usd: 0, first_buy_at: D1 + 3_600_000, last_trade_at: D1 + 3_600_000 });
      expect(other.value_usd).toBeCloseTo(10, 9);
      expect(other.unrealized_pnl_usd).toBeCloseTo(-40, 9);
      expect(mint).toMatchObject({ balance: 10, balance_raw: '10000000', first_buy_at: T, last_trade_at: D1 + 7_200_000 });
      expect(mint.cost_basis_usd).toBeCloseTo(1, 9);
      expect(mint.realized_pnl_usd).toBeCloseTo(128, 9);
      expect(mint.value_usd).toBeCloseTo(1, 9);
      const rich = (await srv.get(`/v1/wallets/${WALLET}/positions?min_value_usd=5`)).body.data;
      expect(rich.map((p: any) => p.token_address)).toEqual([OTHER]);
      // Paged one at a time: the same two, in order.
      const first = (await srv.get(`/v1/wallets/${WALLET}/positions?limit=1`)).body;
      expect(first.data.map((p: any) => p.token_address)).toEqual([OTHER]);
      const second = (await srv.get(`/v1/wallets/${WALLET}/positions?limit=1&cursor=${first.pagination.next_cursor}`)).body;
      expect(second.data.map((p: any) => p.token_address)).toEqual([MINT]);
      expect(second.pagination.has_more).toBe(false);

      const daily = (await srv.get(`/v1/wallets/${WALLET}/daily_pnl?days=3`)).body.data;
      expect(daily.map((d: any) => [d.date, d.realized_pnl_usd, d.buy_count, d.sell_count])).toEqual([
        ['2025-12-31', 0, 0, 0],
        ['2026-01-01', 10, 2, 1],
        ['2026-01-02', 118, 2, 1],
      ]);
      expect(daily[1].volume_usd).toBeCloseTo(60, 9);
      expect((await srv.get(`/v1/wallets/${WALLET}/daily_pnl`)).body.data.length).toBe(30);

      // Top traders of MINT: the wallet 128 + 0; the whale 0 + (100 − 300) = −200, but more volume.
      const traders = (await srv.get(`/v1/tokens/${MINT}/traders`)).body.data;
      expect(traders.map((t: any) => t.wallet_address)).toEqual([WALLET, WHALE]);
      expect(traders[0]).toMatchObject({ buy_count: 3, sell_count: 2, labels: [] });
      expect(traders[0].pnl_usd).toBeCloseTo(128, 9);
      expect(traders[0].buy_volume_usd).toBeCloseTo(41, 9);
      expect(traders[0].sell_volume_usd).toBeCloseTo(170, 9);
      expect(traders[1]).toMatchObject({ wallet_address: WHALE, buy_count: 1, sell_count: 0, realized_pnl_usd: 0, labels: ['kol'] });
      expect(traders[1].unrealized_pnl_usd).toBeCloseTo(-200, 9);
      const byVolume = (await srv.get(`/v1/tokens/${MINT}/traders?sort=volume_usd`)).body.data;
      expect(byVolume.map((t: any) => t.wallet_address)).toEqual([WHALE, WALLET]);
      expect((await srv.get(`/v1/tokens/${MINT}/traders?label=kol`)).body.data.map((t: any) => t.wallet_address)).toEqual([WHALE]);

      const board = (await srv.get('/v1/wallets/leaderboard')).body.data;
      expect(board.map((b: any) => [b.wallet_address, b.realized_pnl_usd, b.win_rate_pct, b.trade_count, b.tokens_traded])).toEqual([
        [WALLET, 128, 100, 6, 2],
        [WHALE, 0, null, 1, 1],
      ]);
      expect(board[0].recent_trades.map((t: any) => [t.type, t.token_address, t.created_at])).toEqual([
        ['buy', MINT, D1 + 7_200_000],
        ['buy', OTHER, D1 + 3_600_000],
        ['sell', MINT, D1],
        ['sell', MINT, T + 2_000],
        ['buy', MINT, T + 1_000],
      ]);
      expect(board[1].labels).toEqual(['kol']);
      // Today only the wallet traded.
      expect((await srv.get('/v1/wallets/leaderboard?window=1d')).body.data.map((b: any) => b.wallet_address)).toEqual([WALLET]);
      // A wallet that never traded: zeros, not a 404.
      expect((await srv.get(`/v1/wallets/${NOBODY}/performance`)).body.data).toMatchObject({ trade_count: 0, realized_pnl_usd: 0, win_rate_pct: null, best_token: null });
      expect((await srv.get(`/v1/wallets/${NOBODY}/positions`)).body.data).toEqual([]);
    } finally {
      srv.close();
    }
  });

  it('gives the same answers after a restart (snapshots) and after a crash (log replay)', async () => {
    const engine = await temp.open();
    await ingest(engine, FIRST);
    await engine.checkpoint();
    await ingest(engine, SECOND);
    let srv = await serveEngine(engine);
    const before = await answers(srv);
    srv.close();
    expect(before[0]).toMatch(/^200 /);
    // Crash: the snapshots of the checkpoint after FIRST, the log of SECOND replayed.
    await temp.crash(engine);
    const replayed = await temp.open();
    srv = await serveEngine(replayed);
    expect(await answers(srv)).toEqual(before);
    srv.close();
    // Restart: every actor from its snapshot.
    await replayed.stop();
    const restarted = await temp.open();
    expect(restarted.wallets!.wallets.size).toBe(0);
    srv = await serveEngine(restarted);
    expect(await answers(srv)).toEqual(before);
    srv.close();
  });

  it('answers 400 naming the parameter, 403 for label below Pro and 404 for an unknown token', async () => {
    const engine = await temp.open();
    await ingest(engine, [...FIRST, ...SECOND]);
    const srv = await serveEngine(engine);
    const free = await serveEngine(engine, { plan: 'starter' });
    try {
      const bad: Array<[string, string]> = [
        [`/v1/wallets/${WALLET}/performance?window=2d`, 'window'],
        [`/v1/wallets/nope/performance`, 'wallet_address'],
        [`/v1/wallets/${WALLET}/performance?foo=1`, 'foo'],
        [`/v1/wallets/${WALLET}/positions?min_value_usd=-1`, 'min_value_usd'],
        [`/v1/wallets/${WALLET}/positions?min_value_usd=abc`, 'min_value_usd'],
        [`/v1/wallets/${WALLET}/positions?limit=101`, 'limit'],
        [`/v1/wallets/${WALLET}/positions?cursor=abc`, 'cursor'],
        [`/v1/wallets/${WALLET}/daily_pnl?days=0`, 'days'],
        [`/v1/wallets/${WALLET}/daily_pnl?days=91`, 'days'],
        [`/v1/tokens/${MINT}/traders?sort=pnl`, 'sort'],
        [`/v1/tokens/${MINT}/traders?limit=101`, 'limit'],
        [`/v1/tokens/${MINT}/traders?label=`, 'label'],
        [`/v1/tokens/bad/traders`, 'token_address'],
        ['/v1/wallets/leaderboard?window=all', 'window'],
        ['/v1/wallets/leaderboard?sort=pnl', 'sort'],
        ['/v1/wallets/leaderboard?min_trade_count=-1', 'min_trade_count'],
        ['/v1/wallets/leaderboard?min_volume_usd=x', 'min_volume_usd'],
        ['/v1/wallets/leaderboard?min_win_rate_pct=101', 'min_win_rate_pct'],
        ['/v1/wallets/leaderboard?limit=0', 'limit'],
      ];
      for (const [path, param] of bad) {
        const { status, body } = await srv.get(path);
        expect([status, body.code], path).toEqual([400, 4000]);
        expect(body.message, path).toContain(param);
      }
      // A cursor of one wallet's positions used for another's, or with another filter.
      const page = (await srv.get(`/v1/wallets/${WALLET}/positions?limit=1`)).body;
      expect(page.pagination.has_more).toBe(true);
      const cursor = page.pagination.next_cursor;
      for (const path of [`/v1/wallets/${NOBODY}/positions?limit=1&cursor=${cursor}`, `/v1/wallets/${WALLET}/positions?limit=1&min_value_usd=1&cursor=${cursor}`, `/v1/wallets/leaderboard?cursor=${cursor}`]) {
        const { status, body } = await srv.get(path);
        expect([status, body.code, body.message.startsWith('cursor')], path).toEqual([400, 4000, true]);
      }
      // The same URL answered to a Pro key first, on the same server: never a cached body for the starter key.
      expect((await srv.get(`/v1/tokens/${MINT}/traders?label=kol`)).status).toBe(200);
      const sameServer = await fetch(`${srv.base}/v1/tokens/${MINT}/traders?label=kol`, { headers: { authorization: `Bearer ${free.key}` } });
      expect(sameServer.status).toBe(403);
      await sameServer.arrayBuffer();
      const denied = await free.get(`/v1/tokens/${MINT}/traders?label=kol`);
      expect([denied.status, denied.body.code], JSON.stringify(denied.body)).toEqual([403, 4033]);
      expect(denied.body.message).toContain('label');
      // Without label the route is on every plan.
      expect((await free.get(`/v1/tokens/${MINT}/traders`)).status).toBe(200);
      const missing = await srv.get(`/v1/tokens/${NOBODY}/traders`);
      expect([missing.status, missing.body.code]).toEqual([404, 4040]);
    } finally {
      srv.close();
      free.close();
    }
  });
});
