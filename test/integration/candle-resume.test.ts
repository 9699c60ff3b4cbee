import { describe, expect, it } from 'vitest';
import { SEQ_STALE_GAP } from '../../actors/pool/candles.ts';
import type { Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, swapMaker, WSOL } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * Candle resume (DECISIONS.md, "Candle resume") where the history cannot vouch for a
 * seq: after a restart, after the history of a pool nobody watched was dropped, and for
 * a seq the series has not reached. A resume must never answer "nothing changed" for
 * candles that did change: an empty resume frame followed by live frames at the next
 * seq reads as no gap.
 */

const r = rng(9905);
const MINT = base58(r, 44);
const AMM = base58(r, 44);
const OTHER = base58(r, 44);
const WALLET = base58(r, 44);
const T0 = 1_767_225_600_000;
const MINUTE = 60_000;
/** A buy of 1 token for `quote` raw SOL: price quote / 1e9 (fixtures.ts swapMaker). */
const makers = { [AMM]: swapMaker(AMM, WALLET, 90_000, 5_000), [OTHER]: swapMaker(OTHER, WALLET, 95_000, 8_000) };
const swap = (pool: string, at: number, quote: string) => makers[pool]!(at, { quote_amount_raw: quote });
const PAYLOAD = { pool_address: AMM, interval: '1m', mode: 'price', currency: 'quote' };
/** The 1m candle of one trade at price p (the swaps above trade 1 token for p quote). */
const one = (start: number, p: number) => ({ start_at: start, open: p, high: p, low: p, close: p, volume: p });

const temp = useTempEngine();

async function ingest(engine: Engine, ...events: unknown[]) {
  for (const e of events) expect((await engine.ingest(e)).status).toBe('applied');
  engine.flush();
}

async function open(): Promise<{ engine: Engine; srv: WsTestServer; key: string }> {
  const engine = await temp.open();
  const srv = await startWsServer({ engine });
  return { engine, srv, key: (await srv.key('pro')).key };
}

/** Subscribes to PAYLOAD, takes the live frame of one trade at `at`, and leaves: the seq it saw. */
async function seenSeq(srv: WsTestServer, key: string, engine: Engine, at: number, quote: string): Promise<number> {
  const a = await TestClient.connect(srv.url, { key });
  a.subscribe('candles', PAYLOAD);
  await a.untilPong();
  await ingest(engine, swap(AMM, at, quote));
  const live = await a.next((f) => f.stream === 'candles');
  a.close();
  await a.closed;
  return live.data.seq as number;
}

async function resume(srv: WsTestServer, key: string, extra: Record<string, number>) {
  const b = await TestClient.connect(srv.url, { key });
  b.subscribe('candles', { ...PAYLOAD, ...extra });
  const frame = await b.next((f) => f.stream === 'candles');
  b.close();
  await b.closed;
  return frame.data as { seq: number; candles: unknown[] };
}

