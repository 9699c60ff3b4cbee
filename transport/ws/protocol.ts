import { CANDLE_MODES, INTERVAL_NAMES, TOKEN_SIGNAL_KINDS } from '../../engine/model/index.ts';
import { z } from 'zod';
import type { PlanName } from '../../engine/config.ts';
import { ERROR_CODES } from '../../engine/errors.ts';
import { CANDLES_FRAME_PREFIX, FEED_NAMES, MIN_WALLETS_MAX, RANKING_WINDOWS, chartLinesTopic, topics, type ChartLinesParams, type FeedName, type RankingWindow } from '../../engine/topics/index.ts';
import { ADDRESS_PATTERN } from '../http/index.ts';

/**
 * The /ws protocol (SERVICE.md 3.2, 4.3, 4.4, 6, 7.2; DECISIONS.md "WebSocket"): close
 * codes, the streams a client may subscribe to, one zod schema per stream payload, and
 * what a subscription means for the transport (its uWS channels and watched items).
 */

/** Close codes sent by the server; SERVICE.md 7.2 and DECISIONS.md. */
export const CLOSE = {
  /** Not JSON, not a JSON object, or a frame over the size limit. */
  badFrame: 4400,
  invalidKey: 4401,
  /** Free plan (streams need a paid plan), also when the grace period ends. */
  planRequired: 4402,
  /** No auth frame within the deadline after connect. */
  authTimeout: 4408,
  /** Connection limit of the plan, or the message allowance past 110 %. */
  limit: 4429,
  /** Slow consumer: its unsent buffer passed the backpressure limit. */
  slowConsumer: 4008,
  /** The server is shutting down. */
  goingAway: 1001,
  /** An unexpected error handling a frame (STYLE.md: 5xxx is not a close code). */
  internal: 1011,
} as const;

/** Streams that need Pro or Scale (DECISIONS.md "Plans"). */
export const PRO_STREAMS: ReadonlySet<string> = new Set(['markers', 'chart_lines', 'token_signals', 'social_posts', 'wallet_activity', 'wallet_signals']);

export const isProPlan = (plan: PlanName): boolean => plan === 'pro' || plan === 'scale';


const address = z.string().regex(ADDRESS_PATTERN);
/** Integers a client may send for seq and times: positive and exact in a double. */
const positiveInt = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/**
 * Subscribe payloads (SERVICE.md 4.4). Unknown fields are stripped, not rejected: a
 * payload is ignored only when a field it names is wrong or a required one is missing.
 */
export const payloadSchemas = {
  token_metadata: z.object({}),
  candles: z.object({
    pool_address: address,
    interval: z.enum(INTERVAL_NAMES).default('1m'),
    mode: z.enum(CANDLE_MODES).default('price'),
    currency: z.enum(['usd', 'quote']).default('usd'),
    subscription_id: z.string().min(1).max(64).optional(),
    resume_after_seq: positiveInt.optional(),
    resume_after_time: positiveInt.optional(),
  }),
  pool_metrics: z.object({ pool_addresses: z.array(address).min(1).max(100) }),
  token_trades: z.object({ token_address: address }),
  pool_trades: z.object({ pool_address: address }),
  /** SERVICE.md 4.4 says window is required with a default of 1h: it may be left out, and is then 1h. */
  rankings: z.object({ feed: z.enum(FEED_NAMES), window: z.enum(RANKING_WINDOWS).default('1h') }),
  /** SERVICE.md 4.4 lists top_holder_count as required with a default of 0: it may be left out, and is then 0. */
  chart_lines: z.object({
    pool_address: address,
    token_address: address,
    top_holder_count: z.number().int().min(0).max(25).default(0),
    wallet_addresses: z.array(address).max(20).default([]),
    wallet_address: address.optional(),
  }),
  /** DECISIONS.md: {token_address?, author?}; empty: every post. */
  social_posts: z.object({ token_address: address.optional(), author: z.string().min(1).max(256).optional() }),
  /** DECISIONS.md: {label?, wallets? (up to 100)}; empty: every labeled trade. */
  wallet_activity: z.object({ label: z.string().min(1).max(64).optional(), wallets: z.array(address).min(1).max(100).optional() }),
  markers: z.object({ token_address: address }),
  /** DECISIONS.md "WebSocket": both optional; empty means every token signal. */
  token_signals: z.object({ token_address: address.optional(), kind: z.enum(TOKEN_SIGNAL_KINDS).optional() }),
  /** DECISIONS.md "WebSocket": all optional; wallets up to 100 (as wallet_activity's), min_wallets 1..MIN_WALLETS_MAX (default 1). */
  wallet_signals: z.object({ wallets: z.array(address).min(1).max(100).optional(), token_address: address.optional(), min_wallets: z.number().int().min(1).max(MIN_WALLETS_MAX).optional() }),
} as const;

