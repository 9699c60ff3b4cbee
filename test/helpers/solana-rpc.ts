import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { PROGRAMS } from '../../engine/sources/solana/decode.ts';
import { readFixture, referenceTransactions } from './solana.ts';

/**
 * A Solana RPC on loopback for the live sources' tests: a WebSocket server answering
 * logsSubscribe and sending logsNotification when told, and the HTTP JSON-RPC answering
 * getTransaction with the recorded fixtures and getSignaturesForAddress over the
 * transactions announced so far (its chain: `history`, whether a client listened or not).
 */

/** A transaction of the fake chain: a fixture (by index) or a failed one (err set, no record). */
export type ChainTx = { index: number } | { signature: string; slot: number; program: string; failed: true };

const mentions = (tx: (typeof TXS)[number], program: string) => tx.logs.some((l) => l.startsWith(`Program ${program} invoke`));

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
  /** The chain, oldest first: what notify and fail announced (kept across a restart when passed to the next server). */
  history: ChainTx[] = [];
  /** getSignaturesForAddress requests: program and config. */
  readonly signatureRequests: Array<{ program: string; config: any }> = [];
  /** getSignaturesForAddress requests answered 429 first. */
  limitedPages = 0;
  /** On: a WebSocket connection is closed as soon as it opens (the client stays disconnected). */
  refuse = false;

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
        if (msg.method === 'getSignaturesForAddress') {
          const [program, options] = msg.params;
          this.signatureRequests.push({ program, config: options });
          if (this.limitedPages > 0) {
            this.limitedPages--;
            res.writeHead(429, { 'retry-after': '0' }).end('{}');
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: this.signaturesFor(program, options) }));
          return;
        }
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
      if (this.refuse) return socket.terminate();
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

  /**
   * getSignaturesForAddress as a node answers it: the program's transactions newest
   * first, those before `before` (exclusive) and after `until` (exclusive), `limit` at most.
   */
  private signaturesFor(program: string, options: { until?: string; before?: string; limit?: number; commitment?: string }) {
    expect(options.commitment).toBe('confirmed');
    const all = this.history
      .filter((t) => ('index' in t ? mentions(TXS[t.index]!, program) : t.program === program))
      .map((t) => ('index' in t ? { signature: TXS[t.index]!.signature, slot: TXS[t.index]!.slot, err: null } : { signature: t.signature, slot: t.slot, err: { InstructionError: [0, { Custom: 6001 }] } }))
      .reverse();
    let from = 0;
    if (options.before) from = all.findIndex((s) => s.signature === options.before) + 1;
    const out = [];
    for (let i = from; i < all.length && out.length < (options.limit ?? 1000); i++) {
      if (all[i]!.signature === options.until) break;
      out.push({ ...all[i]!, memo: null, blockTime: null, confirmationStatus: 'confirmed' });
    }
    return out;
  }

  /** A failed transaction of `program` on the chain (announced with its err; getTransaction never has it). */
  fail(signature: string, slot: number, program: string) {
    this.history.push({ signature, slot, program, failed: true });
    for (const sub of this.live()) {
      if (sub.program !== program) continue;
      sub.socket.send(JSON.stringify({
        jsonrpc: '2.0', method: 'logsNotification',
        params: { subscription: sub.id, result: { context: { slot }, value: { signature, err: { InstructionError: [0, { Custom: 6001 }] }, logs: [] } } },
      }));
    }
  }

  /** Transaction `i` on the chain: a logsNotification to every subscription of a program it mentions (pump and PumpSwap). */
  notify(i: number) {
    const tx = TXS[i]!;
    this.history.push({ index: i });
    for (const sub of this.live()) {
      if (!mentions(tx, sub.program)) continue;
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

