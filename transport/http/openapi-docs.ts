import { WINDOW_NAMES } from '../../engine/model/index.ts';
/**
 * The prose and response shapes of the OpenAPI description (openapi.ts builds the
 * document from the route table and this). Shapes are JSON Schema 2020-12, as
 * OpenAPI 3.1 takes them; nullable is `type: [T, 'null']` (SERVICE.md's `?`). They
 * describe what the handlers return today, loosely where the spec leaves fields
 * open: clients ignore fields they do not know (SERVICE.md 2.1), so every object
 * allows more.
 * @internal
 */

export type Schema = Record<string, unknown>;

const t = (type: string | string[], description?: string): Schema => (description ? { type, description } : { type });
const num = (d?: string) => t('number', d);
const numQ = (d?: string) => t(['number', 'null'], d);
const int = (d?: string) => t('integer', d);
const intQ = (d?: string) => t(['integer', 'null'], d);
const str = (d?: string) => t('string', d);
const strQ = (d?: string) => t(['string', 'null'], d);
const bool = (d?: string) => t('boolean', d);
const boolQ = (d?: string) => t(['boolean', 'null'], d);
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
const arr = (items: Schema, description?: string): Schema => (description ? { type: 'array', items, description } : { type: 'array', items });
/** An object whose listed fields are all present (values may be null where typed so). */
const obj = (properties: Record<string, Schema>, description?: string): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  ...(description ? { description } : {}),
});

const ADDRESS = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' };
const POOL_TYPE = { type: ['string', 'null'], enum: ['bonding_curve', 'amm', 'cpmm', 'clmm', null] };
const PAIR = (d: string) => arr({ type: ['number', 'null'] }, d);

/** How wallet accounting counts (DECISIONS.md, "Wallet accounting"), said once for routes 5, 20, 23, 24 and 26. */
const WALLET_ACCOUNTING =
  'Accounting: a position is (wallet, token) across every pool of the token, each trade seen from that token\'s side (in a pool quoted in another token, the quote token\'s position moves too), at average cost in USD. A sell realizes amount_usd − average cost × tokens sold; the part of a sell above the quantity known realizes against a cost of 0. Transfers count: a balance above what the swaps explain came in by transfer at the token\'s USD price at that balance (it adds to cost, it is not a buy; at the average cost when no USD price is known), below it left at average cost (no realized PnL); balances are compared with the swaps applied before them. A trade without a USD value counts in trade counts (and unpriced_trade_count), not in USD volume or PnL; its tokens move at average cost.';

/**
 * The signal kinds' formulas with their default thresholds (DECISIONS.md: "documented in
 * one file and in the OpenAPI description"; the one file is actors/signals/SIGNALS.md,
 * the defaults actors/signals/signals.rules.ts SIGNAL_DEFAULTS: a change there is a
 * change here).
 */
export const SIGNAL_FORMULAS = {
  volume_spike: 'recent = USD volume of the last 5 min (windowMs 300000); baseline = USD volume of the hour before it (baselineMs 3600000, buckets of 30 s) per 5 min over the part of it the token existed, at least 1,000 USD (baselineFloorUsd); fires when recent ≥ 5,000 USD (minVolumeUsd), recent / baseline ≥ 3 (minRatio) and the token first traded ≥ 10 min before (minAgeMs 600000). score = logRamp(ratio; 3, 30 fullRatio). cooldown 30 min.',
  price_breakout: 'new ATH: the trade\'s USD price ≥ the previous all-time high × 1.01 (minBreakPct 1), that high set ≥ 10 min before (minAthAgeMs 600000), the token ≥ 15 min old (minAgeMs 900000), market cap ≥ 20,000 USD (minMarketCapUsd); every higher price becomes the ATH. score = logRamp(price / ATH; 1.01, 2 fullMultiple). cooldown 30 min.',
  smart_money_buy: 'a buy of ≥ 500 USD (minUsd) by a wallet labeled smart_money. score = logRamp(amount_usd; 500, 10,000 fullUsd). cooldown 1 h per wallet.',
  kol_buy: 'a buy of ≥ 250 USD (minUsd) by a wallet labeled kol. score = logRamp(amount_usd; 250, 5,000 fullUsd). cooldown 1 h per wallet.',
  dev_sell: 'the token\'s creator sells ≥ 0.5 % of the total supply in one trade (minSupplyPct). score = logRamp(supply %; 0.5, 10 fullSupplyPct). cooldown 15 min.',
  whale_buy: 'a buy of ≥ 5,000 USD (minUsd) by any wallet, or ≥ 1,000 USD (labeledMinUsd) by a wallet labeled whale. score = logRamp(amount_usd; the threshold it passed, 50,000 fullUsd). cooldown 1 h per wallet.',
  migration: 'a curve of the token graduated (pool.graduated); pool_address is the pool it moved to. score = 1 − 0.5 × logRamp(launch → graduation; 5 min fastMs, 24 h slowMs). cooldown 24 h.',
  almost_bonded: 'a curve\'s progress crosses 70 % upwards (minProgressPct; or is first seen at or above it), not complete. score = linearRamp(progress gained in 5 min; 0, 30 points fullGain5mPct). cooldown 1 h.',
  cluster_buy: 'buys of ≥ 100 USD (minBuyUsd) by ≥ 3 distinct wallets (minWallets) labeled smart_money, kol or whale (labels) within 10 min (windowMs) up to the trade; wallet_addresses is the cluster. score = linearRamp(wallets; 0, 10 fullWallets). cooldown 1 h per token (a cluster that grows is the same cluster).',
  big_win: 'a sell realizing ≥ 1,000 USD (minProfitUsd) at average cost with proceeds ≥ 2 × the cost of the tokens sold (minMultiple). score = logRamp(realized PnL; 1,000, 100,000 fullProfitUsd). cooldown 1 h per wallet and token.',
  first_buy: 'a wallet labeled smart_money, kol or whale (labels) buys a token it never bought before (in any pool), for ≥ 50 USD (minUsd). score = logRamp(amount_usd; 50, 5,000 fullUsd). cooldown 24 h per wallet and token.',
} as const;

const SIGNAL_RULES = [
  'A signal: signal_id (`<kind>:<token>:<trigger>`, the trigger the trade\'s id or the graduated pool: the same on every replay), kind, token_address, pool_address, wallet_addresses, at (the triggering event\'s time), score 0..1 (how far past its threshold: 0 at it, 1 at the kind\'s "full" value), detail (the numbers behind it). logRamp(x; lo, hi) = clamp(ln(x/lo) / ln(hi/lo), 0, 1); linearRamp(x; lo, hi) = clamp((x − lo) / (hi − lo), 0, 1). A signal fires once per (kind, token, wallet set) per cooldown, before or after in event time. USD values are at the trade (a trade without a USD price passes no USD threshold). Thresholds are the defaults below; the operator sets signals.<kind>.<name> in the config file (actors/signals/SIGNALS.md).',
];

const formulas = (kinds: ReadonlyArray<keyof typeof SIGNAL_FORMULAS>): string => kinds.map((k) => `- ${k}: ${SIGNAL_FORMULAS[k]}`).join('\n');

