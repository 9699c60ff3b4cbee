import { describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { swapStream } from '../helpers/fixtures.ts';

/**
 * The engine's timers checkpoint and sweep idle actors in slices of a few ms, so that
 * thousands of pools do not hold every stream for most of a second. Events applied
 * between the slices must still reach the next start, from a snapshot or the log.
 */

const POOLS = 300;
const QUIET = { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 };

const temp = useTempEngine();
const open = () => temp.open({ actors: QUIET });

/** Everything the market routes read of every pool and token, as JSON. */
function marketState(e: Engine, pools: string[], mints: string[]): string {
  const market = e.query.market!;
  const out: unknown[] = [];
  for (const pool of pools) out.push(market.pools.pool(pool), market.trades.poolTrades(pool, { order: 'asc', limit: 1_000, startTime: 0 })?.items.length);
  for (const mint of mints) out.push(market.tokens.token(mint));
  // The research routes: records stored in the checkpoint's slices, refreshed by the replay.
  const research = e.query.research!;
  out.push(research.listPools({ sort: 'volume_usd', order: 'desc', limit: 1_000 }).items);
  out.push(research.searchTokens({ q: '', match: 'smart', sort: 'market_cap_usd', order: 'desc', limit: 1_000 }).items);
  return JSON.stringify(out);
}

/** Resolves after `turns` turns of the event loop's check phase. */
/**
 * Resolves once `done` holds, checked now and each time a checkpoint or sweep of the
 * engine ends (its timers call these methods); rejects after `max` of them. The
 * methods are wrapped on this engine object only, and still do what they did.
 */
function afterTimerRuns(e: Engine, done: () => boolean, max: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let runs = 0;
    const check = () => {
      if (done()) resolve();
      else if (++runs > max) reject(new Error(`not done after ${max} checkpoints and sweeps`));
    };
    for (const name of ['checkpoint', 'passivateIdle'] as const) {
      const run = e[name].bind(e) as (...args: unknown[]) => Promise<unknown>;
      (e as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        const result = run(...args);
        void result.then(check, check);
        return result;
      };
    }
    check();
  });
}

const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

describe('checkpoints and idle sweeps in slices', () => {
  it('checkpoint: yields between slices, records the seq it started at, and a crash after it loses nothing applied meanwhile', async () => {
    const events = [...swapStream(3_000, POOLS, 17, true)];
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    const mints = events.filter((e) => e.type === 'token').map((e) => e.token_address as string);
    const declared = 2 * POOLS;
    const [before, during] = [events.slice(0, declared + 1_500), events.slice(declared + 1_500)];
    let e = await open();
    for (let i = 0; i < before.length; i += 500) await Promise.all(before.slice(i, i + 500).map((ev) => e.ingest(ev)));
    expect(e.query.status().ingested).toBe(before.length);

    // Every pool and token is dirty: at a slice of ~0 ms, the checkpoint yields every 16 actors.
    let finished = false;
    const checkpoint = e.checkpoint({ sliceMs: 0.001 }).then(() => (finished = true));
    let chunksWhileRunning = 0;
    // Swaps to pools snapshotted early in it and to pools not snapshotted yet.
    for (let i = 0; i < during.length; i += 100) {
      await Promise.all(during.slice(i, i + 100).map((ev) => e.ingest(ev)));
      if (!finished) chunksWhileRunning++;
      await turns(2);
    }
    await checkpoint;
    expect(chunksWhileRunning).toBeGreaterThan(0);
    // The seq it covers is the one it started at: actors snapshotted in its first slices
    // changed again before it ended, and the log after that seq holds those changes.
    expect(e.storage.meta.get('checkpoint')).toBe(before.length);
    const live = marketState(e, pools, mints);

    // A crash: everything ingested is durable, nothing else is snapshotted.
    await temp.crash(e);
    e = await open();
    expect(marketState(e, pools, mints)).toBe(live);
    expect(e.query.status().ingested).toBe(events.length);
  });

  it('idle sweep: passivates every idle actor across slices, but not one used between them', async () => {
    const events = [...swapStream(600, POOLS, 23, true)];
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    const e = await open();
    await Promise.all(events.map((ev) => e.ingest(ev)));
    const host = e.pools;
    expect(host.size).toBe(POOLS);
    // The research feed reads every pool it refreshes, which is a use: refreshed now, its
    // timer has nothing to read while the sweep runs, and the one use below is the only one.
    e.query.research!.refresh();
    // The ranking feeds' actors, one per (feed, window): new_pair's and almost_bonded's (pool
    // events), popular's, top_gainers' and stocks' (made by the recomputes the events' clock
    // ticked); and `traded` (trades) and `stock-tags` (token events with tags).
    const feedActors = e.feeds!.size;
    expect(feedActors).toBe(5 * 4 + 2);
    // Wallet accounting's actors (actors/wallet) are idle too: a wallet per trader, top traders per token, the leaderboard.
    const w = e.wallets!;
    const walletActors = w.wallets.size + w.tokenTraders.size + w.leaderboard.size;
    expect(w.tokenTraders.size).toBe(POOLS);
    // Each traded token's signals (actors/signals) run in its token-traders actor, not actors of their own.
    expect(e.tokenSignals).toBeNull();
    const later = performance.now() + QUIET.idleMs;
    let finished = false;
    const sweep = e.passivateIdle(later, { sliceMs: 0.001 }).then((count) => ((finished = true), count));
    await turns(1);
    expect(finished).toBe(false);
    // Listed idle, then used before the sweep's slice reached it (listed last, swept last).
    const last = pools[pools.length - 1]!;
    expect(host.isResident(last)).toBe(true);
    host.get(last);
    const count = await sweep;
    expect(host.isResident(last)).toBe(true);
    expect(host.size).toBe(1);
    expect(e.tokens.size).toBe(0);
    expect(count).toBe(2 * POOLS + feedActors + walletActors); // every token, every pool but one, the wSOL price, the feed and wallet actors
    expect(e.feeds!.size).toBe(0);
    expect(w.wallets.size + w.tokenTraders.size + w.leaderboard.size).toBe(0);
    // Passivated pools come back from their snapshots, every trade in place.
    expect(e.query.market!.pools.pool(pools[0]!)!.totals.trade_count).toBe(600 / POOLS);
  });

  it('with checkpointSliceMs 0, the timers checkpoint and sweep in one turn each, and keep doing so', async () => {
    const events = [...swapStream(200, 20, 29, true)];
    // A sweep timer that called `.finally` on the count of an unsliced sweep threw in setInterval: the process died.
    const e = await temp.open({ actors: { idleMs: 20, sweepMs: 10, checkpointMs: 10, checkpointSliceMs: 0 } });
    await Promise.all(events.map((ev) => e.ingest(ev)));
    // Waits for the timers (no timing asserted), checking after each checkpoint or sweep they run: every pool passivated, the checkpoint at the last seq.
    await afterTimerRuns(e, () => e.pools.size === 0 && e.storage.meta.get('checkpoint') === events.length, 400);
    expect(e.pools.size).toBe(0);
    expect(e.storage.meta.get('checkpoint')).toBe(events.length);
    expect(e.query.status().status).toBe('ready');
  });
});
