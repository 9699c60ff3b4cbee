import { Observable } from 'rxjs';
import type { z } from 'zod';
import type { payloadSchemas } from '../ws/index.ts';
import { MdsError, type HttpClient } from './http.ts';
import type { ItemOf } from './routes.ts';

/**
 * The WebSocket half of the client SDK (SERVICE.md 3.2, 4.3, 4.4, 6, 7.2): one
 * connection to /ws, authenticated by the Authorization header (Node, through `ws`)
 * or by an auth frame (a browser, where WebSocket cannot set headers), a ping every
 * 15 s, and after a disconnect: reconnect with backoff and jitter, resubscribe every
 * live subscription, and make up what was missed, since the server never replays:
 *
 * - trades (pool_trades, token_trades): events that arrive after the resubscription
 *   are held while the trade list of the same pool or token is read over HTTP from
 *   the last trade seen (less `reloadMarginMs`, for trades that land late), oldest
 *   first, every page; then the held events. Every trade is delivered once, by
 *   trade_id, so what a consumer sees is exactly the trades of the stream, without a
 *   gap or a duplicate. With no trade seen before the disconnect, the reload is the
 *   route's default window (the last 24 hours).
 * - candles: resubscribed with `resume_after_seq` (the last seq received) under a new
 *   `subscription_id`, so the server sends the candles changed since; events of any
 *   other subscription_id are ignored. With no seq yet, the candles are read over HTTP.
 *   A subscription keeps the series (`candles()`), changed candles replaced in place.
 *
 * Whether the new subscription is in force is known by a ping sent right after the
 * subscribe frames: the server handles a connection's frames in order, so its pong
 * means the subscriptions are live, and the HTTP read that follows cannot miss a trade
 * that came in between.
 *
 * Close codes (SERVICE.md 7.2) map to outcomes: 4401 invalid key and 4402 plan
 * required stop (every subscription ends with an MdsError of that code), as does 4400
 * (a frame the server refused; sending it again would not help); 4429 (limits) and
 * 4008 (slow consumer) reconnect after a longer backoff; 4408 (auth timeout)
 * reconnects at once and authenticates; anything else (1001 restart, 1006 dropped)
 * reconnects with backoff. Error frames (5010 not built, 4033 plan, 4290 watched
 * items) end the subscriptions of their stream with an MdsError.
 */

/** The part of WebSocket both the browser's and `ws` have. */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** Opens a socket; `headerAuth`: the key went in the Authorization header (no auth frame needed). */
export type SocketFactory = (url: string, key: string | undefined) => { socket: WebSocketLike; headerAuth: boolean };

export interface SocketTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
  random(): number;
}

const defaultSocketTimers: SocketTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
  random: Math.random,
};

export interface SocketOptions {
  /** `ws://127.0.0.1:8080/ws`, or the user's own server's WebSocket that proxies mds (SERVICE.md 5.6). */
  url: string;
  key?: string;
  /** The HTTP client reloads use (trades missed, candles without a seq). */
  http?: HttpClient;
  /** Opens sockets: the entry points give one (the browser's WebSocket, or `ws` with the header on Node). */
  connect: SocketFactory;
  /** Ping interval (SERVICE.md 8: 15 s). A connection with a ping unanswered at the next one is closed and reconnected. */
  pingMs?: number;
  /** Reconnect backoff: full jitter up to base·2^attempt (default 500 ms), at most `maxBackoffMs` (30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** The backoff base after 4429 or 4008 (default 5 s). */
  limitBackoffMs?: number;
  /** How far before the last trade seen a trade reload starts (default 60 s). */
  reloadMarginMs?: number;
  timers?: Partial<SocketTimers>;
}

/** What a close code means to the client (SERVICE.md 7.2; DECISIONS.md). */
export type CloseOutcome = 'stop' | 'backoff' | 'reauth' | 'reconnect';

