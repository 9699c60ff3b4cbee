/**
 * Every numeric bound of the engine, in one place: what it bounds, its unit, and why it
 * is that size. Bounds a deployment may change are the defaults of engine/config.ts
 * (their `.describe()` says what each does); the others are fixed. Imports nothing: the
 * kernel (STYLE.md 3), read by every layer.
 */

// Ingest

/** Default events per ingest-log transaction (config `ingest.batchMax`): one LMDB commit per batch amortizes its fsync. */
export const INGEST_BATCH_MAX = 2_000;
/** Default uncommitted ingest batches before sources are paused (config `ingest.batchesInFlightMax`): bounds the memory of events not yet durable. */
export const INGEST_BATCHES_IN_FLIGHT_MAX = 8;
/** Default longest NDJSON line accepted, in bytes (config `ingest.lineBytesMax`, 1 MiB); longer lines go to dead letters. */
export const INGEST_LINE_BYTES_MAX = 1_048_576;
/** Uncommitted log bytes below which any number of batches may wait for their commit, so a live pipe's one-line batches never wait for the fsync (engine/ingest/gate.ts writable). */
export const IN_FLIGHT_BYTES_FREE = 1_048_576;
/**
 * Committed batches the actors may have still to apply (they apply in slices of
 * `ingest.applySliceMs`) before sources are paused: a file replayed faster than the
 * actors apply would otherwise queue its parsed batches without bound. A paused source
 * goes on as soon as they are back within it (Applier.whenBacklogAtMost), not once they
 * have applied everything, so they are never left without a batch to apply meanwhile.
 */
export const APPLY_BACKLOG_MAX = 2;
/** Default longest the actors apply batches at once, in ms (config `ingest.applySliceMs`): reads and WebSocket writes run between slices during a backlog. */
export const APPLY_SLICE_MS = 5;
/**
 * Events a slice applies before it first looks at the clock (CommittedBatch.eachUntil),
 * then after each: one event of a backlog can take milliseconds (actors read back from
 * their snapshots), and 16 of them between two looks held a slice up to 110-290 ms; looking
 * after every one left a slice that evictions had used up one event, and the events of
 * such stretches fell behind the evictions.
 */
export const APPLY_EVENTS_MIN = 4;
/** Bytes of a rejected line kept for its dead letter. */
export const REJECTED_HEAD_BYTES = 4_096;
/** Dead letters keep at most this much of a rejected event, in bytes (a 10 MB line is cut). */
export const DEAD_LETTER_RAW_MAX = 4_096;

// Sources

/** Signatures per getSignaturesForAddress page of the solana-ws: gap repair: the RPC's maximum. */
export const SOLANA_WS_BACKFILL_PAGE_SIZE = 1_000;
/** Default pages of the solana-ws: gap repair per program after a reconnect (config `solanaWsBackfillMaxPages`): 10,000 signatures, some minutes of pump.fun; an older gap is logged, not repaired. */
export const SOLANA_WS_BACKFILL_MAX_PAGES = 10;

// Supervisor

/**
 * Default resident actors per kind (config `actors.residentMax`), a backstop behind the
 * byte bound below (ACTORS_RESIDENT_BYTES_MAX, which does the work): past it the least
 * recently used are passivated at the end of each applied batch, so that memory follows
 * the working set, not history, when nothing is idle by wall time (a replay, a
 * backfill, a catch-up). Before the bound, the market benchmark's replay of 300,000
 * swaps over 30,000 pools (bench/market.ts) held every pool and token at the end with
 * ~500 MiB of JS heap and ~2.2 GiB of anonymous memory: ~17 KiB of heap and ~75 KiB in
 * all per pool and its token. Live pump.fun traffic trades in a few thousand pools in 10
 * minutes; an LRU of 10,000 over that replay's pools reloads ~3,000 times in 330,000
 * events (20,000: 23 times).
 */
