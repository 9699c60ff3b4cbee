import { Observable, Subscription } from 'rxjs';
import type { Logger } from 'pino';
import { createFeedBehavior, createPoolBehavior, splitFeedSnapshots, createTokenBehavior, quotePriceBehavior, type FeedState, type PoolState, type QuotePriceState, type TokenState } from '../actors/index.ts';
import { CandlesRepo } from '../storage/index.ts';
import { TradesRepo } from '../storage/index.ts';
import { activeLabels, walletLabelsBehavior, type WalletLabelsState } from '../actors/labels/index.ts';
import { pruneOnce, type RetentionResult } from './retention.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { createClock, type Clock } from './clock.ts';
import { PERSIST_UNSAVED_AT } from './bounds.ts';
import type { Config } from './config.ts';
import type { IngestEvent } from './ingest/index.ts';
import { IngestGate, LogRetention, type IngestResult } from './ingest/index.ts';
import { silentLogger } from './log.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { RecentWalletPools, createQuery, type EngineStatus, type Query, type ResearchFeed } from './query/index.ts';
import { SourceRegistry, SourceRunner, type Source, type SourceFactory } from './sources/index.ts';
import type { ActorBehavior } from './supervisor/index.ts';
import { Checkpointer, ResidentBytes, checkpointOf, combineBehaviors, latestAtOf, type SliceOptions } from './supervisor/index.ts';
import { ActorHost } from './supervisor/index.ts';
import { Router } from './supervisor/index.ts';
import { StaleEpochs } from './supervisor/index.ts';
import { ChartLineStreams, DiscoveryStreams, MarketPublisher, MarkerStreams, NO_TOPICS, RankingStreams, Ticker, type TopicSink } from './topics/index.ts';
import { WalletIndexer } from '../storage/index.ts';
import { TRADE, type PoolGraduatedEvent, type PoolTradeEvent, type SignalEvent } from './model/index.ts';
import { createWalletBehavior } from '../actors/wallet/index.ts';
import { createTokenSignalsBehavior, resolveSignalThresholds, TOKEN_SIGNALS_PART, type TokenSignalsState } from '../actors/signals/index.ts';
import { SignalsRepo } from '../storage/index.ts';
import { publishSignal } from './topics/index.ts';
import { leaderboardBehavior, tokenTradersBehavior, type LeaderboardState, type TokenTradersState } from '../actors/wallet/index.ts';
import type { WalletState } from '../actors/wallet/index.ts';

import { Applier, type StampedEvent } from './apply.ts';
import { LongTasks } from './long-tasks.ts';
import { sliceOf } from './slices.ts';
export type { StampedEvent } from './apply.ts';

export interface EngineOptions {
  config: Config;
  log?: Logger;
  /** Extra actor kinds run beside the built-in ones (embedders, tests). */
  actors?: ActorBehavior<any>[];
  /**
   * Runs the ranking feeds (route 16, the rankings stream): the feed actors and their
   * ticks. Default true; false leaves them out (route 16 then lists nothing), for
   * measuring what they cost (bench/engine.ts --feeds off).
   */
  feeds?: boolean;
  /**
   * The feeds' recompute holds the events while it reads (RankingStreamsOptions.holds).
   * Default: when the Applier applies whole batches (`ingest.applySliceMs` 0, `mds
   * replay`); otherwise the events go on between its slices. For tests of both.
   */
  rankingsHold?: boolean;
  /** The feeds' recompute re-reads only the pools that may have changed (InputMemo, actors/feed). Default true; false only to test that this changes nothing. */
  rankingsMemo?: boolean;
  /** Defaults to the clock `config.clock` names. */
  clock?: Clock;
  /** How often touched pools publish candles and pool_metrics and persist closed candles (default 250 ms). */
  flushMs?: number;
  /** Longest stretch of one slice of that flush before it goes on after the next batch or in the next event-loop turn (default 5 ms). */
  flushSliceMs?: number;
  /** Wallet accounting (the wallet actors and their rankings; default on): off only to measure what it costs (bench/). */
  wallets?: boolean;
  /**
   * Signals (actors/signals: the token-signals actors, big_win and first_buy in the
   * wallet actors, the signals store, routes 17 and 22, token_signals and
   * wallet_signals). Default true; false leaves them out (the routes answer 503), for
   * measuring what they cost (bench/engine-child.ts, MDS_BENCH_SIGNALS=off). The wallet
   * kinds big_win and first_buy need wallet accounting.
   */
  signals?: boolean;
  /** `--source` names beyond the built-in ones (engine/sources/index.ts): `mds serve` passes the simulator's `sim`. */
  sources?: SourceFactory<Engine>[];
}

