import { CANDLE_MODES, INTERVAL_NAMES } from '../../engine/model/index.ts';
import { z } from 'zod';
import { DEFAULT_PLANS } from '../../engine/config.ts';
import { CLOSE, PRO_STREAMS, payloadSchemas, type LiveStream } from './protocol.ts';

/**
 * The AsyncAPI 3.1 description of /ws (SERVICE.md 9: "AsyncAPI 3.1 for the WebSocket,
 * description version 1.0.0"), served as GET /asyncapi.json. It describes the server:
 * `receive` operations are frames clients send, `send` operations frames the server
 * sends. All streams share the one address /ws; each stream is a channel of its own
 * so its subscribe payload and its events sit together. Subscribe payload schemas
 * are generated from the zod schemas the server validates with, so they cannot drift.
 *
 * Where SERVICE.md says "not shown", the choices of DECISIONS.md and of this service
 * are written into the descriptions (`info.description` lists them all).
 */

const ADDRESS = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'Base58 address' };
const NUMBER_OR_NULL = { type: ['number', 'null'] };

/** A zod schema as AsyncAPI (JSON Schema draft-07) input schema, without `$schema`. */
function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', target: 'draft-07' }) as Record<string, unknown>;
  return rest;
}

/** token_signals and wallet_signals events: the signal (SERVICE.md has no shape; DECISIONS.md: the HTTP routes' object, `event` = kind). */
const SIGNAL_EVENT = {
  type: 'object',
  required: ['event', 'signal_id', 'kind', 'token_address', 'pool_address', 'wallet_addresses', 'at', 'score', 'detail'],
  properties: {
    event: { type: 'string', description: 'the kind' },
    signal_id: { type: 'string' },
    kind: { type: 'string' },
    token_address: ADDRESS,
    pool_address: { type: ['string', 'null'] },
    wallet_addresses: { type: 'array', items: ADDRESS },
    at: { type: 'integer' },
    score: { type: 'number', minimum: 0, maximum: 1 },
    detail: { type: 'object' },
  },
};

const tradeRecord = {
  type: 'object',
  description: 'Trade record (SERVICE.md 2.8), described from the subscribed token’s side on token_trades.',
  required: ['trade_id', 'tx_hash', 'slot', 'tx_index', 'event_index', 'type', 'wallet_address', 'token_address', 'quote_address', 'pool_address', 'token_amount', 'quote_amount', 'created_at'],
  properties: {
    trade_id: { type: 'string' },
    tx_hash: { type: 'string' },
    slot: { type: 'integer' },
    tx_index: { type: 'integer' },
    event_index: { type: 'integer' },
    type: { type: 'string', enum: ['buy', 'sell'] },
    wallet_address: ADDRESS,
    token_address: ADDRESS,
    quote_address: ADDRESS,
    pool_address: ADDRESS,
    dex: { type: ['string', 'null'] },
    token_amount: { type: 'number' },
    quote_amount: { type: 'number' },
    amount_usd: NUMBER_OR_NULL,
    market_cap_quote: { type: 'number' },
    market_cap_usd: NUMBER_OR_NULL,
    labels: { type: 'array', items: { type: 'string' } },
    created_at: { type: 'integer', description: 'Block time, Unix ms' },
  },
};

const candle = {
  type: 'object',
  required: ['start_at'],
  properties: { start_at: { type: 'integer' }, open: NUMBER_OR_NULL, high: NUMBER_OR_NULL, low: NUMBER_OR_NULL, close: NUMBER_OR_NULL, volume: NUMBER_OR_NULL },
};

