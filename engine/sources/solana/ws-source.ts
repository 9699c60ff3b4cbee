import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { IngestSink, LiveSource } from '../source.ts';
import { PROGRAMS, SolanaDecoder } from './decode.ts';
import { abortableSleep, backoffMs, deadLetterTo, submitDecoded } from './live.ts';

/**
 * `solana-ws:<url>`: a plain Solana RPC node. `logsSubscribe` (one subscription per
 * program, commitment confirmed) says which transactions touched pump.fun or PumpSwap;
 * each signature is then fetched with `getTransaction` over the matching HTTP RPC
 * (logs alone lack the balances and may be truncated), a bounded number at a time,
 * retried with backoff when the node has not got it yet, errs or rate-limits (logged,
 * with the HTTP status). The WebSocket is pinged; when it closes or stops answering it
 * is opened again after a backoff with jitter. A signature announced twice (both
 * programs in one transaction, a resubscription) is fetched once; what the gate already
 * holds is dropped there by identity. Transactions announced while disconnected are not
 * repaired (getSignaturesForAddress would: not done).
 */

export interface SolanaWsOptions {
  /** ws:// or wss:// URL of the RPC's WebSocket. */
  url: string;
  /** The HTTP RPC; default: the same URL with http(s)://. */
  httpUrl?: string;
  log: Logger;
  /** getTransaction requests in flight at most (default 8). */
  concurrency?: number;
  /** Attempts per signature before it goes to dead letters (default 6). */
  attempts?: number;
  /** Backoff bounds for reconnects and retries (default 500 ms .. 30 s). */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** WebSocket ping period; no pong by the next ping ends the connection (default 20 s). */
  pingMs?: number;
}

export interface SourceState {
  connected: boolean;
  reconnects: number;
  last_slot: number | null;
  last_event_at: number | null;
  pending: number;
  fetched: number;
  failed: number;
  rate_limited: number;
}

/** Signatures remembered to fetch each once. */
const SEEN_MAX = 50_000;