export function closeOutcome(code: number): CloseOutcome {
  if (code === 4401 || code === 4402 || code === 4400) return 'stop';
  if (code === 4429 || code === 4008) return 'backoff';
  if (code === 4408) return 'reauth';
  return 'reconnect';
}

/** What a socket reports, for logs and tests. */
export type SocketEvent =
  | { type: 'connecting'; attempt: number }
  | { type: 'open' }
  /** The subscriptions are in force on this connection (the pong after the subscribe frames); `reconnect`: after a disconnect. */
  | { type: 'ready'; reconnect: boolean }
  /** Every subscription made up for the disconnect (its HTTP reloads done). */
  | { type: 'resynced' }
  | { type: 'close'; code: number; reason: string; outcome: CloseOutcome; delayMs: number | null }
  | { type: 'error'; error: unknown };

type Payload<S extends keyof typeof payloadSchemas> = z.input<(typeof payloadSchemas)[S]>;
/** A trade record as the trade lists and streams carry it (SERVICE.md 2.8). */
export type Trade = ItemOf<'/v1/pools/:pool_address/trades'>;
/** A candle (SERVICE.md 2.9). */
export type Candle = Awaited<ReturnType<HttpClient['pools']['candles']>>['candles'][number];
/** A candles event: the candles changed, oldest first, and the seq to resume after. */
export interface CandlesEvent {
  subscription_id?: string;
  pool_address: string;
  interval: string;
  mode: string;
  currency: string;
  seq?: number | null;
  candles: Candle[];
}
export type CandlesPayload = Omit<Payload<'candles'>, 'subscription_id' | 'resume_after_seq' | 'resume_after_time'>;

const TRADE_IDS_KEPT = 100_000;

/** A subscription: async-iterable (each iterator gets every event from when it starts) and an RxJS Observable (`observable()`). */
export class Subscription<T> implements AsyncIterable<T> {
  private readonly listeners = new Set<{ next(value: T): void; end(error?: unknown): void }>();
  /** Events before the first consumer, handed to it. */
  private early: T[] | null = [];
  private ended: { error?: unknown } | null = null;

  constructor(
    protected readonly socket: MdsSocket,
    readonly stream: string,
  ) {}

  /** The subscribe (and unsubscribe) frame's payload, as last sent. */
  payload(): Record<string, unknown> {
    return {};
  }

  /** Called before each (re)subscription: a candles subscription takes a new subscription_id and its resume seq. */
  renew(): void {}

  /** The keys this subscription's events are routed by. */
  routes(): string[] {
    return [];
  }

  /** A live event of the stream. */
  accept(data: any): void {
    this.emit(data as T);
  }

  /** The connection dropped and a new one is being set up: hold events until `resync`. */
  beginResync(): void {}

  /** The resubscription is in force: make up what was missed. */
  async resync(): Promise<void> {}

  protected emit(value: T): void {
    if (this.listeners.size === 0) {
      this.early?.push(value);
      return;
    }
    for (const l of this.listeners) l.next(value);
  }