export const ACTORS_RESIDENT_MAX = 1_000_000;
/**
 * Default estimated JS heap of resident actors, all kinds together, in bytes (config
 * `actors.residentBytesMax`, 256 MiB): past it the least recently used actor of any kind
 * is passivated at the end of each applied batch (engine/supervisor/budget.ts). By bytes
 * and across kinds, not by a count per kind: a launchpad's pools die within minutes and
 * its wallets trade for hours, so a count of 10,000 per kind held dead pools while a
 * replay of 100,000 wallets wrote and read back a wallet snapshot for nearly every trade.
 * Each kind estimates its actors (ActorBehavior.sizeOf, from heap measured with
 * `--expose-gc` over a market replay: a pool ~5.5 KB plus its rolling windows and
 * distinct counters at their size (36 KB of rings once busy, ~120 B a wallet of its last
 * 24 h) and what it holds off the heap (candle buffers, ~1.7 KB, its unsaved trades'
 * slab, its curve's ring), a wallet ~0.4 KB + 0.7 KB a position). 10,000 actors of each kind took ~200 MiB on that market, the feeds and leaderboard ~12 MiB.
 */
export const ACTORS_RESIDENT_BYTES_MAX = 256 * 2 ** 20;
/**
 * Unsaved bytes (ActorBehavior.unsavedBytes: a pool's trades not in the trades store
 * yet) past which an actor is snapshotted after its batch, staying resident, while the
 * byte bound fills (ActorHost.persistHeavy; when: PERSIST_PRESSURE in
 * engine/supervisor/checkpoint.ts). On the engine benchmark's 1M swaps over 10,000
 * pools the pools' unsaved trades grew by ~75 MiB between two 30 s checkpoints, past
 * the 256 MiB bound, which then passivated pools that traded again within a second
 * (each written and read back). 4 KiB is ~20 trades; measured 2, 4, 8 and 16 KiB, 4
 * the fastest (bench/README, engine).
 */
export const PERSIST_UNSAVED_AT = 4_096;
/** Estimated heap of an actor whose kind gives no estimate (ActorBehavior.sizeOf), in bytes. */
export const ACTOR_BYTES_DEFAULT = 2_048;
/** Keys `absent` remembers at most before it starts over (engine/supervisor/host.ts). */
export const ABSENT_MAX = 100_000;
/** Stale epochs reserved at each start for the run's rebuilds, in one synchronous write (engine/supervisor/epochs.ts); a restart moves stale candle seqs on by about this many gaps. */
export const STALE_EPOCHS_RESERVED = 1_024;
/** Slices a sliced checkpoint gives the research records before writing the rest at once. */
export const RESEARCH_SLICES_MAX = 200;

// Actors

/** Swaps kept while a pool's `pool` event or its token's decimals are unknown. */
export const WAITING_MAX = 10_000;
/** Past this many trades in 24h a pool moves from its raw log to rings: a log read scans 5 × this. */
export const LOG_TRADES_MAX = 128;
/** Trades up to this late, in ms (by block time, behind the newest), never take the candles' late path. */
export const CANDLE_LATENESS_MS = 10_000;
/**
 * At most this many live buckets per interval. With drains every second or so the
 * 1s interval holds ~11 (the lateness allowance) and the others 1 or 2; past the bound
 * (a caller that stopped draining) the oldest live bucket is closed early, which is
 * still correct: later trades for it take the late path.
 */
export const CANDLE_LIVE_BUCKETS_MAX = 32;
/**
 * Closed candles a pool gathers before writing them as segments (actors/pool/closed-candles.ts):
 * one put per interval for many candles. 8, not 32: the gathered rows are 248 bytes
 * each off the JS heap in every pool (and in its snapshot), and on the engine
 * benchmark's 1M swaps over 10,000 pools under the 256 MiB byte bound 32 made the
 * resident pools overflow the bound and be passivated and read back nearly every swap
 * (5,518 swaps/s; 16: 9,712; 8: 11,170, one run each), at the same CPU with every pool
 * resident (61.7, 61.9, 62.3 s) and the same candles database (bench/README).
 */