/** The `data` of each stream's events (SERVICE.md 6). Clients ignore fields they do not know. */
const eventData: Record<LiveStream, Record<string, unknown>> = {
  token_metadata: {
    type: 'object',
    description: 'Token metadata record (SERVICE.md 2.7), sent when a token’s names, image, description or links change.',
    required: ['token_address', 'socials'],
    properties: {
      token_address: ADDRESS,
      symbol: { type: ['string', 'null'] },
      name: { type: ['string', 'null'] },
      image_url: { type: ['string', 'null'] },
      description: { type: ['string', 'null'] },
      socials: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
  candles: {
    type: 'object',
    description:
      'Changed candles of one series, oldest first; the current candle is updated in place until it closes. The series is the one GET /v1/pools/{pool_address}/candles gives: a pool a bonding curve graduated into continues the curve\'s candles before its migration, and the bucket holding `migrated_at` holds both pools\' trades. `seq` counts events per (pool, interval, mode, currency) series. `subscription_id` is the first member when the subscription named one; clients ignore events whose id is not their current one.',
    required: ['pool_address', 'interval', 'mode', 'currency', 'candles'],
    properties: {
      subscription_id: { type: 'string' },
      pool_address: ADDRESS,
      interval: { type: 'string', enum: INTERVAL_NAMES },
      mode: { type: 'string', enum: CANDLE_MODES },
      currency: { type: 'string', enum: ['usd', 'quote'] },
      seq: { type: ['integer', 'null'] },
      candles: { type: 'array', items: candle },
    },
  },
  pool_metrics: {
    type: 'object',
    description: 'Pool metrics (SERVICE.md 6): slot, tx_index and ix_index locate the last trade included.',
    required: ['pool_address', 'snapshot', 'totals'],
    properties: {
      pool_address: ADDRESS,
      token_address: { type: ['string', 'null'] },
      quote_address: { type: ['string', 'null'] },
      pool_type: { type: ['string', 'null'], enum: ['bonding_curve', 'amm', 'cpmm', 'clmm', null] },
      slot: { type: ['integer', 'null'] },
      tx_index: { type: ['integer', 'null'] },
      ix_index: { type: ['integer', 'null'] },
      snapshot: { type: 'object' },
      totals: { type: 'object' },
      windowed: { type: ['object', 'null'] },
      heat: { type: ['object', 'null'] },
    },
  },
  token_trades: { ...tradeRecord, description: 'Every trade of the token in any of its pools, including pools created after subscribing (the AMM pool after graduation).' },
  pool_trades: { ...tradeRecord, description: 'Every trade in the pool.' },
  rankings: {
    type: 'object',
    description: [
      'One ranking feed of one window (SERVICE.md 6.2; entries are SERVICE.md 2.11, as GET /v1/tokens/rankings/{feed} gives them). event:',
      '- snapshot: sent right after subscribing, then after each recompute that changed a feed that is not live (popular, top_gainers, stocks: every 1, 2, 5, 10 min of engine time for 5m, 1h, 6h, 24h). Carries `seq`, the seq of the last window batch it includes (0: none yet): the next batch to apply is seq + 1. Its entries\' snapshot, totals and windowed are as of the first time the snapshot was built after the recompute; every subscriber of an unchanged feed gets the same bytes.',
      '- enter / exit (live feeds new_pair, almost_bonded, migrated): a pool joined or left the feed at `at`, the engine time of the recompute (every second of engine time); exits first, then enters, then the window batch, in one flush.',
      '- window (live feeds): `ops` applied in order to the rows held give the new rows exactly (remove, then insert at zero-based position); `seq` counts batches per (feed, window) from 1 and goes on across restarts (the feed actors\' snapshots keep it; a client that reconnects gets a snapshot first); a gap means a batch was missed: resubscribe for a new snapshot. `depth` is 100, the most rows a window holds; every 64th batch carries the full order in `pool_addresses`, else null.',
      'Every event also names its `window` (not in SERVICE.md: one connection may follow several windows of a feed). A score change that moves no row sends nothing; subscribe to pool_metrics for tick-by-tick values.',
    ].join('\n'),
    required: ['event', 'feed', 'window'],
    properties: {
      event: { type: 'string', enum: ['snapshot', 'enter', 'exit', 'window'] },
      feed: { type: 'string', enum: ['new_pair', 'popular', 'top_gainers', 'almost_bonded', 'migrated', 'stocks'] },
      window: { type: 'string', enum: ['5m', '1h', '6h', '24h'] },
      rankings: { type: 'array', items: { type: 'object' } },
      updated_at: { type: 'integer' },
      seq: { type: 'integer' },
      pool_address: ADDRESS,
      at: { type: 'integer' },
      entry: { type: ['object', 'null'] },
      sort: { type: 'string' },
      depth: { type: 'integer' },
      ops: { type: 'array', items: { type: 'object', required: ['op', 'pool_address'], properties: { op: { type: 'string', enum: ['insert', 'remove'] }, pool_address: ADDRESS, position: { type: 'integer' }, entry: { type: 'object' } } } },
      pool_addresses: { type: ['array', 'null'], items: ADDRESS },
    },
  },
  chart_lines: {
    type: 'object',
    description: [
      'Price levels to draw on the pool\'s chart (SERVICE.md 2.10, 6; Pro and Scale). Sent right after subscribing (the current lines), then when a line changes: lines are recomputed on the engine clock every second for tokens that changed (a trade of the token, a holder balance, its curve\'s graduation, a token, pool or migration event of it, a kol label), and an event goes out only when the lines differ from the last sent, so a busy pool sends at most one a second. Each event carries every line; the client replaces what it holds (a line missing from an event is gone). A line keeps its `id` while it exists. Subscriptions with the same parameters (wallet_addresses as a set) share one topic and get the same bytes. Lines, in this order; a kind without data has no line:',
      '- ath (id ath): the token\'s highest market cap (as GET /v1/tokens/{token_address} counts it: in quote over its pools quoted like the subscribed pool, in USD over all its pools); price = market cap / total supply; set_at: when the quote ATH was set.',
      '- migration (id migration): the token\'s bonding curve once it graduated or completed: its spot price after its last trade (USD at that trade\'s quote price); set_at: the migration time (the completing trade\'s time without a migration).',
      '- dev_buy, dev_sell (ids the same): the creator\'s (token creator_address) average buy and sell levels.',
      '- top_buy, top_sell (ids top_buy:<wallet>, top_sell:<wallet>): for each of the top_holder_count largest holders (the holders list order; the token\'s pools and the burn address are not holders), the price of its largest buy and largest sell of the token by token amount; label `Top <rank> buy`; supply_pct: that trade\'s tokens; set_at: its time. All top_buy lines come before the top_sell lines, by rank.',
      '- kol_buy (id kol_buy): the average buy level of every kol-labeled wallet that bought the token, over all their buys together; wallet_count: how many such wallets (wallets among the token\'s 1,000 top traders by volume when the first subscription to the token began, and every kol trading it, or labeled kol after buying it, since).',
      '- watchlist_buy (ids watchlist_buy:<wallet>): the average buy level of each of wallet_addresses that bought the token, in address order.',
      '- self_buy, self_sell (ids the same): wallet_address\'s own average buy and sell levels.',
      'An average level is volume-weighted over the wallet\'s trades of the token where the token is the pool\'s base (every pool of the token, curve and AMM): price_quote = quote paid (received) / tokens bought (sold), over its trades quoted in the asset of its first trade, given only when the subscribed pool is quoted in that asset (else null); price_usd = USD paid (received) / tokens over its trades with a USD value (null when none had one). market_cap_usd and market_cap_quote are price × the token\'s total supply now (null without a supply); supply_pct = tokens bought (sold) / total supply × 100 (capped at 100); wallet_count 1 for one wallet\'s line; set_at: the latest buy (sell) counted. The levels count trades from the first applied after this version; a wallet\'s earlier trades stay in its PnL, not in its lines.',
    ].join('\n'),
    required: ['pool_address', 'token_address', 'wallet_address', 'lines'],
    properties: {
      pool_address: ADDRESS,
      token_address: ADDRESS,
      wallet_address: { type: ['string', 'null'], description: 'The wallet the self_* lines belong to (the payload\'s wallet_address), or null.' },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'kind', 'label', 'supply_pct', 'wallet_count', 'set_at', 'price_usd', 'price_quote', 'market_cap_usd', 'market_cap_quote'],
          properties: {
            id: { type: 'string' },
            kind: { type: 'string', enum: ['ath', 'migration', 'dev_buy', 'dev_sell', 'top_buy', 'top_sell', 'kol_buy', 'watchlist_buy', 'self_buy', 'self_sell'] },
            label: { type: ['string', 'null'] },
            supply_pct: NUMBER_OR_NULL,
            wallet_count: { type: ['integer', 'null'] },
            set_at: { type: ['integer', 'null'] },
            price_usd: NUMBER_OR_NULL,
            price_quote: NUMBER_OR_NULL,
            market_cap_usd: NUMBER_OR_NULL,
            market_cap_quote: NUMBER_OR_NULL,
          },
        },
      },
    },
  },
  social_posts: {
    type: 'object',
    description:
      'A tracked social post (INGEST.md `social_post`), the item of GET /v1/tokens/posts, sent once when it is ingested. Payload {token_address?, author?}: posts naming that token and/or by that author; an empty payload: every post. Posts have no deletion event (INGEST.md), so a post is never withdrawn.',
    required: ['post_id', 'platform', 'author', 'text', 'token_addresses', 'at'],
    properties: {
      post_id: { type: 'string' },
      platform: { type: 'string', description: 'x, telegram, ...' },
      author: { type: 'string', description: 'Handle' },
      author_wallet_address: { type: ['string', 'null'] },
      text: { type: 'string' },
      url: { type: ['string', 'null'] },
      token_addresses: { type: 'array', items: ADDRESS },
      at: { type: 'integer', description: 'Post time, Unix ms' },
    },
  },
  wallet_activity: {
    type: 'object',
    description:
      'A labeled trade (SERVICE.md 6.1 `labeled_trade`, with token_address), the item of GET /v1/wallets/activity, described from the pool\'s base token. Payload {label?, wallets?}: without wallets, trades of wallets with a label in force (of `label`, or any) at the trade; with wallets (1 to 100), the trades of those wallets whether labeled or not (labels [] then), of `label` only when given. `labels` are the labels in force at the trade with each label event\'s detail.',
    required: ['trade_id', 'at', 'token_address', 'pool_address', 'wallet_address', 'labels', 'type', 'token_amount', 'amount_quote', 'price_quote', 'market_cap_quote'],
    properties: {
      trade_id: { type: 'string' },
      at: { type: 'integer' },
      token_address: ADDRESS,
      pool_address: ADDRESS,
      wallet_address: ADDRESS,
      labels: { type: 'array', items: { type: 'object', required: ['label'], properties: { label: { type: 'string' }, detail: { type: ['object', 'null'] } } } },
      type: { type: 'string', enum: ['buy', 'sell'] },
      token_amount: { type: 'number' },
      amount_usd: NUMBER_OR_NULL,
      amount_quote: { type: 'number' },
      price_usd: NUMBER_OR_NULL,
      price_quote: { type: 'number' },
      market_cap_usd: NUMBER_OR_NULL,
      market_cap_quote: { type: 'number' },
    },
  },
  markers: {
    type: 'object',
    description: [
      'Marks on one token\'s chart (SERVICE.md 6.1). Every event carries token_address. event:',
      '- mark: marker_id, at, type, source, detail. Types: `callout` (a post naming the token; source its platform; detail {post_id, author, author_wallet_address, url}; marker_id `callout:<post_id>`), `signal` (a signal on the token; source its kind; detail {signal_id, kind, score, pool_address, wallet_addresses}; `signal:<signal_id>`), `migration` (a curve of the token graduated into another pool, at its migration event; source `market`; detail {from_pool_address, to_pool_address}; `migration:<curve>`), `ath` (a new all-time high; source `market`; detail {market_cap_usd, price_usd, pool_address, trade_id}; `ath:<trade_id>`). ATH rule: a trade of the token (as its pool\'s base token, USD known) with market_cap_usd at least 10,000 and at least 1.25 times the market cap of the token\'s previous ATH mark; each such trade is above every earlier one, and a new ATH mark withdraws the previous (one ATH mark per token).',
      '- labeled_trade: a trade of a wallet with a label in force (the wallet_activity item), with marker_id `labeled_trade:<trade_id>`.',
      '- remove: marker_id: delete that mark. Sent when a label is removed from a wallet: its labeled trades that carried the label are withdrawn (one whose wallet keeps other labels follows at once as a labeled_trade with the same marker_id and the labels left), and so are the signal marks of one wallet that label produced (the signal\'s detail.labels, or `kol` for kol_buy and `smart_money` for smart_money_buy); and for the previous ATH mark. Posts have no deletion event in INGEST.md, so callouts are never withdrawn.',
      'marker_ids come from the events\' own ids: the same on every replay. Right after subscribing, the token\'s last 50 marks still in force (marks and labeled trades) are sent, oldest first, as the events they went out as (each counts as a message).',
    ].join('\n'),
    required: ['event', 'token_address', 'marker_id'],
    properties: {
      event: { type: 'string', enum: ['mark', 'remove', 'labeled_trade'] },
      token_address: ADDRESS,
      marker_id: { type: 'string' },
      at: { type: 'integer' },
      type: { type: 'string', description: 'mark: callout, signal, migration, ath; labeled_trade: buy or sell' },
      source: { type: 'string' },
      detail: { type: ['object', 'null'] },
    },
  },
  token_signals: {
    ...SIGNAL_EVENT,
    description:
      'A token signal (volume_spike, price_breakout, smart_money_buy, kol_buy, dev_sell, whale_buy, migration, almost_bonded) as GET /v1/tokens/signals lists it, with `event` = its kind, sent once when it fires (live; a replay after a restart sends nothing again). token_address and kind narrow it; an empty payload gets every token signal. Formulas and thresholds: GET /v1/tokens/signals in the OpenAPI description.',
  },
  wallet_signals: {
    ...SIGNAL_EVENT,
    description:
      'A wallet signal (cluster_buy, big_win, first_buy) as GET /v1/wallets/signals lists it, with `event` = its kind, sent once when it fires. wallets (1 to 100): signals naming any of them; token_address: of that token; min_wallets (1 to 20, default 1): signals naming at least that many distinct wallets (a cluster_buy its cluster, the others one). An empty payload gets every wallet signal. A signal naming several of the subscribed wallets (a cluster) arrives once per such wallet: each wallet is its own channel; a client dedups by signal_id.',
  },
};