export const SCHEMAS: Record<string, Schema> = {
  Post: obj({
    post_id: str(),
    platform: str('x, telegram, ...'),
    author: str('Handle'),
    author_wallet_address: { ...ADDRESS, type: ['string', 'null'] },
    text: str(),
    url: strQ(),
    token_addresses: arr(ADDRESS, 'Tokens the post names; a post naming one is a callout (a mark on the markers stream)'),
    at: int('Post time, Unix ms'),
  }),
  LabeledWallet: obj({
    wallet_address: ADDRESS,
    labels: arr(obj({ label: str(), detail: t(['object', 'null'], 'As the label event gave it (name, twitter handle, ...)'), labeled_at: int('Time of the label event in force') }), 'Labels in force, by name'),
  }),
  LabeledTrade: obj({
    trade_id: str(),
    at: int('Block time, Unix ms'),
    token_address: ADDRESS,
    pool_address: ADDRESS,
    wallet_address: ADDRESS,
    labels: arr(obj({ label: str(), detail: t(['object', 'null']) }), 'Labels in force on the wallet at the trade (with wallets=: now); [] for an unlabeled wallet of the list'),
    type: { type: 'string', enum: ['buy', 'sell'] },
    token_amount: num('Whole tokens'),
    amount_usd: numQ(),
    amount_quote: num(),
    price_usd: numQ(),
    price_quote: num(),
    market_cap_usd: numQ(),
    market_cap_quote: num(),
  }),
  Signal: obj({
    signal_id: str('`<kind>:<token>:<trigger>`: the same on every replay'),
    kind: str(),
    token_address: ADDRESS,
    pool_address: strQ('the traded pool; for migration the pool the curve moved to'),
    wallet_addresses: arr(ADDRESS, 'the wallets behind it (none for token-wide kinds; the cluster for cluster_buy)'),
    at: int('time of the event that fired it (Unix ms)'),
    score: num('0..1'),
    detail: { type: 'object', description: 'the numbers behind it, per kind (actors/signals/SIGNALS.md): big_win profit_usd, cost_usd, multiple, hold_time_ms, entry_market_cap_usd, labels; first_buy amount_usd, market_cap_usd, labels; cluster_buy wallet_count, buys_usd, window_ms, market_cap_usd' },
  }),
  Address: { ...ADDRESS, description: 'Base58 address (SERVICE.md 2.1).' },
  Pagination: obj({ next_cursor: strQ('Opaque; null on the last page.'), has_more: bool('False on the last page.') }),
  WalletPerformance: obj({
    wallet_address: ADDRESS, window: str(), realized_pnl_usd: num(), unrealized_pnl_usd: num(), win_rate_pct: numQ('null when nothing was sold in the window'),
    trade_count: int(), buy_count: int(), sell_count: int(), volume_usd: num(), tokens_traded: int(),
    best_token: nullable(obj({ token_address: ADDRESS, realized_pnl_usd: num() })), worst_token: nullable(obj({ token_address: ADDRESS, realized_pnl_usd: num() })),
    unpriced_trade_count: int(), as_of: int('Engine time of the answer (Unix ms).'),
  }),
  WalletPosition: obj({
    token_address: ADDRESS, balance: num(), balance_raw: strQ('null while the token\'s decimals are unknown'), cost_basis_usd: num(), avg_cost_usd: num(),
    value_usd: numQ(), unrealized_pnl_usd: numQ(), realized_pnl_usd: num(), first_buy_at: intQ(), last_trade_at: intQ(),
  }),
  DailyPnl: obj({ date: str('YYYY-MM-DD (UTC)'), realized_pnl_usd: num(), volume_usd: num(), buy_count: int(), sell_count: int() }),
  TopTrader: obj({
    wallet_address: ADDRESS, buy_count: int(), sell_count: int(), buy_volume_usd: num(), sell_volume_usd: num(), realized_pnl_usd: num(),
    unrealized_pnl_usd: numQ(), pnl_usd: num(), labels: arr(str()), as_of: int('Engine time of the answer (Unix ms).'),
  }),
  LeaderboardRow: obj({
    wallet_address: ADDRESS, labels: arr(str()), realized_pnl_usd: num(), win_rate_pct: numQ(), trade_count: int(), volume_usd: num(), tokens_traded: int(),
    unpriced_trade_count: int(), recent_trades: arr(ref('Trade'), 'The last 5 trades, newest first, as GET /v1/wallets/{wallet_address}/trades lists them.'), as_of: int('Engine time the rows were computed at (Unix ms); at most 60 s behind the trades.'),
  }),
  Failure: obj(
    { code: int('Stable status code: HTTP status × 10 plus a digit.'), error: str('Name to branch on.'), message: str('For people; names the parameter on a 400.'), data: { type: 'null' } },
    'Failure envelope (SERVICE.md 7.1).',
  ),
  TokenSearchItem: obj(
    {
      token_address: ref('Address'), pool_address: { ...ref('Address'), description: 'Main pool: the most liquid pool in USD where the token is the base.' },
      symbol: strQ(), name: strQ(), image_url: strQ(),
      market_cap_quote: num('The main pool\'s spot price × total supply, in its quote asset.'),
      market_cap_usd: numQ('market_cap_quote × the main pool\'s quote asset\'s USD price; null (never 0) while it has none, and the item is then in no sort by it.'),
      ath_market_cap_quote: num('Highest over the token\'s pools in the main pool\'s quote asset.'), ath_market_cap_usd: numQ('Highest over all the token\'s pools; null while no trade had a USD value.'),
      liquidity_quote: num(), liquidity_usd: numQ('As market_cap_usd: null while the main pool\'s quote has no USD price, and then in no sort by it.'),
      volume_quote: num('Over `window`, or all time without one; the token\'s pools in the main pool\'s quote asset.'),
      volume_usd: numQ('Over the same period, all the token\'s pools, each trade at its own USD price; null when the period had trades and none had a USD value (in no sort by it then).'),
      trader_count: int('Distinct wallets over the token\'s pools, all time (exact while each pool holds up to 512, then HyperLogLog, ~2 %).'),
      buy_count: int('Over the same period as volume.'), sell_count: int('Over the same period as volume.'),
      socials: { type: 'object', additionalProperties: { type: 'string' } },
      dex: strQ(), pool_type: POOL_TYPE, bonding_curve_progress_pct: numQ('0-100; null for pools without a curve.'),
      migrated: bool(), created_at: int('Main pool creation time (Unix ms).'),
    },
    'SERVICE.md 2.2, values as of the request: price, market cap, liquidity, dex, pool type and creation of the main pool; volumes, counts, ATH and traders of every pool where the token is the base (a graduated token\'s curve included).',
  ),
  Snapshot: obj(
    { price_quote: num(), price_usd: numQ(), market_cap_quote: num(), market_cap_usd: numQ(), liquidity_quote: num(), liquidity_usd: numQ(), bonding_curve_progress_pct: num('0-100; 0 after migration.') },
    'SERVICE.md 2.3; the spot price after the latest trade. USD values use the quote asset\'s latest USD price (wSOL, USDC, USDT from quote_price, USDC and USDT 1 until one; a token quote at its own USD price, its main pool\'s), null without one. A bonding curve holds no liquidity once graduated.',
  ),
  Totals: {
    type: 'object',
    description: 'SERVICE.md 2.4, all time. Distinct counts are exact up to 512 wallets, then HyperLogLog with 2,048 registers (standard error 2.3 %, 1.04/√2048). ' +
      'Holder-based fields come from `balance` events (last write by slot; balances exact below 2^53 raw units, within 1e-16 relative above) and are null before the token\'s first one; ' +
      'shares are of total supply and the token\'s own pools are not holders. top10_pct: the 10 largest holders; dev_pct: the creator_address (null if unknown). ' +
      'If the token\'s earliest pool is a bonding curve, wallets first seen holding in its creation slot are bundlers and in the 3 slots after it (config market.sniperSlots) snipers (the creator is neither); ' +
      'bundler_count counts them all, bundle_pct and sniper_pct are what they hold now; null for other launches. ' +
      'circulating_supply: total supply minus what the token\'s pools hold after their latest swap (AMM base reserve; a curve\'s real base reserve plus what it keeps for its migration; a pool quoted in the token: its quote reserve). ' +
      'bonding_curve_gain_5m_pct: curve progress now minus progress at the start of the 5 minutes of windowed.5m (after the last trade before them; 0 when the curve had none), in percentage points; null for pools without a curve and for a graduated curve.',
    properties: Object.fromEntries([
      ...['volume_quote', 'buy_volume_quote', 'sell_volume_quote', 'ath_market_cap_quote'].map((k) => [k, num()]),
      ...['trade_count', 'buy_count', 'sell_count', 'trader_count', 'buyer_count', 'seller_count'].map((k) => [k, int()]),
      ...['volume_usd', 'buy_volume_usd', 'sell_volume_usd', 'ath_market_cap_usd', 'launch_price_quote', 'launch_price_usd', 'price_change_pct_quote', 'price_change_pct_usd',
        'total_supply', 'circulating_supply', 'lp_burned_pct', 'dev_pct', 'sniper_pct', 'bundle_pct', 'top10_pct', 'bonding_curve_gain_5m_pct'].map((k) => [k, numQ()]),
      ...['first_trade_at', 'holder_count', 'bundler_count'].map((k) => [k, intQ()]),
      ...['mint_revoked', 'freeze_revoked', 'dex_paid'].map((k) => [k, boolQ()]),
    ]),
  },
  Windowed: {
    type: 'object',
    description:
      'SERVICE.md 2.5, columnar: entry i of every array is window t[i]. Rolling windows of 60 buckets each (1m by 1 s ... 24h by 24 min), as of the request: they decay with no trades. pp is the change against the last price before the window.',
    properties: {
      t: arr({ type: 'string', enum: WINDOW_NAMES }),
      pp: arr(PAIR('[quote, usd] percent')), v: arr(PAIR('[quote, usd]')), vb: arr(PAIR('[quote, usd]')), vs: arr(PAIR('[quote, usd]')),
      tc: arr(int()), bc: arr(int()), sc: arr(int()), m: arr(int()), bm: arr(int()), sm: arr(int()),
    },
    required: ['t', 'pp', 'v', 'vb', 'vs', 'tc', 'bc', 'sc', 'm', 'bm', 'sm'],
  },
  Heat: nullable(
    obj(
      { absolute: int('0-100'), momentum: int('0-100'), direction: { type: 'string', enum: ['up', 'down'] }, drivers: arr({ type: 'string', enum: ['price', 'volume', 'txns'] }), confidence: num('0-1') },
      'SERVICE.md 2.6; the formula is in actors/pool/HEAT.md.',
    ),
  ),
  Token: obj(
    {
      token_address: ref('Address'), symbol: strQ(), name: strQ(), image_url: strQ(), description: strQ(), socials: { type: 'object', additionalProperties: { type: 'string' } },
      decimals: intQ(), launched_at: intQ(), mayhem_mode: bool(), mayhem_ends_at: intQ(),
      creator_fee_destination: { type: 'string', enum: ['creator', 'shared', 'cashback', 'holders'] },
      tags: arr({ type: 'string' }, 'The token\'s tags from its latest `token` event carrying them (INGEST v1 addition, DECISIONS.md "Tokenized stocks"); `stock` marks a tokenized equity. [] when none.'),
      migrated: bool(),
    },
    'Token object of SERVICE.md 2.11, with migrated and tags.',
  ),
  Pool: obj(
    {
      pool_address: ref('Address'), base_address: ref('Address'), quote_address: ref('Address'), dex: strQ(), pool_type: POOL_TYPE,
      created_at: intQ(), migrated_from_pool_address: strQ(), migrated_at: intQ(),
    },
    'Pool object of SERVICE.md 2.11, with pool_address.',
  ),
  Trade: obj(
    {
      trade_id: str('tx_hash:event_index'), tx_hash: str(), slot: int(), tx_index: int(), event_index: int(), type: { type: 'string', enum: ['buy', 'sell'] },
      wallet_address: ref('Address'), token_address: ref('Address'), quote_address: ref('Address'), pool_address: ref('Address'), dex: strQ(),
      token_amount: num(), quote_amount: num(), price_quote: num(), price_usd: numQ(), amount_usd: numQ(), market_cap_quote: num(), market_cap_usd: numQ(),
      labels: arr({ type: 'string' }), created_at: int(),
    },
    'SERVICE.md 2.8, from the requested token\'s side. From the side of a pool\'s quote (a token-to-token pool, or token= the quote): buy and sell and the amounts swapped, the price inverted, price_usd the quote\'s USD price at the trade, market_cap_usd that times the quote token\'s supply (null while either is unknown), market_cap_quote 0 while that supply is unknown. ' +
      'market_cap_quote is the trade\'s own price × total supply (DECISIONS.md), so market-cap candles are the price candles × supply. USD values use the quote\'s USD price at the trade: wSOL, USDC, USDT from quote_price (USDC and USDT 1 until one); a quote token\'s from its main pool (the token\'s most liquid pool in USD where it is the base, its price × that pool\'s quote\'s USD price) as it stands at the trade; null when none is known.',
  ),
  Candle: obj({ start_at: int(), open: numQ(), high: numQ(), low: numQ(), close: numQ(), volume: numQ('In the requested currency.') }, 'SERVICE.md 2.9.'),
  PoolOverview: obj({
    pool: ref('Pool'), token: nullable(ref('Token')), lifecycle: { type: 'string', enum: ['unknown', 'curve', 'complete', 'graduated', 'trading'], description: 'curve → complete (curve filled) → graduated (migrated); other pools are trading.' },
    snapshot: ref('Snapshot'), totals: ref('Totals'), windowed: ref('Windowed'), heat: ref('Heat'), replaced_by_pool_address: strQ('The pool that replaced this bonding curve.'),
  }),
  PoolMetrics: obj({
    pool_address: ref('Address'), token_address: ref('Address'), quote_address: ref('Address'), pool_type: POOL_TYPE,
    slot: intQ(), tx_index: intQ(), ix_index: intQ(), snapshot: ref('Snapshot'), totals: ref('Totals'), windowed: ref('Windowed'), heat: ref('Heat'),
  }, 'Shaped as the pool_metrics stream data (SERVICE.md 6).'),
  HolderStats: obj({
    token_address: ref('Address'),
    holder_count: intQ('Holders now (balance above 0), pool accounts and the burn address left out; null before the first balance event.'),
    top10_pct: numQ('The 10 largest holders\' share of the total supply.'), dev_pct: numQ('The creator\'s share; null while the creator is unknown.'),
    sniper_pct: numQ('What snipers hold now; null for a token not launched on a bonding curve.'), bundle_pct: numQ('What bundlers hold now; null as sniper_pct.'),
    bundler_count: intQ(), sniper_count: intQ(),
    distribution: nullable(obj({ lt_10: int(), '10_100': int(), '100_1k': int(), '1k_10k': int(), gte_10k: int() }, 'Holders by the USD value of their holding: below $10, $10 to $100, ... , $10,000 and more (each bucket includes its lower bound).')),
    supply_pct_by_rank: nullable(obj({ top_10: numQ(), top_11_50: numQ(), top_51_100: numQ(), rest: numQ() }, 'Share of the total supply held by holders of each rank.')),
    price_usd: numQ('The token\'s USD price the values are taken at.'),
    excluded_addresses: arr(ref('Address'), 'Addresses that hold the token and are not holders: its pools and the burn address.'),
  }),
  Holder: obj({
    wallet_address: ref('Address'), balance: numQ('Whole tokens; null while the decimals are unknown.'), balance_raw: str('Raw integer, as a decimal string.'),
    supply_pct: numQ('Share of the total supply.'), value_usd: numQ('balance × the token\'s USD price now.'), labels: arr({ type: 'string' }), first_seen_at: intQ('First balance event above 0 of this wallet and token.'),
  }),
  BondingCurve: obj({
    token_address: ref('Address'), pool_address: ref('Address'), dex: strQ(), quote_address: ref('Address'), created_at: int(),
    progress_pct: num('0-100; 100 once complete.'), complete: bool(),
    real_token_reserve: numQ(), real_quote_reserve: numQ(), virtual_token_reserve: numQ(), virtual_quote_reserve: numQ(), initial_real_token_reserve: numQ(),
    price_quote: numQ('Spot price after the latest trade, in the quote asset.'),
    migrated_to_pool_address: strQ('The pool that replaced the curve at graduation.'), migrated_at: intQ(),
  }),
  DeployedToken: obj({
    token_address: ref('Address'), symbol: strQ(), name: strQ(), image_url: strQ(), created_at: int('Time of the token event that named the creator.'), launched_at: intQ(),
    migrated: bool(), migrated_at: intQ(), pool_address: strQ('Main pool: the most liquid in USD where the token is the base.'), dex: strQ(), pool_type: POOL_TYPE,
    market_cap_quote: numQ(), market_cap_usd: numQ(), bonding_curve_progress_pct: numQ('Of the main pool when it is a curve.'),
  }),
  TokenOverview: obj({ token: ref('Token'), pool: nullable(ref('Pool')), snapshot: nullable(ref('Snapshot')), totals: nullable(ref('Totals')) }, 'The token, its main pool, that pool\'s snapshot and totals.'),
  RankingEntry: obj(
    {
      pool_address: ref('Address'), rank: int('1-based position in the feed.'), score: num('What the feed ranks by: new_pair created_at, popular volume_usd × sqrt(traders), top_gainers price change %, almost_bonded curve progress %, migrated migrated_at, stocks volume_usd.'),
      entered_at: int('Engine time of the recompute at which the pool entered this (feed, window).'),
      token: nullable(ref('Token')), pool: nullable(ref('Pool')), snapshot: nullable(ref('Snapshot')), totals: nullable(ref('Totals')), windowed: nullable(ref('Windowed')),
    },
    'SERVICE.md 2.11. rank, score and entered_at are as of the feed\'s last recompute; snapshot, totals and windowed as of the read.',
  ),
  PoolWithSnapshot: { allOf: [ref('Pool'), obj({ snapshot: ref('Snapshot') })] },
  PoolListItem: {
    allOf: [
      ref('Pool'),
      obj({
        token: nullable(obj({ token_address: ref('Address'), symbol: strQ(), name: strQ(), image_url: strQ() })),
        snapshot: ref('Snapshot'), volume_quote: num('All time.'), volume_usd: numQ('All time, each trade at its own USD price.'),
        trade_count: int('All time.'), replaced_by_pool_address: strQ(),
      }),
    ],
  },
  Candles: obj({ pool_address: ref('Address'), interval: str(), mode: str(), currency: str(), candles: arr(ref('Candle'), 'Oldest first.') }),
  SolPrice: obj({ price_usd: num(), updated_at: int('Time of the quote_price event it comes from.') }),
  Health: obj({
    status: { type: 'string', enum: ['starting', 'ready', 'stopping'] }, ingested: int('Events applied since the data directory was created (the last ingest seq).'), durable: int('Events on disk: every seq up to this one survives a crash; below `ingested` while batches wait for their fsync (~100 ms).'), dead_letters: int(), source: str(), source_done: boolQ(),
    source_state: nullable({
      type: 'object',
      description: 'A live Solana source: its connection and progress; null for the simulator and files. solana-ws: adds pending, fetched, failed, rate_limited, backfills (gap repairs after reconnects, getSignaturesForAddress) and backfilled (signatures they queued); yellowstone: adds transactions and sol_price_updates.',
      properties: {
        connected: { type: 'boolean' }, reconnects: int(), last_slot: { type: ['integer', 'null'] }, last_event_at: { type: ['integer', 'null'], description: 'Unix ms of the last event submitted' },
        pending: int('solana-ws: signatures announced, not yet fetched'), fetched: int('solana-ws'), failed: int('solana-ws: signatures given up (dead letters)'),
        rate_limited: int('solana-ws: HTTP 429 answers'), transactions: int('yellowstone: transaction updates received'),
        sol_price_updates: int("yellowstone: SOL/USD updates from Pyth's price feed account"),
      },
      required: ['connected', 'reconnects', 'last_slot', 'last_event_at'],
    }),
  }),
};