  /** Ends the subscription for its consumers (an error: they throw it). */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = error === undefined ? {} : { error };
    for (const l of [...this.listeners]) l.end(error);
    this.listeners.clear();
  }

  /** Unsubscribes (on the server too) and ends the iterators and observers. */
  unsubscribe(): void {
    this.socket.remove(this);
    this.end();
  }

  private listen(listener: { next(value: T): void; end(error?: unknown): void }): () => void {
    if (this.early) {
      for (const v of this.early) listener.next(v);
      this.early = null;
    }
    if (this.ended) {
      listener.end(this.ended.error);
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    const queue: T[] = [];
    let wake: (() => void) | null = null;
    let done: { error?: unknown } | null = null;
    const stop = this.listen({
      next: (v) => {
        queue.push(v);
        wake?.();
      },
      end: (error) => {
        done = error === undefined ? {} : { error };
        wake?.();
      },
    });
    return {
      next: async (): Promise<IteratorResult<T>> => {
        for (;;) {
          if (queue.length > 0) return { value: queue.shift()!, done: false };
          if (done) {
            if (done.error !== undefined) throw done.error;
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        stop();
        return { value: undefined, done: true };
      },
    };
  }

  /** The events as an RxJS Observable; unsubscribing from it does not end the subscription. */
  observable(): Observable<T> {
    return new Observable<T>((subscriber) =>
      this.listen({
        next: (v) => subscriber.next(v),
        end: (error) => (error === undefined ? subscriber.complete() : subscriber.error(error)),
      }),
    );
  }
}

/** pool_trades and token_trades: every trade once, none missed across reconnects. */
export class TradeSubscription extends Subscription<Trade> {
  private readonly seen = new Set<string>();
  private lastAt: number | null = null;
  private held: Trade[] | null = null;

  constructor(
    socket: MdsSocket,
    stream: 'pool_trades' | 'token_trades',
    readonly address: string,
  ) {
    super(socket, stream);
  }

  override payload(): Record<string, unknown> {
    return this.stream === 'pool_trades' ? { pool_address: this.address } : { token_address: this.address };
  }

  override routes(): string[] {
    return [`${this.stream}:${this.address}`];
  }

  override accept(trade: Trade): void {
    if (this.held) this.held.push(trade);
    else this.deliver(trade);
  }

  private deliver(trade: Trade): void {
    if (this.seen.has(trade.trade_id)) return;
    this.seen.add(trade.trade_id);
    // A Set iterates in insertion order: the oldest id goes first.
    if (this.seen.size > TRADE_IDS_KEPT) this.seen.delete(this.seen.values().next().value!);
    if (this.lastAt === null || trade.created_at > this.lastAt) this.lastAt = trade.created_at;
    this.emit(trade);
  }

  override beginResync(): void {
    this.held ??= [];
  }

  override async resync(): Promise<void> {
    const http = this.socket.http;
    try {
      if (!http) return;
      const query = { order: 'asc' as const, limit: 500, ...(this.lastAt === null ? {} : { start_time: Math.max(0, this.lastAt - this.socket.reloadMarginMs) }) };
      const list = this.stream === 'pool_trades' ? http.pools.trades(this.address, query) : http.tokens.trades(this.address, query);
      for await (const trade of list) this.deliver(trade);
    } finally {
      const held = this.held ?? [];
      this.held = null;
      for (const trade of held) this.deliver(trade);
    }
  }
}

/** candles: the series kept, resumed by seq across reconnects. */
export class CandlesSubscription extends Subscription<CandlesEvent> {
  private readonly series = new Map<number, Candle>();
  private seq: number | null = null;
  private id = '';

  constructor(
    socket: MdsSocket,
    readonly request: CandlesPayload,
  ) {
    super(socket, 'candles');
  }

  private sent: Record<string, unknown> = {};

  override renew(): void {
    this.id = this.socket.nextSubscriptionId();
    this.sent = { ...this.request, subscription_id: this.id, ...(this.seq === null ? {} : { resume_after_seq: this.seq }) };
  }

  override payload(): Record<string, unknown> {
    return this.sent;
  }

  override routes(): string[] {
    return [`candles:${this.id}`];
  }

  override accept(event: CandlesEvent): void {
    if (event.subscription_id !== this.id) return;
    if (typeof event.seq === 'number') this.seq = event.seq;
    this.merge(event.candles);
    this.emit(event);
  }

  private merge(candles: Candle[]): void {
    for (const c of candles) this.series.set(c.start_at, c);
  }

  override async resync(): Promise<void> {
    const http = this.socket.http;
    if (this.seq !== null || !http) return;
    const { interval, mode, currency } = this.request;
    const loaded = await http.pools.candles(this.request.pool_address, { interval, mode, currency });
    this.merge(loaded.candles);
    this.emit({ ...loaded, seq: null });
  }

  /** The series as received, oldest first. */
  candles(): Candle[] {
    return [...this.series.values()].sort((a, b) => a.start_at - b.start_at);
  }

  /** The last seq received (what a resume passes), or null. */
  lastSeq(): number | null {
    return this.seq;
  }
}

/** One /ws connection, kept open until `close()` or a close code that stops it. */
export class MdsSocket {
  readonly http: HttpClient | undefined;
  readonly reloadMarginMs: number;
  private readonly timers: SocketTimers;
  private readonly subs = new Set<Subscription<any>>();
  private readonly routes = new Map<string, Set<Subscription<any>>>();
  private readonly listeners = new Set<(event: SocketEvent) => void>();
  private socket: WebSocketLike | null = null;
  private open = false;
  private stopped = false;
  private attempt = 0;
  private wasConnected = false;
  private reconnectTimer: unknown = null;
  private pingTimer: unknown = null;
  /** Pings sent and not answered, in order, each with what its pong runs (null for a keep-alive). */
  private pings: Array<{ pong: () => void; closed?: (error: unknown) => void } | null> = [];
  private ids = 0;
  private readonly idPrefix: string;

  constructor(private readonly options: SocketOptions) {
    this.http = options.http;
    this.reloadMarginMs = options.reloadMarginMs ?? 60_000;
    this.timers = { ...defaultSocketTimers, ...options.timers };
    this.idPrefix = Math.floor(this.timers.random() * 36 ** 4).toString(36);
    this.connect();
  }

  /** Listens to what the socket does; returns the function that stops listening. */
  on(listener: (event: SocketEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Live trades of a pool (SERVICE.md 2.8), none missed across reconnects. */
  poolTrades(poolAddress: string): TradeSubscription {
    return this.add(new TradeSubscription(this, 'pool_trades', poolAddress));
  }

  /** Live trades of a token in all its pools, none missed across reconnects. */
  tokenTrades(tokenAddress: string): TradeSubscription {
    return this.add(new TradeSubscription(this, 'token_trades', tokenAddress));
  }

  /** Candle updates of one series, resumed by seq across reconnects. */
  candles(payload: CandlesPayload): CandlesSubscription {
    return this.add(new CandlesSubscription(this, payload));
  }

  /** Metrics of up to 100 pools (SERVICE.md 6); after a reconnect, the next events bring them up to date. */
  poolMetrics(poolAddresses: string[]): Subscription<Record<string, unknown>> {
    return this.add(new (class extends Subscription<Record<string, unknown>> {
      override payload = () => ({ pool_addresses: poolAddresses });
      override routes = () => poolAddresses.map((p) => `pool_metrics:${p}`);
    })(this, 'pool_metrics'));
  }

  /**
   * A ranking feed and window (SERVICE.md 6.2): its `snapshot` right after subscribing
   * (and again after each reconnect, which replaces the rows), then enter, exit and
   * window events; a window seq that skips one means a batch was missed (reload it).
   */
  rankings(feed: string, window: string): Subscription<Record<string, unknown>> {
    return this.add(new (class extends Subscription<Record<string, unknown>> {
      override payload = () => ({ feed, window });
      override routes = () => [`rankings:${feed}:${window}`];
    })(this, 'rankings'));
  }

  /**
   * Any other stream by name (markers, chart_lines, the signal streams), events routed
   * by the stream's name, so one subscription of a stream per socket. An error frame for
   * it (5010 not built, 4033 plan) ends it with an MdsError; a stream the server ignores
   * (SERVICE.md 7.2) just sends nothing.
   */
  stream(name: string, payload: Record<string, unknown>): Subscription<Record<string, unknown>> {
    return this.add(new (class extends Subscription<Record<string, unknown>> {
      override payload = () => payload;
      override routes = () => [name];
    })(this, name));
  }

  /** Token metadata changes (SERVICE.md 2.7). */
  tokenMetadata(): Subscription<Record<string, unknown>> {
    return this.add(new (class extends Subscription<Record<string, unknown>> {
      override routes = () => ['token_metadata'];
    })(this, 'token_metadata'));
  }

  /** Closes the connection for good and ends every subscription. */
  close(): void {
    this.stop();
  }

  /** A fresh subscription_id: unique per (re)subscription, so a late event of an old one is told apart. */
  nextSubscriptionId(): string {
    return `${this.idPrefix}-${++this.ids}`;
  }

  /** @internal */
  remove(sub: Subscription<any>): void {
    if (!this.subs.delete(sub)) return;
    this.unroute(sub);
    this.send({ type: 'unsubscribe', stream: sub.stream, payload: sub.payload() });
  }

  private add<S extends Subscription<any>>(sub: S): S {
    if (this.stopped) {
      sub.end(new MdsError(0, 'CLOSED', 'the socket is closed', 0));
      return sub;
    }
    this.subs.add(sub);
    if (this.open) this.subscribe(sub);
    return sub;
  }

  private subscribe(sub: Subscription<any>): void {
    this.unroute(sub);
    sub.renew();
    const payload = sub.payload();
    for (const key of sub.routes()) {
      let set = this.routes.get(key);
      if (!set) this.routes.set(key, (set = new Set()));
      set.add(sub);
    }
    this.send({ type: 'subscribe', stream: sub.stream, payload });
  }

  private unroute(sub: Subscription<any>): void {
    for (const [key, set] of this.routes) if (set.delete(sub) && set.size === 0) this.routes.delete(key);
  }

  private emit(event: SocketEvent): void {
    for (const l of this.listeners) l(event);
  }

  private send(frame: unknown): void {
    if (this.open) this.socket!.send(JSON.stringify(frame));
  }

  private connect(): void {
    this.reconnectTimer = null;
    if (this.stopped) return;
    this.emit({ type: 'connecting', attempt: this.attempt });
    const reconnect = this.wasConnected;
    let opened: { socket: WebSocketLike; headerAuth: boolean };
    try {
      opened = this.options.connect(this.options.url, this.options.key);
    } catch (error) {
      this.emit({ type: 'error', error });
      return this.closed(1006, String(error));
    }
    const { socket, headerAuth } = opened;
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.open = true;
      this.pings = [];
      this.emit({ type: 'open' });
      if (!headerAuth && this.options.key) socket.send(JSON.stringify({ type: 'auth', key: this.options.key }));
      for (const sub of this.subs) {
        if (reconnect) sub.beginResync();
        this.subscribe(sub);
      }
      // From here events may arrive: a drop, even before the pong, is a reconnect to make up.
      this.wasConnected = true;
      this.ping({ pong: () => this.ready(reconnect) });
      const pingMs = this.options.pingMs ?? 15_000;
      this.pingTimer = this.timers.setInterval(() => {
        // A ping still unanswered one interval later: the connection is dead (a proxy
        // that holds it open, say); close it and reconnect.
        if (this.pings.length > 0) return socket.close(4000, 'no pong');
        this.ping(null);
      }, pingMs);
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      this.message(typeof event.data === 'string' ? event.data : String(event.data));
    };
    socket.onerror = (error) => this.emit({ type: 'error', error });
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.closed(event.code, event.reason);
    };
  }

  private ping(then: { pong: () => void; closed?: (error: unknown) => void } | null): void {
    this.pings.push(then);
    this.send({ type: 'ping' });
  }

  /**
   * Resolves when the server has handled every frame sent before (the subscriptions made
   * so far are in force) and the client has received every frame the server sent before
   * that: a ping, and its pong (a connection's frames are handled and answered in
   * order). While not connected, at the next connection's readiness. Rejects if the
   * connection closes first, or the socket stops.
   */
  sync(): Promise<void> {
    if (this.stopped) return Promise.reject(new MdsError(0, 'CLOSED', 'the socket is closed', 0));
    if (this.open) return new Promise((resolve, reject) => this.ping({ pong: resolve, closed: reject }));
    return new Promise((resolve, reject) => {
      const stop = this.on((e) => {
        if (e.type === 'ready') resolve();
        else if (e.type === 'close' && e.outcome === 'stop') reject(new MdsError(e.code, 'CLOSED', e.reason || `closed ${e.code}`, 0));
        else return;
        stop();
      });
    });
  }

  private message(text: string): void {
    let frame: any;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (frame.type === 'pong') {
      this.pings.shift()?.pong();
      return;
    }
    if (frame.type === 'error') {
      const error = new MdsError(frame.code, frame.error, frame.message, 0);
      for (const sub of [...this.subs]) {
        if (sub.stream !== frame.stream) continue;
        this.subs.delete(sub);
        this.unroute(sub);
        sub.end(error);
      }
      return;
    }
    if (typeof frame.stream !== 'string' || frame.data === null || typeof frame.data !== 'object') return;
    const data = frame.data;
    const key =
      frame.stream === 'pool_trades' ? `pool_trades:${data.pool_address}`
      : frame.stream === 'token_trades' ? `token_trades:${data.token_address}`
      : frame.stream === 'candles' ? `candles:${data.subscription_id}`
      : frame.stream === 'pool_metrics' ? `pool_metrics:${data.pool_address}`
      : frame.stream === 'rankings' ? `rankings:${data.feed}:${data.window}`
      : frame.stream;
    const subs = this.routes.get(key);
    if (subs) for (const sub of subs) sub.accept(data);
  }

  private ready(reconnect: boolean): void {
    this.attempt = 0;
    this.emit({ type: 'ready', reconnect });
    if (!reconnect) return;
    void Promise.allSettled([...this.subs].map((s) => s.resync())).then((results) => {
      for (const r of results) if (r.status === 'rejected') this.emit({ type: 'error', error: r.reason });
      this.emit({ type: 'resynced' });
    });
  }

  private closed(code: number, reason: string): void {
    this.open = false;
    const closedError = new MdsError(code, 'CLOSED', `connection closed (${code}) before the pong`, 0);
    for (const p of this.pings.splice(0)) p?.closed?.(closedError);
    this.socket = null;
    if (this.pingTimer !== null) this.timers.clearInterval(this.pingTimer);
    this.pingTimer = null;
    const outcome = closeOutcome(code);
    if (this.stopped || outcome === 'stop') {
      this.emit({ type: 'close', code, reason, outcome: 'stop', delayMs: null });
      if (!this.stopped) this.stop(new MdsError(code, code === 4401 ? 'INVALID_API_KEY' : code === 4402 ? 'PLAN_REQUIRED' : 'BAD_FRAME', reason || `closed ${code}`, 0));
      return;
    }
    const maxMs = this.options.maxBackoffMs ?? 30_000;
    const delayMs =
      outcome === 'reauth' ? 0
      : outcome === 'backoff' ? (this.options.limitBackoffMs ?? 5_000) * (1 + this.timers.random())
      : this.timers.random() * Math.min(maxMs, (this.options.backoffMs ?? 500) * 2 ** this.attempt);
    this.attempt++;
    this.emit({ type: 'close', code, reason, outcome, delayMs });
    this.reconnectTimer = this.timers.setTimeout(() => this.connect(), delayMs);
  }

  private stop(error?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.reconnectTimer !== null) this.timers.clearTimeout(this.reconnectTimer);
    if (this.pingTimer !== null) this.timers.clearInterval(this.pingTimer);
    const socket = this.socket;
    this.socket = null;
    this.open = false;
    socket?.close(1000, 'client closed');
    for (const sub of this.subs) sub.end(error);
    this.subs.clear();
    this.routes.clear();
  }
}
