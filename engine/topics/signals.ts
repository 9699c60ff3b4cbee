import { isTokenSignal, type Signal } from '../model/index.ts';
import type { TopicSink } from './sink.ts';
import { topics } from './names.ts';

/**
 * token_signals and wallet_signals (DECISIONS.md "WebSocket"): each signal the signal
 * actors emit (the derived `signal` event, a router subscriber of live batches) is
 * serialized once, as the signal object with `event` = its kind, and the same frame
 * goes to every topic a subscription of it may listen on (names.ts):
 * - a token kind: token_signals:<token|*>:<kind|*>, the four combinations;
 * - a wallet kind: wallet_signals:<wallet|*>:<token|*>:<m> for each wallet it names and
 *   `*`, its token and `*`, and every m from 1 to its wallet count (at most
 *   MIN_WALLETS_MAX): a subscription's min_wallets is part of its topic.
 * Frames are built only when some topic has a subscriber.
 */

/** The largest min_wallets a wallet_signals subscription may give. */
export const MIN_WALLETS_MAX = 20;

const frame = (stream: 'token_signals' | 'wallet_signals', s: Signal): string => `{"stream":"${stream}","data":${JSON.stringify({ event: s.kind, ...s })}}`;

const TOPICS: string[] = [];

/** The topics with a subscriber a signal goes to (into TOPICS, reused). */
function topicsOf(sink: TopicSink, s: Signal): string[] {
  TOPICS.length = 0;
  const add = (topic: string) => {
    if (sink.has(topic)) TOPICS.push(topic);
  };
  if (isTokenSignal(s.kind)) {
    for (const token of [s.token_address, null]) for (const kind of [s.kind, null]) add(topics.tokenSignals(token, kind));
    return TOPICS;
  }
  const wallets = [...new Set(s.wallet_addresses)];
  const most = Math.min(Math.max(wallets.length, 1), MIN_WALLETS_MAX);
  for (let m = 1; m <= most; m++) {
    for (const token of [s.token_address, null]) {
      add(topics.walletSignals(null, token, m));
      for (const wallet of wallets) add(topics.walletSignals(wallet, token, m));
    }
  }
  return TOPICS;
}

/** Publishes one signal on its stream's topics that have subscribers, serialized once. */
export function publishSignal(sink: TopicSink, s: Signal): void {
  const names = topicsOf(sink, s);
  if (names.length === 0) return;
  const data = frame(isTokenSignal(s.kind) ? 'token_signals' : 'wallet_signals', s);
  for (const name of names) sink.publish(name, data);
}
