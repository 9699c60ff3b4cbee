import type { CandleInterval } from '../../engine/model/index.ts';
import { TextDecoder } from 'node:util';
import type { WebSocket } from 'uWebSockets.js';
import { initialConnection, stateOf, step, type ConnectionEvent, type ConnectionSnapshot } from '../../actors/connection/index.ts';
import type { AccountLimits } from '../../engine/plans/index.ts';
import type { Config } from '../../engine/config.ts';
import type { Account, KeyStore } from '../../engine/plans/index.ts';
import type { Logger } from '../../engine/log.ts';
import type { Metrics } from '../../engine/metrics.ts';
import { bearerToken } from '../http/index.ts';
import type { Channel } from './channel.ts';
import type { AccountEntry } from './allowance.ts';
import type { Hub, HubConnection } from './hub.ts';
import type { Outbox } from './writer.ts';
import type { ChartLinesParams, FeedName, RankingWindow } from '../../engine/topics/index.ts';
import { AUTH_OK_FRAME, CLOSE, PONG_FRAME, PRO_STREAMS, SEND_DROPPED, errorFrame, isProPlan, parseSubscription, type CandlesPayload, type Subscription } from './protocol.ts';

/** The candle resume read of the engine (engine/query CandlesQuery.candleResume). */
export interface CandleResumeSource {
  candleResume(req: {
    pool_address: string;
    interval: CandleInterval;
    mode: 'price' | 'market_cap';
    currency: 'usd' | 'quote';
    afterSeq?: number;
    afterTime?: number;
  }): { seq: number; candles: unknown[] } | null;
}

/** The engine's publisher: a new candle subscription is served from the next flush on. */
export interface CandleWatch {
  candleSubscribed(pool: string): void;
}

/** The rankings stream's snapshots (engine/topics RankingStreams.snapshotFrame): the frame a new subscriber gets first. */
export interface RankingSnapshots {
  snapshotFrame(feed: FeedName, window: RankingWindow): string;
}

/** The chart_lines stream (engine/topics ChartLineStreams.subscribed): the lines a new subscriber gets first. */
export interface ChartLinesSource {
  subscribed(params: ChartLinesParams): string;
}

/** The markers stream (engine/topics MarkerStreams.recentFrames): the marks a new subscriber gets first. */
export interface MarkerSnapshots {
  recentFrames(token: string): string[];
}

/** What uWS keeps per socket: the header read at the upgrade, then the connection. */
export interface UserData {
  authorization: string;
  /**
   * A web terminal session's account, verified at the upgrade; null: the session cookie
   * named no live session; undefined: no session cookie.
   */
  session?: Account | null;
  /** The session cookie the upgrade carried (checked again while the connection lives). */
  sessionCookie?: string;
  connection: Connection | null;
}

/** What every connection shares. */
export interface SessionContext {
  config: Config['ws'];
  log: Logger;
  keys: KeyStore;
  limits: AccountLimits;
  hub: Hub;
  metrics: Metrics;
  candles?: CandleResumeSource;
  candleWatch?: CandleWatch;
  rankings?: RankingSnapshots;
  chartLines?: ChartLinesSource;
  markers?: MarkerSnapshots;
  /** Open connections, for closing them all at shutdown. */
  connections: Set<Connection>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One WebSocket connection: the connection actor of ARCHITECTURE.md. Its lifecycle is
 * the xstate machine of actors/connection (advanced with pure transitions); frames,
 * subscriptions and counters are plain state here, so per-frame work never goes
 * through xstate.
 *
 * Frames that arrive before authentication completes are held (bounded by
 * `ws.heldBytesMax`) and applied in order once it does; never rejected.
 */
export class Connection implements HubConnection {
  ws: WebSocket<UserData> | null;
  account: AccountEntry | null = null;
  /** A web terminal session's cookie, when the upgrade was authorized by one. */
  sessionCookie: string | null = null;
  checkedTurn = -1;
  dropped = false;
  outbox: Outbox | null = null;
  private lifecycle: ConnectionSnapshot = initialConnection;
  /**
   * By Subscription.key: the channel a subscription joined, or pool_metrics's channels
   * (one per pool); each channel knows the watched item it stands for. Created on the
   * first subscribe.
   */
  private subscriptions: Map<string, Channel | Channel[]> | null = null;
  private held: Record<string, unknown>[] | null = null;
  private heldBytes = 0;
  /** The auth deadline, then the stall grace of a slow consumer. */
  private timer: NodeJS.Timeout | null = null;
  /** Whether limits.openConnection gave this connection a slot. */
  private slot = false;
  /** How the close is counted in metrics: the code the server sent, or why it cut the socket. */
  private closeLabel: string | null = null;

