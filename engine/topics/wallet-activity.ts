import { topics } from './names.ts';
import { fanOut, type TopicSink } from './sink.ts';

/**
 * wallet_activity (DECISIONS.md payload {label?, wallets? up to 100}; an empty payload:
 * every labeled trade): a trade goes to
 * - `wallet_activity` and `wallet_activity:*:<label>` for each label in force on its
 *   wallet (labeled trades only);
 * - `wallet_activity:<wallet>:*` (a caller's own wallet: its trades, labeled or not) and
 *   `wallet_activity:<wallet>:<label>` for each of its labels;
 * each only when somebody listens, the frame built once per trade. The data is route
 * 21's item (SERVICE.md 6.1 `labeled_trade` with token_address).
 */

export const walletActivityFrame = (data: string): string => `{"stream":"wallet_activity","data":${data}}`;

/** A labeled trade: its JSON and labels. */
export function publishActivity(sink: TopicSink, wallet: string, labels: readonly string[], json: string): void {
  const send = fanOut(sink, () => walletActivityFrame(json));
  send(topics.walletActivity());
  send(topics.walletActivity(wallet));
  for (const label of labels) {
    send(topics.walletActivity(undefined, label));
    send(topics.walletActivity(wallet, label));
  }
}

/** The topic a trade of an unlabeled wallet goes to when somebody follows that wallet, else null: one lookup per trade. */
export function watchedWallet(sink: TopicSink, wallet: string): string | null {
  const topic = topics.walletActivity(wallet);
  return sink.has(topic) ? topic : null;
}