export function solanaWsSource(options: SolanaWsOptions): LiveSource<SourceState> {
  const httpUrl = options.httpUrl ?? options.url.replace(/^ws(s?):/, 'http$1:');
  const concurrency = options.concurrency ?? 8;
  const attempts = options.attempts ?? 6;
  const minMs = options.backoffMinMs ?? 500;
  const maxMs = options.backoffMaxMs ?? 30_000;
  const pingMs = options.pingMs ?? 20_000;
  const log = options.log;
  const state: SourceState = { connected: false, reconnects: 0, last_slot: null, last_event_at: null, pending: 0, fetched: 0, failed: 0, rate_limited: 0 };
  const backoff = (attempt: number) => backoffMs(attempt, minMs, maxMs);
  const name = `solana-ws:${options.url}`;

  async function run(sink: IngestSink, signal: AbortSignal): Promise<void> {
    const decoder = new SolanaDecoder();
    const seen = new Set<string>();
    const queue: Array<{ signature: string; slot: number }> = [];
    let active = 0;
    let idle: (() => void) | null = null;
    const sleep = abortableSleep(signal);
    const deadLetter = deadLetterTo(sink, log, name);

    async function fetchOne(signature: string, slot: number): Promise<void> {
      for (let attempt = 0; attempt < attempts && !signal.aborted; attempt++) {
        let retryIn = backoff(attempt);
        try {
          const res = await fetch(httpUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }] }),
            signal,
          });
          if (res.status === 429) {
            state.rate_limited++;
            const after = Number(res.headers.get('retry-after'));
            if (after > 0) retryIn = Math.min(maxMs, after * 1000);
            log.warn({ source: name, signature, retry_in_ms: Math.round(retryIn) }, 'RPC rate-limited getTransaction (HTTP 429): retrying');
          } else if (!res.ok) {
            log.warn({ source: name, signature, status: res.status }, `RPC refused getTransaction (HTTP ${res.status}): retrying`);
          } else {
            const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
            if (body.error) {
              log.warn({ source: name, signature, error: body.error }, 'RPC error on getTransaction: retrying');
            } else if (body.result != null) {
              state.fetched++;
              await apply(body.result, slot);
              return;
            }
            // null: the node has not got the transaction at this commitment yet.
          }
        } catch (err) {
          if (signal.aborted) return;
          log.warn({ source: name, signature, err: (err as Error).message }, 'getTransaction failed: retrying');
        }
        await sleep(retryIn);
      }
      if (signal.aborted) return;
      state.failed++;
      deadLetter(`getTransaction gave nothing after ${attempts} attempts`, { signature, slot });
    }

    async function apply(record: unknown, slot: number) {
      const { events } = await submitDecoded(decoder.decodeValue(record, 'rpc', { slot }), sink, deadLetter, name);
      if (events) state.last_event_at = Date.now();
    }

    function pump() {
      while (active < concurrency && queue.length && !signal.aborted) {
        const { signature, slot } = queue.shift()!;
        active++;
        fetchOne(signature, slot).finally(() => {
          active--;
          state.pending = queue.length + active;
          if (active === 0 && (queue.length === 0 || signal.aborted)) idle?.();
          pump();
        });
      }
      state.pending = queue.length + active;
    }

    function announce(signature: string, slot: number) {
      if (seen.has(signature)) return;
      if (seen.size >= SEEN_MAX) seen.clear();
      seen.add(signature);
      if (state.last_slot === null || slot > state.last_slot) state.last_slot = slot;
      queue.push({ signature, slot });
      pump();
    }

    /** One connection: resolves when it closes (or the source stops); true once it had subscribed. */
    function connect(): Promise<boolean> {
      return new Promise((resolve) => {
        const ws = new WebSocket(options.url);
        let subscribed = false;
        let alive = true;
        let timer: NodeJS.Timeout | null = null;
        const stop = () => ws.terminate();
        signal.addEventListener('abort', stop, { once: true });
        ws.on('open', () => {
          PROGRAMS.forEach((program, i) =>
            ws.send(JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'logsSubscribe', params: [{ mentions: [program] }, { commitment: 'confirmed' }] })),
          );
          timer = setInterval(() => {
            if (!alive) {
              log.warn({ source: name }, 'RPC WebSocket stopped answering pings: reconnecting');
              ws.terminate();
              return;
            }
            alive = false;
            ws.ping();
          }, pingMs);
        });
        ws.on('pong', () => (alive = true));
        ws.on('message', (data) => {
          alive = true;
          let msg: any;
          try {
            msg = JSON.parse(data.toString());
          } catch {
            log.warn({ source: name }, 'RPC WebSocket sent a frame that is not JSON');
            return;
          }
          if (msg.error) {
            log.error({ source: name, error: msg.error }, 'RPC refused logsSubscribe');
            ws.close();
            return;
          }
          if (typeof msg.id === 'number' && typeof msg.result === 'number') {
            if (!subscribed) {
              subscribed = true;
              state.connected = true;
              log.info({ source: name }, 'subscribed to pump.fun and PumpSwap logs');
            }
            return;
          }
          if (msg.method === 'logsNotification') {
            const value = msg.params?.result?.value;
            const slot = msg.params?.result?.context?.slot;
            if (value && typeof value.signature === 'string' && value.err == null && typeof slot === 'number') announce(value.signature, slot);
          }
        });
        ws.on('error', (err) => log.warn({ source: name, err: err.message }, 'RPC WebSocket error'));
        ws.on('close', () => {
          if (timer) clearInterval(timer);
          signal.removeEventListener('abort', stop);
          state.connected = false;
          resolve(subscribed);
        });
      });
    }

    let attempt = 0;
    while (!signal.aborted) {
      const subscribed = await connect();
      if (signal.aborted) break;
      state.reconnects++;
      attempt = subscribed ? 0 : attempt + 1;
      const wait = backoff(attempt);
      log.warn({ source: name, reconnect_in_ms: Math.round(wait), reconnects: state.reconnects }, 'RPC WebSocket closed: reconnecting');
      await sleep(wait);
    }
    // Let the fetches in flight end (they stop at the abort) before the engine flushes.
    if (active > 0) await new Promise<void>((resolve) => (idle = resolve));
  }

  return { name, finite: false, run, state: () => ({ ...state }) };
}
