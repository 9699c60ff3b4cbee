/**
 * The seam between the engine's live output and the WebSocket transport
 * (ARCHITECTURE.md, "Topics"). The engine builds each event's frame once, only for
 * topics somebody listens on, and hands the same string to every subscriber through
 * the sink; the transport (transport/ws) implements the sink over uWS publish.
 *
 * Topic names, one per stream and key:
 * - `token_metadata`                                  every token metadata change
 * - `pool_trades:<pool_address>`                      trades of one pool
 * - `token_trades:<token_address>`                    trades of one token, in every pool
 * - `pool_metrics:<pool_address>`                     metrics of one pool
 * - `candles:<pool>:<interval>:<mode>:<currency>`     one candle series
 *
 * Frames are the whole JSON text a client receives: `{"stream":"...","data":{...}}`.
 * A candles frame begins with exactly `{"stream":"candles","data":{` so that the
 * transport can insert a subscriber's `"subscription_id":"...",` after that prefix.
 */
export interface TopicSink {
  /** Whether any connection listens on the topic; the engine builds frames only then. */
  has(topic: string): boolean;
  /** Sends one frame to every subscriber of the topic. */
  publish(topic: string, frame: string): void;
  /**
   * Writes what `publish` has buffered so far, where the sink buffers (the WebSocket
   * hub's outboxes); the engine calls it once a batch is applied, before its live flush.
   */
  flush?(): void;
}

/** A sink with no subscribers: the engine's default until a transport attaches. */
export const NO_TOPICS: TopicSink = {
  has: () => false,
  publish: () => {},
};

export const topics = {
  tokenMetadata: () => 'token_metadata',
  poolTrades: (pool: string) => `pool_trades:${pool}`,
  tokenTrades: (token: string) => `token_trades:${token}`,
  poolMetrics: (pool: string) => `pool_metrics:${pool}`,
  candles: (pool: string, interval: string, mode: string, currency: string) => `candles:${pool}:${interval}:${mode}:${currency}`,
} as const;

/** The prefix every candles frame starts with (see TopicSink). */
export const CANDLES_FRAME_PREFIX = '{"stream":"candles","data":{';
