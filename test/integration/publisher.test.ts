import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { topics, type TopicSink } from '../../engine/topics/index.ts';
import { base58, rng, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * The engine's live output through the TopicSink seam: which frames it builds, for
 * which topics, and the candle resume history. The WebSocket transport's own tests
 * (test/integration/ws*.test.ts) carry these frames to real clients.
 */

/**
 * A sink that listens on the topics it is told to and keeps the frames they get; like
 * uWS, a frame published to a topic nobody listens on reaches nobody (counted apart).
 */
class CollectingSink implements TopicSink {
  readonly listening = new Set<string>();
  readonly frames: Array<{ topic: string; frame: any; raw: string }> = [];
  unheard = 0;
  has(topic: string): boolean {
    return this.listening.has(topic);
  }
  publish(topic: string, frame: string): void {
    if (!this.listening.has(topic)) {
      this.unheard++;
      return;
    }
    this.frames.push({ topic, frame: JSON.parse(frame), raw: frame });
  }
  take(prefix: string) {
    const out = this.frames.filter((f) => f.topic.startsWith(prefix));
    this.frames.splice(0, this.frames.length, ...this.frames.filter((f) => !f.topic.startsWith(prefix)));
    return out;
  }
}

const r = rng(777);
const A = base58(r, 44);
const B = base58(r, 44);
const POOL = base58(r, 44);
const PAIR = base58(r, 44); // B (base) / A (quote)
const W = base58(r, 44);
const T0 = 1_767_225_600_000;
let n = 0;
const swap = (pool: string, at: number, side: 'buy' | 'sell', base: string, quote: string) => ({
  type: 'swap', tx_hash: base58(rng(90_000 + ++n), 88), slot: 2_000 + n, tx_index: 0, event_index: 0, at, pool_address: pool, wallet_address: W, side,
  base_amount_raw: base, quote_amount_raw: quote, base_reserve_raw: '1000000000000', quote_reserve_raw: '1000000000000',
});

let dir: TempDir;
let engine: Engine;
const sink = new CollectingSink();

beforeAll(async () => {
  dir = tempDir();
  engine = await createEngine({ config: testConfig(dir.path) });
  engine.attachTopics(sink);
  for (const e of [
    { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
    { type: 'token', token_address: A, decimals: 6, supply_raw: '1000000000000000', symbol: 'A', slot: 1, at: T0 },
    { type: 'token', token_address: B, decimals: 6, supply_raw: '1000000000000000', symbol: 'B', slot: 1, at: T0 },
    { type: 'pool', pool_address: POOL, base_address: A, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 },
    { type: 'pool', pool_address: PAIR, base_address: B, quote_address: A, dex: 'meteora_dlmm', pool_type: 'clmm', created_at: T0, slot: 2 },
  ]) expect((await engine.ingest(e)).status).toBe('applied');
});

afterAll(async () => {
  await engine.stop();
  dir.cleanup();
});

describe('market publisher', () => {
  it('publishes trades only to topics with subscribers, one frame string per topic', async () => {
    await engine.ingest(swap(POOL, T0 + 1_000, 'buy', '1000000', '1000000000'));
    expect([sink.frames, sink.unheard]).toEqual([[], 0]); // nobody listens: no frame is even built
    sink.listening.add(topics.poolTrades(POOL));
    sink.listening.add(topics.tokenTrades(A));
    await engine.ingest(swap(POOL, T0 + 2_000, 'sell', '1000000', '500000000'));
    const pool = sink.take('pool_trades:');
    const token = sink.take('token_trades:');
    expect(pool.map((f) => f.frame.stream)).toEqual(['pool_trades']);
    expect(pool[0]!.frame.data).toMatchObject({ type: 'sell', pool_address: POOL, token_address: A, token_amount: 1, quote_amount: 0.5, created_at: T0 + 2_000 });
    // The same data, serialized once: the two frames differ only in the stream name.
    expect(token[0]!.raw).toBe(pool[0]!.raw.replace('"pool_trades"', '"token_trades"'));
  });

  it("sends token_trades of a token-to-token pool's quote token from its side, and follows new pools", async () => {
    await engine.ingest(swap(PAIR, T0 + 3_000, 'buy', '1000000', '4000000'));
    const [f] = sink.take('token_trades:');
    expect(f!.topic).toBe(topics.tokenTrades(A));
    expect(f!.frame.data).toMatchObject({ type: 'sell', pool_address: PAIR, token_address: A, quote_address: B, token_amount: 4, quote_amount: 1 });
    // A pool created after subscribing is in the token's stream: topics are per token.
    const NEW = base58(r, 44);
    await engine.ingest({ type: 'pool', pool_address: NEW, base_address: A, quote_address: WSOL, dex: 'raydium_cpmm', pool_type: 'cpmm', created_at: T0 + 3_500, slot: 3 });
    await engine.ingest(swap(NEW, T0 + 4_000, 'buy', '2000000', '1000000000'));
    expect(sink.take('token_trades:').map((x) => x.frame.data.pool_address)).toEqual([NEW]);
  });

  it('publishes changed candles with a per-series seq, and resumes exactly the missed updates', async () => {
    const topic = topics.candles(POOL, '1s', 'price', 'quote');
    engine.flush(); // earlier trades' candle changes are taken (and published to nobody)
    sink.listening.add(topic);
    await engine.ingest(swap(POOL, T0 + 5_000, 'buy', '1000000', '2000000000'));
    engine.flush();
    const [first] = sink.take('candles:');
    expect(first!.raw.startsWith('{"stream":"candles","data":{')).toBe(true);
    expect(first!.frame.data).toMatchObject({ pool_address: POOL, interval: '1s', mode: 'price', currency: 'quote' });
    expect(first!.frame.data.candles).toEqual([{ start_at: T0 + 5_000, open: 2, high: 2, low: 2, close: 2, volume: 2 }]);
    const seq = first!.frame.data.seq as number;

    // The client drops; three more updates happen (two in one candle, one in the next).
    sink.listening.delete(topic);
    await engine.ingest(swap(POOL, T0 + 5_000, 'buy', '1000000', '3000000000'));
    engine.flush();
    await engine.ingest(swap(POOL, T0 + 5_000, 'sell', '1000000', '1000000000'));
    engine.flush();
    await engine.ingest(swap(POOL, T0 + 6_000, 'buy', '1000000', '5000000000'));
    engine.flush();
    expect(sink.take('candles:')).toEqual([]);

    const resumed = engine.query.market!.candles.candleResume({ pool_address: POOL, interval: '1s', mode: 'price', currency: 'quote', afterSeq: seq })!;
    expect(resumed.seq).toBe(seq + 3);
    expect(resumed.candles).toEqual([
      { start_at: T0 + 5_000, open: 2, high: 3, low: 1, close: 1, volume: 6 },
      { start_at: T0 + 6_000, open: 5, high: 5, low: 5, close: 5, volume: 5 },
    ]);
    // Up to date: nothing to send; unknown to the history: the candles since the time.
    expect(engine.query.market!.candles.candleResume({ pool_address: POOL, interval: '1s', mode: 'price', currency: 'quote', afterSeq: seq + 3 })!.candles).toEqual([]);
    const byTime = engine.query.market!.candles.candleResume({ pool_address: POOL, interval: '1s', mode: 'price', currency: 'quote', afterSeq: 1, afterTime: T0 + 5_500 })!;
    expect(byTime.candles.map((c) => c.start_at)).toEqual([T0 + 5_000, T0 + 6_000]);
    expect(engine.query.market!.candles.candleResume({ pool_address: base58(r, 44), interval: '1s', mode: 'price', currency: 'quote', afterSeq: 1 })).toBeNull();
  });

  it('publishes pool_metrics for watched pools on flush, and token_metadata on a metadata change only', async () => {
    sink.listening.add(topics.poolMetrics(POOL));
    sink.listening.add(topics.tokenMetadata());
    await engine.ingest(swap(POOL, T0 + 7_000, 'buy', '1000000', '1000000000'));
    engine.flush();
    const [m] = sink.take('pool_metrics:');
    expect(m!.frame.data).toMatchObject({ pool_address: POOL, token_address: A, quote_address: WSOL, pool_type: 'amm', slot: 2_000 + n, tx_index: 0, ix_index: 0 });
    expect(m!.frame.data.windowed.t).toEqual(['1m', '5m', '1h', '6h', '24h']);
    await engine.ingest({ type: 'token', token_address: A, name: 'Alpha', slot: 5, at: T0 + 8_000 });
    await engine.ingest({ type: 'token', token_address: A, name: 'Alpha', slot: 6, at: T0 + 8_500 }); // no change
    await engine.ingest({ type: 'token', token_address: A, lp_burned_pct: 100, slot: 7, at: T0 + 9_000 }); // not metadata
    expect(sink.take('token_metadata').map((f) => f.frame)).toEqual([
      { stream: 'token_metadata', data: { token_address: A, symbol: 'A', name: 'Alpha', image_url: null, description: null, socials: {} } },
    ]);
  });

  it('labels trades with the wallet labels in force, whatever the order labels arrived in', async () => {
    // A remove that is older than the add arrives later: the add stands.
    await engine.ingest({ type: 'label', wallet_address: W, label: 'kol', action: 'add', at: T0 + 20_000 });
    await engine.ingest({ type: 'label', wallet_address: W, label: 'kol', action: 'remove', at: T0 + 19_000 });
    await engine.ingest({ type: 'label', wallet_address: W, label: 'whale', action: 'add', at: T0 + 20_000 });
    sink.take('pool_trades:');
    await engine.ingest(swap(POOL, T0 + 21_000, 'buy', '1000000', '1000000000'));
    const [frame] = sink.take('pool_trades:');
    expect(frame!.frame.data.labels).toEqual(['kol', 'whale']);
    await engine.ingest({ type: 'label', wallet_address: W, label: 'whale', action: 'remove', at: T0 + 22_000 });
    const page = engine.query.market!.trades.poolTrades(POOL, { order: 'desc', limit: 1 })!;
    expect(page.items[0]!.labels).toEqual(['kol']);
  });

  it('dead-letters swaps past the waiting bound instead of dropping them', async () => {
    const ORPHAN = base58(r, 44);
    const before = engine.query.status().deadLetters;
    const waiting = Array.from({ length: 10_001 }, (_, i) => ({ ...swap(ORPHAN, T0 + 10_000 + i, 'buy', '1000000', '1000000'), tx_index: i }));
    const results = await Promise.all(waiting.map((e) => engine.ingest(e)));
    expect(results.every((x) => x.status === 'applied')).toBe(true);
    await engine.gate.flush();
    const letters = [...engine.storage.deadLetters.getRange({ reverse: true, limit: 1 })].map((x) => x.value);
    expect(engine.query.status().deadLetters).toBe(before + 1);
    expect(letters[0]!.reason).toContain('10000 swaps waiting');
    expect(letters[0]!.source).toBe(`actor:pool:${ORPHAN}`);
  });
});
