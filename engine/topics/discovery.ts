import type { IngestEvent } from '../ingest/index.ts';
import { TRADE, type PoolGraduatedEvent, type PoolTradeEvent, type Signal } from '../model/index.ts';
import type { LabeledActivity, LabeledWallets, PostsStore } from '../query/index.ts';
import { labeledItem } from '../query/index.ts';
import { MarkerStreams } from './markers.ts';
import type { TopicSink } from './sink.ts';
import { publishPost } from './social-posts.ts';
import { publishActivity, walletActivityFrame, watchedWallet } from './wallet-activity.ts';

export interface DiscoveryStreamsOptions {
  posts: PostsStore;
  labeled: LabeledWallets;
  activity: LabeledActivity;
  markers: MarkerStreams;
  sink: () => TopicSink;
}

/**
 * Posts, labeled activity and markers on the live path: what the engine hands them
 * (engine/system.ts) and where each goes.
 * - every applied ingest event (`onEvent`, start-up replay included): a `social_post` is
 *   stored (route 18), sent on social_posts and marked as a callout on each token it
 *   names; a `label` brings the labeled-wallets index to the wallet's labels (route 19)
 *   and withdraws the marks of the labels removed;
 * - the router's `pool.trade`: a trade of a labeled wallet is stored (route 21), sent on
 *   wallet_activity and as a `labeled_trade` on markers; a trade of a wallet somebody
 *   follows on wallet_activity is sent there labeled or not; every trade is checked
 *   for a new ATH mark;
 * - the router's `signal` and `pool.graduated`: marks.
 */
export class DiscoveryStreams {
  constructor(private readonly o: DiscoveryStreamsOptions) {}

  onEvent(e: IngestEvent): void {
    if (e.type === 'social_post') {
      const json = this.o.posts.put(e);
      publishPost(this.o.sink(), e, json);
      this.o.markers.onPost(e);
    } else if (e.type === 'label') {
      const change = this.o.labeled.follow(e.wallet_address);
      this.o.markers.onLabelsRemoved(change.wallet, change.removed);
    }
  }

  onTrade(e: PoolTradeEvent): void {
    const labeled = this.o.activity.onTrade(e);
    const sink = this.o.sink();
    const wallet = e.trade[TRADE.wallet];
    if (labeled !== null) publishActivity(sink, wallet, labeled.labels, labeled.json);
    else {
      // An unlabeled wallet's trade goes only to those following that wallet.
      const topic = watchedWallet(sink, wallet);
      if (topic !== null) sink.publish(topic, walletActivityFrame(JSON.stringify(labeledItem(e.trade, e, []))));
    }
    this.o.markers.onTrade(e, labeled);
  }

  onSignal(s: Signal): void {
    this.o.markers.onSignal(s);
  }

  onGraduated(e: PoolGraduatedEvent): void {
    this.o.markers.onGraduated(e);
  }
}