const declarations = [
  { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
  { type: 'token', token_address: MINT, decimals: 6, supply_raw: '1000000000000000', symbol: 'M', name: 'Mint', slot: 1, at: T0 },
  { type: 'pool', pool_address: AMM, base_address: MINT, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 },
  { type: 'pool', pool_address: OTHER, base_address: MINT, quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0, slot: 3 },
];

describe('candle resume without a history to vouch for the seq', () => {
  it('after a restart, the seq has moved on and the resume sends the candles since resume_after_time (or the newest), never an empty frame', async () => {
    let { engine, srv, key } = await open();
    await ingest(engine, ...declarations);
    const seq = await seenSeq(srv, key, engine, T0 + 10_000, '2000000000');
    await srv.close();
    await engine.stop();

    ({ engine, srv, key } = await open());
    // A trade after the restart, before the client comes back.
    await ingest(engine, swap(AMM, T0 + MINUTE + 10_000, '5000000000'));
    const byTime = await resume(srv, key, { resume_after_seq: seq, resume_after_time: T0 + 10_000 });
    // Moved on by whole gaps (as many as stale epochs passed: engine/supervisor/epochs.ts), then the new trade's taking.
    expect(byTime.seq).toBeGreaterThan(seq + SEQ_STALE_GAP);
    expect((byTime.seq - 1 - seq) % SEQ_STALE_GAP).toBe(0);
    expect(byTime.candles).toEqual([one(T0, 2), one(T0 + MINUTE, 5)]);
    // Without a time: the newest candles, as a fresh load.
    expect((await resume(srv, key, { resume_after_seq: seq })).candles).toEqual([one(T0, 2), one(T0 + MINUTE, 5)]);
    await srv.close();
  });

  // With a checkpoint, the pool comes back from a snapshot older than what it published;
  // without one, it is built again from the log alone and counts its changes from 0 again.
  it.each([
    ['the last snapshot', true],
    ['the pool\'s first snapshot (rebuilt from the log)', false],
  ])('after a crash, seqs published past %s are not handed out again', async (_, checkpoint) => {
    let { engine, srv, key } = await open();
    await ingest(engine, ...declarations);
    if (checkpoint) await engine.checkpoint();
    const first = await seenSeq(srv, key, engine, T0 + 10_000, '2000000000');
    const seq = await seenSeq(srv, key, engine, T0 + 20_000, '3000000000');
    expect(seq).toBe(first + 1);
    await srv.close();
    await temp.crash(engine);

    ({ engine, srv, key } = await open());
    await ingest(engine, swap(AMM, T0 + MINUTE + 10_000, '5000000000'));
    const resumed = await resume(srv, key, { resume_after_seq: seq, resume_after_time: T0 + 10_000 });
    expect(resumed.seq).toBeGreaterThan(SEQ_STALE_GAP);
    expect(resumed.candles).toEqual([{ start_at: T0, open: 2, high: 3, low: 2, close: 3, volume: 5 }, one(T0 + MINUTE, 5)]);
    await srv.close();
  });

  it('after the history of a pool nobody watched was dropped, the candles changed meanwhile come', async () => {
    const { engine, srv, key } = await open();
    await ingest(engine, ...declarations);
    const seq = await seenSeq(srv, key, engine, T0 + 10_000, '2000000000');
    // 25 minutes on (event clock), another pool's flush trims the history of this one.
    await ingest(engine, swap(OTHER, T0 + 25 * MINUTE, '1000000000'));
    for (let k = 0; k < 3; k++) await ingest(engine, swap(AMM, T0 + (26 + k) * MINUTE, '3000000000'));
    const resumed = await resume(srv, key, { resume_after_seq: seq, resume_after_time: T0 + 10_000 });
    expect(resumed.seq).toBeGreaterThan(seq);
    expect(resumed.candles).toEqual([one(T0, 2), one(T0 + 26 * MINUTE, 3), one(T0 + 27 * MINUTE, 3), one(T0 + 28 * MINUTE, 3)]);
    await srv.close();
  });

  it('seqs count changes while nobody watches; a seq the series has not reached falls back to resume_after_time', async () => {
    const { engine, srv, key } = await open();
    await ingest(engine, ...declarations);
    const candles = engine.query.market!.candles;
    const seqNow = () => candles.candleResume({ pool_address: OTHER, interval: '1m', mode: 'price', currency: 'quote' })!.seq;
    expect(seqNow()).toBe(0);
    await ingest(engine, swap(OTHER, T0 + 10_000, '2000000000'));
    await ingest(engine, swap(OTHER, T0 + 11_000, '4000000000'));
    expect(seqNow()).toBe(2);
    const ahead = candles.candleResume({ pool_address: OTHER, interval: '1m', mode: 'price', currency: 'quote', afterSeq: 7, afterTime: T0 })!;
    expect(ahead).toEqual({ seq: 2, candles: [{ start_at: T0, open: 2, high: 4, low: 2, close: 4, volume: 6 }] });
    const upToDate = candles.candleResume({ pool_address: OTHER, interval: '1m', mode: 'price', currency: 'quote', afterSeq: 2, afterTime: T0 })!;
    expect(upToDate).toEqual({ seq: 2, candles: [] });
    await srv.close();
  });
});

describe('candle seqs across passivation', () => {
  // The publisher's flush takes a pool's candle changes (each taking is one seq). Taken
  // after a checkpoint snapshotted the pool, they must reach its next snapshot, or the
  // pool passivated idle comes back with the older seq and hands it out again for other
  // candles: a client holding it then resumes to "unchanged" and misses a trade.
  it('trade, checkpoint, flush, passivate, read, trade, flush: resume_after_seq of the first frame gets the second trade', async () => {
    const { engine, srv, key } = await open();
    await ingest(engine, ...declarations);
    const a = await TestClient.connect(srv.url, { key });
    a.subscribe('candles', PAYLOAD);
    await a.untilPong();
    for (const e of [swap(AMM, T0 + 10_000, '2000000000')]) expect((await engine.ingest(e)).status).toBe('applied');
    await engine.checkpoint();
    engine.flush();
    const seq = (await a.next((f) => f.stream === 'candles')).data.seq as number;
    a.close();
    await a.closed;

    expect(await engine.passivateIdle(Number.POSITIVE_INFINITY)).toBeGreaterThan(0);
    expect(engine.pools.isResident(AMM)).toBe(false);
    // A read brings the pool back from its snapshot.
    const http = await fetch(`http://127.0.0.1:${srv.port}/v1/pools/${AMM}/candles?interval=1m&currency=quote`, { headers: { authorization: `Bearer ${key}` } });
    expect([http.status, ((await http.json()) as { data: { candles: unknown[] } }).data.candles]).toEqual([200, [one(T0, 2)]]);
    expect(engine.pools.isResident(AMM)).toBe(true);

    await ingest(engine, swap(AMM, T0 + MINUTE + 10_000, '5000000000'));
    const resumed = await resume(srv, key, { resume_after_seq: seq });
    expect(resumed.seq).toBeGreaterThan(seq);
    expect(resumed.candles).toEqual([one(T0 + MINUTE, 5)]);
    await srv.close();
  });
});