export const WRITE_AT = 8;
/** Drained candle buckets kept for reuse per thread (actors/pool/candles.bucket.ts): STRIDE doubles (248 B) each, 16 MiB of them at most. */
export const FREE_MAX = 65_536;
/** Distinct hashes a counter keeps exactly before turning dense (2 KiB either way). */
export const SPARSE_MAX = 512;
/**
 * Bytes of one slab of the pools' unsaved trade logs (actors/pool/slabs.ts), 64 KiB; a
 * log's pieces past an eighth of it (8 KiB) get a buffer of their own. A slab is freed
 * when the last log with a piece in it has been written, so its size is how much dead
 * memory one live log holds: on the market benchmark (1M swaps over 10,000 pools), after
 * a forced GC, slabs of 1 MiB held 55-165 MiB for 18-48 MiB of live logs; of 64 KiB,
 * 15-102 MiB (bench/README, market).
 */
export const SLAB_BYTES = 64 << 10;
/**
 * Smallest chunk of a pool's unsaved trade log, in bytes (actors/pool/trade-log.ts): a
 * quiet pool's log stays small. Room for ~2 trades by the encoder's bound (~500 bytes
 * each, 3 a character), 4-6 as encoded: most pools of a launchpad trade a few times a
 * checkpoint, and at 4 KiB each such pool's log held ~10 times its trades.
 */
export const CHUNK_MIN = 1_024;
/** Largest chunk of a pool's unsaved trade log, in bytes: chunks double from CHUNK_MIN up to it, so a hot pool's log never copies what it holds. */
export const CHUNK_MAX = 65_536;
/** Tombstones a token's holders allow before the first pruning pass. */
export const PRUNE_MIN = 4_096;
/**
 * Balance changes a token's holder order remembers (actors/token/holder-order.ts), so
 * that a walk over GET /tokens/{token}/holders pages leaves out only the holders that
 * may have been shown already: 4,096 changes (~96 KB) cover minutes of a busy token's
 * trading, the time a client takes to page through its holders. A walk older than that
 * leaves out every holder changed since it began.
 */
export const HOLDER_LOG_MAX = 4_096;
/**
 * Holdings a page of GET /tokens/{token}/holders looks at, at most: a `label` filter
 * or many holders left out of a walk (holder-order.ts) could otherwise make one
 * request read every holder. A page that reaches it ends early, with fewer rows and
 * has_more true; the next page goes on from there.
 */
export const HOLDER_SCAN_MAX = 10_000;

// Storage

/** Trades in one stored block of a pool (storage/trades.repo.ts): a page of ~100 decodes a fifth of a block. */
export const TRADE_BLOCK_TRADES_MAX = 512;
/** Pools pruned per event-loop turn, so a retention pass never stalls ingest or HTTP. */
export const POOLS_PER_TURN = 200;
/**
 * Values of the compressed databases (ingest log, snapshots) at or above this many bytes
 * are stored LZ4-compressed (storage/lmdb.ts). Smaller ones gain little and fit a leaf
 * page as they are; a value over ~2 KB goes to overflow pages, which compression avoids.
 */
export const COMPRESSION_THRESHOLD_BYTES = 512;
/**
 * The LMDB map reserved at open (storage/lmdb.ts): address space only, the data file
 * grows as pages are written (no MDB_WRITEMAP, so nothing is preallocated). lmdb-js
 * otherwise starts at 128 KiB and doubles the map as the file grows, keeping every
 * earlier map until the environment closes, and each page read through one of them
 * stays counted in RssFile: a growing data directory counted about twice. Past this
 * size lmdb-js still grows the map. Linux only: on Windows and macOS LMDB may extend the
 * file itself to the map's size (no sparse files there), so lmdb-js's growth is kept.
 */
