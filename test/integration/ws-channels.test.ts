import { OUTBOX_BYTES } from '../../engine/bounds.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { CANDLES_FRAME_PREFIX } from '../../engine/topics/index.ts';
import { base58, rng } from '../helpers/fixtures.ts';
import { TestClient, startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * A channel's bookkeeping as it gains and loses connections (transport/ws/channel.ts, hub.ts): a
 * channel holds its only connection inline and has maps only while two or more are on
 * it. Frames reach exactly the connections on the channel when they are published,
 * each account is counted frames × its connections on it, references of overlapping
 * subscriptions survive the change of form, and a slow consumer on a shared channel is
 * still found. Frames are published through the transport's topic sink.
 */

const r = rng(509);
const POOL = base58(r, 44);
const POOL2 = base58(r, 44);
const CANARY = base58(r, 44);
const TOPIC = `pool_trades:${POOL}`;
/** A plan's grace after expiry (DECISIONS.md). */
const GRACE_MS = 2 * 3_600_000;

let srv: WsTestServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

let sequence = 0;
/** Publishes k numbered pool_trades frames on the topic; returns their numbers. */
function publish(s: WsTestServer, k: number, topic = TOPIC): number[] {
  const sent: number[] = [];
  for (let i = 0; i < k; i++) {
    const n = ++sequence;
    s.endpoint.sink.publish(topic, `{"stream":"pool_trades","data":{"n":${n}}}`);
    sent.push(n);
  }
  return sent;
}

/** The numbers of the data frames a client got since the last call (a pong round trip: the hub's turn has run). */
async function received(c: TestClient): Promise<number[]> {
  return (await c.untilPong()).filter((m) => m.stream !== undefined).map((m) => m.data.n as number);
}

const messages = (s: WsTestServer, accountId: string) => s.limits.usageOf(accountId)?.messages ?? 0;

/** Sockets uWS holds on the topic: a channel is a uWS topic only while shared (white box: the native memory saved). */
const uwsSubscribers = (s: WsTestServer, topic: string): number => s.server.app.numSubscribers(topic);

/** Whether the topic's first channel holds its connections in maps (white box: the memory this design saves). */
const shared = (s: WsTestServer, topic: string): boolean => {
  const channel = (s.endpoint.sink as unknown as { topics: Map<string, { connections: unknown }> }).topics.get(topic);
  if (!channel) throw new Error(`no channel for ${topic}`);
  return channel.connections !== null;
};

/** Closes the clients and waits until each has seen its close. */
async function closeAll(...clients: TestClient[]): Promise<void> {
  for (const c of clients) c.close();
  await Promise.all(clients.map((c) => c.closed));
}

async function account(s: WsTestServer) {
  const { id, key } = await s.key('pro');
  return { id, connect: () => TestClient.connect(s.url, { key }) };
}

async function subscribed(c: TestClient, payload: unknown = { pool_address: POOL }, stream = 'pool_trades'): Promise<void> {
  c.subscribe(stream, payload);
  expect(await c.untilPong()).toEqual([]);
}

describe('a channel gaining and losing connections', () => {
  it('1 → 2 → 1 → 0 connections of two accounts: each gets exactly the frames published while on it, each account is counted for them', async () => {
    const s = (srv = await startWsServer());
    const A = await account(s);
    const B = await account(s);
    const a = await A.connect();
    const b = await B.connect();

    await subscribed(a);
    const one = publish(s, 2);
    expect(await received(a)).toEqual(one);
    expect(await received(b)).toEqual([]);
    expect([messages(s, A.id), messages(s, B.id)]).toEqual([2, 0]);
    expect(shared(s, TOPIC)).toBe(false);
    expect(uwsSubscribers(s, TOPIC)).toBe(0);

    await subscribed(b);
    const two = publish(s, 3);
    expect(await received(a)).toEqual(two);
    expect(await received(b)).toEqual(two);
    expect([messages(s, A.id), messages(s, B.id)]).toEqual([5, 3]);
    expect(shared(s, TOPIC)).toBe(true);
    expect(uwsSubscribers(s, TOPIC)).toBe(2);

    // The first connection leaves: the one left is B's.
    a.unsubscribe('pool_trades', { pool_address: POOL });
    expect(await received(a)).toEqual([]);
    const back = publish(s, 4);
    expect(await received(a)).toEqual([]);
    expect(await received(b)).toEqual(back);
    expect([messages(s, A.id), messages(s, B.id)]).toEqual([5, 7]);
    expect(shared(s, TOPIC)).toBe(false);
    expect(uwsSubscribers(s, TOPIC)).toBe(0);

    b.unsubscribe('pool_trades', { pool_address: POOL });
    expect(await received(b)).toEqual([]);
    expect(s.endpoint.sink.has(TOPIC)).toBe(false);
    publish(s, 2);
    expect(await received(a)).toEqual([]);
    expect(await received(b)).toEqual([]);
    expect([messages(s, A.id), messages(s, B.id)]).toEqual([5, 7]);

    // Empty and gone: a new subscriber starts a new channel.
    await subscribed(b);
    const again = publish(s, 1);
    expect(await received(b)).toEqual(again);
    expect([messages(s, A.id), messages(s, B.id)]).toEqual([5, 8]);
    await closeAll(a, b);
  });

  it('two connections of one account and one of another: counted per connection on it, also when one leaves by closing', async () => {
    const s = (srv = await startWsServer());
    const A = await account(s);
    const B = await account(s);
    const a1 = await A.connect();
    const a2 = await A.connect();
    const b = await B.connect();
    const got = new Map<TestClient, number[]>([[a1, []], [a2, []], [b, []]]);
    /** Publishes k frames, then checks every client got exactly them if on the channel, and the counts. */
    const step = async (k: number, on: TestClient[], counts: [number, number], isShared: boolean) => {
      const sent = publish(s, k);
      for (const [c, list] of got) {
        if (c.ws.readyState !== c.ws.OPEN) continue;
        const frames = await received(c);
        expect(frames).toEqual(on.includes(c) ? sent : []);
        list.push(...frames);
      }
      expect([messages(s, A.id), messages(s, B.id)]).toEqual(counts);
      if (on.length) expect(shared(s, TOPIC)).toBe(isShared);
      else expect(s.endpoint.sink.has(TOPIC)).toBe(false);
    };

    await subscribed(a1);
    await step(2, [a1], [2, 0], false);
    await subscribed(b);
    await step(3, [a1, b], [2 + 3, 3], true);
    await subscribed(a2);
    await step(4, [a1, b, a2], [5 + 8, 3 + 4], true);
    a1.unsubscribe('pool_trades', { pool_address: POOL });
    expect(await a1.untilPong()).toEqual([]);
    await step(5, [b, a2], [13 + 5, 7 + 5], true);
    // B's only connection goes by closing its socket: what it was sent is counted, nothing after.
    b.close();
    await b.closed;
    await step(6, [a2], [18 + 6, 12], false);
    a2.unsubscribe('pool_trades', { pool_address: POOL });
    expect(await a2.untilPong()).toEqual([]);
    await step(7, [], [24, 12], false);

    expect(got.get(a1)!.length).toBe(2 + 3 + 4);
    expect(got.get(b)!.length).toBe(3 + 4 + 5);
    expect(got.get(a2)!.length).toBe(4 + 5 + 6);
    expect(messages(s, A.id)).toBe(got.get(a1)!.length + got.get(a2)!.length);
    await closeAll(a1, a2);
  });

  it('overlapping pool_metrics subscriptions keep their references while the channel becomes shared and inline again', async () => {
    const s = (srv = await startWsServer());
    const A = await account(s);
    const B = await account(s);
    const a = await A.connect();
    const b = await B.connect();
    const topic = `pool_metrics:${POOL}`;
    const frame = (n: number) => s.endpoint.sink.publish(topic, `{"stream":"pool_metrics","data":{"n":${n}}}`);

    // a names POOL twice: {POOL, POOL2} and {POOL}.
    await subscribed(a, { pool_addresses: [POOL, POOL2] }, 'pool_metrics');
    await subscribed(a, { pool_addresses: [POOL] }, 'pool_metrics');
    await subscribed(b, { pool_addresses: [POOL] }, 'pool_metrics');
    expect(shared(s, topic)).toBe(true);
    // One of a's two references goes: a stays on the channel.
    a.unsubscribe('pool_metrics', { pool_addresses: [POOL2, POOL] });
    expect(await a.untilPong()).toEqual([]);
    frame(1);
    expect(await received(a)).toEqual([1]);
    expect(await received(b)).toEqual([1]);
    expect(s.endpoint.sink.has(`pool_metrics:${POOL2}`)).toBe(false);

    // b leaves: a alone again, still with its one reference.
    b.unsubscribe('pool_metrics', { pool_addresses: [POOL] });
    expect(await b.untilPong()).toEqual([]);
    expect(shared(s, topic)).toBe(false);
    frame(2);
    expect(await received(a)).toEqual([2]);
    expect(await received(b)).toEqual([]);
    // b comes back and a takes a second reference while shared; then b goes again.
    await subscribed(b, { pool_addresses: [POOL] }, 'pool_metrics');
    await subscribed(a, { pool_addresses: [POOL, POOL2] }, 'pool_metrics');
    b.unsubscribe('pool_metrics', { pool_addresses: [POOL] });
    expect(await b.untilPong()).toEqual([]);
    a.unsubscribe('pool_metrics', { pool_addresses: [POOL] });
    expect(await a.untilPong()).toEqual([]);
    frame(3);
    expect(await received(a)).toEqual([3]);
    a.unsubscribe('pool_metrics', { pool_addresses: [POOL, POOL2] });
    expect(await a.untilPong()).toEqual([]);
    expect(s.endpoint.sink.has(topic)).toBe(false);
    expect([messages(s, A.id), messages(s, B.id)]).toEqual([3, 1]);
    await closeAll(a, b);
  });

  it('candles channels of one series come and go in any order: each frame built once per channel on it', async () => {
    const s = (srv = await startWsServer());
    const A = await account(s);
    const [x, plain, y, plain2] = [await A.connect(), await A.connect(), await A.connect(), await A.connect()];
    const series = `candles:${POOL}:1m:price:usd`;
    const built = () => s.metric('mds_ws_frames_published_total', { stream: 'candles' });
    /** Publishes frame n; returns how many frames were built for it, and what each client got (its subscription_id, or '' without). */
    const candle = async (n: number) => {
      const before = await built();
      s.endpoint.sink.publish(series, `${CANDLES_FRAME_PREFIX}"pool_address":"${POOL}","seq":${n},"candles":[]}}`);
      const ids: string[][] = [];
      for (const c of [x, plain, y, plain2]) ids.push((await c.untilPong()).map((m) => `${m.data.subscription_id ?? ''}@${m.data.seq}`));
      return { frames: (await built()) - before, ids };
    };
    const sub = (c: TestClient, id?: string) => subscribed(c, { pool_address: POOL, ...(id ? { subscription_id: id } : {}) }, 'candles');
    const unsub = async (c: TestClient, id?: string) => {
      c.unsubscribe('candles', { pool_address: POOL, ...(id ? { subscription_id: id } : {}) });
      expect(await c.untilPong()).toEqual([]);
    };

    // An id channel first, then the channel without an id (found behind it), a second id, a second plain subscriber.
    await sub(x, 'x');
    await sub(plain);
    await sub(y, 'y');
    await sub(plain2);
    expect(await candle(1)).toEqual({ frames: 3, ids: [['x@1'], ['@1'], ['y@1'], ['@1']] });
    await unsub(x, 'x'); // the topic's first channel
    expect(await candle(2)).toEqual({ frames: 2, ids: [[], ['@2'], ['y@2'], ['@2']] });
    await unsub(y, 'y'); // its last
    expect(await candle(3)).toEqual({ frames: 1, ids: [[], ['@3'], [], ['@3']] });
    await sub(x, 'x');
    await unsub(plain);
    await unsub(plain2);
    expect(await candle(4)).toEqual({ frames: 1, ids: [['x@4'], [], [], []] });
    await unsub(x, 'x');
    expect(s.endpoint.sink.has(series)).toBe(false);
    expect(await candle(5)).toEqual({ frames: 0, ids: [[], [], [], []] });
    await sub(plain);
    expect(s.endpoint.sink.has(series)).toBe(true);
    expect(await candle(6)).toEqual({ frames: 1, ids: [[], ['@6'], [], []] });
    await closeAll(x, plain, y, plain2);
  });
});

describe('frames of a channel held alone and of a shared one', () => {
  it('reach a connection in publish order, also while the shared one turns alone and back', async () => {
    const s = (srv = await startWsServer());
    const A = await account(s);
    const a = await A.connect();
    const b = await (await account(s)).connect();
    const TOPIC2 = `pool_trades:${POOL2}`;
    await subscribed(a);
    await subscribed(a, { pool_address: POOL2 });
    await subscribed(b, { pool_address: POOL2 });
    expect([uwsSubscribers(s, TOPIC), uwsSubscribers(s, TOPIC2)]).toEqual([0, 2]);

    // One turn: frames of the shared channel wait in uWS's topic queue until it drains
    // at the turn's end; the frames sent on the other must not pass them.
    const order: number[] = [];
    for (let i = 0; i < 40; i++) order.push(...publish(s, 1, i % 3 === 0 ? TOPIC : TOPIC2));
    const onShared = order.filter((_, i) => i % 3 !== 0);
    expect(await received(a)).toEqual(order);
    expect(await received(b)).toEqual(onShared);

    // b leaves: a has both alone.
    const before = publish(s, 5, TOPIC2);
    b.unsubscribe('pool_trades', { pool_address: POOL2 });
    expect(await received(b)).toEqual(before);
    expect([uwsSubscribers(s, TOPIC), uwsSubscribers(s, TOPIC2)]).toEqual([0, 0]);
    const alone: number[] = [];
    for (let i = 0; i < 20; i++) alone.push(...publish(s, 1, i % 2 ? TOPIC : TOPIC2));
    expect(await received(a)).toEqual([...before, ...alone]);
    expect(messages(s, A.id)).toBe(order.length + before.length + alone.length);
    await closeAll(a, b);
  });
});

describe('a slow consumer on a shared channel', () => {
  const PAD = 'x'.repeat(1_000);
  /** Published at most: bounds the test if the server never found the slow consumer. */
  const FRAMES_MAX = 100_000;

  it('is found and closed with 4008 while the other keeps receiving; the channel goes back to one connection', async () => {
    const s = (srv = await startWsServer({ config: { ws: { backpressureBytes: 262_144, stalledGraceMs: 60_000 } } }));
    const S = await account(s);
    const F = await account(s);
    const slow = await S.connect();
    const fast = await F.connect();
    await subscribed(slow);
    // Only the slow client listens on the canary: that topic goes when its streams stop.
    await subscribed(slow, { pool_address: CANARY });
    await subscribed(fast);
    expect(shared(s, TOPIC)).toBe(true);
    let n = 0;
    const frame = () => `{"stream":"pool_trades","data":{"n":${n++},"pad":"${PAD}"}}`;
    for (let i = 0; i < 10; i++) s.endpoint.sink.publish(TOPIC, frame());
    expect((await slow.untilPong()).length).toBe(10);
    expect((await fast.untilPong()).length).toBe(10);

    let fastNext = 10;
    let outOfOrder = 0;
    fast.ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.stream === undefined) return;
      if (m.data.n !== fastNext) outOfOrder++;
      fastNext = m.data.n + 1;
    });
    (slow.ws as any)._socket.pause();
    // 200 frames per event-loop turn until the hub stops the slow client's streams.
    while (s.endpoint.sink.has(`pool_trades:${CANARY}`) && n < FRAMES_MAX) {
      for (let i = 0; i < 200; i++) s.endpoint.sink.publish(TOPIC, frame());
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const published = n;
    expect(published).toBeLessThan(FRAMES_MAX);
    expect(s.endpoint.sink.has(TOPIC)).toBe(true);
    expect(shared(s, TOPIC)).toBe(false);
    for (let i = 0; i < 500; i++) s.endpoint.sink.publish(TOPIC, frame());
    for (let i = 0; i < 1_000 && fastNext < n; i++) await fast.untilPong();
    expect(fastNext).toBe(n);
    expect(outOfOrder).toBe(0);
    // Each account counted for exactly what was published while it was on the channel.
    expect(messages(s, S.id)).toBe(published);
    expect(messages(s, F.id)).toBe(n);

    (slow.ws as any)._socket.resume();
    expect(await slow.closed).toEqual({ code: 4008, reason: 'slow consumer' });
    const got = slow.messages.filter((m) => m.stream === 'pool_trades').map((m) => m.data.n as number);
    // A gap-free prefix of what followed the first 10 frames.
    expect(got.every((k, i) => k === 10 + i)).toBe(true);
    expect(10 + got.length).toBeLessThanOrEqual(published);
    fast.unsubscribe('pool_trades', { pool_address: POOL });
    await fast.untilPong();
    expect(s.endpoint.sink.has(TOPIC)).toBe(false);
    fast.close();
    await fast.closed;
  });
});