  constructor(ws: WebSocket<UserData>, private readonly ctx: SessionContext) {
    this.ws = ws;
  }

  get state() {
    return stateOf(this.lifecycle);
  }

  /**
   * uWS `open`: authenticates from the upgrade's Authorization header or session cookie,
   * or waits for an auth frame.
   */
  open(authorization: string, session?: Account | null): void {
    this.ctx.connections.add(this);
    this.ctx.metrics.wsConnections.inc();
    if (session !== undefined) {
      if (session === null) return this.close(CLOSE.invalidKey, 'session expired or revoked');
      return this.admit(session, false);
    }
    if (authorization !== '') {
      const key = bearerToken(authorization);
      if (key === null) return this.close(CLOSE.invalidKey, 'invalid key');
      return this.authenticate(key, false);
    }
    const ms = this.ctx.config.authTimeoutMs;
    this.timer = setTimeout(() => this.close(CLOSE.authTimeout, `no auth frame within ${ms} ms`), ms);
  }

  /** uWS `message`: one client frame. The ArrayBuffer is only valid during this call. */
  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    const state = this.state;
    if (state === 'closing' || state === 'closed') return;
    const max = this.ctx.config.frameBytesMax;
    if (message.byteLength > max) return this.close(CLOSE.badFrame, `frame over ${max} bytes`);
    let frame: unknown;
    try {
      frame = JSON.parse(isBinary ? utf8.decode(message) : Buffer.from(message).toString('utf8'));
    } catch {
      // JSON.parse or the UTF-8 decoder: either way the frame is not JSON text.
      return this.close(CLOSE.badFrame, 'frame is not JSON');
    }
    if (!isObject(frame)) return this.close(CLOSE.badFrame, 'frame is not a JSON object');
    if (state === 'authenticated') return this.apply(frame);
    if (frame.type === 'auth') return this.authenticate(frame.key, true);
    this.heldBytes += message.byteLength;
    if (this.heldBytes > this.ctx.config.heldBytesMax) return this.close(CLOSE.badFrame, 'too much sent before authentication');
    (this.held ??= []).push(frame);
  }

  /** uWS `drain`: a slow consumer reads again, so its close frame can follow its last frame. */
  onDrain(): void {
    if (this.state === 'closing') this.close(CLOSE.slowConsumer, 'slow consumer');
  }

  /**
   * A slow consumer (hub): its streams stop now, so it never sees a frame after a gap;
   * it is closed with 4008 once its socket drains, or cut after the stall grace.
   */
  slow(): void {
    if (this.state !== 'authenticated') return;
    this.transition({ type: 'connection.slow' });
    const hub = this.ctx.hub;
    if (this.subscriptions) for (const held of this.subscriptions.values()) forEachChannel(held, (channel) => hub.leave(this, channel));
    this.timer = setTimeout(() => this.cut(), this.ctx.config.stalledGraceMs);
  }

  /** Sends the close frame (uWS calls `onClosed` before `end` returns). */
  close(code: number, reason: string): void {
    const ws = this.ws;
    if (!ws) return;
    this.closeLabel ??= String(code);
    // Frames published before the close go out before the close frame.
    this.ctx.hub.flushOutbox(this);
    ws.end(code, reason);
  }

  /** uWS `close`: the socket is gone (any cause); releases everything it held. */
  onClosed(code: number): void {
    if (this.state === 'closed') return;
    // A slow consumer (closing) left its channels when its streams stopped.
    const joined = this.state === 'authenticated';
    this.ws = null;
    this.outbox = null;
    this.transition({ type: 'connection.close' });
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const { hub, limits, metrics } = this.ctx;
    const entry = this.account;
    if (entry && this.subscriptions) for (const held of this.subscriptions.values()) this.release(held, joined);
    hub.exit(this);
    this.subscriptions = null;
    this.held = null;
    if (entry && this.slot) limits.closeConnection(entry.account.id);
    this.slot = false;
    metrics.wsCloses.inc({ code: this.closeLabel ?? (code === 1006 ? '1006' : 'client') });
    metrics.wsConnections.dec();
    this.ctx.connections.delete(this);
  }

  /** A stalled slow consumer: no close frame can get through, so the socket is closed outright. */
  private cut(): void {
    this.timer = null;
    const ws = this.ws;
    if (!ws || this.state !== 'closing') return;
    this.closeLabel = 'stalled';
    ws.close();
  }

