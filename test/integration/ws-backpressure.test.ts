import { afterEach, describe, expect, it } from 'vitest';
import { base58, rng } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * Slow consumers (DECISIONS.md "WebSocket", issue 5 "Backpressure"): a connection past
 * the backpressure limit is closed with 4008 at the first frame it would lose, never
 * left open with a gap; a stalled one is cut after a short grace; other connections
 * keep receiving everything.
 *
 * The clients pause their TCP socket: the kernel buffers on both sides fill first
 * (several MB on loopback), then uWS buffers past the limit (256 KiB here).
 */

const r = rng(503);
const POOL = base58(r, 44);
const CANARY = base58(r, 44);
const TOPIC = `pool_trades:${POOL}`;
const PAD = 'x'.repeat(1_000);
/** Published at most: bounds the test if the server never reacted. */
const FRAMES_MAX = 200_000;

let srv: WsTestServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

const frame = (n: number) => `{"stream":"pool_trades","data":{"n":${n},"pad":"${PAD}"}}`;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A fast client that reads everything and counts frames in order; `reached(n)`: once it has frame n - 1. */
function counter(c: TestClient) {
  const state = { next: 0, outOfOrder: 0, reached: (n: number) => c.until(() => state.next >= n).then(() => undefined) };
  c.ws.on('message', (data) => {
    const n = JSON.parse(data.toString()).data.n;
    if (n !== state.next) state.outOfOrder++;
    state.next = n + 1;
  });
  return state;
}

/** The frames' n of a client that read them after resuming. */
const seqs = (c: TestClient) => c.messages.filter((m) => m.stream === 'pool_trades').map((m) => m.data.n as number);

async function setup(stalledGraceMs: number) {
  srv = await startWsServer({ config: { ws: { backpressureBytes: 262_144, stalledGraceMs } } });
  const slowKey = (await srv.key('pro')).key;
  const fastKey = (await srv.key('pro')).key;
  const slow = await TestClient.connect(srv.url, { key: slowKey });
  const fast = await TestClient.connect(srv.url, { key: fastKey });
  slow.subscribe('pool_trades', { pool_address: POOL });
  // Only the slow client listens on the canary: the topic goes once its streams stop.
  slow.subscribe('pool_trades', { pool_address: CANARY });
  fast.subscribe('pool_trades', { pool_address: POOL });
  await slow.untilPong();
  await fast.untilPong();
  const fastCount = counter(fast);
  (slow.ws as any)._socket.pause();
  return { srv, slow, fast, fastCount };
}

/** Publishes numbered frames, 200 per event-loop turn, until the slow client's streams stop. */
async function publishUntilStopped(s: WsTestServer): Promise<number> {
  let n = 0;
  while (s.endpoint.sink.has(`pool_trades:${CANARY}`) && n < FRAMES_MAX) {
    for (let i = 0; i < 200; i++) s.endpoint.sink.publish(TOPIC, frame(n++));
    await turn();
  }
  return n;
}


describe('slow consumers', () => {
  it('a client that stops reading is closed with 4008 after its last whole frame, without a gap; the other client gets everything', async () => {
    const { srv: s, slow, fast, fastCount } = await setup(60_000);
    const published = await publishUntilStopped(s);
    expect(published).toBeLessThan(FRAMES_MAX);
    // Frames after the stop still reach the fast client, and only it.
    for (let i = 0; i < 1_000; i++) s.endpoint.sink.publish(TOPIC, frame(published + i));
    await fastCount.reached(published + 1_000);
    expect(fastCount.next).toBe(published + 1_000);
    expect(fastCount.outOfOrder).toBe(0);

    (slow.ws as any)._socket.resume();
    const closed = await slow.closed;
    expect(closed).toEqual({ code: 4008, reason: 'slow consumer' });
    const got = seqs(slow);
    // A prefix of the stream: 0, 1, 2, ... k-1, with nothing after a gap.
    expect(got.length).toBeGreaterThan(1_000);
    expect(got.every((n, i) => n === i)).toBe(true);
    expect(got.length).toBeLessThanOrEqual(published);
    expect(await s.metric('mds_ws_closes_total', { code: '4008' })).toBe(1);
    fast.close();
    await fast.closed;
  });

  it('a stalled client is cut after the grace while another client keeps receiving; what it got is a gap-free prefix', async () => {
    const { srv: s, slow, fast, fastCount } = await setup(200);
    const published = await publishUntilStopped(s);
    expect(published).toBeLessThan(FRAMES_MAX);
    // The fast client keeps receiving during the grace and after the cut.
    // Paced by the fast client: 50 frames, then on once it has them, until the server's grace cuts the other.
    let n = published;
    while ((await s.metric('mds_ws_closes_total', { code: 'stalled' })) !== 1) {
      if (n - published >= FRAMES_MAX) throw new Error(`the stalled client was not cut in ${FRAMES_MAX} frames`);
      for (let i = 0; i < 50; i++) s.endpoint.sink.publish(TOPIC, frame(n++));
      await fastCount.reached(n);
    }
    for (let i = 0; i < 100; i++) s.endpoint.sink.publish(TOPIC, frame(n++));
    await fastCount.reached(n);
    expect(fastCount.next).toBe(n);
    expect(fastCount.outOfOrder).toBe(0);
    expect(await s.metric('mds_ws_connections')).toBe(1);

    (slow.ws as any)._socket.resume();
    const closed = await slow.closed;
    // Cut without a close frame: what the kernel had buffered, then the end.
    expect(closed.code).toBe(1006);
    const got = seqs(slow);
    expect(got.every((m, i) => m === i)).toBe(true);
    expect(got.length).toBeLessThanOrEqual(published);
    fast.close();
    await fast.closed;
  });

  it('a client flooding pings it never reads is a slow consumer too', async () => {
    srv = await startWsServer({ config: { ws: { backpressureBytes: 65_536, stalledGraceMs: 60_000 } } });
    const c = await TestClient.connect(srv.url, { key: (await srv.key('pro')).key });
    c.subscribe('pool_trades', { pool_address: CANARY });
    await c.untilPong();
    (c.ws as any)._socket.pause();
    // 20,000 pings at a time, the next ones once these are written to the socket, until the pongs stop its streams.
    let sent = 0;
    while (srv.endpoint.sink.has(`pool_trades:${CANARY}`)) {
      if (sent >= 2_000_000) throw new Error('2,000,000 pings did not stop the connection');
      for (let i = 0; i < 19_999; i++) c.send('{"type":"ping"}');
      await new Promise<void>((resolve, reject) => c.ws.send('{"type":"ping"}', (err) => (err ? reject(err) : resolve())));
      sent += 20_000;
    }
    (c.ws as any)._socket.resume();
    expect((await c.closed).code).toBe(4008);
    expect(c.messages.every((m) => m.type === 'pong')).toBe(true);
  });
});
