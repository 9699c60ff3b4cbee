import type { Logger } from 'pino';
import { latestQuotePrice, type FeedState } from '../../actors/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { SignalsRepo, TradesRepo } from '../../storage/index.ts';
import { SignalsQuery } from './signals.ts';
import { WSOL } from '../model/index.ts';
import { CandlesQuery, type ChangedCandles } from './candles.ts';
import { HoldersQuery } from './holders.ts';
import type { EngineStatus, Query, SolPrice } from './query.ts';
import { PoolsQuery } from './pools.ts';
import { RankingsQuery } from './rankings.ts';
import { ResearchFeed } from './search.ts';
import { MarketState, type ActorReader, type MarketStateOptions } from './state.ts';
import { TokensQuery } from './tokens.ts';
import { PostsStore } from './posts.ts';
import { LabeledWallets } from './labeled-wallets.ts';
import { LabeledActivity } from './activity.ts';
import type { RecentWalletPools } from './trade-streams.ts';
import { TradesQuery } from './trades.ts';
import { RECENT_TRADES, WalletsQuery, type WalletHosts } from './wallets.ts';

export interface QueryOptions {
  /** The actor hosts the reads see (their states and versions), and the engine clock. */
  actors: MarketStateOptions;
  /** Wallet accounting's hosts, or null when it is off (the wallet routes then answer 503). */
  wallets: WalletHosts | null;
  /** The signals store, or null when signals are off. */
  signals?: SignalsRepo | null;
  /** The ranking feeds' host, or null when they are off. */
  feeds: ActorReader<FeedState> | null;
  storage: Storage;
  trades: TradesRepo;
  /** The pools each wallet traded in lately (its trades still in the pools' memory). */
  recentWallets: RecentWalletPools;
  /** The candles stream's record of changes, for a resume by seq (engine/topics). */
  candleHistory: ChangedCandles;
  sniperSlots: number;
  log: Logger;
  /** The engine's status for /health (its gate and source). */
  status: () => EngineStatus;
}

/**
 * The read facade the transport holds (Query): one object per route group over one
 * MarketState, built in one place so the composition root (engine/system.ts) only
 * hands over the parts.
 */
export function createQuery(options: QueryOptions): Query {
  const { actors, storage, sniperSlots } = options;
  const state = new MarketState(actors);
  const pools = new PoolsQuery({ state, sniperSlots });
  const tokens = new TokensQuery({ state, sniperSlots });
  const research = new ResearchFeed({ state, pools, storage, log: options.log.child({ part: 'research' }) });
  const trades = new TradesQuery({ state, trades: options.trades, storage, recentWallets: options.recentWallets });
  const labeled = new LabeledWallets(storage, actors.labels);
  return {
    market: { pools, tokens, trades, candles: new CandlesQuery({ state, history: options.candleHistory }) },
    research,
    wallets: options.wallets
      ? new WalletsQuery({
          hosts: options.wallets,
          state,
          // As GET /wallets/{wallet}/trades lists them: newest first, over the 30 days trade lists cover.
          recentTrades: (wallet) => trades.walletTrades(wallet, { order: 'desc', limit: RECENT_TRADES, startTime: 0 }).items,
        })
      : undefined,
    holders: new HoldersQuery({ hosts: actors, state, tokens, pools, creators: research.creators, sniperSlots }),
    rankings: options.feeds ? new RankingsQuery({ state, pools, feeds: options.feeds }) : undefined,
    discovery: { posts: new PostsStore(storage), labeled, activity: new LabeledActivity(storage, labeled, () => trades, () => actors.clock.now()) },
    signals: options.signals ? new SignalsQuery({ store: options.signals, clock: actors.clock }) : undefined,
    status: options.status,
    solPrice: (): SolPrice | null => {
      const quote = actors.quotePrices.get(WSOL);
      const latest = quote && latestQuotePrice(quote);
      return latest ? { price_usd: latest.price_usd, updated_at: latest.at } : null;
    },
  };
}