const WATCHED: Record<LiveStream, string> = {
  token_metadata: 'Watches no item.',
  candles: 'Watches one item: the pool.',
  pool_metrics: 'Watches one item per address.',
  token_trades: 'Watches one item: the token.',
  pool_trades: 'Watches one item: the pool.',
  rankings: 'Watches one item: the (feed, window).',
  chart_lines: 'Pro and Scale only (other plans get error frame 4033 PLAN_REQUIRED). Watches 1 + n items: the pool, and each distinct wallet named in wallet_addresses and wallet_address (a wallet in both counts once).',
  social_posts: 'Watches one item: the subscription (every post, a token\'s, an author\'s, or both).',
  wallet_activity: 'Watches one item per wallet of `wallets`; without wallets, one item: the subscription (every labeled trade, or one label\'s).',
  markers: 'Watches one item: the token.',
  token_signals: 'Watches one item: the (token_address, kind) it names, an empty payload included.',
  wallet_signals: 'Watches one item per wallet named, or one when it names none (token_address and min_wallets add none).',
};

const DESCRIPTION = `Live market data over one multiplexed JSON WebSocket (SERVICE.md 3.2, 4.3, 4.4, 6, 7.2).

Choices where the specification is open:
- Authentication: \`Authorization: Bearer <key>\` at the upgrade, or a first frame \`{"type":"auth","key":"..."}\` within 5 s (answered \`{"type":"auth","status":"ok"}\`; no reply is sent for the header). Frames that arrive before authentication completes (before or after the auth frame) are held and applied in order once it does, never rejected; at most 64 KiB of them. A later auth frame with the same account's key is answered ok again. Without a key, the web terminal's session cookie (\`mds_session\`, set by a one-time link of \`mds terminal-url\`) authenticates the upgrade with the key the session is bound to, from mds's own origin only: an upgrade carrying it with another \`Origin\` (or a \`Sec-Fetch-Site\` other than same-origin) is refused with HTTP 403, and an expired or revoked session is closed 4401.
- Close codes: ${CLOSE.invalidKey} invalid or revoked key (also when a key is revoked while connected), ${CLOSE.planRequired} plan in force is Free (also when the grace period ends), ${CLOSE.authTimeout} no auth frame within 5 s, ${CLOSE.limit} connection limit of the plan or the monthly message allowance past 110 %, ${CLOSE.badFrame} a frame over 16 KiB, not JSON, or not a JSON object, ${CLOSE.slowConsumer} slow consumer, ${CLOSE.goingAway} server shutting down, ${CLOSE.internal} internal error. A frame over 256 KiB (16 times the limit) or a text frame that is not UTF-8 is cut by the WebSocket layer without a close frame (1006).
- Error frames: \`{"type":"error","code":4033,"error":"PLAN_REQUIRED",...}\` for a Pro-only stream (${[...PRO_STREAMS].join(', ')}) on Starter (nothing is subscribed); \`{"type":"error","code":4290,"error":"RATE_LIMITED","message":"...","stream":"..."}\` when a subscription would pass the plan's watched items (the subscription is not made) or a connection's 10,000 subscriptions. Unknown streams (including the old name \`trades\`), invalid payloads, unknown frame types and unsubscribes of nothing are ignored without an error frame.
- Subscriptions: a subscription is its stream and payload after defaults (pool_metrics addresses as a set; resume fields not included); subscribing twice is one subscription, and unsubscribe takes the same payload. Watched items are the pools, tokens and wallets named (chart_lines: its pool and each distinct wallet; each stream's count is in its channel's description), counted once per account across its connections and subscriptions (defaults: Starter ${DEFAULT_PLANS.starter.watched_items}, Pro ${DEFAULT_PLANS.pro.watched_items}, Scale ${DEFAULT_PLANS.scale.watched_items}).
- Message allowance: every event frame delivered counts, per connection that gets it; control frames (auth, pong, errors) do not. Past 110 % of 20 × the monthly request quota, the account's connections close with 4429 and new ones are refused.
- Candle resume: with resume_after_seq (or resume_after_time when there is no seq), one candles event with every candle changed since is sent right after subscribing (a graduated pool's candles continue those of the curve it graduated from, as on the candles route, so a resume by time from before the graduation gets the curve's candles too) (the server keeps at least 10 minutes of changes; older than that, the candles since resume_after_time, or the latest candles), then live events continue from the next seq. A seq counts every change of the series, watched or not, so a resume with the current seq gets an empty candles list and nothing else does; a seq the series has not reached counts as too old. After a restart of the server (or a rebuild of the pool's state) every seq moves on by one or more gaps of 2^20 (more each time the same saved state is loaded again): a seq from before is never handed out again for other candles, and resuming with it sends the candles since resume_after_time.
- Backpressure: a connection whose unsent data passes 1 MiB is a slow consumer. Its streams stop at once, so it never gets a frame after a missing one; once it reads again it gets what was queued and then close 4008. One that reads nothing for 2 s more is cut without a close frame. Other connections are not affected.
- Order: a connection gets its frames in the order they were published, across all its subscriptions; frames published before a close (4402, 4429, 4008) reach it before the close frame, and a control frame (pong, error) follows the frames published before it.
- Keepalive: clients ping every 15 s; the server closes a connection silent for 32 s, and pings one that has been silent for 16 s. Compression is off.`;

