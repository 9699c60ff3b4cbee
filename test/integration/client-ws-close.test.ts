import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MdsError } from '../../transport/client/http.ts';
import { nodeSockets } from '../../transport/client/node.ts';
import { closeOutcome, MdsSocket, type SocketFactory, type WebSocketLike } from '../../transport/client/ws.ts';
import { testTimers, when } from '../helpers/client.ts';
import { base58, rng } from '../helpers/fixtures.ts';
import { startWsServer, type WsTestServer } from '../helpers/ws.ts';

/**
 * The SDK socket's close codes, auth by frame, and keep-alive against a real /ws
 * (SERVICE.md 7.2): 4401 and 4402 stop and end the subscriptions with an MdsError,
 * 4408 reconnects at once, 4429 backs off longer, a ping unanswered one interval later
 * closes and reconnects. Timers are the test's: nothing waits on the wall clock but the
 * server's own auth deadline, set to 20 ms here.
 */

const POOL = base58(rng(2627), 44);
let srv: WsTestServer;
const sockets: MdsSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await srv?.close();
});



function open(key: string | undefined, clock: ReturnType<typeof testTimers>, connect: SocketFactory = nodeSockets): MdsSocket {
  const socket = new MdsSocket({ url: srv.url, key, connect, timers: clock.timers });
  sockets.push(socket);
  return socket;
}

describe('client SDK socket: close codes and keep-alive', () => {
  it('maps every close code of SERVICE.md 7.2 and DECISIONS.md to an outcome', () => {
    expect([4401, 4402, 4400].map(closeOutcome)).toEqual(['stop', 'stop', 'stop']);
    expect([4429, 4008].map(closeOutcome)).toEqual(['backoff', 'backoff']);
    expect(closeOutcome(4408)).toBe('reauth');
    expect([1001, 1006, 1011, 4000].map(closeOutcome)).toEqual(['reconnect', 'reconnect', 'reconnect', 'reconnect']);
  });

  it.each([
    ['an invalid key', 4401, async () => 'not-a-key'],
    ['a Free key', 4402, async () => (await srv.key('free')).key],
  ])('%s: closed %i, no reconnect, the subscription ends with an MdsError of that code', async (_, code, key) => {
    srv = await startWsServer();
    const clock = testTimers();
    const socket = open(await key(), clock);
    const closed = when(socket, (e) => e.type === 'close');
    const trades = socket.poolTrades(POOL)[Symbol.asyncIterator]();
    const error = await trades.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MdsError);
    expect(error).toMatchObject({ code });
    expect(await closed).toMatchObject({ code, outcome: 'stop', delayMs: null });
    expect(clock.due).toHaveLength(0);
  });

  it('4408 (no auth in time): reconnects at once and authenticates; by frame when the socket cannot send the header', async () => {
    srv = await startWsServer({ config: { ws: { authTimeoutMs: 20 } } });
    const { key } = await srv.key('pro');
    const clock = testTimers();
    let attempts = 0;
    // The first connection says the header went, but sends none (a proxy that strips it);
    // later ones authenticate by frame, as a browser does.
    const connect: SocketFactory = (url) => ({ socket: new WebSocket(url) as unknown as WebSocketLike, headerAuth: attempts++ === 0 });
    const socket = open(key, clock, connect);
    const closed = await when(socket, (e) => e.type === 'close');
    expect(closed).toMatchObject({ code: 4408, outcome: 'reauth', delayMs: 0 });
    const ready = when(socket, (e) => e.type === 'ready');
    await clock.fire();
    expect(await ready).toEqual({ type: 'ready', reconnect: true });
    await socket.sync();
  });

  it('4429 (connection limit of the plan): backs off longer, then gets in once a connection is free', async () => {
    srv = await startWsServer();
    const { key } = await srv.key('starter');
    const clock = testTimers();
    const [a, b] = [open(key, clock), open(key, clock)];
    await Promise.all([a, b].map((s) => when(s, (e) => e.type === 'ready')));
    const c = open(key, clock);
    expect(await when(c, (e) => e.type === 'close')).toMatchObject({ code: 4429, outcome: 'backoff', delayMs: 7_500 });
    a.close();
    // The server releases the slot when it sees the close; c's next try may come first and back off again.
    for (;;) {
      const next = when(c, (e) => e.type === 'ready' || e.type === 'close');
      await clock.fire();
      const e = await next;
      if (e.type === 'ready') break;
      expect(e).toMatchObject({ code: 4429, outcome: 'backoff' });
    }
  });

  it('pings on its interval; a ping still unanswered at the next interval closes the connection and reconnects', async () => {
    srv = await startWsServer();
    const { key } = await srv.key('pro');
    const clock = testTimers();
    let swallowPings = false;
    const connect: SocketFactory = (url, k) => {
      const opened = nodeSockets(url, k);
      const send = opened.socket.send.bind(opened.socket);
      opened.socket.send = (data) => (swallowPings && data === '{"type":"ping"}' ? undefined : send(data));
      return opened;
    };
    const socket = open(key, clock, connect);
    await when(socket, (e) => e.type === 'ready');
    expect(clock.intervals).toHaveLength(1);
    // Answered: the next tick finds nothing outstanding.
    clock.intervals[0]!();
    await socket.sync();
    clock.intervals[0]!();
    await socket.sync();
    swallowPings = true;
    const closed = when(socket, (e) => e.type === 'close');
    clock.intervals[0]!();
    clock.intervals[0]!();
    expect(await closed).toMatchObject({ code: 4000, outcome: 'reconnect' });
    swallowPings = false;
    const ready = when(socket, (e) => e.type === 'ready');
    await clock.fire();
    await ready;
  });
});
