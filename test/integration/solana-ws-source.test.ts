import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../engine/log.ts';
import { PROGRAMS, SolanaDecoder } from '../../engine/sources/solana/decode.ts';
import { solanaWsSource } from '../../engine/sources/solana/ws-source.ts';
import { untilApplied, useTempEngine } from '../helpers/engine-server.ts';
import { FakeRpc, TXS } from '../helpers/solana-rpc.ts';
import { TestClient } from '../helpers/ws.ts';
import { listeningPort } from '../helpers/serve-child.ts';

const MDS = fileURLToPath(new URL('../../bin/mds.js', import.meta.url));

/**
 * `solana-ws:` against a real RPC on loopback: a WebSocket server answering
 * logsSubscribe and sending logsNotification, and the HTTP JSON-RPC answering
 * getTransaction with the recorded fixtures (one 429 first, one null first). The
 * server is killed and started again on its port mid-stream.
 */

const temp = useTempEngine();

let rpc: FakeRpc | null = null;
afterEach(async () => {
  await rpc?.stop().catch(() => undefined);
  rpc = null;
});


describe('solana-ws source', () => {
  it('subscribes to both programs, fetches each announced transaction once, retries a 429 and a not-yet; a server restart (transactions announced while it is down) loses and duplicates nothing', async () => {
    rpc = new FakeRpc();
    await rpc.start();
    const engine = await temp.open();
    const expected = TXS.flatMap((t) => [...new SolanaDecoder().decodeValue(t.record)].flatMap((d) => d.events));
    rpc.limited.add(TXS[0]!.signature);
    rpc.notYet.set(TXS[1]!.signature, 1);
    const source = solanaWsSource({ url: `ws://127.0.0.1:${rpc.port}`, log: silentLogger(), backoffMinMs: 5, backoffMaxMs: 50, concurrency: 3 });
    const running = engine.runSource(source);
    await rpc.untilSubscribed();
    expect(rpc.live().map((s) => s.program).sort()).toEqual([...PROGRAMS].sort());
    const half = Math.floor(TXS.length / 2);
    for (let i = 0; i < half; i++) rpc.notify(i);
    const firstHalf = TXS.slice(0, half).flatMap((t) => [...new SolanaDecoder().decodeValue(t.record)].flatMap((d) => d.events)).length;
    await untilApplied(engine, firstHalf);
    expect(engine.query.status().sourceState).toMatchObject({ connected: true, reconnects: 0, rate_limited: 1, failed: 0 });

    // The server dies and comes back on its port, the chain going on meanwhile (two
    // transactions while it is down); the source reconnects, resubscribes and repairs the gap.
    const port = rpc.port;
    const history = rpc.history;
    await rpc.stop();
    rpc = new FakeRpc();
    rpc.history = history;
    rpc.notify(half);
    rpc.notify(half + 1);
    await rpc.start(port);
    await rpc.untilSubscribed();
    rpc.notify(0); // announced again after the restart: not fetched again
    for (let i = half + 2; i < TXS.length; i++) rpc.notify(i);
    await untilApplied(engine, expected.length);
    expect(rpc.requests).not.toContain(TXS[0]!.signature);
    expect(new Set(rpc.requests).size).toBe(rpc.requests.length);

    const status = engine.query.status();
    expect(status).toMatchObject({ ingested: expected.length, deadLetters: 0, source: `solana-ws:ws://127.0.0.1:${port}` });
    expect(status.sourceState).toMatchObject({ connected: true, fetched: TXS.length, failed: 0, pending: 0, last_slot: Math.max(...TXS.map((t) => t.slot)) });
    expect((status.sourceState as any).reconnects).toBeGreaterThanOrEqual(1);
    await engine.stop();
    await running;
  });

  it('a signature the RPC never returns goes to dead letters with the reason after its attempts', async () => {
    rpc = new FakeRpc();
    await rpc.start();
    const engine = await temp.open();
    const source = solanaWsSource({ url: `ws://127.0.0.1:${rpc.port}`, log: silentLogger(), backoffMinMs: 1, backoffMaxMs: 5, attempts: 3 });
    // The engine's gate as the sink, with its dead letters awaited.
    const gate = engine.gate;
    let lettered!: () => void;
    const letter = new Promise<void>((resolve) => (lettered = resolve));
    const sink = {
      submit: gate.submit.bind(gate), submitLine: gate.submitLine.bind(gate), submitParsed: gate.submitParsed.bind(gate),
      writable: () => gate.writable(), flush: () => gate.flush(),
      deadLetter(stage: string, reason: string, raw: unknown, origin: string) {
        const written = gate.deadLetter(stage, reason, raw, origin);
        lettered();
        return written;
      },
    };
    const abort = new AbortController();
    const running = source.run(sink, abort.signal);
    await rpc.untilSubscribed();
    rpc.notYet.set(TXS[2]!.signature, 3);
    rpc.notify(2);
    await letter;
    await gate.flush();
    const letters = [...engine.storage.deadLetters.getRange()].map((e) => e.value as any);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ reason: 'getTransaction gave nothing after 3 attempts' });
    expect(letters[0].raw).toContain(TXS[2]!.signature);
    expect(rpc.requests.filter((s) => s === TXS[2]!.signature)).toHaveLength(3);
    expect(source.state()).toMatchObject({ failed: 1, fetched: 0, pending: 0 });
    abort.abort();
    await running;
  });
});