export const LMDB_MAP_BYTES = 2 ** 40;
/**
 * Trades indexed per transaction, about (whole journal entries are taken). The size
 * barely moves the cost per trade (20,000, 50,000 or 200,000: 3.9, 4.0, 4.1 µs with
 * five-minute buckets); a smaller step holds LMDB's write lock, which the engine's own
 * commits wait for, for less time.
 */
export const JOURNAL_TRADES_PER_STEP = 20_000;
/** Index keys examined per turn by `pruneWalletIndex`. */
export const PRUNE_KEYS_PER_TURN = 20_000;

// Query

/** At most this many candles in one resume frame (the candles route's maximum). */
export const RESUME_CANDLES_MAX = 1_000;

// Streams

/**
 * Tokens whose ATH mark the markers stream keeps in memory (engine/topics/markers.ts):
 * a cache of the `marks` database, which holds every token's; past it the token cached
 * first is dropped, and read back with one LMDB get at its next trade above the ATH
 * rule's floor. Without it the cache held every token ever traded above the floor: it
 * grew with history, not with the tokens trading now (issue 25).
 */
export const MARKERS_ATH_CACHED_MAX = 10_000;

// Transport

/** Default longest query string accepted, in bytes (config `http.queryBytesMax`); 400 past it. */
export const HTTP_QUERY_BYTES_MAX = 8_192;
/**
 * Request line + headers accepted by uWS, in bytes. A bound on what one slow client can
 * make uWS buffer before its headers are complete (uWS's HTTP idle timeout ends such
 * connections); well above any `http.queryBytesMax` a deployment should need.
 */
export const HTTP_HEADER_BYTES_MAX = 128 * 1024;
/** DECISIONS.md cursor parameter: at most 2048 characters. */
export const CURSOR_CHARS_MAX = 2_048;
/** Longest search `q`, in characters: names and symbols are short, and the cursor carries q. */
export const SEARCH_Q_CHARS_MAX = 100;
/**
 * API keys remembered as presented: far more than one operator's clients use at once.
 * When full the memory starts over, so a client probing random keys costs memory only up to it.
 */
export const PRESENTED_MAX = 4_096;
/** Default largest client WebSocket frame, in bytes (config `ws.frameBytesMax`, 16 KiB); longer ones close with 4400. */
export const WS_FRAME_BYTES_MAX = 16_384;
/** Default unsent bytes per connection before it is closed with 4008 (config `ws.backpressureBytes`; DECISIONS.md: 1 MiB). */
export const WS_BACKPRESSURE_BYTES = 1_048_576;
/** Default uWS maxBackpressure, in bytes (config `ws.backpressureHardBytes`, 16 MiB): far above the soft limit, so that acts first. */
export const WS_BACKPRESSURE_HARD_BYTES = 16_777_216;
/** Default bytes of frames held before authentication completes (config `ws.heldBytesMax`, 64 KiB); more closes with 4400. */
export const WS_HELD_BYTES_MAX = 65_536;
/**
 * How often open /ws connections authorized by a web terminal session check it again,
 * in ms: a revoked or expired session's streams end within this (a check is one LMDB
 * read and a sha256 per such connection: a terminal opens a handful).
 */
export const WS_SESSION_CHECK_MS = 2_000;
/** Default subscriptions on one connection (config `ws.subscriptionsMax`). */
export const WS_SUBSCRIPTIONS_MAX = 10_000;
/**
 * An outbox holding this much is written at once, in bytes: bounded memory per
 * connection when a batch publishes thousands of frames to one socket, and a dropped
 * frame (past the hard cap) found within the run that published it. uWS corks into a
 * 16 KiB buffer.
 */
export const OUTBOX_BYTES = 16 * 1024;

/** Longest a checkpoint's or idle sweep's slice grows to with its share of the loop (config `actors.checkpointShare`, engine/slices.ts inSlices), in ms. */
export const SLICE_SHARE_MAX_MS = 100;