export type LiveStream = keyof typeof payloadSchemas;
export type CandlesPayload = z.output<(typeof payloadSchemas)['candles']>;

/** One uWS channel of a subscription. */
export interface ChannelRef {
  /** The uWS topic: `topic`, or `<topic>#<subscription_id>` (see `channelName`). */
  name: string;
  /** The engine topic. */
  topic: string;
  /** null: frames as the engine built them; a string: `subscription_id` inserted. */
  subscriptionId: string | null;
  /** The watched item (SERVICE.md 8) the topic names: its pool or token; null for token_metadata; chart_lines: its pool and wallets. */
  item: string | readonly string[] | null;
}

/**
 * What a valid subscribe (or unsubscribe) frame names. Short-lived: a connection keeps
 * only the channels it joined (transport/ws/session.ts), each of which knows its item.
 */
export interface Subscription {
  stream: LiveStream;
  /**
   * Identity of the subscription: stream + normalized payload (defaults applied,
   * pool_metrics addresses sorted and deduplicated, resume fields left out), so an
   * unsubscribe with the same payload, written either way, finds it. For a
   * subscription with one channel it is that channel's name.
   */
  key: string;
  channels: ChannelRef[];
  /** Watched items (SERVICE.md 8): the pools and tokens the subscription names, one per channel. */
  items: string[];
  /** candles with resume_after_seq or resume_after_time: the payload, for the resume read. */
  resume: CandlesPayload | null;
  /** markers: the token whose recent marks are sent right after subscribing. */
  markers?: string;
  /** rankings: the feed and window, whose snapshot is sent right after subscribing. */
  rankings?: { feed: FeedName; window: RankingWindow };
  /** chart_lines: the normalized parameters, whose current lines are sent right after subscribing. */
  chartLines?: ChartLinesParams;
}

/** The uWS topic of an engine topic whose frames carry `subscriptionId` (null: none). */
export const channelName = (topic: string, subscriptionId: string | null): string =>
  subscriptionId === null ? topic : `${topic}#${subscriptionId}`;

/** A subscription with one channel: the key is the channel's name. */
function single(stream: LiveStream, topic: string, subscriptionId: string | null, item: string | null, resume: CandlesPayload | null = null): Subscription {
  const name = channelName(topic, subscriptionId);
  return { stream, key: name, channels: [{ name, topic, subscriptionId, item }], items: item === null ? [] : [item], resume };
}

/**
 * The subscription a frame's stream and payload name, or null when the stream is not
 * a live stream of this service (unknown, `trades`, not implemented yet) or the payload
 * is invalid: both are ignored without an error frame (SERVICE.md 7.2).
 */
