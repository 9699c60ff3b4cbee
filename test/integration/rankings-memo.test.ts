import { describe, expect, it } from 'vitest';
import { bookOf, feedKey, FEED_NAMES, InputMemo, RANKING_WINDOWS, TRADED_KEY, windowInputs, type FeedMarket, type FeedState, type RankInput } from '../../actors/index.ts';
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
 * far fewer pools than the recomputes would; and with most pools passivated, whose
 * figures the memo keeps ahead as their trades leave the windows (InputMemo `ahead`),
 * kept as each pool is passivated (InputMemo `passivating`).
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

/**
 * `passivate`: every resident pool, then every feed actor, is passivated after each 50 events (ActorHost.passivateIfIdle,
 * as the idle sweep does), so that the recomputes find most pools traded since their last read passivated, and the
 * books they recompute read back from their snapshots.
 */
async function run(path: string, memo: boolean, list: Array<Record<string, unknown>>, stocks: string[], residentMax?: number, passivate = false): Promise<Run> {
  // No passivation by wall time (actors.idleMs): what is passivated, and so the memo's counts, must not depend on how
  // long a loaded machine takes over the events (an idle sweep past 60 s had made `ahead` non-zero where nothing is).
  const overrides: Record<string, unknown> = { 'market.stockMints': stocks, 'actors.idleMs': 24 * HOUR, ...(residentMax === undefined ? {} : { 'actors.residentMax': residentMax }) };
  const engine = await createEngine({ config: testConfig(path, overrides), rankingsMemo: memo, wallets: false, signals: false });
  const sink = new RecordingSink();
  for (const feed of FEED_NAMES) for (const w of RANKING_WINDOWS) sink.listen(topics.rankings(feed, w));
  engine.attachTopics(sink);
  for (let i = 0; i < list.length; i += 50) {
    const results = await Promise.all(list.slice(i, i + 50).map((e) => engine.ingest(e)));
    expect(results.filter((x) => x.status !== 'applied')).toEqual([]);
    if (passivate) for (const host of [engine.pools, engine.feeds!]) for (const key of host.idleKeys(Number.POSITIVE_INFINITY)) host.passivateIfIdle(key, Number.POSITIVE_INFINITY);
  }
  await engine.gate.flush();
  const books = FEED_NAMES.map((feed) => RANKING_WINDOWS.map((w) => bookOf(engine.feeds!.get(feedKey(feed, w)))?.snapshot() ?? null));
  return { frames: sink.frames, books, engine };
}