describe('a shared channel, past the hard cap within one turn', () => {
  it('every connection uWS drops frames for is cut after a gap-free prefix (4008); none sees a gap', async () => {
    const s = (srv = await startWsServer({ config: { ws: { backpressureBytes: 65_536, backpressureHardBytes: 131_072, stalledGraceMs: 60_000 } } }));
    const slow = await (await account(s)).connect();
    const other = await (await account(s)).connect();
    await subscribed(slow);
    await subscribed(other);
    expect(uwsSubscribers(s, TOPIC)).toBe(2);
    const numbers = (c: TestClient) => c.messages.filter((m) => m.stream === 'pool_trades').map((m) => m.data.n as number);
    const pad = 'x'.repeat(1_000);
    (slow.ws as any)._socket.pause();
    // One synchronous run: ~8 MB on the uWS topic, drained into both sockets after it.
    // The paused one passes the hard cap (131,072 B) once the kernel's buffers are full
    // (a few MB on loopback) and uWS drops its frames from there; the one reading may
    // pass it too (the burst is far over the cap): either way, no gap.
    const N = 8_000;
    for (let n = 0; n < N; n++) s.endpoint.sink.publish(TOPIC, `{"stream":"pool_trades","data":{"n":${n},"pad":"${pad}"}}`);
    (slow.ws as any)._socket.resume();
    expect(await slow.closed).toEqual({ code: 4008, reason: 'slow consumer' });
    const got = numbers(slow);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
    expect(got.length).toBeLessThan(N);
    // The other: every frame, or a gap-free prefix and 4008 (whichever comes first: its last frame or its close).
    const closed = await other.until((c) => c !== null || other.messages.at(-1)?.data?.n === N - 1);
    const otherGot = numbers(other);
    expect(otherGot).toEqual(Array.from({ length: otherGot.length }, (_, i) => i));
    if (closed) expect([closed, otherGot.length < N]).toEqual([{ code: 4008, reason: 'slow consumer' }, true]);
    else expect(otherGot.length).toBe(N);
    await closeAll(other);
  });
});