export function parseSubscription(stream: string, payload: unknown): Subscription | null {
  if (!Object.hasOwn(payloadSchemas, stream)) return null;
  const result = payloadSchemas[stream as LiveStream].safeParse(payload);
  if (!result.success) return null;
  switch (stream as LiveStream) {
    case 'token_metadata':
      return single('token_metadata', topics.tokenMetadata(), null, null);
    case 'candles': {
      const p = result.data as CandlesPayload;
      const resume = p.resume_after_seq !== undefined || p.resume_after_time !== undefined ? p : null;
      return single('candles', topics.candles(p.pool_address, p.interval, p.mode, p.currency), p.subscription_id ?? null, p.pool_address, resume);
    }
    case 'pool_metrics': {
      const pools = [...new Set((result.data as { pool_addresses: string[] }).pool_addresses)].sort();
      return {
        stream: 'pool_metrics',
        key: `pool_metrics:${pools.join(',')}`,
        channels: pools.map((pool) => {
          const topic = topics.poolMetrics(pool);
          return { name: topic, topic, subscriptionId: null, item: pool };
        }),
        items: pools,
        resume: null,
      };
    }
    case 'token_trades': {
      const token = (result.data as { token_address: string }).token_address;
      return single('token_trades', topics.tokenTrades(token), null, token);
    }
    case 'pool_trades': {
      const pool = (result.data as { pool_address: string }).pool_address;
      return single('pool_trades', topics.poolTrades(pool), null, pool);
    }
    case 'token_signals': {
      // One watched item: the (token, kind) scope, named by its topic (an all-subscription is one item too).
      const { token_address, kind } = result.data as { token_address?: string; kind?: string };
      const topic = topics.tokenSignals(token_address ?? null, kind ?? null);
      return single('token_signals', topic, null, topic);
    }
    case 'wallet_signals': {
      // One watched item per wallet named (a channel each), or one for the scope without wallets.
      const p = result.data as { wallets?: string[]; token_address?: string; min_wallets?: number };
      const token = p.token_address ?? null;
      const min = p.min_wallets ?? 1;
      if (p.wallets === undefined) {
        const topic = topics.walletSignals(null, token, min);
        return single('wallet_signals', topic, null, topic);
      }
      const wallets = [...new Set(p.wallets)].sort();
      return {
        stream: 'wallet_signals',
        key: `wallet_signals:${wallets.join(',')}:${token ?? '*'}:${min}`,
        channels: wallets.map((wallet) => {
          const topic = topics.walletSignals(wallet, token, min);
          return { name: topic, topic, subscriptionId: null, item: wallet };
        }),
        items: wallets,
        resume: null,
      };
    }
    case 'rankings': {
      // One watched item per (feed, window) (SERVICE.md 8: a feed), named by its topic.
      const { feed, window } = result.data as { feed: FeedName; window: RankingWindow };
      const topic = topics.rankings(feed, window);
      return { ...single('rankings', topic, null, topic), rankings: { feed, window } };
    }
    case 'chart_lines': {
      // Watched items: the pool, and each distinct wallet named (wallet_addresses and wallet_address).
      const p = result.data as z.output<(typeof payloadSchemas)['chart_lines']>;
      const params: ChartLinesParams = {
        pool_address: p.pool_address,
        token_address: p.token_address,
        top_holder_count: p.top_holder_count,
        wallet_addresses: [...new Set(p.wallet_addresses)].sort(),
        wallet_address: p.wallet_address ?? null,
      };
      const topic = chartLinesTopic(params);
      const items = [...new Set([params.pool_address, ...params.wallet_addresses, ...(params.wallet_address ? [params.wallet_address] : [])])];
      return { stream: 'chart_lines', key: topic, channels: [{ name: topic, topic, subscriptionId: null, item: items }], items, resume: null, chartLines: params };
    }
    case 'social_posts': {
      // One watched item, named by its topic (every post, a token's, an author's or both).
      const { token_address, author } = result.data as { token_address?: string; author?: string };
      const topic = topics.socialPosts(token_address, author);
      return single('social_posts', topic, null, topic);
    }
    case 'wallet_activity': {
      const { label, wallets } = result.data as { label?: string; wallets?: string[] };
      if (wallets === undefined) {
        // Every labeled trade, or one label's: one watched item, named by its topic.
        const topic = topics.walletActivity(undefined, label);
        return single('wallet_activity', topic, null, topic);
      }
      // The caller's own wallets: one channel and one watched item per wallet (as pool_metrics's pools).
      const list = [...new Set(wallets)].sort();
      return {
        stream: 'wallet_activity',
        key: `wallet_activity:${label ?? '*'}:${list.join(',')}`,
        channels: list.map((wallet) => {
          const topic = topics.walletActivity(wallet, label);
          return { name: topic, topic, subscriptionId: null, item: wallet };
        }),
        items: list,
        resume: null,
      };
    }
    case 'markers': {
      // One watched item: the token.
      const token = (result.data as { token_address: string }).token_address;
      return { ...single('markers', topics.markers(token), null, token), markers: token };
    }
  }
}

/** uWS `WebSocket.send`'s status for a frame it dropped (past `maxBackpressure`). */
export const SEND_DROPPED = 2;

/** Server control frames: they never count toward the message allowance (SERVICE.md 6). */
export const AUTH_OK_FRAME = '{"type":"auth","status":"ok"}';
export const PONG_FRAME = '{"type":"pong"}';

/** The error frame of DECISIONS.md: `{type:"error", code, error, message, stream}`. */
export function errorFrame(code: 4033 | 4290, message: string, stream: string): string {
  return JSON.stringify({ type: 'error', code, error: ERROR_CODES[code].error, message, stream });
}

/** The `"subscription_id":"<id>"` member inserted after CANDLES_FRAME_PREFIX (JSON-escaped once). */
export const subscriptionIdMember = (id: string): string => `"subscription_id":${JSON.stringify(id)}`;

const PREFIX_LENGTH = CANDLES_FRAME_PREFIX.length;
const CLOSE_BRACE = 125; // '}'

/** A candles frame with `member` (see subscriptionIdMember) as the first member of `data`. */
export function withMember(frame: string, member: string): string {
  // Every candles frame starts with the prefix (engine/topics/candles.ts); anything else is
  // passed on unchanged rather than corrupted.
  if (!frame.startsWith(CANDLES_FRAME_PREFIX)) return frame;
  const rest = frame.slice(PREFIX_LENGTH);
  return CANDLES_FRAME_PREFIX + member + (rest.charCodeAt(0) === CLOSE_BRACE ? '' : ',') + rest;
}