/** What the document says about one route. `data` is the success envelope's data; `raw` a body outside the envelope. */
export interface RouteDoc {
  tag: string;
  summary: string;
  description?: string;
  data?: Schema;
  paged?: boolean;
  /** A route without path parameters that can still answer 404/4040: when. */
  notFound?: string;
  /** Parameters only some plans may use (403/4033 below it): parameter → least plan. */
  planParams?: Record<string, string>;
  raw?: { contentType: string; schema?: Schema };
}

const HOLDERS_RULES =
  'Holders are the wallets holding the token (balance above 0, from its balance events, last write by slot), leaving out the token\'s own pool accounts and the burn address 1nc1nerator11111111111111111111111111111111.';

const TRADES_RULES =
  'Newest first by default (order=desc walks from now back to start_time); order=asc walks forward from start_time. Without start_time the list covers the last 24 hours; never more than 30 days back. "Now" is the engine clock. Sorted by created_at, then slot, tx_index, event_index. The cursor carries the last trade\'s position: pages never repeat or skip a trade while new ones arrive, and it is bound to the route, subject, order, start_time and token.';

/** Every route of DECISIONS.md (and the open ones), by pattern; routes the table lacks are simply not in the document. */
export const ROUTE_DOCS: Record<string, RouteDoc> = {
  '/health': { tag: 'system', summary: 'Liveness and readiness', description: 'Always 200 while the process serves HTTP; data.status is ready once the log is replayed.', data: ref('Health') },
  '/metrics': { tag: 'system', summary: 'Prometheus metrics', raw: { contentType: 'text/plain' } },
  '/openapi.json': { tag: 'system', summary: 'This document (OpenAPI 3.1)', raw: { contentType: 'application/json', schema: { type: 'object' } } },
  '/asyncapi.json': { tag: 'system', summary: 'The WebSocket description (AsyncAPI 3)', raw: { contentType: 'application/json', schema: { type: 'object' } } },
  '/docs': { tag: 'system', summary: 'API reference page: this document rendered (Redoc, served locally)', raw: { contentType: 'text/html' } },
  '/docs/ws': { tag: 'system', summary: 'API reference page of the WebSocket: /asyncapi.json rendered', raw: { contentType: 'text/html' } },
  '/docs/redoc.standalone.js': { tag: 'system', summary: 'The Redoc bundle /docs loads', raw: { contentType: 'text/javascript' } },
  '/': { tag: 'terminal', summary: 'Web terminal: search and the six ranking feeds, live', description: 'The page holds no key: its HTTP and /ws requests carry the HttpOnly, SameSite=Strict session cookie that a one-time link of `mds terminal-url` sets (GET /session/{token}, which redirects here); cookie-authorized requests from another origin are refused (401, and 403 on the /ws upgrade).', raw: { contentType: 'text/html' } },
  '/t/:token_address': { tag: 'terminal', summary: 'Web terminal: a token (chart, trades, pool metrics, holders, top traders)', raw: { contentType: 'text/html' } },
  '/w/:wallet_address': { tag: 'terminal', summary: 'Web terminal: a wallet (performance, positions, daily PnL)', raw: { contentType: 'text/html' } },
  '/terminal/app.js': { tag: 'terminal', summary: 'The web terminal\'s script (built at npm run build; 503 until then)', raw: { contentType: 'text/javascript' } },
  '/terminal/app.css': { tag: 'terminal', summary: 'The web terminal\'s style sheet', raw: { contentType: 'text/css' } },
  '/v1/market/sol-price': { tag: 'charts', summary: 'Latest SOL price in USD', description: '404/4040 before the first wSOL quote_price.', data: ref('SolPrice'), notFound: '4040 NOT_FOUND: no wSOL quote_price yet.' },
  '/v1/tokens/search': {
    tag: 'research',
    summary: 'Find tokens by name, symbol or mint address',
    description: [
      'match: smart (default) matches every word of q as a word prefix of the name or symbol, with typos allowed from 4 characters (1 edit per 4, at most 2); symbol hits weigh double, an exact symbol or name ranks first; a one-character q is a prefix query. exact: the whole name or symbol equals q (case- and width-insensitive). prefix: the name or symbol starts with q.',
      'A q that is the mint address of a known token returns that token, whatever match says. q absent or blank lists every token.',
      'sort: relevance (default), market_cap_usd, volume_usd, liquidity_usd, trader_count, created_at (main pool creation). order defaults to desc for every sort (best match, largest, newest first); ties go by token_address ascending.',
      'window (5m, 1h, 6h, 24h) is the period of volume_quote, volume_usd, buy_count, sell_count and of sort=volume_usd; absent, all time. trader_count is all time.',
      'Only tokens with a pool are listed. Price, market cap and liquidity come from the main pool (most liquid in USD), in its quote asset and in USD through that quote\'s USD price; volumes, buy and sell counts, ATH and trader_count are the token\'s totals, as GET /v1/tokens/{token_address} has them: every pool where the token is the base (the curve a token graduated from included), as of the request.',
      'A USD value not known (a main pool quoted in a token without a USD price) is null, never 0, and such a token is in no sort by that value, in either order (it is still found by q under the other sorts): each page of a USD sort is ordered by the values it shows.',
      'Paging is by key: the cursor holds the last item\'s sort key and address, the quote prices the first page was ordered at, and is bound to q, match, sort, order and window. Tokens whose sort key does not change between pages are seen exactly once; one whose key crosses the position (its volume or market cap moved) can be skipped or seen twice.',
    ].join('\n\n'),
    data: arr(ref('TokenSearchItem')),
    paged: true,
  },
  '/v1/tokens': { tag: 'research', summary: 'Many tokens in one call', description: 'addresses: 1 to 50, comma-separated, no repeats. Unknown tokens are left out; the rest keep the order asked.', data: arr(ref('TokenOverview')) },
  '/v1/tokens/:token_address': {
    tag: 'research',
    summary: 'Token overview',
    description: [
      'The token object, its main pool and its snapshot, and the token\'s totals. The main pool is the most liquid pool in USD where the token is the base: a pool quoted in another token is valued at that token\'s USD price (its own main pool\'s, valued through known mints only, so a cycle of tokens quoted in each other ends), and a pool whose USD value is unknown ranks after every pool whose value is known.',
      'totals are the token\'s across every pool where it is the base, the bonding curve it graduated from included, so they carry on across graduation: counts, USD volumes and distinct wallets over all of them; volume_quote, ath_market_cap_quote and launch_price_quote over those in the main pool\'s quote asset; launch_price_usd and first_trade_at from the first trade by chain position. Search items show the same figures. Holder, supply and curve fields are as on GET /v1/pools/{pool_address}, of the main pool.',
    ].join('\n\n'),
    data: ref('TokenOverview'),
  },
  '/v1/tokens/:token_address/holders/stats': {
    tag: 'research',
    summary: 'Holder statistics',
    description: [
      `${HOLDERS_RULES} excluded_addresses names the addresses left out for this token.`,
      'holder_count, top10_pct, dev_pct, sniper_pct, bundle_pct, bundler_count and sniper_count are those of the totals of GET /v1/tokens/{token_address}. distribution counts holders by the USD value of their holding at the token\'s USD price now (price_usd; null while it has none); supply_pct_by_rank splits the supply the holders hold by their rank in the holder list (top_10 equals top10_pct). Holder fields are null before the token\'s first balance event, shares null while its supply is unknown.',
      'Cost: one pass over the token\'s wallets after each balance change (cached until the next), and a walk of its holder order over the 100 largest holders and those worth $10 or more.',
    ].join('\n\n'),
    data: ref('HolderStats'),
    notFound: '4040 NOT_FOUND: unknown token.',
  },
  '/v1/tokens/:token_address/holders': {
    tag: 'research',
    summary: 'Largest holders',
    description: [
      `${HOLDERS_RULES} Largest balance first; ties by wallet_address ascending.`,
      'value_usd is balance × the token\'s USD price now (its main pool\'s spot price × that pool\'s quote\'s USD price; null while it has none); supply_pct is of the total supply; first_seen_at is the time of the first balance event above 0 of that wallet and token (null when unknown: a data directory older than it). labels are the wallet\'s labels now. label (Pro and Scale; 403/4033 on lower plans) keeps only holders with that label.',
      'A walk (a first page and the pages its cursors lead to) shows each holder at most once while balances change: the cursor holds where the walk began (a count of the token\'s balance changes) and the last position (balance and wallet) looked at; a next page lists the holders after that position now, leaving out every holder whose balance since the walk began was ever at or before it (so could have been shown already). A holder whose balance changed during the walk may so be missed; one whose balance did not change is shown exactly once. The token keeps its last 4,096 balance changes for this; a walk begun longer ago leaves out every holder changed since it began. A page looks at no more than 10,000 holders: one that reaches that (a rare label, many holders left out) has fewer rows and has_more true; keep following next_cursor. The cursor is bound to token_address and label.',
      'Cost: the token\'s holder order is made on its first read (O(holders log holders)) and kept up to date from then on; a page is O(log holders + the holders it looks at).',
    ].join('\n\n'),
    data: arr(ref('Holder')),
    paged: true,
    notFound: '4040 NOT_FOUND: unknown token.',
    planParams: { label: 'pro' },
  },
  '/v1/tokens/:token_address/traders': {
    tag: 'research',
    summary: 'Top traders',
    description: [
      `The token's traders by pnl_usd (realized_pnl_usd + unrealized_pnl_usd; default) or volume_usd (buy + sell), largest first, ties by wallet_address. ${WALLET_ACCOUNTING}`,
      'unrealized_pnl_usd values the quantity held at the token\'s USD price now (its main pool\'s), null when that price is unknown (pnl_usd then counts realized only). The list keeps, per token, the 1,000 wallets with the most USD volume in it (cut back from 1,250): a wallet with less volume than those is not ranked. Rows follow every trade and balance as it is applied; an answer without label is cached for up to a second (unrealized PnL may be a second behind the price); as_of in each row is the engine time it was computed at.',
      'label (Pro: 403/4033 PLAN_REQUIRED on free and starter) keeps wallets holding that label. 404 for a token the service does not know.',
    ].join('\n\n'),
    data: arr(ref('TopTrader')),
    paged: true,
    planParams: { label: 'pro' },
  },
  '/v1/tokens/:token_address/bonding_curve': {
    tag: 'research',
    summary: 'Bonding curve state',
    description: 'The token\'s launch curve: its launch pool when that is a bonding curve (pool_type bonding_curve), else its earliest bonding-curve pool where it is the base. progress_pct is 100 × (initial real token reserve − real token reserve) / initial, and 100 once complete (unlike a pool snapshot\'s bonding_curve_progress_pct, which SERVICE.md 2.3 sets to 0 after migration); complete is true once the real token reserve reached 0 or the curve migrated. Reserves are whole units after the curve\'s latest trade (null before its first; a graduated curve keeps those of its last trade). 404/4040 for an unknown token and for a token without a curve.',
    data: ref('BondingCurve'),
  },
  '/v1/tokens/:token_address/pools': { tag: 'charts', summary: 'Pools of a token', description: 'Pools where the token is the base, most liquid first, then those where it is the quote (token-to-token pools). Paged like every list (limit 1..100, default 50); the cursor carries the last pool\'s rank and is bound to the token, and the next page takes the pools ranked after it at that time (a pool whose liquidity moved across it in between may show twice or not at all).', data: arr(ref('PoolWithSnapshot')), paged: true },
  '/v1/tokens/:token_address/trades': { tag: 'trades', summary: 'Trades of a token in all its pools', description: `Described from the token's side, token-to-token pools included. ${TRADES_RULES}`, data: arr(ref('Trade')), paged: true },
  '/v1/pools': {
    tag: 'charts',
    summary: 'List pools: by base token, by quote, by pair, or newest',
    description: [
      'base_address and quote_address filter (both: one pair; neither: every pool).',
      'sort: created_at (default; when the service first saw the pool), liquidity_usd (liquidity_quote at the quote asset\'s USD price, a token quote at that token\'s, as the snapshot shows it; pools without one sort as 0), volume_usd (all time, each trade at its own USD price). order defaults to desc; ties go by pool_address in the same direction.',
      'Paging is by key; the cursor is bound to base_address, quote_address, sort and order. By created_at, pages never repeat or skip a pool while new ones appear; by liquidity or volume, a pool whose value crosses the position between pages can be skipped or seen twice. The cursor keeps the quote prices of the first page, so a SOL price move does not shift liquidity pages.',
    ].join('\n\n'),
    data: arr(ref('PoolListItem')),
    paged: true,
  },
  '/v1/pools/metrics': { tag: 'charts', summary: 'Metrics of many pools', description: 'addresses: 1 to 50, comma-separated, no repeats. Unknown pools are left out; the rest keep the order asked.', data: arr(ref('PoolMetrics')) },
  '/v1/pools/:pool_address': { tag: 'charts', summary: 'Pool overview', description: 'After graduation a bonding curve names the pool that replaced it (replaced_by_pool_address); the AMM pool names migrated_from_pool_address.', data: ref('PoolOverview') },
  '/v1/pools/:pool_address/candles': {
    tag: 'charts',
    summary: 'OHLCV candles',
    description:
      'The newest `limit` candles in [start_time, end_time], oldest first. Open and close are the first and last trade by chain position (slot, tx_index, event_index), so late and out-of-order trades give the same candle. USD tracks use the quote asset\'s USD price at each trade. Intervals with no trade have no candle. A pool a bonding curve graduated into continues the curve\'s candles (as its trades include the curve\'s): the curve\'s candles starting before the pool\'s `migrated_at` (its `created_at` until a migration names it) come first, and the bucket holding `migrated_at` is one candle of both pools\' trades (the curve\'s open, the pool\'s close, the high and low of both, both volumes), so that a token\'s chart is one series across graduation, in every interval and mode; in quote units only when both pools are quoted in the same asset. The curve\'s own candles stay its own. end_time before start_time is a 400. 1s and 15s candles are not stored: they are folded from the pool\'s stored trades of the range when asked for (the same candles a stored series gave), so they reach back as far as the trades are kept, 30 days (retention.tradesDays); longer intervals are kept.',
    data: ref('Candles'),
  },
  '/v1/pools/:pool_address/trades': { tag: 'trades', summary: 'Trades of a pool', description: `Includes the bonding curve the pool graduated from. token (one of the pool's two tokens, default the base) sets the side trades are described from. ${TRADES_RULES}`, data: arr(ref('Trade')), paged: true },
  '/v1/tokens/rankings/:feed': {
    tag: 'discovery',
    summary: 'Discovery feed (ranking entries, SERVICE.md 2.11)',
    description: [
      'feed: new_pair (pools created within the window, newest first; pools a curve graduated into are migrated\'s), popular (volume_usd × sqrt(traders) in the window, above 0), top_gainers (price change % in the window above 0, the USD one else the quote one, among pools with liquidity_usd ≥ 5,000 and ≥ 10 trades in it), almost_bonded (curve progress ≥ 70 % and not complete, every window alike), migrated (graduated within 24 h, newest first, every window alike), stocks (pools of tokens tagged `stock` by their token event, or listed in the config key market.stockMints, by volume_usd in the window). Order: score descending, then pool_address ascending. Depth 100 per (feed, window).',
      'window: 5m, 1h (default), 6h, 24h. The rows are as of the feed\'s last recompute on the engine clock: every second for new_pair, almost_bonded and migrated; for popular, top_gainers and stocks every 1, 2, 5 and 10 minutes for 5m, 1h, 6h and 24h (SERVICE.md 6.2), so a replay of the same events under --clock event gives the same rows.',
      'Paged by rank (limit 1..100, default 50); the cursor is bound to feed and window, and a recompute between two pages can move a pool across the page boundary.',
    ].join('\n\n'),
    data: arr(ref('RankingEntry')),
    paged: true,
  },
  '/v1/tokens/signals': {
    tag: 'discovery',
    summary: 'Token signals (Pro)',
    description: [
      'Without token_address, the latest signal of each token (of `kind` when given: each token\'s latest of that kind); with token_address, every signal of that token (of `kind` when given). Newest first (at, then signal_id or token descending), down to start_time (inclusive) when given. Paged by position (limit 1..100, default 50); the cursor is bound to token_address, kind and start_time. Kinds: volume_spike, price_breakout, smart_money_buy, kol_buy, dev_sell, whale_buy, migration, almost_bonded (wallet kinds are GET /v1/wallets/signals). Pro and Scale; other plans 403/4033.',
      ...SIGNAL_RULES,
      formulas(['volume_spike', 'price_breakout', 'smart_money_buy', 'kol_buy', 'dev_sell', 'whale_buy', 'migration', 'almost_bonded']),
    ].join('\n\n'),
    data: arr(ref('Signal')),
    paged: true,
  },
  '/v1/tokens/posts': {
    tag: 'discovery',
    summary: 'Tracked social posts (Pro)',
    description: [
      'Posts (INGEST.md social_post) newest first: by at, then post_id, both descending. token_address keeps posts naming that token, author those by that handle, start_time those at or after it (absent: every post kept). Items are the social_posts stream\'s data, with the ingest fields as they came (times in at, Unix ms).',
      'Paged by key (limit 1..100, default 50); the cursor is bound to token_address, author and start_time, and posts ingested between two pages never shift a page. Posts have no deletion event, so a post stays listed. Pro or Scale: 403/4033 PLAN_REQUIRED below.',
    ].join('\n\n'),
    data: arr(ref('Post')),
    paged: true,
  },
  '/v1/wallets': {
    tag: 'smart money',
    summary: 'Labeled wallets (Pro)',
    description: 'Wallets with at least one label in force (label: only those holding it), by wallet_address ascending, each with its labels in force: the label, the detail its label event carried and when. Read from an index the label events maintain (no scan of every wallet). Paged by address (limit 1..100, default 50); the cursor is bound to label. Pro or Scale: 403/4033 PLAN_REQUIRED below.',
    data: arr(ref('LabeledWallet')),
    paged: true,
  },
  '/v1/wallets/leaderboard': {
    tag: 'smart money',
    summary: 'Wallet leaderboard with recent trades',
    description: [
      `Wallets with a trade in the window, by sort: pnl_usd (realized_pnl_usd of sells in the window; default), win_rate_pct (wallets that sold nothing in the window last) or volume_usd; largest first, ties by wallet_address. Filters min_trade_count, min_volume_usd and min_win_rate_pct keep rows at or above them (min_win_rate_pct leaves out wallets that sold nothing). ${WALLET_ACCOUNTING}`,
      'Windows are whole UTC days: 1d is today (UTC), 7d today and the 6 days before, 30d today and the 29 before.',
      'Maintained incrementally, not computed per request: trades mark their wallet, and the marked wallets\' rows are recomputed at least every 60 s of event time and when a request finds them 60 s old on the engine clock (every row on a new UTC day). So the leaderboard may lag the trades by up to 60 s; as_of (in each row) is the engine time the rows were computed at. It ranks the 10,000 wallets with the most USD volume in 30 days; filters apply within them. recent_trades: the wallet\'s last 5 trades (over the 30 days trade lists cover), newest first, as GET /v1/wallets/{wallet_address}/trades lists them. An answer is cached for up to a second.',
    ].join('\n\n'),
    data: arr(ref('LeaderboardRow')),
    paged: true,
  },
  '/v1/wallets/activity': {
    tag: 'smart money',
    summary: 'Trades of labeled wallets, or of your own wallet list (Pro)',
    description: [
      'Labeled trades (SERVICE.md 6.1 labeled_trade, with token_address) newest first: by at, then slot, tx_index, event_index, descending. Without wallets: trades of wallets with a label in force at the trade (label: of that label; default any), with those labels and their details; a label removed later leaves the trades listed as they were (the markers stream withdraws their marks). With wallets (1 to 100 comma-separated addresses, no repeats: the caller\'s own list): every trade of those wallets, labeled or not, with the labels in force now ([] for none); with label too, only trades of those wallets holding it.',
      'Each trade is described from its pool\'s base token (token_amount in it, amount_quote and price_quote in the quote asset); a token-to-token pool\'s quote side is not listed. min_market_cap_usd and max_market_cap_usd keep trades whose market_cap_usd at the trade is in the range (trades without a USD value are left out when either is given); max below min is a 400 naming max_market_cap_usd. start_time as the trade lists: absent, the last 24 hours; never more than 30 days back.',
      'Paged by key (limit 1..100, default 50); the cursor is bound to every filter. Pro or Scale: 403/4033 PLAN_REQUIRED below.',
    ].join('\n\n'),
    data: arr(ref('LabeledTrade')),
    paged: true,
  },
  '/v1/wallets/signals': {
    tag: 'smart money',
    summary: 'Wallet signals (Pro)',
    description: [
      'The wallet kinds (cluster_buy, big_win, first_buy) fired within the window (5m, 1h default, 6h, 24h) up to the engine clock\'s now (the newest event\'s time under --clock event), newest first. Paged by position (limit 1..100, default 50); the cursor is bound to the filters and keeps the first page\'s window start.',
      'Filters (all optional, combined with AND): wallets (1 to 100 comma-separated addresses: signals naming any of them, each signal once); token_address; min_wallets (signals naming at least that many distinct wallets: a cluster_buy names its cluster, big_win and first_buy one wallet); min_profit_usd and max_hold_time_ms (big_win\'s realized profit and the time from the wallet\'s first buy of the token to the sell; other kinds do not pass them); min_cost_usd (what the wallets put in: big_win the cost of the tokens sold, first_buy the buy\'s amount_usd, cluster_buy the cluster\'s buys_usd); min_entry_market_cap_usd / max_entry_market_cap_usd (big_win the market cap at the wallet\'s first buy, first_buy and cluster_buy the market cap at the buy; a signal without one does not pass); include_bots (default false: leaves out signals whose wallet carries a bot, sniper or bundler label). Pro and Scale; other plans 403/4033.',
      ...SIGNAL_RULES,
      formulas(['cluster_buy', 'big_win', 'first_buy']),
    ].join('\n\n'),
    data: arr(ref('Signal')),
    paged: true,
  },
  '/v1/wallets/:wallet_address/performance': {
    tag: 'wallet',
    summary: 'Wallet performance',
    description: `window 1d, 7d, 30d (whole UTC days: 1d is today, 7d today and the 6 days before) or all (default 7d). realized_pnl_usd: sells in the window; unrealized_pnl_usd: the open positions now, at each token's USD price now (positions whose token has no USD price left out); win_rate_pct: among tokens sold in the window, the share whose realized PnL in it is above 0 (null when none was sold); best_token and worst_token: by realized PnL in the window among those tokens (ties by address). ${WALLET_ACCOUNTING} A wallet that never traded answers zeros, not a 404. Read from the wallet's state as it is (no lag); as_of is the engine time of the answer.`,
    data: ref('WalletPerformance'),
  },
  '/v1/wallets/:wallet_address/positions': {
    tag: 'wallet',
    summary: 'Open positions',
    description: `Positions with a balance above 0, largest value_usd first (positions whose token has no USD price last, value_usd null), ties by token_address. min_value_usd keeps those worth at least that much (and leaves out those without a value). ${WALLET_ACCOUNTING}`,
    data: arr(ref('WalletPosition')),
    paged: true,
  },
  '/v1/wallets/:wallet_address/trades': {
    tag: 'wallet',
    summary: 'Trades of a wallet',
    description: `Every pool the wallet traded in, bonding curves included. Without token_address each trade is described from its pool's base token; with it, only pools holding that token, each trade from its side. A wallet that never traded has an empty list (any address is a wallet), not a 404. Trades are in this list as soon as they are applied, as in the pool and token lists. ${TRADES_RULES}`,
    data: arr(ref('Trade')),
    paged: true,
  },
  '/v1/wallets/:wallet_address/daily_pnl': {
    tag: 'wallet',
    summary: 'Daily PnL',
    description: `One row per UTC day for the last \`days\` days (1 to 90, default 30), oldest first, today last; days without trades are rows of zeros. A trade at exactly 00:00:00.000 UTC is the new day's. ${WALLET_ACCOUNTING}`,
    data: arr(ref('DailyPnl')),
  },
  '/v1/wallets/:wallet_address/deployed_tokens': {
    tag: 'wallet',
    summary: 'Tokens deployed by the wallet',
    description: 'Tokens whose creator_address is the wallet, newest first (created_at: the time of the token event that named the creator; ties by token_address descending), each with its main pool, market cap (the main pool\'s spot price × supply, in its quote asset and in USD through that quote\'s USD price, as search items have it; null without a pool) and migrated flag. A wallet that created none has an empty list, not a 404. Read from an index of tokens by creator (one range read per page); a data directory from before that index is indexed once after start, in the background, and lists may miss tokens until that is done. The cursor is bound to wallet_address.',
    data: arr(ref('DeployedToken')),
    paged: true,
  },
};