describe('solana-ws source, gap repair', () => {
  it('transactions announced while disconnected are fetched after the reconnect (getSignaturesForAddress, paged, failed ones skipped): each applied exactly once', async () => {
    rpc = new FakeRpc();
    await rpc.start();
    const engine = await temp.open();
    const eventsOf = (from: number, to: number) => TXS.slice(from, to).flatMap((t) => [...new SolanaDecoder().decodeValue(t.record)].flatMap((d) => d.events)).length;
    // Pages of 2 signatures: the 7 pump.fun transactions of the gap and a failed one take 4 full pages and an empty one.
    const source = solanaWsSource({ url: `ws://127.0.0.1:${rpc.port}`, log: silentLogger(), backoffMinMs: 5, backoffMaxMs: 50, backfillPageSize: 2 });
    const running = engine.runSource(source);
    await rpc.untilSubscribed();
    const before = 4; // pump.fun transactions only: PumpSwap has no last signature, its gap is bounded by the slot
    for (let i = 0; i < before; i++) rpc.notify(i);
    await untilApplied(engine, eventsOf(0, before));
    expect(rpc.signatureRequests).toEqual([]); // the first connection repairs nothing

    // The connection drops and the server refuses new ones while the chain goes on.
    rpc.refuse = true;
    const subscriptions = rpc.subscriptions.length;
    for (const s of rpc.live()) s.socket.terminate();
    rpc.notify(before);
    rpc.fail('1111111111111111111111111111111111111111111111111111111111111111111111111111111111111111', TXS[before]!.slot, PROGRAMS[0]!);
    for (let i = before + 1; i < TXS.length; i++) rpc.notify(i);
    expect(rpc.live()).toEqual([]);
    rpc.limitedPages = 1; // the first page is rate-limited once: retried
    rpc.refuse = false;
    await rpc.untilSubscriptions(subscriptions + PROGRAMS.length);

    await untilApplied(engine, eventsOf(0, TXS.length));
    await engine.stop();
    await running;
    const status = engine.query.status();
    expect(status).toMatchObject({ ingested: eventsOf(0, TXS.length), deadLetters: 0 });
    // Every transaction fetched once, the failed one never.
    expect([...rpc.requests].sort()).toEqual(TXS.map((t) => t.signature).sort());
    expect(status.sourceState).toMatchObject({ fetched: TXS.length, failed: 0, rate_limited: 1, backfills: 1, backfilled: TXS.length - before });
    // pump.fun from its last signature (asked twice: the 429), paged back with before; PumpSwap from the slot.
    const pump = rpc.signatureRequests.filter((r) => r.program === PROGRAMS[0]);
    expect(pump.map((r) => r.config)).toEqual([
      { until: TXS[before - 1]!.signature, limit: 2, commitment: 'confirmed' },
      { until: TXS[before - 1]!.signature, limit: 2, commitment: 'confirmed' },
      ...[1, 2, 3, 4].map(() => expect.objectContaining({ until: TXS[before - 1]!.signature, before: expect.any(String), limit: 2 })),
    ]);
    const swap = rpc.signatureRequests.filter((r) => r.program === PROGRAMS[1]);
    expect(swap.map((r) => r.config)).toEqual([{ limit: 2, commitment: 'confirmed' }]);
  });

  it('a gap larger than backfillMaxPages is repaired from its newest end and logged as such', async () => {
    rpc = new FakeRpc();
    await rpc.start();
    const engine = await temp.open();
    const eventsOf = (from: number, to: number) => TXS.slice(from, to).flatMap((t) => [...new SolanaDecoder().decodeValue(t.record)].flatMap((d) => d.events)).length;
    const logs: any[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    const source = solanaWsSource({ url: `ws://127.0.0.1:${rpc.port}`, log, backoffMinMs: 5, backoffMaxMs: 50, backfillPageSize: 2, backfillMaxPages: 2 });
    const running = engine.runSource(source);
    await rpc.untilSubscribed();
    const before = 4;
    for (let i = 0; i < before; i++) rpc.notify(i);
    await untilApplied(engine, eventsOf(0, before));
    rpc.refuse = true;
    const subscriptions = rpc.subscriptions.length;
    for (const s of rpc.live()) s.socket.terminate();
    for (let i = before; i < TXS.length; i++) rpc.notify(i); // 7 pump.fun transactions, then the PumpSwap one
    rpc.refuse = false;
    await rpc.untilSubscriptions(subscriptions + PROGRAMS.length);
    // Two pages of pump.fun: its newest 4 (7..10); PumpSwap's one (11).
    await untilApplied(engine, eventsOf(0, before) + eventsOf(TXS.length - 5, TXS.length));
    await engine.stop();
    await running;
    expect([...rpc.requests].sort()).toEqual([...TXS.slice(0, before), ...TXS.slice(TXS.length - 5)].map((t) => t.signature).sort());
    expect(engine.query.status()).toMatchObject({ ingested: eventsOf(0, before) + eventsOf(TXS.length - 5, TXS.length), deadLetters: 0 });
    const warning = logs.find((l) => l.msg.startsWith('gap repair: stopped at 2 pages of 2 signatures'));
    expect(warning).toMatchObject({ level: 50, program: PROGRAMS[0], until: TXS[before - 1]!.signature, pages: 2, signatures: 4 });
  });
});

describe('solana-ws source, stopped with fetches in flight and queued', () => {
  it('resolves its run (the engine stops) though signatures wait in its queue', async () => {
    rpc = new FakeRpc();
    rpc.holdAnswers = true;
    await rpc.start();
    const engine = await temp.open();
    const source = solanaWsSource({ url: `ws://127.0.0.1:${rpc.port}`, log: silentLogger(), concurrency: 1 });
    const running = engine.runSource(source);
    await rpc.untilSubscribed();
    const asked = new Promise<void>((resolve) => (rpc!.requested = resolve));
    for (let i = 0; i < 3; i++) rpc.notify(i);
    await asked;
    expect(source.state().pending).toBe(3); // one in flight, two queued
    await engine.stop();
    await running;
    expect(rpc.requests).toHaveLength(1);
  });
});

describe('mds serve --source solana-ws:', () => {
  it('serves the trades of the announced transactions over HTTP and WS; /health shows the source connected', async () => {
    rpc = new FakeRpc();
    await rpc.start();
    const dir = temp.dir.path;
    const key = spawnSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'pro', '--data', dir], { encoding: 'utf8' }).stdout.trim();
    const server = spawn(process.execPath, [MDS, 'serve', '--data', dir, '--port', '0', '--clock', 'event', '--source', `solana-ws:ws://127.0.0.1:${rpc.port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const port = await listeningPort(server);
      const base = `http://127.0.0.1:${port}`;
      const headers = { authorization: `Bearer ${key}` };
      await rpc.untilSubscribed();
      // A WS client on a token launched by one of the transactions (pumpfun_create_0), before they are announced.
      const create = TXS.find((t) => t.signature.startsWith('2s393PSY'))!;
      const mint = '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump';
      const curve = 'CQrqvWERJtEjw2rCCQV6EqfM6V6jzTuKjhJjKNFmGB7r';
      const client = await TestClient.connect(`ws://127.0.0.1:${port}/ws`, { key });
      client.subscribe('token_trades', { token_address: mint });
      await client.untilPong();
      for (let i = 0; i < TXS.length; i++) rpc.notify(i);
      const frame = await client.next();
      expect(frame).toMatchObject({ stream: 'token_trades', data: { pool_address: curve, token_address: mint, tx_hash: create.signature, type: 'buy' } });
      client.close();
      await client.closed;
      const expected = TXS.flatMap((t) => [...new SolanaDecoder().decodeValue(t.record)].flatMap((d) => d.events)).length;
      // Each answer of /health is awaited before the next is asked: no timer.
      let health: any;
      do health = (await (await fetch(`${base}/health`)).json()).data;
      while (health.ingested < expected);
      expect(health).toMatchObject({ ingested: expected, dead_letters: 0, source: `solana-ws:ws://127.0.0.1:${rpc.port}`, source_done: null });
      expect(health.source_state).toMatchObject({ connected: true, reconnects: 0, fetched: TXS.length, failed: 0, pending: 0 });
      // /metrics counts them too.
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('mds_source_state{field="connected"} 1');
      expect(metrics).toContain(`mds_source_state{field="fetched"} ${TXS.length}`);
      expect(metrics).toContain('mds_source_state{field="reconnects"} 0');
      // Over HTTP: the curve and its trade (the trade lists cover 30 days back from the
      // event clock, the newest fixture's time: this 2024 trade shows in the pool's totals).
      const pool = await (await fetch(`${base}/v1/pools/${curve}`, { headers })).json();
      expect(pool.data.pool).toMatchObject({ pool_address: curve, base_address: mint, dex: 'pumpfun', pool_type: 'bonding_curve' });
      expect(pool.data.lifecycle).toBe('curve');
      expect(pool.data.totals).toMatchObject({ trade_count: 1 });
      const token = await (await fetch(`${base}/v1/tokens/${mint}`, { headers })).json();
      expect(token.data.token).toMatchObject({ symbol: 'MOODOG', name: 'MOO DOG', migrated: false });
      const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
  });
});

describe('solana-ws source, a stalled connection', () => {
  it('a WebSocket that stops answering pings is ended and opened again; announcements go on', async () => {
    rpc = new FakeRpc();
    await rpc.start();
    const engine = await temp.open();
    const source = solanaWsSource({ url: `ws://127.0.0.1:${rpc.port}`, log: silentLogger(), backoffMinMs: 1, backoffMaxMs: 5, pingMs: 40 });
    const running = engine.runSource(source);
    await rpc.untilSubscribed();
    const first = rpc.live();
    // The server stops reading its sockets: no pong comes back, nothing is closed.
    for (const s of first) (s.socket as any)._socket.pause();
    await rpc.untilSubscriptions(2 * PROGRAMS.length);
    const second = rpc.subscriptions.slice(PROGRAMS.length);
    expect(second.every((s) => first.every((f) => f.socket !== s.socket))).toBe(true);
    for (const s of first) s.socket.terminate();
    rpc.notify(0);
    const events = [...new SolanaDecoder().decodeValue(TXS[0]!.record)].flatMap((d) => d.events).length;
    await untilApplied(engine, events);
    expect(engine.query.status().sourceState).toMatchObject({ connected: true, fetched: 1 });
    expect((engine.query.status().sourceState as any).reconnects).toBeGreaterThanOrEqual(1);
    await engine.stop();
    await running;
  });
});