describe('the ranking recompute memo', () => {
  it('gives the same rankings frames and books as reading every pool traded at every recompute, reading far fewer, most pools passivated or none, and none read back from its snapshot that has not traded since it was passivated, the books passivated too', async () => {
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
      // Nothing was passivated here (the bound is far): no figures were kept ahead.
      expect(m.ahead).toBe(0);
      // Most pools passivated (8 resident at most): their figures kept ahead as their trades leave the windows, the same frames.
      const passivated = await run(`${dir.path}/passivated`, true, events, stocks, 8);
      engines.push(passivated.engine);
      expect(passivated.frames).toEqual(plain.frames);
      expect(passivated.books).toEqual(plain.books);
      expect(passivated.engine.rankings!.memo!.ahead).toBeGreaterThan(100);
      // Every resident pool and feed actor passivated after each 50 events: each pool's figures kept as it went
      // (InputMemo.passivating), and the memo held across the books' passivations (the same revisions), so a recompute
      // reads back from a snapshot only a pool whose kept steps ran out.
      const passivating = await run(`${dir.path}/passivating`, true, events, stocks, undefined, true);
      engines.push(passivating.engine);
      expect(passivating.frames).toEqual(plain.frames);
      expect(passivating.books).toEqual(plain.books);
      const kept = passivating.engine.rankings!.memo!;
      expect(kept.reads).toBeGreaterThan(100);
      expect(kept.passivatedReads).toBeLessThan(kept.reads / 50);
      expect(kept.kept).toBeGreaterThan(500);
    } finally {
      for (const e of engines) await e.stop().catch(() => undefined);
      dir.cleanup();
    }
  }, 120_000);

  it("reads a passivated pool once while its trades leave every window: its figures come from the memo, the pool neither activated nor read from its snapshot again", async () => {
    const dir = tempDir('rankings-memo-ahead');
    const r = rng(25);
    const engine = await createEngine({ config: testConfig(dir.path, { 'actors.residentMax': 1 } as Record<string, unknown>), wallets: false, signals: false });
    try {
      const pools = [base58(r, 44), base58(r, 44)];
      const events: Array<Record<string, unknown>> = [{ type: 'quote_price', quote_address: WSOL, price_usd: 120, at: T0 }];
      let slot = 10;
      let t = T0 + 1_000;
      for (const pool of pools) {
        const token = base58(r, 44);
        events.push({ type: 'token', token_address: token, decimals: 6, supply_raw: '1000000000000000', symbol: 'T', name: 'T', slot: slot++, at: t });
        events.push({ type: 'pool', pool_address: pool, base_address: token, quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: t, slot: slot++ });
        // Trades in a few buckets of every window: 1 s, 30 s and 20 minutes apart.
        for (const gap of [1_000, 1_000, 30_000, 30_000, 20 * MIN, 1_000, 20 * MIN]) {
          t += gap;
          const buy = r() < 0.6;
          events.push({
            type: 'swap', tx_hash: base58(r, 88), slot: slot++, tx_index: 0, event_index: 0, at: t, pool_address: pool, wallet_address: base58(r, 44),
            side: buy ? 'buy' : 'sell', base_amount_raw: String(Math.floor(1e9 + r() * 1e9)), quote_amount_raw: String(Math.floor(1e8 + r() * 1e9)),
            base_reserve_raw: String(Math.floor(1e15 * (1 - r() / 4))), quote_reserve_raw: String(Math.floor(3e10 * (1 + r()))),
          });
        }
      }
      for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
      await engine.gate.flush();
      const [quiet, busy] = pools as [string, string];
      // The first pool passivated; the second resident at the bound, so a read in the background goes to the snapshot.
      engine.pools.passivateIfIdle(quiet, Number.POSITIVE_INFINITY);
      expect(engine.pools.get(busy)).toBeDefined();
      expect(engine.pools.isResident(quiet)).toBe(false);
      const traded = (engine.feeds!.get(TRADED_KEY) as FeedState & { traded: Map<string, { at: number; seq: number }> }).traded;
      expect([...traded.keys()].sort()).toEqual([...pools].sort());
      const market = engine.query.rankings!;
      const read = new Map<string, number>();
      const counting: FeedMarket = {
        pool: (address) => {
          read.set(address, (read.get(address) ?? 0) + 1);
          return market.pool(address);
        },
        resident: (address) => market.resident(address),
        quoteUsd: (quote) => market.quoteUsd(quote),
      };
      const memo = new InputMemo();
      const stock = () => false;
      let moved = 0;
      let last: string | undefined;
      const given = new Map<string, Map<string, RankInput | null>>();
      // Every 10 s of engine time for 25 h after the last trade: each window's trades leave it, bucket by bucket.
      for (let now = t; now <= t + 25 * HOUR; now += 10_000) {
        const kept = windowInputs(traded, RANKING_WINDOWS, now, counting, stock, memo);
        const fresh = windowInputs(traded, RANKING_WINDOWS, now, market, stock);
        for (const w of RANKING_WINDOWS) {
          // A pool passed over keeps in the books the input last given: it must be the one a read gives now.
          const books = given.get(w) ?? given.set(w, new Map()).get(w)!;
          for (const [pool, input] of kept.get(w)!) books.set(pool, input);
          for (const pool of pools) expect(books.get(pool), `${w} ${pool} at ${now}`).toEqual(fresh.get(w)!.get(pool));
        }
        const figures = JSON.stringify(RANKING_WINDOWS.map((w) => fresh.get(w)!.get(quiet)));
        if (last !== undefined && last !== figures) moved++;
        last = figures;
      }
      // The quiet pool's figures moved as its trades left (a window at a time, then out of it), each step given from the memo.
      expect(read.get(quiet)).toBe(1);
      expect(moved).toBeGreaterThan(3);
      expect(memo.ahead).toBeGreaterThanOrEqual(moved - RANKING_WINDOWS.length);
      expect(engine.pools.isResident(quiet)).toBe(false);
    } finally {
      await engine.stop().catch(() => undefined);
      dir.cleanup();
    }
  }, 120_000);
});