/** Parameter descriptions by name; `<pattern> <name>` overrides one route's. */
export const PARAM_DOCS: Record<string, string> = {
  limit: 'Rows per page. Above the maximum is a 400 naming limit, never a silent clamp.',
  cursor: 'Opaque and tamper-evident: pass pagination.next_cursor back unchanged, with the same other parameters. A modified cursor, or one used with other parameters or on another route, is a 400 naming cursor.',
  order: 'asc or desc.',
  start_time: 'Unix ms.',
  end_time: 'Unix ms; not before start_time.',
  addresses: 'Comma-separated addresses, no spaces, no repeats.',
  token_address: 'Token mint address.',
  '/v1/tokens/:token_address/holders label': 'Only holders with this label (kol, smart_money, ...), as label events name them. Pro and Scale: 403/4033 on lower plans.',
  '/v1/wallets/:wallet_address/trades token_address': "Only trades in pools holding this token, each described from its side. Default: every pool, each trade from its pool's base token.",
  pool_address: 'Pool address.',
  wallet_address: 'Wallet address.',
  q: 'Name, symbol or mint address; at most 100 characters. Absent or blank: every token.',
  match: 'smart, exact or prefix.',
  window: 'Rolling window of volume fields and the volume sort; absent: all time.',
  '/v1/wallets/leaderboard window': 'Whole UTC days: 1d today, 7d today and the 6 days before, 30d today and the 29 before.',
  '/v1/wallets/:wallet_address/performance window': 'Whole UTC days (1d today, 7d today and the 6 days before, 30d, 29 before) or all.',
  '/v1/wallets/leaderboard sort': 'pnl_usd (realized in the window), win_rate_pct or volume_usd; largest first.',
  '/v1/tokens/:token_address/traders sort': 'pnl_usd (realized + unrealized) or volume_usd; largest first.',
  label: 'Only wallets holding this label (for example kol). Pro or Scale: 403/4033 below.',
  author: 'Only posts by this handle (1 to 256 characters).',
  '/v1/tokens/posts token_address': 'Only posts naming this token.',
  '/v1/tokens/posts start_time': 'Only posts at or after this time (Unix ms).',
  '/v1/wallets label': 'Only wallets with this label in force.',
  '/v1/wallets/activity label': 'Only trades whose wallet held this label (default: any label).',
  wallets: 'Your own list: 1 to 100 comma-separated wallet addresses, no repeats; their trades, labeled or not.',
  min_market_cap_usd: 'Only trades whose market cap at the trade is at least this (USD).',
  max_market_cap_usd: 'Only trades whose market cap at the trade is at most this (USD); not below min_market_cap_usd.',
  min_trade_count: 'Only wallets with at least this many trades in the window.',
  min_volume_usd: 'Only wallets with at least this USD volume in the window.',
  min_win_rate_pct: 'Only wallets whose win rate in the window is at least this (0-100); wallets that sold nothing in it are left out.',
  min_value_usd: 'Only positions worth at least this many USD now.',
  days: 'UTC days, 1 to 90, today included.',
  token: "One of the pool's two tokens: trades are described from its side. Default: the pool's base token.",
  interval: 'Candle length.',
  mode: 'price or market_cap.',
  currency: 'usd or quote (the pool quote asset).',
  base_address: 'Only pools whose base token is this mint.',
  quote_address: 'Only pools quoted in this asset (wSOL for SOL pools).',
  '/v1/tokens/search sort': 'Sort key; every sort defaults to order=desc.',
  '/v1/pools sort': 'Sort key; volume_usd is all time.',
  '/v1/tokens/search order': 'Default desc for every sort: best match, largest, newest first.',
};

