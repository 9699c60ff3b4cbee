import { z } from 'zod';
import type { PlanName } from '../../engine/config.ts';
import { ERROR_CODES } from '../../engine/errors.ts';
import { topics } from '../../engine/topics.ts';
import { ADDRESS_PATTERN } from '../http/params.ts';

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

export const CANDLE_INTERVALS = ['1s', '15s', '1m', '15m', '1h', '6h', '24h'] as const;
export type CandleIntervalName = (typeof CANDLE_INTERVALS)[number];

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
    interval: z.enum(CANDLE_INTERVALS).default('1m'),
    mode: z.enum(['price', 'market_cap']).default('price'),
    currency: z.enum(['usd', 'quote']).default('usd'),
    subscription_id: z.string().min(1).max(64).optional(),
    resume_after_seq: positiveInt.optional(),
    resume_after_time: positiveInt.optional(),
  }),
  pool_metrics: z.object({ pool_addresses: z.array(address).min(1).max(100) }),
  token_trades: z.object({ token_address: address }),
  pool_trades: z.object({ pool_address: address }),
} as const;

export type LiveStream = keyof typeof payloadSchemas;
export type CandlesPayload = z.output<(typeof payloadSchemas)['candles']>;

/** One uWS channel of a subscription: an engine topic, and the candles subscription_id echoed on it. */
export interface ChannelRef {
  topic: string;
  /** null: frames as the engine built them; a string: `subscription_id` inserted. */
  subscriptionId: string | null;
}

/** What a valid subscribe (or unsubscribe) frame names. */
export interface Subscription {
  stream: LiveStream;
  /**
   * Identity of the subscription: stream + normalized payload (defaults applied,
   * pool_metrics addresses sorted and deduplicated, resume fields left out), so an
   * unsubscribe with the same payload, written either way, finds it.
   */
  key: string;
  channels: ChannelRef[];
  /** Watched items (SERVICE.md 8): the pools and tokens the subscription names. */
  items: string[];
  /** candles with resume_after_seq or resume_after_time. */
  resume: { payload: CandlesPayload } | null;
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
      return { stream: 'token_metadata', key: 'token_metadata', channels: [{ topic: topics.tokenMetadata(), subscriptionId: null }], items: [], resume: null };
    case 'candles': {
      const p = result.data as CandlesPayload;
      const id = p.subscription_id ?? null;
      const topic = topics.candles(p.pool_address, p.interval, p.mode, p.currency);
      const resume = p.resume_after_seq !== undefined || p.resume_after_time !== undefined ? { payload: p } : null;
      return { stream: 'candles', key: `${topic}#${id ?? ''}`, channels: [{ topic, subscriptionId: id }], items: [p.pool_address], resume };
    }
    case 'pool_metrics': {
      const pools = [...new Set((result.data as { pool_addresses: string[] }).pool_addresses)].sort();
      return {
        stream: 'pool_metrics',
        key: `pool_metrics:${pools.join(',')}`,
        channels: pools.map((pool) => ({ topic: topics.poolMetrics(pool), subscriptionId: null })),
        items: pools,
        resume: null,
      };
    }
    case 'token_trades': {
      const token = (result.data as { token_address: string }).token_address;
      const topic = topics.tokenTrades(token);
      return { stream: 'token_trades', key: topic, channels: [{ topic, subscriptionId: null }], items: [token], resume: null };
    }
    case 'pool_trades': {
      const pool = (result.data as { pool_address: string }).pool_address;
      const topic = topics.poolTrades(pool);
      return { stream: 'pool_trades', key: topic, channels: [{ topic, subscriptionId: null }], items: [pool], resume: null };
    }
  }
}

/** Server control frames: they never count toward the message allowance (SERVICE.md 6). */
export const AUTH_OK_FRAME = '{"type":"auth","status":"ok"}';
export const PONG_FRAME = '{"type":"pong"}';

/** The error frame of DECISIONS.md: `{type:"error", code, error, message, stream}`. */
export function errorFrame(code: 4033 | 4290, message: string, stream: string): string {
  return JSON.stringify({ type: 'error', code, error: ERROR_CODES[code].error, message, stream });
}

/** The `"subscription_id":"<id>"` member inserted after CANDLES_FRAME_PREFIX (JSON-escaped once). */
export const subscriptionIdMember = (id: string): string => `"subscription_id":${JSON.stringify(id)}`;