/**
 * How the engine's timers run checkpoints and idle sweeps: in slices of
 * `actors.checkpointSliceMs`, and with `actors.checkpointShare` of the loop only while
 * the apply runs whole batches (`ingest.applySliceMs` 0, `mds replay`), whose turns of
 * ~200 ms left a 5 ms slice a turn ~3 % of the loop. Beside the apply's slices (`mds
 * serve`) turns are short and a slice a turn keeps pace: during a 1M-swap backlog the
 * passes took 10-15 s every 30 s with the share and without it, and the share lengthened
 * turns that were already long (loop stalls over 40 ms 77-118 a run without it against
 * 126-201 with it; bench/README, backlog).
 */
export function checkpointSlicing(config: Pick<Config, 'actors' | 'ingest'>): SliceOptions {
  return { sliceMs: config.actors.checkpointSliceMs, share: appliesWholeBatches(config) ? config.actors.checkpointShare : 0 };
}

/** The apply runs whole batches, each in its turn (`ingest.applySliceMs` 0, `mds replay`): nothing runs between two batches' events. */
const appliesWholeBatches = (config: Pick<Config, 'ingest'>): boolean => sliceOf(config.ingest.applySliceMs) === Infinity;

/**
 * The engine: storage → ingest gate → router → actors, with the read facade the
 * transport serves. The only place the parts are wired together.
 */
export class Engine {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly storage: Storage;
  readonly gate: IngestGate;
  readonly hosts: ActorHost<any>[];
  /** Which hosts take which event type, and the derived events between them (supervisor/router.ts). */
  readonly router: Router;
  private readonly hostsByKind = new Map<string, ActorHost<any>>();
  /** Every event applied live, in seq order, for embedders (start-up replay is not re-emitted). */
  readonly events$: Observable<StampedEvent>;
  /** How events reach the actors, live and at start-up (engine/apply.ts). */
  private readonly applier: Applier;
  readonly query: Query;
  private readonly quotePrices: ActorHost<QuotePriceState>;
  readonly tokens: ActorHost<TokenState>;
  readonly labels: ActorHost<WalletLabelsState>;
  readonly pools: ActorHost<PoolState>;
  /** The ranking feeds' actors, `feed:<feed>:<window>`, `feed:traded`, `feed:stock-tags` (actors/feed/feed.actor.ts); null with `feeds: false`. */
  readonly feeds: ActorHost<FeedState> | null;
  /** The rankings stream and the feeds' ticks (engine/topics/rankings.ts); null with `feeds: false`. */
  readonly rankings: RankingStreams | null;
  /** The chart_lines stream (engine/topics/chart-lines.ts): lines of subscribed tokens, recomputed on the ticker. */
  readonly chartLines: ChartLineStreams;
  /** Wallet accounting (actors/wallet): positions per wallet, top traders per token, the leaderboard; null when off. */
  readonly wallets: { wallets: ActorHost<WalletState>; tokenTraders: ActorHost<TokenTradersState>; leaderboard: ActorHost<LeaderboardState> } | null;
  /** The token-signals actors (`token-signals:<token>`), only without wallet accounting (with it a token's signals run in its token-traders actor); null with `signals: false`. */
  readonly tokenSignals: ActorHost<TokenSignalsState> | null;
  /** Every signal emitted (storage/signals.repo.ts); null with `signals: false`. */
  readonly signals: SignalsRepo | null;
  readonly trades: TradesRepo;
  readonly candles: CandlesRepo;
  /** Moves stored trades into the wallet order (storage/wallet-index.ts) on a thread of its own. */
  readonly walletIndexer: WalletIndexer;
  /** The pools each wallet traded in lately, for its trades still in memory. */
  private readonly recentWallets = new RecentWalletPools();
  readonly publisher: MarketPublisher;
  /** The markers stream (engine/topics/markers.ts): the marks a new subscriber gets first. */
  readonly markers: MarkerStreams;
  /** Posts, labeled activity and markers on the live path (engine/topics/discovery.ts). */
  private readonly discovery: DiscoveryStreams;
  /** The live layer's ticks on the engine clock: the publisher's flush, the research refresh (engine/topics/ticker.ts). */
  readonly ticker: Ticker;
  /** The `--source` names this engine knows (engine/sources/index.ts). */
  readonly sources: SourceRegistry<Engine>;
  private readonly source: SourceRunner;
  private readonly checkpointer: Checkpointer;
  /** Where live frames go (the WebSocket transport attaches itself). */
  private topicSink: TopicSink = NO_TOPICS;
  private readonly research: ResearchFeed;
  private readonly subscription = new Subscription();
  private timers: NodeJS.Timeout[] = [];
  /** The long-task logger (config `debug.longTaskMs`, off by default: engine/long-tasks.ts). */
  readonly longTasks: LongTasks;
  private state: EngineStatus['status'] = 'starting';