function streamChannel(stream: LiveStream) {
  const payload = schemaOf(payloadSchemas[stream]);
  const frame = (type: 'subscribe' | 'unsubscribe') => ({
    name: `${type}_${stream}`,
    title: `${type} ${stream}`,
    payload: {
      type: 'object',
      required: ['type', 'stream', 'payload'],
      properties: { type: { const: type }, stream: { const: stream }, payload },
    },
  });
  return {
    address: '/ws',
    title: stream,
    description: `${stream} events. ${WATCHED[stream]}`,
    messages: {
      subscribe: frame('subscribe'),
      unsubscribe: frame('unsubscribe'),
      event: {
        name: `${stream}_event`,
        title: `${stream} event`,
        payload: { type: 'object', required: ['stream', 'data'], properties: { stream: { const: stream }, data: eventData[stream] } },
      },
    },
  };
}

const STREAMS = Object.keys(payloadSchemas) as LiveStream[];

const errorFrame = {
  name: 'error',
  title: 'error frame',
  payload: {
    type: 'object',
    required: ['type', 'code', 'error', 'message', 'stream'],
    properties: {
      type: { const: 'error' },
      code: { type: 'integer', enum: [4033, 4290] },
      error: { type: 'string', enum: ['PLAN_REQUIRED', 'RATE_LIMITED'] },
      message: { type: 'string' },
      stream: { type: 'string' },
    },
  },
};