/** The top of the document: conventions every route shares, and the choices where SERVICE.md is open. */
export const API_DESCRIPTION = [
  'Read-only market data for Solana tokens, pools and trades (SERVICE.md). Every /v1 route needs `Authorization: Bearer <API_KEY>`; /health, /metrics and the descriptions are open.',
  'Envelope: every response is JSON {code, error, message, data}; code 0 on success; lists that page add pagination {next_cursor, has_more}. Money fields carry their unit (_usd, _sol, _quote); times are Unix ms; _pct fields are 0-100.',
  'Validation: one schema per route. An unknown or repeated parameter, a malformed address, an out-of-range number, a bad enum value, malformed percent-encoding or a query over 8 KiB is 400/4000 with the parameter named in message. Integers are plain decimal digits (no sign, exponent or leading zeros). Lists default to limit 50, maximum 100, unless the route says otherwise.',
  'Cursors are opaque and tamper-evident (HMAC-signed with a key kept in the data directory, so they outlive restarts): a modified cursor, one from another route or one reused with other parameters is a 400 naming cursor, never a wrong page.',
  'Errors (SERVICE.md 7.1): 4000 BAD_REQUEST, 4010 UNAUTHENTICATED (no key), 4013 INVALID_API_KEY (unknown or revoked), 4033 PLAN_REQUIRED, 4040 NOT_FOUND (unknown route, any non-GET method, or unknown resource; under /v1 after the key check and the limits, so with the rate headers, and counted), 4290 RATE_LIMITED, 4291 QUOTA_EXCEEDED, 4292 TOO_MANY_IN_FLIGHT, 5000 INTERNAL, 5020 UPSTREAM_FAILED, 5030 UNAVAILABLE, 5040 TIMEOUT. HTTP status = code / 10.',
  'Limits: per key, a fixed 1-second window of requests, a monthly quota (calendar month, UTC) and requests in flight, by plan (free 5 rps / 2 in flight / 100,000 a month; starter 25 / 5 / 2,000,000; pro 100 / 20 / 20,000,000; scale 500 / 100 / 200,000,000 by default). Every authenticated response carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (seconds), X-Quota-Limit, X-Quota-Remaining, X-Quota-Reset; a 429 adds Retry-After; during the 2-hour grace after a plan expires, X-Subscription-Grace: true. Every admitted request counts, whatever it answers; a 429 does not.',
  'Time: "now" is the engine clock (wall time in production, the latest event time in replays). Trade lists cover 30 days; without start_time, the last 24 hours.',
  'Encoding: responses are UTF-8 JSON. A successful response of 1 KB or more is compressed with br (preferred) or gzip when Accept-Encoding takes one, and carries Vary: Accept-Encoding; smaller ones, failures and requests without Accept-Encoding are plain.',
].join('\n\n');