  constructor(options: EngineOptions) {
    this.config = options.config;
    this.log = options.log ?? silentLogger();
    this.clock = options.clock ?? createClock(options.config.clock);
    this.metrics = createMetrics(() => this.source.state());
    this.longTasks = new LongTasks(options.config.debug.longTaskMs, this.log.child({ part: 'long-tasks' }));
    const longTasks = this.longTasks;
    this.storage = openStorage(options.config.data);
    this.gate = new IngestGate({
      storage: this.storage,
      metrics: this.metrics,
      log: this.log.child({ part: 'ingest' }),
      batchMax: options.config.ingest.batchMax,
      batchesInFlightMax: options.config.ingest.batchesInFlightMax,
      swapColumns: true,
    });
    this.router = new Router({ log: this.log.child({ part: 'router' }), history: (fromSeq, toSeq) => this.gate.history(fromSeq, toSeq), longTasks });
    const hostOptions = {
      storage: this.storage,
      clock: this.clock,
      metrics: this.metrics,
      deadLetter: this.gate.deadLetter.bind(this.gate),
      router: this.router,
      idleMs: options.config.actors.idleMs,
      residentMax: options.config.actors.residentMax,
      budget: new ResidentBytes(options.config.actors.residentBytesMax),
      persistAt: PERSIST_UNSAVED_AT,
      restartsMax: options.config.actors.restartsMax,
      epochs: new StaleEpochs(this.storage),
      read: <T>(kind: string, key: string) => this.hostsByKind.get(kind)?.get(key) as Readonly<T> | undefined,
      peek: <T>(kind: string, key: string) => this.hostsByKind.get(kind)?.peek(key) as Readonly<T> | undefined,
    };
    const host = <S>(behavior: ActorBehavior<S>) => new ActorHost(behavior, { ...hostOptions, log: this.log.child({ actor: behavior.kind }) });
    this.walletIndexer = new WalletIndexer(options.config.data, (message) => this.log.error({ part: 'wallet-index' }, message));
    this.trades = new TradesRepo(this.storage, () => this.walletIndexer.poke());
    this.candles = new CandlesRepo(this.storage);
    this.ticker = new Ticker({ clock: this.clock, sliceMs: options.flushSliceMs ?? 5, log: this.log.child({ part: 'ticker' }), longTasks });
    this.source = new SourceRunner(this.gate, this.log);
    this.sources = new SourceRegistry<Engine>({ config: this.config, log: this.log }, this, options.sources);
    this.publisher = new MarketPublisher({
      sink: () => this.topicSink,
      market: () => this.query.market!,
      pools: () => this.pools,
      token: (address) => this.tokens.get(address) as TokenState | undefined,
      labels: (wallet) => activeLabels(this.labels.get(wallet)),
      now: () => this.clock.now(),
    });
    // Order matters within one event (the router keeps it): a token learns of a pool
    // before the pool reads the token, and quote prices are in before the pools that
    // value trades with them.
    this.quotePrices = host(quotePriceBehavior);
    this.labels = host(walletLabelsBehavior);
    this.tokens = host(createTokenBehavior(this.publisher, { sniperSlots: options.config.market.sniperSlots }));
    this.pools = host(createPoolBehavior({ trades: this.trades, candles: this.candles }));
    // Wallet accounting after the pools, fed their pool.trade events (and balances); top
    // traders after the wallets, whose positions they read; the leaderboard before them:
    // a refresh under way reads a wallet that trades before the trade changes it
    // (actors/wallet/rankings.ts, LeaderboardRefresh).
    // Thresholds checked here: a bad signals.<kind>.<name> in the config fails the start, naming it.
    const thresholds = options.signals === false ? null : resolveSignalThresholds(options.config.signals);
    const tokenSignals = thresholds ? createTokenSignalsBehavior(thresholds) : null;
    // With wallet accounting on, a token's signals run in its token-traders actor: both take
    // each trade of the token, keyed by it (one delivery and one snapshot, not two), and
    // after the wallets, as the signals must (below).
    const traders = tokenSignals ? combineBehaviors(tokenTradersBehavior, tokenSignals, TOKEN_SIGNALS_PART) : tokenTradersBehavior;
    const wallets = options.wallets === false ? null : { wallets: host(createWalletBehavior({ signals: thresholds })), tokenTraders: host(traders), leaderboard: host(leaderboardBehavior) };
    this.wallets = wallets;
    const walletHosts = wallets ? [wallets.leaderboard, wallets.wallets, wallets.tokenTraders] : [];
    // A pool passivated past the resident bound has its live flush taken first: later, the flush would activate it again.
    this.pools.beforeEvict = (pool) => this.publisher.flushOne(pool);
    // Feeds after pools: a feed reads the pool a `pool` event declared.
    this.feeds = options.feeds === false ? null : host(createFeedBehavior());
    // The feed actors' snapshots of before one actor per (feed, window), split into the actors of now.
    if (this.feeds) splitFeedSnapshots(this.storage.snapshots);
    // Token signals after the pools and wallets: a trade's signals read the pool after it and the labels in force (actors/signals).
    // Their own kind only without wallet accounting (else in token-traders, above).
    this.tokenSignals = tokenSignals && !wallets ? host(tokenSignals) : null;
    this.signals = thresholds ? new SignalsRepo(this.storage) : null;
    this.hosts = [this.quotePrices, this.labels, this.tokens, this.pools, ...(this.feeds ? [this.feeds] : []), ...walletHosts, ...(this.tokenSignals ? [this.tokenSignals] : []), ...(options.actors ?? []).map(host)];
    for (const h of this.hosts) this.hostsByKind.set(h.kind, h);
    this.router.setHosts(this.hosts);
    // The live layer's trade consumers: trade frames, and the pools a wallet traded in
    // lately (its trades still in memory). Also during start-up replay: the trades it
    // applies again are in memory only; never for a rebuild (delivered before).
    const { publisher, recentWallets, pools } = this;
    this.router.subscribe(
      'pool.trade',
      (event) => {
        const { pool_address, trade } = event as PoolTradeEvent;
        recentWallets.note(trade[TRADE.wallet], pool_address);
        const state = pools.get(pool_address);
        if (state) publisher.trade(state, trade);
      },
      { replay: true },
    );
    // chart_lines: tokens with subscribers are marked changed by their trades, holders and graduation.
    const chartLines = (this.chartLines = new ChartLineStreams({
      sink: () => this.topicSink,
      reads: {
        token: (address) => this.tokens.get(address),
        pool: (address) => this.pools.get(address),
        wallet: (address) => wallets?.wallets.get(address),
        labels: (wallet) => activeLabels(this.labels.get(wallet)),
        traders: (token) => wallets?.tokenTraders.get(token)?.rows.keys() ?? [],
      },
    }));
    for (const type of ['pool.trade', 'token.holders', 'pool.graduated'] as const) this.router.subscribe(type, (event) => chartLines.derived(event));
    // Signals: stored (also during start-up replay, idempotent by signal_id: what a
    // crash lost is written again, what it kept is not doubled) and published live.
    const signalStore = this.signals;
    if (signalStore) {
      this.router.subscribe('signal', (event) => void signalStore.put((event as SignalEvent).signal), { replay: true });
      this.router.subscribe('signal', (event) => publishSignal(this.topicSink, (event as SignalEvent).signal));
    }
    this.query = createQuery({
      signals: this.signals,
      actors: { pools: this.pools, tokens: this.tokens, quotePrices: this.quotePrices, labels: this.labels, clock: this.clock },
      wallets,
      feeds: this.feeds,
      storage: this.storage,
      trades: this.trades,
      recentWallets,
      candleHistory: publisher.history,
      sniperSlots: options.config.market.sniperSlots,
      log: this.log,
      status: () => ({
        status: this.state,
        ingested: this.gate.ingested,
        durable: this.gate.durable,
        deadLetters: this.gate.deadLetters,
        source: this.source.name,
        sourceDone: this.source.done,
        sourceState: this.source.state(),
      }),
    });
    this.research = this.query.research!;
    const research = this.research;
    // Posts, labeled activity and markers: after the actors of each event (the labels
    // actor has applied a label event when the index follows it), start-up replay included.
    this.markers = new MarkerStreams({ storage: this.storage, sink: () => this.topicSink });
    const discovery = (this.discovery = new DiscoveryStreams({ ...this.query.discovery!, markers: this.markers, sink: () => this.topicSink }));
    this.router.subscribe('pool.trade', (event) => discovery.onTrade(event as PoolTradeEvent), { replay: true });
    this.router.subscribe('signal', (event) => discovery.onSignal((event as SignalEvent).signal), { replay: true });
    this.router.subscribe('pool.graduated', (event) => discovery.onGraduated(event as PoolGraduatedEvent), { replay: true });
    const follow = (event: IngestEvent) => {
      research.onEvent(event);
      discovery.onEvent(event);
      // Live-layer bookkeeping: a throw is logged, never the batch's.
      try {
        chartLines.ingested(event);
      } catch (err) {
        this.log.error({ err, type: event.type }, 'chart_lines: an ingest event failed');
      }
    };
    const readsHold = options.rankingsHold ?? appliesWholeBatches(this.config);
    this.applier = new Applier({ storage: this.storage, clock: this.clock, log: this.log, router: this.router, hosts: this.hosts, ticker: this.ticker, sink: () => this.topicSink, follow, applySliceMs: sliceOf(this.config.ingest.applySliceMs), evictionLag: this.config.actors.evictionLag, longTasks });
    this.gate.follow(this.applier);
    this.events$ = this.applier.events$;
    // Batches arrive in seq order (commits resolve in order), so every actor sees its events in seq order.
    this.subscription.add(this.gate.committed$.subscribe((batch) => this.applier.applyBatch(batch)));
    // A tick that finds the pass under way lets it go on (joins): the pools touched since wait for the next pass.
    this.ticker.every('publisher', options.flushMs ?? 250, { onTick: () => publisher.flushPass(), underWay: () => (publisher.flushing ? publisher.flushPass() : null) }, { joins: true });
    // The feeds recompute on the engine clock (every second for the live feeds, SERVICE.md 6.2's cadence for the others).
    this.rankings = this.feeds
      ? new RankingStreams({
          feeds: this.feeds,
          market: this.query.rankings!,
          entries: () => this.query.rankings!,
          sink: () => this.topicSink,
          stockMints: new Set(options.config.market.stockMints),
          memo: options.rankingsMemo,
          // An Applier of whole batches (`mds replay`) runs a recompute whole at its tick;
          // one in slices lets the events go on while it reads (reads before changes, below).
          holds: readsHold,
          log: this.log,
        })
      : null;
    this.rankings?.start(this.ticker);
    if (this.rankings && !readsHold) {
      const streams = this.rankings;
      this.pools.beforeApply = (pool) => streams.beforePoolChange(pool);
    }
    // A pool passivated leaves the recomputes what they read of it, so that they unpack no
    // snapshot of a pool not traded since; the research records of a pool or token
    // passivated are refreshed from its state in memory, for the same reason.
    const rankings = this.rankings;
    this.pools.beforePassivate = (pool, state) => {
      rankings?.passivating(pool, state, this.clock.now());
      research.poolPassivating(pool);
    };
    this.tokens.beforePassivate = (token) => research.tokenPassivating(token);
    chartLines.start(this.ticker);
    const logRetention = new LogRetention(this.storage, this.config.ingest.logRetentionMs);
    this.checkpointer = new Checkpointer({
      storage: this.storage,
      hosts: this.hosts,
      derived: this.research,
      // Trades applied before this write out now (or at the next checkpoint): wallet-trades.ts.
      beginning: () => this.recentWallets.rotate(),
      appliedSeq: () => this.applier.appliedSeq,
      latestAt: () => this.applier.latestAt,
      running: () => this.state === 'ready',
      longTasks,
      recording: (seq, at) => logRetention.checkpointed(seq, at),
    });
  }