describe('a slow consumer on a channel it has alone (frames sent to its socket, no uWS topic)', () => {
  const PAD = 'x'.repeat(1_000);
  const FRAMES_MAX = 100_000;
  const frameOf = (n: number) => `{"stream":"pool_trades","data":{"n":${n},"pad":"${PAD}"}}`;
  const numbers = (c: TestClient) => c.messages.filter((m) => m.stream === 'pool_trades').map((m) => m.data.n as number);

  it("past the soft limit: its streams stop at the turn's end; it gets every frame sent, then 4008", async () => {
    const s = (srv = await startWsServer({ config: { ws: { backpressureBytes: 262_144, stalledGraceMs: 60_000 } } }));
    const S = await account(s);
    const slow = await S.connect();
    await subscribed(slow);
    expect(uwsSubscribers(s, TOPIC)).toBe(0);
    (slow.ws as any)._socket.pause();
    let n = 0;
    // 100 frames (~100 KB) per event-loop turn until the hub stops its streams.
    while (s.endpoint.sink.has(TOPIC) && n < FRAMES_MAX) {
      for (let i = 0; i < 100; i++) s.endpoint.sink.publish(TOPIC, frameOf(n++));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(n).toBeLessThan(FRAMES_MAX);
    expect(messages(s, S.id)).toBe(n);
    (slow.ws as any)._socket.resume();
    expect(await slow.closed).toEqual({ code: 4008, reason: 'slow consumer' });
    expect(numbers(slow)).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('past the hard cap within one turn: the frame uWS drops ends its streams at once; it gets every frame before it, then 4008', async () => {
    const s = (srv = await startWsServer({ config: { ws: { backpressureBytes: 65_536, backpressureHardBytes: 131_072, stalledGraceMs: 60_000 } } }));
    const S = await account(s);
    const slow = await S.connect();
    await subscribed(slow);
    (slow.ws as any)._socket.pause();
    // One synchronous run, no hub turn: once the kernel's buffers are full, past the
    // hard cap within a few hundred frames.
    let n = 0;
    for (; n < FRAMES_MAX && s.endpoint.sink.has(TOPIC); n++) s.endpoint.sink.publish(TOPIC, frameOf(n));
    expect(s.endpoint.sink.has(TOPIC)).toBe(false);
    expect(n).toBeLessThan(FRAMES_MAX);
    (slow.ws as any)._socket.resume();
    expect(await slow.closed).toEqual({ code: 4008, reason: 'slow consumer' });
    const got = numbers(slow);
    // A gap-free prefix, each frame of it counted. The dropped frame ends the outbox
    // write it was in (OUTBOX_BYTES, written once full): what followed it there was
    // never written, and nothing was published after that write.
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
    expect(got.length).toBeLessThan(n);
    expect(n - got.length).toBeLessThanOrEqual(Math.ceil(OUTBOX_BYTES / frameOf(0).length));
    expect(messages(s, S.id)).toBe(got.length);
  });

  it('frames published in the turn that closes the connection (4402) reach it before the close frame', async () => {
    const s = (srv = await startWsServer());
    const { id, key } = await s.key('pro', s.clock.now() + 1_000);
    const c = await TestClient.connect(s.url, { key });
    await subscribed(c);
    s.clock.increment(1_000 + GRACE_MS + 1);
    // One synchronous run: the frames wait in the connection's outbox when the sweep closes it.
    const sent = publish(s, 5);
    s.limits.sweep();
    expect(await c.closed).toEqual({ code: 4402, reason: 'the plan in force is free: streams need a paid plan' });
    expect(numbers(c)).toEqual(sent);
    expect(messages(s, id)).toBe(5);
  });
});
