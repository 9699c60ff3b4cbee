import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { SubscribeUpdate, type SubscribeRequest } from '@triton-one/yellowstone-grpc';
import { silentLogger } from '../../engine/log.ts';
import { PROGRAMS, SolanaDecoder } from '../../engine/sources/solana/decode.ts';
import { GEYSER_SERVICE, yellowstoneSource } from '../../engine/sources/solana/yellowstone-source.ts';
import { untilApplied, useTempEngine } from '../helpers/engine-server.ts';
import { PYTH_SOL_USD_ACCOUNT, PYTH_SOL_USD_FEED } from '../../engine/sources/solana/pyth.ts';
import { listeningPort } from '../helpers/serve-child.ts';
import { priceUpdateV2, readFixture, referenceTransactions, toYellowstone } from '../helpers/solana.ts';
import { TestClient } from '../helpers/ws.ts';

const MDS = fileURLToPath(new URL('../../bin/mds.js', import.meta.url));

/**
 * `yellowstone:` against a real gRPC server on loopback implementing the Geyser
 * Subscribe service (the published protos' messages): it replays the recorded
 * transactions as SubscribeUpdates in slot order from the request's fromSlot, answers
 * pings, and is killed and started again on its port mid-stream.
 */

const temp = useTempEngine();
/** The json-encoded fixtures (jeffro/) as updates, in slot order; their block index made up. */
const UPDATES = referenceTransactions()
  .filter((t) => t.local.startsWith('jeffro/'))
  .map((t) => (readFixture(t.local) as any[])[0])
  .sort((a, b) => a.slot - b.slot)
  .map((rpc, i) => {
    const update = toYellowstone(rpc, i) as any;
    return { slot: rpc.slot as number, rpc, message: SubscribeUpdate.fromPartial({ ...update, createdAt: new Date(rpc.blockTime * 1000 + 400) }) };
  });
const EVENTS = UPDATES.map((u) => [...new SolanaDecoder().decodeValue(toYellowstone(u.rpc, 0))].flatMap((d) => d.events).length);
const TOTAL = EVENTS.reduce((a, b) => a + b, 0);

class FakeGeyser {
  server = new grpc.Server();
  port = 0;
  readonly requests: SubscribeRequest[] = [];
  /** Updates sent before the server stops sending (it then waits, the stream open). */
  stopAfter = Infinity;
  /** Off: pings go unanswered, as from a stalled stream. */
  answerPings = true;
  /** On: a subscription's updates wait for release(). */
  hold = false;
  readonly tokens: unknown[] = [];
  private held: Array<() => void> = [];

  release() {
    this.hold = false;
    for (const send of this.held.splice(0)) send();
  }
  private waiters: Array<{ test: () => boolean; resolve: () => void }> = [];