  private started: Promise<void> | null = null;

  /**
   * Replays the log after the last checkpoint into the actors, then serves. Idempotent:
   * createEngine starts the engine, and a later call resolves with that same start
   * (no second replay of the log, no second set of timers).
   */
  start(): Promise<void> {
    this.started ??= this.replayAndServe();
    return this.started;
  }

  private async replayAndServe(): Promise<void> {
    const checkpoint = checkpointOf(this.storage);
    const applier = this.applier;
    applier.latestAt = latestAtOf(this.storage);
    this.clock.observe(applier.latestAt);
    const replayed = applier.replay(checkpoint);
    // What the last run stored and did not index yet.
    for (const _ of this.storage.walletJournal.getKeys({ limit: 1 })) this.walletIndexer.poke();
    this.publisher.flush();
    if (replayed) this.log.info({ from: checkpoint + 1, events: replayed }, 'replayed the ingest log after the checkpoint');
    applier.appliedSeq = Math.max(applier.appliedSeq, this.gate.ingested);
    const { actors } = this.config;
    const sliced = checkpointSlicing(this.config);
    this.timers.push(setInterval(() => void this.passivateIdle(undefined, sliced), actors.sweepMs).unref());
    this.timers.push(setInterval(() => void this.checkpoint(sliced), actors.checkpointMs).unref());
    this.timers.push(setInterval(() => void this.prune().catch((err) => this.log.error({ err }, 'retention failed')), this.config.retention.everyMs).unref());
    this.research.start(this.ticker);
    this.state = 'ready';
    this.ticker.start();
    this.longTasks.start();
    // What the replay wrote (signals, trades) readable once the engine has started: LMDB shows a write once its transaction commits.
    await this.storage.ingestLog.committed;
  }

