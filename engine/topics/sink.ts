/**
 * The seam between the engine's live output and the WebSocket transport
 * (ARCHITECTURE.md, "Topics"). The engine builds each event's frame once, only for
 * topics somebody listens on, and hands the same string to every subscriber through
 * the sink; the transport (transport/ws) implements the sink over uWS publish.
 *
 * Topic names are built by names.ts, one per stream and key.
 *
 * Frames are the whole JSON text a client receives: `{"stream":"...","data":{...}}`.
 * A candles frame begins with exactly CANDLES_FRAME_PREFIX (candles.ts) so that the
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

/**
 * One event for several topics (social_posts, wallet_activity): the frame is built on
 * the first topic that has subscribers, then the same bytes go to each such topic.
 */
export function fanOut(sink: TopicSink, build: () => string): (topic: string) => void {
  let frame: string | null = null;
  return (topic) => {
    if (!sink.has(topic)) return;
    frame ??= build();
    sink.publish(topic, frame);
  };
}