  /** Resolves once `test` holds after a request (subscriptions and pings alike). */
  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }
  subscriptions() {
    return this.requests.filter((r) => !r.ping);
  }

  async start(port = 0) {
    this.server.addService(GEYSER_SERVICE, {
      subscribe: (call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>) => {
        this.open.add(call);
        call.on('close', () => this.open.delete(call));
        call.on('data', (req: SubscribeRequest) => {
          this.requests.push(req);
          this.waiters = this.waiters.filter((w) => !(w.test() && (w.resolve(), true)));
          if (req.ping) {
            if (this.answerPings) call.write(SubscribeUpdate.fromPartial({ filters: [], pong: { id: req.ping.id } }));
            return;
          }
          this.tokens.push(call.metadata.get('x-token')[0]);
          const from = req.fromSlot === undefined ? 0 : Number(req.fromSlot);
          const send = () => {
            for (const account of Object.values(req.accounts).flatMap((f) => f.account)) {
              if (account !== PYTH_SOL_USD_ACCOUNT) continue;
              // Pyth's SOL/USD account as the subscription's first update.
              const data = priceUpdateV2({ feed: PYTH_SOL_USD_FEED, price: 14_523_456_789n, exponent: -8, publishTime: UPDATES[0]!.rpc.blockTime });
              call.write(SubscribeUpdate.fromPartial({ filters: ['mds_sol_usd'], account: { account: { pubkey: Buffer.alloc(32), data, owner: Buffer.alloc(32) }, slot: String(UPDATES[0]!.slot) } }));
            }
            let sent = 0;
            for (const u of UPDATES) {
              if (u.slot < from) continue;
              if (sent++ >= this.stopAfter) break;
              call.write(u.message);
            }
          };
          if (this.hold) this.held.push(send);
          else send();
        });
        call.on('error', () => undefined);
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
  }

  /** Streams open now. */
  private readonly open = new Set<grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>>();

  /** Ends every open stream from the server's side (the client opens it again). */
  endStreams() {
    for (const call of this.open) call.end();
    this.open.clear();
  }

  stop() {
    this.server.forceShutdown();
  }
}

let geyser: FakeGeyser | null = null;
afterEach(() => geyser?.stop());


describe('yellowstone source', () => {
  it('subscribes to both programs at confirmed, with no votes or failures, and applies every replayed transaction', async () => {
    geyser = new FakeGeyser();
    await geyser.start();
    const engine = await temp.open();
    // Pings every 50 ms; never judged quiet here (a loaded machine can pause past 100 ms: that is the stall test's case).
    const source = yellowstoneSource({ endpoint: `http://127.0.0.1:${geyser.port}`, token: 'secret', log: silentLogger(), pingMs: 50, quietMs: 60_000 });
    const running = engine.runSource(source);
    await untilApplied(engine, TOTAL + 1);
    const [request] = geyser.requests;
    expect(request!.transactions.mds).toMatchObject({ vote: false, failed: false, accountInclude: [...PROGRAMS] });
    expect(request!.commitment).toBe(1);
    expect(request!.fromSlot).toBeUndefined();
    expect(request!.accounts.mds_sol_usd).toMatchObject({ account: [PYTH_SOL_USD_ACCOUNT] });
    expect(engine.query.status()).toMatchObject({ ingested: TOTAL + 1, deadLetters: 0 });
    expect(source.state()).toMatchObject({ connected: true, reconnects: 0, transactions: UPDATES.length, last_slot: UPDATES.at(-1)!.slot, sol_price_updates: 1 });
    // SOL/USD from Pyth's account in the same subscription.
    expect(engine.query.solPrice()).toEqual({ price_usd: 145.23456789, updated_at: UPDATES[0]!.rpc.blockTime * 1000 });
    // It pings; answered, the stream stays up through several periods.
    await geyser.until(() => geyser!.requests.filter((r) => r.ping).length >= 3);
    expect(geyser.subscriptions()).toHaveLength(1);
    expect(source.state().reconnects).toBe(0);
    await engine.stop();
    await running;
  });

  it('a server killed mid-stream and started again: the source resumes from the last slot it got; nothing lost, nothing twice', async () => {
    geyser = new FakeGeyser();
    geyser.stopAfter = 3;
    await geyser.start();
    const engine = await temp.open();
    const source = yellowstoneSource({ endpoint: `http://127.0.0.1:${geyser.port}`, log: silentLogger(), pingMs: 1_000, backoffMinMs: 5, backoffMaxMs: 20 });
    const running = engine.runSource(source);
    const firstThree = EVENTS.slice(0, 3).reduce((a, b) => a + b, 0);
    await untilApplied(engine, firstThree + 1); // and the SOL price
    const port = geyser.port;
    geyser.stop();
    geyser = new FakeGeyser();
    await geyser.start(port);
    await untilApplied(engine, TOTAL + 1);
    // The second subscription starts at the third update's slot: it comes again and is dropped as a duplicate.
    const resumed = geyser.subscriptions()[0]!;
    expect(resumed.fromSlot).toBe(String(UPDATES[2]!.slot));
    // Every event and the SOL price once (the price, sent again on resubscription, is a duplicate).
    expect(engine.query.status()).toMatchObject({ ingested: TOTAL + 1, deadLetters: 0 });
    expect(source.state().reconnects).toBeGreaterThanOrEqual(1);
    await engine.stop();
    await running;
  });

  it('a stream that goes quiet (pings unanswered) is ended and opened again from its last slot', async () => {
    geyser = new FakeGeyser();
    geyser.answerPings = false;
    geyser.stopAfter = 2;
    await geyser.start();
    const engine = await temp.open();
    const source = yellowstoneSource({ endpoint: `http://127.0.0.1:${geyser.port}`, log: silentLogger(), pingMs: 30, backoffMinMs: 1, backoffMaxMs: 5 });
    const running = engine.runSource(source);
    await geyser.until(() => geyser!.subscriptions().length >= 2);
    expect(geyser.subscriptions()[1]!.fromSlot).toBe(String(UPDATES[1]!.slot));
    geyser.answerPings = true;
    geyser.stopAfter = Infinity;
    // The stream open now sent its updates when it was opened, under stopAfter 2, and
    // its pings are answered from now on: end it, so that the next one sends the rest
    // (else the test would hang on however many reconnects the machine's load caused).
    geyser.endStreams();
    await untilApplied(engine, TOTAL + 1);
    expect(engine.query.status()).toMatchObject({ ingested: TOTAL + 1, deadLetters: 0 });
    expect(source.state().reconnects).toBeGreaterThanOrEqual(1);
    await engine.stop();
    await running;
  });
});

describe('mds serve --source yellowstone:', () => {
  it('with MDS_YELLOWSTONE_TOKEN: streams the created token\'s trade over WS and shows the pool and /health over HTTP', async () => {
    geyser = new FakeGeyser();
    geyser.hold = true;
    await geyser.start();
    const dir = temp.dir.path;
    const key = spawnSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'pro', '--data', dir], { encoding: 'utf8' }).stdout.trim();
    const server = spawn(process.execPath, [MDS, 'serve', '--data', dir, '--port', '0', '--clock', 'event', '--source', `yellowstone:http://127.0.0.1:${geyser.port}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, MDS_YELLOWSTONE_TOKEN: 'tok-123' },
    });
    try {
      const port = await listeningPort(server);
      const base = `http://127.0.0.1:${port}`;
      const mint = '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump';
      const curve = 'CQrqvWERJtEjw2rCCQV6EqfM6V6jzTuKjhJjKNFmGB7r';
      const client = await TestClient.connect(`ws://127.0.0.1:${port}/ws`, { key });
      client.subscribe('token_trades', { token_address: mint });
      await client.untilPong();
      await geyser.until(() => geyser!.subscriptions().length === 1);
      expect(geyser.tokens).toEqual(['tok-123']);
      geyser.release();
      const frame = await client.next();
      expect(frame).toMatchObject({ stream: 'token_trades', data: { pool_address: curve, token_address: mint, type: 'buy', tx_hash: expect.stringMatching(/^2s393PSY/) } });
      client.close();
      await client.closed;
      // Each answer of /health is awaited before the next is asked: no timer.
      let health: any;
      do health = (await (await fetch(`${base}/health`)).json()).data;
      while (health.ingested < TOTAL + 1);
      expect(health).toMatchObject({ ingested: TOTAL + 1, dead_letters: 0, source: `yellowstone:http://127.0.0.1:${geyser.port}` });
      expect(health.source_state).toMatchObject({ connected: true, reconnects: 0, transactions: UPDATES.length });
      const pool = await (await fetch(`${base}/v1/pools/${curve}`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(pool.data.totals).toMatchObject({ trade_count: 1 });
      const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
  });
});