  private pruning: Promise<RetentionResult> | null = null;

  /** One retention pass (engine/retention.ts); a pass already running is joined, not doubled. */
  prune(): Promise<RetentionResult> {
    this.pruning ??= pruneOnce({ storage: this.storage, trades: this.trades, candles: this.candles, clock: this.clock, labeledTrades: this.query.discovery?.activity }, this.config.retention).finally(() => {
      this.pruning = null;
    });
    return this.pruning;
  }

  /** Publishes candles and pool metrics of the pools touched since the last flush (see MarketPublisher). */
  flush(): void {
    this.publisher.flush();
  }

  /** Calls `listener` with the events of every batch once applied, start-up replay included (engine/apply.ts). */
  onApplied(listener: (events: readonly IngestEvent[]) => void): () => void {
    return this.applier.onApplied(listener);
  }

  /** Where live stream frames go: the WebSocket transport attaches its topic sink here. */
  attachTopics(sink: TopicSink): void {
    this.topicSink = sink;
  }

  /** Time of the newest event applied (Unix ms; the log's after start-up, so kept across restarts; 0 before any). */
  get latestEventAt(): number {
    return this.applier.latestAt;
  }

  get topics(): TopicSink {
    return this.topicSink;
  }

  /** The embedded API: resolves once the event's outcome is durable. */
  ingest(event: unknown): Promise<IngestResult> {
    return this.gate.ingest(event);
  }

