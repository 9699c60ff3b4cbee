import { describe, expect, it } from 'vitest';
import { bookOf, feedKey, FEED_NAMES, RANKING_WINDOWS } from '../../actors/index.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { topics } from '../../engine/topics/index.ts';
import { base58, rng, tempDir, testConfig, WSOL } from '../helpers/fixtures.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';

/**
 * The ranking recompute's memo (actors/feed/feed.actor.ts InputMemo) changes nothing:
 * a seeded market of launchpad pools (most dead minutes after launch, some traded again
 * hours later, top gainers graduating (their curve's liquidity then 0), stocks among them, the SOL price moving every minute so
 * that liquidity in USD crosses top_gainers' floor with no trade) over 26 h of event time,
 * so that every window's pools also leave it, gives the same `rankings` frames of every
 * feed and window, and the same books, with the memo as without it, while the memo reads
 * far fewer pools than the recomputes would.
 */

const T0 = 1_767_225_600_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const INITIAL = 793_100_000_000_000;

function market(seed: number): { events: Array<Record<string, unknown>>; stocks: string[] } {
  const r = rng(seed);
  const timed: Array<[number, number, Record<string, unknown>]> = [];
  let order = 0;
  const at = (t: number, e: Record<string, unknown>) => timed.push([t, order++, e]);
  let solUsd = 100;
  for (let t = T0; t <= T0 + 26 * HOUR; t += MIN) {
    solUsd = Math.max(60, Math.min(160, solUsd * (1 + (r() - 0.5) * 0.08)));
    at(t, { type: 'quote_price', quote_address: WSOL, price_usd: Number(solUsd.toFixed(4)), at: t });
  }
  const stocks: string[] = [];
  let slot = 10;
  const pools = 160;
  for (let i = 0; i < pools; i++) {
    const token = base58(r, 44);
    const pool = base58(r, 44);
    const curve = i % 5 !== 0;
    if (i % 23 === 7) stocks.push(token);
    const launch = T0 + Math.floor((i * 25 * HOUR) / pools) + 1_000;
    at(launch, { type: 'token', token_address: token, decimals: 6, supply_raw: '1000000000000000', symbol: `T${i}`, name: `Token ${i}`, slot: slot++, at: launch });
    at(launch + 1, {
      type: 'pool', pool_address: pool, base_address: token, quote_address: WSOL, dex: curve ? 'pumpfun' : 'raydium', pool_type: curve ? 'bonding_curve' : 'amm', created_at: launch + 1, slot: slot++,
      ...(curve ? { curve_initial_real_base_raw: String(INITIAL) } : {}),
    });
    // A burst of trades in the first minutes, and for some pools another hours later.
    // A riser (a curve bought up with deep liquidity: a top gainer) graduates a minute after its last trade.
    const riser = curve && i % 40 === 3;
    const bursts: Array<[number, number]> = [[launch + 2_000, riser ? 14 : 2 + Math.floor(r() * 30)]];
    if (i % 4 === 1) bursts.push([launch + (1 + Math.floor(r() * 8)) * HOUR, 3 + Math.floor(r() * 15)]);
    let progress = riser ? 50 : 5 + r() * 40;
    let quoteSol = riser ? 70 : 10 + r() * 50;
    let last = launch;
    for (const [from, count] of bursts) {
      let t = from;
      for (let k = 0; k < count; k++) {
        t += 1_000 + Math.floor(r() * (riser ? 5_000 : 20_000));
        last = t;
        const buy = riser || r() < 0.6;
        progress = Math.max(1, Math.min(95, progress + (buy ? 1 : -1) * r() * 4));
        quoteSol = Math.max(1, quoteSol * (buy ? 1.04 : 0.97));
        const quote = Math.floor((0.1 + r() * 3) * 1e9);
        const base = Math.floor((quote * (1e6 / 1e9) * (30_000 + r() * 5_000)) / (1 + progress / 10));
        at(t, {
          type: 'swap', tx_hash: base58(r, 88), slot: slot++, tx_index: 0, event_index: 0, at: t, pool_address: pool, wallet_address: base58(rng(1_000 + Math.floor(r() * 40)), 44),
          side: buy ? 'buy' : 'sell', base_amount_raw: String(base), quote_amount_raw: String(quote),
          base_reserve_raw: String(Math.floor(1e15 * (1 - progress / 120))), quote_reserve_raw: String(Math.floor(quoteSol * 1e9)),
          ...(curve ? { real_base_reserve_raw: String(Math.round(INITIAL * (1 - progress / 100))), real_quote_reserve_raw: String(Math.floor(quoteSol * 1e9)) } : {}),
        });
      }
    }
    if (riser) {
      const amm = base58(r, 44);
      at(last + MIN, { type: 'pool', pool_address: amm, base_address: token, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: last + MIN, slot: slot++ });
      at(last + MIN + 1, { type: 'migration', token_address: token, from_pool_address: pool, to_pool_address: amm, slot: slot++, at: last + MIN + 1 });
    }
  }
  timed.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { events: timed.map(([, , e]) => e), stocks };
}

interface Run {
  frames: Array<{ topic: string; frame: string }>;
  books: unknown[];
  engine: Engine;
}

async function run(path: string, memo: boolean, list: Array<Record<string, unknown>>, stocks: string[]): Promise<Run> {
  const engine = await createEngine({ config: testConfig(path, { 'market.stockMints': stocks } as Record<string, unknown>), rankingsMemo: memo, wallets: false, signals: false });
  const sink = new RecordingSink();
  for (const feed of FEED_NAMES) for (const w of RANKING_WINDOWS) sink.listen(topics.rankings(feed, w));
  engine.attachTopics(sink);
  for (let i = 0; i < list.length; i += 50) {
    const results = await Promise.all(list.slice(i, i + 50).map((e) => engine.ingest(e)));
    expect(results.filter((x) => x.status !== 'applied')).toEqual([]);
  }
  await engine.gate.flush();
  const books = FEED_NAMES.map((feed) => RANKING_WINDOWS.map((w) => bookOf(engine.feeds!.get(feedKey(feed, w)))?.snapshot() ?? null));
  return { frames: sink.frames, books, engine };
}

describe('the ranking recompute memo', () => {
  it('gives the same rankings frames and books as reading every pool traded at every recompute, reading far fewer', async () => {
    const dir = tempDir('rankings-memo');
    const { events, stocks } = market(2607);
    const engines: Engine[] = [];
    try {
      const plain = await run(`${dir.path}/plain`, false, events, stocks);
      engines.push(plain.engine);
      const memo = await run(`${dir.path}/memo`, true, events, stocks);
      engines.push(memo.engine);
      expect(plain.engine.rankings!.memo).toBeNull();
      const m = memo.engine.rankings!.memo!;
      // The market moved every non-live feed in every window, and the windows emptied again.
      for (const feed of ['popular', 'top_gainers', 'stocks'] as const) {
        for (const w of RANKING_WINDOWS) expect(plain.frames.filter((f) => f.topic === topics.rankings(feed, w)).length).toBeGreaterThan(3);
      }
      expect(memo.frames.length).toBe(plain.frames.length);
      expect(memo.frames).toEqual(plain.frames);
      expect(memo.books).toEqual(plain.books);
      // Most pool-window pairs were passed over; a pool read again after a trade or as a trade left a window.
      expect(m.skips).toBeGreaterThan(5 * m.reads);
      expect(m.reused).toBeGreaterThan(100);
      expect(m.reads).toBeGreaterThan(500);
    } finally {
      for (const e of engines) await e.stop().catch(() => undefined);
      dir.cleanup();
    }
  }, 120_000);
});