/** The document; a plain JSON-serializable object. */
export const asyncapiDocument = {
  asyncapi: '3.1.0',
  info: { title: 'mds market data WebSocket', version: '1.0.0', description: DESCRIPTION },
  defaultContentType: 'application/json',
  servers: {
    local: { host: '127.0.0.1:8080', protocol: 'ws', pathname: '/ws', security: [{ $ref: '#/components/securitySchemes/bearer' }] },
  },
  channels: {
    control: {
      address: '/ws',
      title: 'control',
      description: 'Authentication, keepalive and error frames.',
      messages: {
        auth: {
          name: 'auth',
          payload: { type: 'object', required: ['type', 'key'], properties: { type: { const: 'auth' }, key: { type: 'string' } } },
        },
        auth_ok: {
          name: 'auth_ok',
          payload: { type: 'object', required: ['type', 'status'], properties: { type: { const: 'auth' }, status: { const: 'ok' } } },
        },
        ping: { name: 'ping', payload: { type: 'object', required: ['type'], properties: { type: { const: 'ping' } } } },
        pong: { name: 'pong', payload: { type: 'object', required: ['type'], properties: { type: { const: 'pong' } } } },
        error: errorFrame,
      },
    },
    ...Object.fromEntries(STREAMS.map((s) => [s, streamChannel(s)])),
  },
  operations: {
    authenticate: {
      action: 'receive',
      channel: { $ref: '#/channels/control' },
      messages: [{ $ref: '#/channels/control/messages/auth' }],
      reply: { channel: { $ref: '#/channels/control' }, messages: [{ $ref: '#/channels/control/messages/auth_ok' }] },
    },
    ping: {
      action: 'receive',
      channel: { $ref: '#/channels/control' },
      messages: [{ $ref: '#/channels/control/messages/ping' }],
      reply: { channel: { $ref: '#/channels/control' }, messages: [{ $ref: '#/channels/control/messages/pong' }] },
    },
    sendError: { action: 'send', channel: { $ref: '#/channels/control' }, messages: [{ $ref: '#/channels/control/messages/error' }] },
    ...Object.fromEntries(
      STREAMS.flatMap((s) => [
        [`subscribe_${s}`, { action: 'receive', channel: { $ref: `#/channels/${s}` }, messages: [{ $ref: `#/channels/${s}/messages/subscribe` }] }],
        [`unsubscribe_${s}`, { action: 'receive', channel: { $ref: `#/channels/${s}` }, messages: [{ $ref: `#/channels/${s}/messages/unsubscribe` }] }],
        [`send_${s}`, { action: 'send', channel: { $ref: `#/channels/${s}` }, messages: [{ $ref: `#/channels/${s}/messages/event` }] }],
      ]),
    ),
  },
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'API key at the upgrade; or send an auth frame within 5 s instead.' },
    },
  },
  'x-close-codes': [
    { code: CLOSE.invalidKey, meaning: 'Invalid or revoked key' },
    { code: CLOSE.planRequired, meaning: 'Paid plan required (Free is REST only); also when the grace period ends' },
    { code: CLOSE.authTimeout, meaning: 'No auth frame within 5 seconds' },
    { code: CLOSE.limit, meaning: 'Connection limit, or the monthly message allowance past 110 %' },
    { code: CLOSE.badFrame, meaning: 'Frame over 16 KiB, not JSON, or not a JSON object' },
    { code: CLOSE.slowConsumer, meaning: 'Slow consumer: unsent data past 1 MiB; sent after the last whole frame it got' },
    { code: CLOSE.goingAway, meaning: 'Server shutting down' },
    { code: CLOSE.internal, meaning: 'Internal error handling a frame' },
  ],
} as const;
