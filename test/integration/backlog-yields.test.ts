import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, swapStream, testConfig } from '../helpers/fixtures.ts';

/**
 * Reads during a backlog (issue 25): every long piece of main-thread work that a backlog
 * brings yields to the event loop at bounded intervals, so reads and socket writes run
 * between its slices. Each test watches a real engine from event-loop turns (a
 * setImmediate chain) and asserts that one came while the piece was under way: counted
 * in turns and in what was applied, never in wall time.
 */

const temp = useTempEngine();

/** A slice shorter than any step: each does the least it may, APPLY_EVENTS_MIN events or one eviction a kind (engine/apply.ts). */
const SLICE_MS = 0.000_001;

/** Calls `look` at every event-loop turn (check phase) until stopped. */
function everyTurn(look: () => void) {
  let running = true;
  const turn = () => {
    if (!running) return;
    look();
    setImmediate(turn);
  };
  setImmediate(turn);
  return { stop: () => (running = false) };
}

describe('a backlog yields to the event loop', () => {
  it('evicts past the resident bound in slices: turns run while a batch\'s evictions are under way, and the bound holds once they are done', async () => {
    const BOUND = 50;
    const POOLS = 1_000;
    // Every pool declared and traded once: ~2,000 pools and tokens activated, ~1,900 evicted.
    const events = [...swapStream(POOLS, POOLS, 5, true)];
    const last = Math.max(...events.map((e) => (e.type === 'swap' ? (e.at as number) : 0)));
    // One batch, and a lag of the whole bound: its evictions begin between its slices only
    // past twice the bound, so its last event leaves up to a bound's worth to evict. Slices
    // of 1 ns: each applies APPLY_EVENTS_MIN events or evicts one actor a kind, so what is
    // left after the last event takes turns however fast the machine is (with slices of
    // 1 ms, a fast run evicted it all in the last event's slice: no turn, a CI failure).
    const e = await temp.open({ ingest: { applySliceMs: SLICE_MS, batchMax: 10_000 }, actors: { residentMax: BOUND, evictionLag: 1, checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    /** Turns after the last event was applied with pools still past the bound (their eviction under way). */
    let evictingTurns = 0;
    const watch = everyTurn(() => {
      if (e.clock.now() === last && e.pools.size - e.pools.heldInFlight() > BOUND) evictingTurns++;
    });
    await Promise.all(events.map((ev) => e.ingest(ev)));
    // Resolved once every batch handed over is applied, its evictions included.
    await e.gate.flush();
    watch.stop();
    expect(evictingTurns, 'turns between the slices of the last batch`s evictions').toBeGreaterThan(0);
    expect(e.pools.size - e.pools.heldInFlight()).toBeLessThanOrEqual(BOUND);
    expect(e.tokens.size - e.tokens.heldInFlight()).toBeLessThanOrEqual(BOUND);
    // The first pool, evicted long before the end, applied its swap (read back from its snapshot).
    const first = events.find((ev) => ev.type === 'pool')!.pool_address as string;
    expect(e.query.market!.pools.pool(first)!.totals.trade_count).toBe(1);
  });

  it('evicts past the byte bound in slices too: turns run while the last batch\'s evictions are under way, and the bytes are within the bound once they are done', async () => {
    const POOLS = 1_000;
    const events = [...swapStream(POOLS, POOLS, 5, true)];
    const last = Math.max(...events.map((e) => (e.type === 'swap' ? (e.at as number) : 0)));
    // About 50 pools' worth of estimated bytes: the byte bound (every kind together) evicts,
    // not the count. One batch, and a lag of the whole bound: its evictions begin between
    // its slices only past twice the bound, so its last event leaves up to a bound's worth,
    // evicted one actor a slice (slices of 1 ns, as above).
    const e = await temp.open({ ingest: { applySliceMs: SLICE_MS, batchMax: 10_000 }, actors: { residentBytesMax: 400_000, evictionLag: 1, checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    const budget = e.pools.budget!;
    const held = () => e.hosts.reduce((n, host) => n + host.heldInFlightBytes(), 0);
    let evictingTurns = 0;
    const watch = everyTurn(() => {
      if (e.clock.now() === last && budget.bytes - held() > budget.max) evictingTurns++;
    });
    await Promise.all(events.map((ev) => e.ingest(ev)));
    await e.gate.flush();
    watch.stop();
    expect(evictingTurns, 'turns between the slices of the last batch`s evictions').toBeGreaterThan(0);
    expect(budget.bytes - held()).toBeLessThanOrEqual(budget.max);
    const first = events.find((ev) => ev.type === 'pool')!.pool_address as string;
    expect(e.query.market!.pools.pool(first)!.totals.trade_count).toBe(1);
  });

  it('applies later batches while an earlier batch\'s evictions past the byte bound are under way (within actors.evictionLag), and keeps the bound in the end', async () => {
    const POOLS = 1_000;
    const events = [...swapStream(POOLS, POOLS, 5, true)];
    // ~250 pools' worth of estimated bytes, batches of 100 events: a batch ends past the
    // bound by less than the default lag (an eighth of it), and its evictions take slices of 1 ms.
    const e = await temp.open({ ingest: { applySliceMs: 1, batchMax: 100 }, actors: { residentBytesMax: 2_000_000, checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    const budget = e.pools.budget!;
    const held = () => e.hosts.reduce((n, host) => n + host.heldInFlightBytes(), 0);
    const over = () => budget.bytes - held() > budget.max;
    /** A batch was handed on past the bound, which has not held since: its evictions are under way. */
    let behind = false;
    let batches = 0;
    let handedOnOver = 0;
    let mostOverAtHandOn = 0;
    let tradesWhileBehind = 0;
    e.onApplied(() => {
      batches++;
      mostOverAtHandOn = Math.max(mostOverAtHandOn, budget.bytes - held() - budget.max);
      if (over()) {
        handedOnOver++;
        behind = true;
      }
    });
    e.router.subscribe('pool.trade', () => {
      if (behind && over()) tradesWhileBehind++;
    });
    const watch = everyTurn(() => {
      if (!over()) behind = false;
    });
    await Promise.all(events.map((ev) => e.ingest(ev)));
    await e.gate.flush();
    watch.stop();
    expect(batches).toBeGreaterThan(10);
    expect(handedOnOver, 'batches applied before their evictions were done').toBeGreaterThan(0);
    expect(tradesWhileBehind, 'trades of later batches applied while an earlier batch`s evictions were under way').toBeGreaterThan(0);
    // A batch counts as applied within the lag: an eighth of the bound past it at most.
    expect(mostOverAtHandOn).toBeLessThanOrEqual(budget.max / 8);
    // Once settled, every eviction is done.
    expect(budget.bytes - held()).toBeLessThanOrEqual(budget.max);
    const first = events.find((ev) => ev.type === 'pool')!.pool_address as string;
    expect(e.query.market!.pools.pool(first)!.totals.trade_count).toBe(1);
  });

  it('evicts past the byte bound between the slices of a batch longer than a slice, not only after its last event', async () => {
    const POOLS = 1_000;
    const events = [...swapStream(3 * POOLS, POOLS, 9, true)];
    // ~250 pools' worth of estimated bytes, one batch of every event (each pool's first
    // swap activates it), applied in slices of 1 ms: its actors would pass the bound
    // several times over by its end if its evictions waited for it.
    const e = await temp.open({ ingest: { applySliceMs: 1, batchMax: 10_000 }, actors: { residentBytesMax: 2_000_000, checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    const budget = e.pools.budget!;
    const held = () => e.hosts.reduce((n, host) => n + host.heldInFlightBytes(), 0);
    let mostOver = 0;
    // Actors changed again while their last snapshot was still being written stay until it
    // commits (ActorHost.evictResident), then the next slices evict them: on a loaded
    // machine (slow commits) hundreds of pools at once, which no slice could have evicted
    // before. So the overshoot may pass the bound's half by as much as was ever held.
    let mostHeld = 0;
    let batches = 0;
    e.onApplied(() => void batches++);
    const watch = everyTurn(() => {
      const h = held();
      mostHeld = Math.max(mostHeld, h);
      mostOver = Math.max(mostOver, budget.bytes - h - budget.max);
    });
    await Promise.all(events.map((ev) => e.ingest(ev)));
    await e.gate.flush();
    watch.stop();
    expect(batches, 'batches').toBeLessThanOrEqual(3);
    expect(mostOver, 'the most past the bound between two turns').toBeGreaterThan(0);
    expect(mostOver, 'the most past the bound between two turns').toBeLessThanOrEqual(budget.max / 2 + mostHeld);
    // Those held when the last batch was done wait for the next batch or the sweep.
    await e.passivateIdle(performance.now());
    expect(budget.bytes - held()).toBeLessThanOrEqual(budget.max);
    const last = events.filter((ev) => ev.type === 'pool').at(-1)!.pool_address as string;
    expect(e.query.market!.pools.pool(last)!.totals.trade_count).toBe(3);
  });

  it('evicts in slices at an idle sweep the actors reads brought back past the bound: turns run while they are evicted', async () => {
    const BOUND = 50;
    const POOLS = 400;
    const events = [...swapStream(POOLS, POOLS, 11, true)];
    const e = await temp.open({ actors: { residentMax: BOUND, checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    await Promise.all(events.map((ev) => e.ingest(ev)));
    await e.gate.flush();
    const over = () => e.pools.size - e.pools.heldInFlight() - BOUND;
    expect(over()).toBeLessThanOrEqual(0);
    // Reads outside any batch (as HTTP reads do) bring pools back past the bound.
    const pools = events.filter((ev) => ev.type === 'pool').map((ev) => ev.pool_address as string);
    for (const pool of pools.slice(0, 4 * BOUND)) expect(e.pools.get(pool)).toBeDefined();
    expect(over()).toBeGreaterThan(BOUND);
    let evictingTurns = 0;
    const watch = everyTurn(() => {
      if (over() > 0) evictingTurns++;
    });
    // Slices of 1 µs: each ends after its first eviction.
    await e.passivateIdle(performance.now(), { sliceMs: 0.001 });
    watch.stop();
    expect(evictingTurns, 'turns between the sweep`s eviction slices').toBeGreaterThan(0);
    expect(over()).toBeLessThanOrEqual(0);
  });

  it('takes a sliced checkpoint one snapshot a slice at most: a turn runs after each snapshot that ends a slice', async () => {
    const POOLS = 40;
    const e = await temp.open({ actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    await Promise.all([...swapStream(POOLS * 2, POOLS, 9, true)].map((ev) => e.ingest(ev)));
    const dirty = () => e.hosts.reduce((n, host) => n + host.dirtyKeys().length, 0);
    const counts = [dirty()];
    expect(counts[0]).toBeGreaterThanOrEqual(2 * POOLS);
    const watch = everyTurn(() => counts.push(dirty()));
    // A budget every snapshot is past: each slice ends after its first.
    await e.checkpoint({ sliceMs: 0.000_001 });
    watch.stop();
    counts.push(dirty());
    expect(counts[counts.length - 1]).toBe(0);
    let mostInOneSlice = 0;
    for (let i = 1; i < counts.length; i++) mostInOneSlice = Math.max(mostInOneSlice, counts[i - 1]! - counts[i]!);
    expect(mostInOneSlice, 'snapshots written between two turns').toBe(1);
  });

  it('recomputes a ranking window in slices with events applied between them (each pool read before an event changes it), and ranks as the whole recompute does', async () => {
    // 400 pools traded over 3 minutes of event time: the 5m window recomputes every minute
    // over all of them. wSOL's price swings between 300 and 0.001 USD at each quote_price,
    // so which pools pass top_gainers' liquidity in USD depends on the price at the tick;
    // the tokens of the last 40 pools read are tagged `stock` and untagged in turn, so the stocks feed's
    // members depend on the tags at the tick.
    let swing = 0;
    let swaps = 0;
    const events = [...swapStream(18_000, 400, 13, true)].flatMap((ev) => {
      if (ev.type === 'quote_price') return [{ ...ev, price_usd: swing++ % 2 === 0 ? 0.001 : 300 }];
      if (ev.type !== 'swap' || ++swaps % 37 !== 0) return [ev];
      const k = (swaps / 37) % 80;
      const tags = k < 40 ? ['stock'] : [];
      const mint = base58(rng(13 * 1_000 + 360 + (k % 40)), 44);
      return [ev, { type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'S', name: 'Stock', slot: ev.slot, at: ev.at, tags }];
    });
    const opened: Engine[] = [];
    const open = async (name: string, flushSliceMs: number, rankingsHold: boolean) => {
      const engine = await createEngine({ config: testConfig(join(temp.dir.path, name)), flushSliceMs, rankingsHold });
      opened.push(engine);
      return engine;
    };
    try {
      // Slices of one step each (a few pools read), the events going on between them,
      // against one slice for all that holds the events: what a recompute at a tick gives.
      const sliced = await open('sliced', 0, false);
      const whole = await open('whole', 1e9, true);
      // Every snapshot popular, top_gainers and stocks publish: its tick, and its rows' pools, ranks and scores.
      const published = new Map<Engine, string[]>();
      for (const engine of [sliced, whole]) {
        const frames: string[] = [];
        published.set(engine, frames);
        engine.attachTopics({
          has: (topic) => /^rankings:(popular|top_gainers|stocks):/.test(topic),
          publish: (topic, frame) => {
            const data = (JSON.parse(frame) as { data: { updated_at: number; rankings: Array<{ pool_address: string; rank: number; score: number }> } }).data;
            frames.push(`${topic} ${data.updated_at} ${data.rankings.map((r) => `${r.pool_address}:${r.rank}:${r.score}`).join(' ')}`);
          },
        });
      }
      let delivered = 0;
      sliced.router.subscribe('pool.trade', () => void delivered++);
      /** While a recompute reads: the trades delivered at each turn. */
      const reading: number[][] = [];
      let stretch: number[] | null = null;
      const watch = everyTurn(() => {
        expect(sliced.ticker.holding, 'a recompute holding the events').toBe(false);
        if (!sliced.rankings!.reading) return void (stretch = null);
        if (stretch === null) reading.push((stretch = []));
        stretch.push(delivered);
      });
      for (const engine of [sliced, whole]) {
        for (let i = 0; i < events.length; i += 3_000) await Promise.all(events.slice(i, i + 3_000).map((ev) => engine.ingest(ev)));
        await engine.gate.flush();
      }
      watch.stop();
      expect(reading.length, 'recomputes that spanned event-loop turns').toBeGreaterThan(0);
      const movedOn = reading.filter((turns) => new Set(turns).size > 1).length;
      expect(movedOn, 'recomputes during which trades were applied').toBeGreaterThan(0);
      // What the sliced recomputes gave is what the whole ones gave at the same engine times:
      // each snapshot published (the entries' other values are as at its publishing),
      // and the last ones as a new subscriber gets them.
      expect(published.get(sliced)!.length).toBeGreaterThan(4);
      expect(published.get(sliced)).toEqual(published.get(whole));
      const rows = (frame: string) => (JSON.parse(frame) as { data: { rankings: Array<{ pool_address: string; rank: number; score: number }> } }).data.rankings.map((r) => [r.pool_address, r.rank, r.score]);
      for (const feed of ['popular', 'top_gainers'] as const) {
        for (const window of ['5m', '1h'] as const) {
          const frame = rows(sliced.rankings!.snapshotFrame(feed, window));
          expect(frame).toEqual(rows(whole.rankings!.snapshotFrame(feed, window)));
          if (feed === 'popular' && window === '5m') expect(frame.length).toBeGreaterThan(20);
        }
      }
    } finally {
      for (const engine of opened) await engine.stop();
    }
  });
});
