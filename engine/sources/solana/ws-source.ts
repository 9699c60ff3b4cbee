import type { Logger } from 'pino';
import WebSocket from 'ws';
import { SOLANA_WS_BACKFILL_MAX_PAGES, SOLANA_WS_BACKFILL_PAGE_SIZE } from '../../bounds.ts';
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
 * holds is dropped there by identity.
 *
 * Gap repair: the source remembers, per program, the last signature announced for it
 * (the highest slot). When a connection opens after this run has seen a transaction,
 * those signatures are taken as they are before subscribing; once subscribed, each
 * program's gap is asked of the HTTP RPC with
 * `getSignaturesForAddress(program, { until, limit, commitment: 'confirmed' })`, newest
 * first (a program nothing was announced for yet: no `until`, back to the highest slot
 * the run saw), paging back with `before` = the oldest of the page while a page is full, at
 * most `backfillMaxPages` pages (a larger gap is logged as such: its older part is not
 * repaired). Failed transactions (`err` set) are skipped; the rest go, oldest first,
 * through the same bounded getTransaction queue. What the new subscription announced
 * meanwhile is fetched once (the signatures seen) and the overlap with what the gate
 * holds is dropped there. The RPC calls share one retry path: 429 (Retry-After), HTTP
 * errors and JSON-RPC errors retried with backoff and jitter up to `attempts` times.
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
  /** Gap repair after a reconnect: signatures per getSignaturesForAddress page (default 1,000, the RPC's maximum). */
  backfillPageSize?: number;
  /** Gap repair: pages asked per program at most; a larger gap is logged and its older part lost (default 10, config `solanaWsBackfillMaxPages`). */
  backfillMaxPages?: number;
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
  /** Gap repairs run (one per reconnect) and the signatures they queued (not seen before). */
  backfills: number;
  backfilled: number;
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
  const pageSize = options.backfillPageSize ?? SOLANA_WS_BACKFILL_PAGE_SIZE;
  const maxPages = options.backfillMaxPages ?? SOLANA_WS_BACKFILL_MAX_PAGES;
  const log = options.log;
  const state: SourceState = {
    connected: false, reconnects: 0, last_slot: null, last_event_at: null, pending: 0, fetched: 0, failed: 0, rate_limited: 0, backfills: 0, backfilled: 0,
  };
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

    /**
     * One JSON-RPC call over HTTP, retried with backoff while it is rate-limited (429,
     * honouring Retry-After), refused (other HTTP errors), errs, or (when `retryNull`)
     * answers null. Resolves to the result, or undefined after `attempts` or at the stop.
     */
    async function call(method: string, params: unknown[], context: Record<string, unknown>, retryNull: boolean): Promise<unknown> {
      for (let attempt = 0; attempt < attempts && !signal.aborted; attempt++) {
        let retryIn = backoff(attempt);
        try {
          const res = await fetch(httpUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
            signal,
          });
          if (res.status === 429) {
            state.rate_limited++;
            const after = Number(res.headers.get('retry-after'));
            if (after > 0) retryIn = Math.min(maxMs, after * 1000);
            log.warn({ source: name, ...context, retry_in_ms: Math.round(retryIn) }, `RPC rate-limited ${method} (HTTP 429): retrying`);
          } else if (!res.ok) {
            log.warn({ source: name, ...context, status: res.status }, `RPC refused ${method} (HTTP ${res.status}): retrying`);
          } else {
            const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
            if (body.error) {
              log.warn({ source: name, ...context, error: body.error }, `RPC error on ${method}: retrying`);
            } else if (body.result != null || !retryNull) {
              return body.result ?? null;
            }
            // null: the node has not got the transaction at this commitment yet.
          }
        } catch (err) {
          if (signal.aborted) return undefined;
          log.warn({ source: name, ...context, err: (err as Error).message }, `${method} failed: retrying`);
        }
        await sleep(retryIn);
      }
      return undefined;
    }

    async function fetchOne(signature: string, slot: number): Promise<void> {
      const params = [signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }];
      const result = await call('getTransaction', params, { signature }, true);
      if (signal.aborted) return;
      if (result != null) {
        state.fetched++;
        await apply(result, slot);
        return;
      }
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

    /** Per program, the last signature announced for it (highest slot): where a gap repair stops. */
    const lastSeen = new Map<string, { signature: string; slot: number }>();

    function announce(signature: string, slot: number, program?: string) {
      if (program) {
        const last = lastSeen.get(program);
        if (!last || slot >= last.slot) lastSeen.set(program, { signature, slot });
      }
      if (seen.has(signature)) return;
      if (seen.size >= SEEN_MAX) seen.clear();
      seen.add(signature);
      if (state.last_slot === null || slot > state.last_slot) state.last_slot = slot;
      queue.push({ signature, slot });
      pump();
    }

    /**
     * Gap repair for one program: the signatures after `until` (newest first, paged back
     * with `before`), or, for a program nothing was announced for yet, those at
     * `sinceSlot` or later; failed ones skipped; announced oldest first.
     */
    async function backfill(program: string, since: { until: string } | { sinceSlot: number }): Promise<void> {
      const found: Array<{ signature: string; slot: number }> = [];
      const sinceSlot = 'sinceSlot' in since ? since.sinceSlot : -1;
      let before: string | undefined;
      let pages = 0;
      for (;;) {
        if (pages === maxPages) {
          log.error(
            { source: name, program, ...since, pages, signatures: found.length },
            `gap repair: stopped at ${maxPages} pages of ${pageSize} signatures, the gap may be larger; older transactions are not repaired`,
          );
          break;
        }
        const config: Record<string, unknown> = { limit: pageSize, commitment: 'confirmed' };
        if ('until' in since) config.until = since.until;
        if (before) config.before = before;
        const page = await call('getSignaturesForAddress', [program, config], { program }, false);
        if (signal.aborted) return;
        if (!Array.isArray(page)) {
          log.error({ source: name, program, ...since }, `gap repair: getSignaturesForAddress gave nothing after ${attempts} attempts; transactions announced while disconnected may be missing`);
          break;
        }
        pages++;
        let older = false;
        for (const info of page as Array<{ signature?: unknown; slot?: unknown; err?: unknown }>) {
          if (typeof info?.signature !== 'string' || typeof info.slot !== 'number') continue;
          if (info.slot < sinceSlot) older = true;
          else if (info.err == null) found.push({ signature: info.signature, slot: info.slot });
        }
        if (older || page.length < pageSize) break;
        before = (page[page.length - 1] as { signature: string }).signature;
      }
      let queued = 0;
      for (let i = found.length - 1; i >= 0; i--) {
        const { signature, slot } = found[i]!;
        if (!seen.has(signature)) queued++;
        announce(signature, slot, program);
      }
      state.backfilled += queued;
      if (found.length) log.info({ source: name, program, signatures: found.length, queued }, 'gap repair: signatures since the last seen queued');
    }

    /** Gap repairs run one after another; the stop waits for the one running. */
    let backfilling: Promise<void> = Promise.resolve();

    /** One connection: resolves when it closes (or the source stops); true once it had subscribed. */
    function connect(): Promise<boolean> {
      return new Promise((resolve) => {
        const ws = new WebSocket(options.url);
        let subscribed = false;
        let alive = true;
        let timer: NodeJS.Timeout | null = null;
        const stop = () => ws.terminate();
        signal.addEventListener('abort', stop, { once: true });
        /** Per program, where this connection's gap repair stops (taken before subscribing). */
        let gaps: Array<[string, { until: string } | { sinceSlot: number }]> = [];
        const programOf = new Map<number, string>();
        ws.on('open', () => {
          const lastSlot = state.last_slot;
          gaps = [];
          if (lastSlot !== null) {
            for (const program of PROGRAMS) {
              const last = lastSeen.get(program);
              gaps.push([program, last ? { until: last.signature } : { sinceSlot: lastSlot }]);
            }
          }
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
            const program = PROGRAMS[msg.id - 1];
            if (program) programOf.set(msg.result, program);
            if (!subscribed && programOf.size === PROGRAMS.length) {
              subscribed = true;
              state.connected = true;
              log.info({ source: name }, 'subscribed to pump.fun and PumpSwap logs');
              if (gaps.length) {
                const repair = gaps;
                backfilling = backfilling
                  .then(async () => {
                    for (const [program, since] of repair) if (!signal.aborted) await backfill(program, since);
                    state.backfills++;
                  })
                  .catch((err: Error) => log.error({ source: name, err: err.message }, 'gap repair failed'));
              }
            }
            return;
          }
          if (msg.method === 'logsNotification') {
            const value = msg.params?.result?.value;
            const slot = msg.params?.result?.context?.slot;
            if (value && typeof value.signature === 'string' && value.err == null && typeof slot === 'number') {
              announce(value.signature, slot, programOf.get(msg.params.subscription));
            }
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
    // Let the gap repair and the fetches in flight end (they stop at the abort) before the engine flushes.
    await backfilling;
    if (active > 0) await new Promise<void>((resolve) => (idle = resolve));
  }

  return { name, finite: false, run, state: () => ({ ...state }) };
}
