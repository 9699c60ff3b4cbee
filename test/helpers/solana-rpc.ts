import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { PROGRAMS } from '../../engine/sources/solana/decode.ts';
import { readFixture, referenceTransactions } from './solana.ts';

/**
 * A Solana RPC on loopback for the live sources' tests: a WebSocket server answering
 * logsSubscribe and sending logsNotification when told, and the HTTP JSON-RPC answering
 * getTransaction with the recorded fixtures.
 */

/** The fixtures that carry their slot (the blockSubscribe item has none). */
export const TXS = referenceTransactions()
  .filter((t) => t.slot !== null)
  .map((t) => {
    const value = readFixture(t.local) as any;
    const record = Array.isArray(value) ? value[0] : (value.result ?? value);
    return { signature: t.signature, slot: t.slot!, record, logs: record.meta.logMessages as string[] };
  });

export class FakeRpc {
  server!: Server;
  wss!: WebSocketServer;
  port = 0;
  readonly subscriptions: Array<{ socket: WebSocket; program: string; id: number }> = [];
  readonly requests: string[] = [];
  /** Signatures answered 429 once, and null once. */
  readonly limited = new Set<string>();
  /** Signatures answered null (not yet at this commitment) that many times first. */
  readonly notYet = new Map<string, number>();
  private nextSub = 100;
  private subscribed: (() => void) | null = null;
  /** On: getTransaction requests wait unanswered (until stop answers them 503). */
  holdAnswers = false;
  private heldAnswers: Array<() => void> = [];
  requested: (() => void) | null = null;
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  /** Resolves once `count` logsSubscribe requests have been answered since start. */
  untilSubscriptions(count: number): Promise<void> {
    if (this.subscriptions.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async start(port = 0) {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const msg = JSON.parse(body);
        const [signature, config] = msg.params;
        expect(msg.method).toBe('getTransaction');
        expect(config).toEqual({ encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
        this.requests.push(signature);
        this.requested?.();
        if (this.holdAnswers) {
          this.heldAnswers.push(() => res.writeHead(503).end());
          return;
        }
        if (this.limited.delete(signature)) {
          res.writeHead(429, { 'retry-after': '0' }).end('{}');
          return;
        }
        const nulls = this.notYet.get(signature) ?? 0;
        if (nulls) this.notYet.set(signature, nulls - 1);
        const result = nulls ? null : (TXS.find((t) => t.signature === signature)?.record ?? null);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      });
    });
    this.wss = new WebSocketServer({ server: this.server });
    this.wss.on('connection', (socket) => {
      socket.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        expect(msg.method).toBe('logsSubscribe');
        expect(msg.params[1]).toEqual({ commitment: 'confirmed' });
        const id = this.nextSub++;
        this.subscriptions.push({ socket, program: msg.params[0].mentions[0], id });
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: id }));
        if (this.live().length === PROGRAMS.length) this.subscribed?.();
        this.waiters = this.waiters.filter((w) => !(this.subscriptions.length >= w.count && (w.resolve(), true)));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  live() {
    return this.subscriptions.filter((s) => s.socket.readyState === s.socket.OPEN);
  }

  /** Resolves once both programs are subscribed on an open connection. */
  untilSubscribed(): Promise<void> {
    if (this.live().length === PROGRAMS.length) return Promise.resolve();
    return new Promise((resolve) => (this.subscribed = resolve));
  }

  /** A logsNotification of transaction `i` to every subscription of a program it mentions (pump and PumpSwap). */
  notify(i: number) {
    const tx = TXS[i]!;
    for (const sub of this.live()) {
      if (!tx.logs.some((l) => l.startsWith(`Program ${sub.program} invoke`))) continue;
      sub.socket.send(JSON.stringify({
        jsonrpc: '2.0', method: 'logsNotification',
        params: { subscription: sub.id, result: { context: { slot: tx.slot }, value: { signature: tx.signature, err: null, logs: tx.logs } } },
      }));
    }
  }

  async stop() {
    for (const answer of this.heldAnswers.splice(0)) answer();
    for (const c of this.wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

