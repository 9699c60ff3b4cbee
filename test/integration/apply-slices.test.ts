import { describe, expect, it } from 'vitest';
import { APPLY_BACKLOG_MAX } from '../../engine/bounds.ts';
import type { Source } from '../../engine/sources/source.ts';
import { useTempEngine, serveEngine } from '../helpers/engine-server.ts';
import { swapStream } from '../helpers/fixtures.ts';
import { startWsServer, TestClient } from '../helpers/ws.ts';

/**
 * Reads during a backlog (issue 25): the actors apply committed batches in slices of
 * `ingest.applySliceMs`, with the event loop free between them, so that an HTTP read
 * and a WebSocket client are served while a long backlog is still being applied, not
 * after it. Counted in event-loop turns and events applied, never in wall time.
 */

const POOLS = 20;
const BACKLOG = 12_000;
/** Turns of the event loop a loopback request and its answer take, with room to spare (each turn runs at most one slice). */
const TURNS_MAX = 40;

const temp = useTempEngine();

/** Counts event-loop turns (check phases) until stopped. */
function turnCounter() {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop: () => (running = false),
  };
}

describe('applying a backlog in slices', () => {
  it('answers GET /v1/pools/{pool} and keeps a WebSocket client receiving while a backlog is still being applied', async () => {
    const events = [...swapStream(BACKLOG, POOLS, 41, true)];
    const declared = 2 * POOLS + 1;
    const pools = events.filter((e) => e.type === 'pool').map((e) => e.pool_address as string);
    const e = await temp.open({ ingest: { applySliceMs: 1, batchMax: 500 }, actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    await Promise.all(events.slice(0, declared).map((ev) => e.ingest(ev)));
    const http = await serveEngine(e);
    const ws = await startWsServer({ engine: e });
    const client = await TestClient.connect(ws.url, { key: (await ws.key('pro')).key });
    try {
      client.subscribe('pool_trades', { pool_address: pools[0] });
      expect(await client.untilPong()).toEqual([]);
      let applied = declared;
      const sub = e.events$.subscribe(() => applied++);
      // Applied as batches are applied: the WebSocket frames that came before the backlog was all applied.
      const framesAt: number[] = [];
      client.ws.on('message', () => framesAt.push(applied));

      // The backlog, submitted in one turn: its batches are committed and handed to the actors together.
      const rest = events.slice(declared);
      const done = Promise.all(rest.map((ev) => e.ingest(ev)));
      const counter = turnCounter();
      const res = await fetch(`${http.base}/v1/pools/${pools[1]}`, { headers: { authorization: `Bearer ${http.key}` } });
      const appliedAtAnswer = applied;
      const turns = counter.turns;
      expect(res.status).toBe(200);
      await done;
      counter.stop();
      sub.unsubscribe();

      expect(appliedAtAnswer, 'the read was answered before the backlog was all applied').toBeLessThan(events.length);
      expect(turns, 'turns the read took').toBeLessThanOrEqual(TURNS_MAX);
      // Frames came while the backlog was applied, from several of its batches, not all after it.
      const during = framesAt.filter((n) => n < events.length);
      expect(during.length, 'frames received before the backlog was applied').toBeGreaterThan(0);
      expect(new Set(during).size, 'batches after which frames were received').toBeGreaterThanOrEqual(3);
      expect(e.query.market!.pools.pool(pools[0]!)!.totals.trade_count).toBe(BACKLOG / POOLS);
    } finally {
      client.ws.close();
      await ws.close();
      http.close();
    }
  });

  it('lets a source the actors held back go on while batches it gave are still to apply, within the bound', async () => {
    const BATCH = 200;
    const events = [...swapStream(6_000, POOLS, 47, true)];
    // Each batch takes several 1 ms slices, so the actors lag behind a source that submits in a loop.
    const e = await temp.open({ ingest: { applySliceMs: 1, batchMax: BATCH }, actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } });
    let applied = 0;
    const sub = e.events$.subscribe(() => applied++);
    /** Events submitted and applied each time the source was let go on after waiting while the actors applied. */
    const resumes: Array<{ submitted: number; applied: number }> = [];
    const source: Source = {
      name: 'test:backlog',
      finite: true,
      async run(sink) {
        for (let i = 0; i < events.length; i++) {
          sink.submit(events[i], 'test:backlog', i);
          const wait = sink.writable();
          if (wait === null) continue;
          const before = applied;
          await wait;
          // Not a wait that ended at once (batches being handed over, the actors idle yet).
          if (applied !== before) resumes.push({ submitted: i + 1, applied });
        }
      },
    };
    await e.runSource(source);
    await e.gate.flush();
    sub.unsubscribe();

    expect(resumes.length, 'times the source waited for the actors').toBeGreaterThan(0);
    // Let go on as the actors came back within APPLY_BACKLOG_MAX batches, not once they had
    // applied all it gave (which left them nothing to apply until its next batch came; only
    // the batch it was filling then): more than a whole batch was still to apply...
    expect(Math.min(...resumes.map((r) => r.submitted - r.applied)), 'events still to apply at a resumption, at least').toBeGreaterThan(BATCH);
    // ...and never more than the bound's batches and the one being filled.
    for (const r of resumes) expect(r.submitted - r.applied).toBeLessThanOrEqual((APPLY_BACKLOG_MAX + 1) * BATCH);
    expect(applied).toBe(events.length);
    let trades = 0;
    for (const ev of events) if (ev.type === 'pool') trades += e.query.market!.pools.pool(ev.pool_address as string)!.totals.trade_count;
    expect(trades).toBe(events.filter((ev) => ev.type === 'swap').length);
  });

  it('with applySliceMs 0, applies each batch whole in the turn it is committed in', async () => {
    const events = [...swapStream(2_000, POOLS, 43, true)];
    const e = await temp.open({ ingest: { applySliceMs: 0, batchMax: 500 } });
    let applied = 0;
    const sub = e.events$.subscribe(() => applied++);
    const done = Promise.all(events.map((ev) => e.ingest(ev)));
    // Every batch of this turn is applied before the next turn.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(applied).toBe(events.length);
    await done;
    sub.unsubscribe();
  });
});
