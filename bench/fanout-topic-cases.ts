import { topics } from '../engine/topics/index.ts';
import { marketAddresses } from './fanout-plan.ts';

/**
 * The topics of the topic fan-out benchmark (bench/fanout-topics.ts): what a
 * connection subscribes to, which topic the engine publishes on, and the events that
 * declare a market and then make one publish per round.
 */
export interface TopicCase {
  /** The stream and the subscribe payload (SERVICE.md 4.4). */
  stream: string;
  payload: Record<string, unknown>;
  /** The topic the engine publishes on (engine/topics/names.ts). */
  topic: string;
  /** The numeric field of a frame that differs from one publish to the next (its last occurrence in the frame names the round). */
  roundField: string;
  /** Whether a JSON.stringify argument is one of this stream's events: each such call is a serialization. */
  isEvent(value: unknown): boolean;
  /** Serializations for what a subscriber gets on subscribing, in all (rankings: the snapshot, made once; markers: the stored recent marks, none). */
  subscribeSerializations: number;
  /** Events declaring the market, before any subscriber: the frame the subscribers get first reflects them. */
  setup(pools: number): unknown[];
  /** Events after which the engine publishes round `round` (from 1) on the topic, once. */
  round(round: number, pools: number): unknown[];
}

const WSOL = 'So11111111111111111111111111111111111111112';
const T0 = 1_767_225_600_000;
const MINUTE = 60_000;
const clockTo = (at: number) => ({ type: 'quote_price', quote_address: WSOL, price_usd: 150, at });

/** `n` as `width` base58 characters (digit d as the d-th of A..K without I): part of a transaction hash. */
const base58Digits = (n: number, width: number) => String(n).padStart(width, '0').replace(/\d/g, (d) => 'ABCDEFGHJK'[Number(d)]!);

/** One buy per pool at `at`, pool p buying p + `round` SOL, so that every recompute changes the scores. */
function trades(round: number, pools: number, at: number): unknown[] {
  const { pools: addresses } = marketAddresses(pools);
  return addresses.map((pool, p) => ({
    type: 'swap', tx_hash: `${'1'.repeat(60)}${base58Digits(round, 6)}${base58Digits(p, 6)}`, slot: 1_000 + round * 1_000 + p, tx_index: p, event_index: 0, at: at + p,
    pool_address: pool, wallet_address: addresses[(p + round) % pools], side: 'buy',
    base_amount_raw: '1000000', quote_amount_raw: String((p + round) * 1e9), base_reserve_raw: '1000000000000000', quote_reserve_raw: '100000000000000',
  }));
}

/**
 * `rankings` of popular, 5m: `pools` AMM pools traded every minute, so the feed's
 * recompute at each minute of engine time (RECOMPUTE_MS 5m) changes and publishes a
 * snapshot of every pool (up to the depth of 100) with its entry (token, pool,
 * snapshot, totals, windowed). A round is one trade per pool and the clock to the next
 * minute; `updated_at` (the recompute's time) names it.
 */
export const rankingsCase: TopicCase = {
  stream: 'rankings',
  payload: { feed: 'popular', window: '5m' },
  topic: topics.rankings('popular', '5m'),
  roundField: 'updated_at',
  subscribeSerializations: 1,
  isEvent: (v) => typeof v === 'object' && v !== null && (v as { event?: unknown }).event === 'snapshot' && (v as { feed?: unknown }).feed === 'popular' && (v as { window?: unknown }).window === '5m',
  setup(pools) {
    const { pools: addresses, mints } = marketAddresses(pools);
    const out: unknown[] = [clockTo(T0)];
    addresses.forEach((pool, p) => {
      out.push(
        { type: 'token', token_address: mints[p], decimals: 6, supply_raw: '1000000000000000', symbol: `R${p}`, name: `Ranked ${p}`, slot: 10, at: T0 },
        { type: 'pool', pool_address: pool, base_address: mints[p], quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0, slot: 10 },
      );
    });
    // A first recompute with rows: the snapshot every subscriber gets first carries them.
    return [...out, ...trades(0, pools, T0 + 1_000), clockTo(T0 + MINUTE)];
  },
  round: (round, pools) => [...trades(round, pools, T0 + round * MINUTE + 1_000), clockTo(T0 + (round + 1) * MINUTE)],
};

/**
 * `markers` of one token: a round is a social post naming it, a callout `mark` (engine/
 * topics/markers.ts) serialized once and published on `markers:<token>`; `at` (the
 * post's time) names it. The setup's callout is what a subscriber gets on subscribing
 * (the token's recent marks, stored as they went out: no serialization then).
 */
const MARKED = marketAddresses(1);
const callout = (round: number) => ({
  type: 'social_post', post_id: `fanout-${round}`, platform: 'x', author: 'fanout', text: `round ${round}`, token_addresses: [MARKED.mints[0]], at: T0 + round * 1_000,
});
export const markersCase: TopicCase = {
  stream: 'markers',
  payload: { token_address: MARKED.mints[0] },
  topic: topics.markers(MARKED.mints[0]!),
  roundField: 'at',
  subscribeSerializations: 0,
  isEvent: (v) => typeof v === 'object' && v !== null && (v as { event?: unknown }).event === 'mark' && (v as { type?: unknown }).type === 'callout',
  setup: () => [
    clockTo(T0),
    { type: 'token', token_address: MARKED.mints[0], decimals: 6, supply_raw: '1000000000000000', symbol: 'MRK', name: 'Marked', slot: 10, at: T0 },
    { type: 'pool', pool_address: MARKED.pools[0], base_address: MARKED.mints[0], quote_address: WSOL, dex: 'raydium', pool_type: 'amm', created_at: T0, slot: 10 },
    callout(0),
  ],
  round: (round) => [callout(round)],
};