  private transition(event: ConnectionEvent): void {
    this.lifecycle = step(this.lifecycle, event);
  }

  private authenticate(key: unknown, byFrame: boolean): void {
    const account = typeof key === 'string' ? this.ctx.keys.verify(key) : null;
    if (!account) return this.close(CLOSE.invalidKey, 'invalid key');
    this.admit(account, byFrame);
  }

  /** An account known (by key or session): plan, allowance and connection limit, then in. */
  private admit(account: Account, byFrame: boolean): void {
    const { limits, hub } = this.ctx;
    if (limits.planOf(account).plan === 'free') return this.close(CLOSE.planRequired, 'streams need a paid plan');
    if (!limits.countMessages(account, 0)) return this.close(CLOSE.limit, 'monthly message allowance used');
    if (!limits.openConnection(account)) return this.close(CLOSE.limit, 'connection limit of the plan reached');
    this.slot = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.transition({ type: 'connection.authenticate' });
    hub.enter(account, this);
    if (byFrame) this.sendControl(AUTH_OK_FRAME);
    const held = this.held;
    this.held = null;
    if (!held) return;
    for (const frame of held) {
      if (this.state !== 'authenticated') return;
      this.apply(frame);
    }
  }

  /** One frame of an authenticated connection. Unknown types are ignored. */
  private apply(frame: Record<string, unknown>): void {
    switch (frame.type) {
      case 'ping':
        return this.sendControl(PONG_FRAME);
      case 'subscribe':
        return this.subscribe(frame);
      case 'unsubscribe':
        return this.unsubscribe(frame);
      case 'auth': {
        // A repeated auth frame (a client that always sends one): fine for the same account.
        const account = typeof frame.key === 'string' ? this.ctx.keys.verify(frame.key) : null;
        if (!account || account.id !== this.account?.account.id) return this.close(CLOSE.invalidKey, 'invalid key');
        return this.sendControl(AUTH_OK_FRAME);
      }
    }
  }

  /** The subscription a subscribe/unsubscribe frame names; null: ignore it (SERVICE.md 7.2). */
  private named(frame: Record<string, unknown>, subscribing: boolean): Subscription | null {
    const { stream, payload } = frame;
    if (typeof stream !== 'string' || !isObject(payload)) return null;
    if (PRO_STREAMS.has(stream) && !isProPlan(this.ctx.limits.planOf(this.account!.account).plan)) {
      // A Pro-only stream: other plans hear why they get nothing.
      if (subscribing) this.sendControl(errorFrame(4033, `stream ${stream} needs the pro or scale plan`, stream));
      return null;
    }
    return parseSubscription(stream, payload);
  }

  private subscribe(frame: Record<string, unknown>): void {
    const sub = this.named(frame, true);
    if (!sub) return;
    const { hub, limits, config } = this.ctx;
    const subscriptions = (this.subscriptions ??= new Map());
    if (!subscriptions.has(sub.key)) {
      if (subscriptions.size >= config.subscriptionsMax) {
        return this.sendControl(errorFrame(4290, `at most ${config.subscriptionsMax} subscriptions per connection`, sub.stream));
      }
      if (sub.items.length && !limits.watch(this.account!.account, sub.items)) {
        return this.sendControl(errorFrame(4290, 'watched items limit of the plan reached', sub.stream));
      }
      const refs = sub.channels;
      if (refs.length === 1) {
        const channel = hub.join(this, refs[0]!);
        // Where the key is the channel's name (one-channel streams, protocol.ts `single`),
        // keyed by the channel's own string: held once however many connections share it.
        subscriptions.set(sub.key === channel.name ? channel.name : sub.key, channel);
      } else {
        subscriptions.set(sub.key, refs.map((ref) => hub.join(this, ref)));
      }
      if (sub.stream === 'candles') this.ctx.candleWatch?.candleSubscribed(sub.items[0]!);
    }
    if (sub.resume) this.resume(sub.resume);
    // rankings: the (feed, window)'s snapshot (SERVICE.md 6.2), the same bytes for every
    // subscriber until the feed changes; it carries the seq of the last window batch it
    // includes. chart_lines: the current lines. markers: the token's recent marks. The
    // channel is joined first, so the next frame published reaches this connection after these.
    const { rankings, chartLines } = sub;
    if (rankings) this.direct('rankings', () => this.ctx.rankings?.snapshotFrame(rankings.feed, rankings.window));
    if (chartLines) this.direct('chart_lines', () => this.ctx.chartLines?.subscribed(chartLines));
    if (sub.markers !== undefined) this.recentMarks(sub.markers);
  }