  /** Snapshots every changed actor and records the seq they all cover; with `sliceMs`, in slices (supervisor/checkpoint.ts). */
  checkpoint(options: SliceOptions = {}): Promise<unknown> {
    return this.checkpointer.checkpoint(options);
  }

  /** Snapshots and drops actors unused for `actors.idleMs` at `now`; with `sliceMs`, in slices (supervisor/checkpoint.ts). Resolves with the count. */
  passivateIdle(now = performance.now(), options: SliceOptions = {}): Promise<number> {
    return this.checkpointer.passivateIdle(now, options);
  }

  /** Resolves the `--source` name: ndjson:<path>, solana-ws:<url>, yellowstone:<endpoint>, one of `options.sources` (sim) or none (engine/sources/index.ts). */
  createSource(spec: string): Source | null {
    return this.sources.create(spec);
  }

  /** Runs a source to its end (or until stop); resolves when it is fully durable. */
  runSource(source: Source | null): Promise<void> {
    return this.source.run(source);
  }

  /** Stops the source, makes everything durable, snapshots all actors and closes storage. */
  async stop(): Promise<void> {
    this.state = 'stopping';
    this.ticker.stop();
    this.longTasks.stop();
    await this.source.stop();
    for (const timer of this.timers) clearInterval(timer);
    await this.pruning?.catch(() => {});
    await this.gate.flush();
    this.publisher.flush();
    this.research.stop();
    // Before passivating: a persist afterwards would activate the pools again.
    this.research.persist();
    for (const host of this.hosts) host.passivateAll();
    await this.checkpointer.record(this.applier.appliedSeq);
    this.subscription.unsubscribe();
    // What it has not indexed stays in the journal for the next run.
    await this.walletIndexer.close();
    await this.storage.close();
  }
}

/** Opens the data directory and brings the actors up to date with the log. */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const engine = new Engine(options);
  await engine.start();
  return engine;
}