  /**
   * markers: the token's recent marks still in force right after subscribing, oldest
   * first, as the events they went out as (the channel is joined first, so a mark
   * published later reaches this connection after them). Each counts as a data message.
   */
  private recentMarks(token: string): void {
    const source = this.ctx.markers;
    if (!source) return;
    let frames: string[];
    try {
      frames = source.recentFrames(token);
    } catch (err) {
      this.ctx.log.error({ err, token }, 'ws: recent marks failed');
      return;
    }
    let sent = 0;
    for (const frame of frames) {
      if (!this.send(frame)) break;
      sent++;
    }
    if (sent > 0) this.ctx.hub.countDirect(this, sent);
  }

  /** A data frame for this connection alone right after subscribing (counted); a read that throws sends nothing. */
  private direct(stream: string, frameOf: () => string | undefined): void {
    let frame: string | undefined;
    try {
      frame = frameOf();
    } catch (err) {
      this.ctx.log.error({ err, stream }, 'ws: first frame of a subscription failed');
      return;
    }
    if (frame !== undefined && this.send(frame)) this.ctx.hub.countDirect(this, 1);
  }

  private unsubscribe(frame: Record<string, unknown>): void {
    const named = this.named(frame, false);
    const held = named && this.subscriptions?.get(named.key);
    if (!held) return;
    this.subscriptions!.delete(named.key);
    this.release(held, true);
  }

  /** Leaves a subscription's channels (unless already left) and gives back its watched items. */
  private release(held: Channel | Channel[], leave: boolean): void {
    const { hub, limits } = this.ctx;
    const accountId = this.account!.account.id;
    if (!Array.isArray(held)) {
      if (leave) hub.leave(this, held);
      if (held.item !== null) limits.unwatch(accountId, typeof held.item === 'string' ? [held.item] : held.item);
      return;
    }
    const items: string[] = [];
    for (const channel of held) {
      if (leave) hub.leave(this, channel);
      if (channel.item !== null) items.push(...(typeof channel.item === 'string' ? [channel.item] : channel.item));
    }
    if (items.length) limits.unwatch(accountId, items);
  }

  /**
   * candles with resume_after_seq / resume_after_time: one frame with what changed
   * since, sent right after subscribing. Live frames published later carry later seqs,
   * and none published before the subscribe reached this connection, so the client
   * sees no gap and no repeat.
   */
  private resume(p: CandlesPayload): void {
    const candles = this.ctx.candles;
    if (!candles) return;
    let result: ReturnType<CandleResumeSource['candleResume']>;
    try {
      result = candles.candleResume({
        pool_address: p.pool_address,
        interval: p.interval,
        mode: p.mode,
        currency: p.currency,
        afterSeq: p.resume_after_seq,
        afterTime: p.resume_after_time,
      });
    } catch (err) {
      this.ctx.log.error({ err, pool: p.pool_address }, 'ws: candle resume failed');
      return;
    }
    if (!result) return;
    const data = {
      ...(p.subscription_id === undefined ? {} : { subscription_id: p.subscription_id }),
      pool_address: p.pool_address,
      interval: p.interval,
      mode: p.mode,
      currency: p.currency,
      seq: result.seq,
      candles: result.candles,
    };
    if (this.send(JSON.stringify({ stream: 'candles', data }))) this.ctx.hub.countDirect(this, 1);
  }

  /** Control frames (auth, pong, errors) do not count toward the message allowance. */
  private sendControl(frame: string): void {
    this.send(frame);
  }

  /**
   * Sends to this socket alone. Nothing more is sent once a frame was dropped (the
   * stream must end there). A socket past the soft limit from direct sends alone (a
   * ping flood it never reads) is a slow consumer too.
   */
  private send(frame: string): boolean {
    const ws = this.ws;
    if (!ws || this.dropped || this.state !== 'authenticated') return false;
    // Frames published before this one go first (a write of their own, corked).
    this.ctx.hub.flushOutbox(this);
    if (this.dropped) return false;
    const status = ws.send(frame, false, false);
    if (status === SEND_DROPPED) return false;
    if (status !== 1 && ws.getBufferedAmount() > this.ctx.config.backpressureBytes) this.slow();
    return true;
  }
}

/** The channels a connection keeps for one subscription: one, or pool_metrics's (one per pool). */
function forEachChannel(held: Channel | Channel[], each: (channel: Channel) => void): void {
  if (Array.isArray(held)) for (const channel of held) each(channel);
  else each(held);
}
