import { describe, expect, it } from 'vitest';
import { TRADE, tradeFromTokenSide, type DerivedEvent, type PoolTradeEvent, type TokenHoldersEvent } from '../../engine/model/index.ts';
import type { ActorBehavior } from '../../engine/supervisor/behavior.ts';
import type { Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';
import { countsOf, storedTradesByWallet, swapTradeCounter, throwOnce, tradeCounter } from '../helpers/trade-counter.ts';

/**
 * The router's derived events (engine/supervisor/router.ts) through a consumer actor
 * registered as embedders do (EngineOptions.actors): a per-wallet counter of the
 * `pool.trade` events it applies must equal the wallet's stored trades live, after a
 * crash and restart whose actors' snapshots are at different seqs, and after a rebuild.
 */

const temp = useTempEngine('mds-derived-');
const T0 = 1_767_225_600_000;
const actors = [tradeCounter, swapTradeCounter];

function market(seed: number) {
  const random = rng(seed);
  const mint = base58(random, 44);
  const pools = [base58(random, 44), base58(random, 44), base58(random, 44)];
  const wallets = Array.from({ length: 3 }, () => base58(random, 44));
  let slot = 1_000;
  let at = T0;
  return {
    mint,
    pools,
    wallets,
    token: () => ({ type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'DRV', name: 'Derived', slot: ++slot, at }),
    pool: (pool: string) => ({ type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: at, slot: ++slot }),
    quote: () => ({ type: 'quote_price', quote_address: WSOL, price_usd: 150, at }),
    swap: (pool: string, wallet: string) => ({
      type: 'swap', tx_hash: base58(random, 88), slot: ++slot, tx_index: 0, event_index: 0, at: (at += 1_000), pool_address: pool, wallet_address: wallet,
      side: random() < 0.5 ? 'buy' : 'sell', base_amount_raw: String(1_000_000 + Math.floor(random() * 1e9)), quote_amount_raw: String(1_000_000 + Math.floor(random() * 1e9)),
      base_reserve_raw: '800000000000000', quote_reserve_raw: '40000000000',
    }),
  };
}

type Market = ReturnType<typeof market>;

async function send(engine: Engine, events: Array<Record<string, unknown>>): Promise<void> {
  for (const e of events) expect((await engine.ingest(e)).status, JSON.stringify(e)).toBe('applied');
}

/** n swaps, the wallets in turn, in `pool`. */
const swaps = (m: Market, pool: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => m.swap(pool, m.wallets[(from + i) % m.wallets.length]!));

/** Each counter's counts equal the stored trades per wallet; the swap-and-trade counter's swaps equal its trades. */
function expectExact(engine: Engine, m: Market, trades: number): void {
  const stored = storedTradesByWallet(engine, m.pools);
  expect([...stored.values()].reduce((a, b) => a + b, 0), 'stored trades').toBe(trades);
  expect(countsOf(engine, tradeCounter.kind, m.wallets), 'pool.trade per wallet').toEqual(stored);
  expect(countsOf(engine, swapTradeCounter.kind, m.wallets), 'pool.trade per wallet (a kind also taking swaps)').toEqual(stored);
  expect(countsOf(engine, swapTradeCounter.kind, m.wallets, 'swaps'), 'swaps per wallet').toEqual(stored);
}

describe('derived events through the router', () => {
  it('a consumer sees every priced trade once, live, swaps that waited for their pool included; only the hosts that take a type get it', async () => {
    const m = market(1);
    const engine = await temp.open({}, { actors });
    const seen: DerivedEvent[] = [];
    const off = engine.router.subscribe('pool.trade', (e) => seen.push(e));
    await send(engine, [m.quote(), m.token(), m.pool(m.pools[0]!)]);
    await send(engine, swaps(m, m.pools[0]!, 12));
    // Swaps before their pool's event wait; its event applies them, and derives their trades.
    await send(engine, swaps(m, m.pools[1]!, 4));
    expect(seen).toHaveLength(12);
    await send(engine, [m.pool(m.pools[1]!)]);
    expect(seen).toHaveLength(16);
    off();
    expectExact(engine, m, 16);
    const t = seen[0] as PoolTradeEvent;
    expect(t).toMatchObject({ type: 'pool.trade', pool_address: m.pools[0], base_address: m.mint, quote_address: WSOL });
    expect(t.trade[TRADE.quoteUsd]).toBe(150);
    expect(tradeFromTokenSide(t, m.mint)).toMatchObject({ token_address: m.mint, side: t.trade[TRADE.side], token_amount: t.trade[TRADE.baseAmount] });
    expect(tradeFromTokenSide(t, WSOL), 'no token side for a known quote mint').toBeNull();
    // The built-in consumers (the ranking feeds, wallet accounting with each token's signals in its token-traders actor: actors/feed, actors/wallet, actors/signals), then the test's.
    expect(engine.router.hostsOf('pool.trade').map((h) => h.kind)).toEqual(['feed', 'wallet-leaderboard', 'wallet', 'token-traders', 'wallet-trade-counter', 'wallet-swap-trade-counter']);
    expect(engine.router.hostsOf('swap').map((h) => h.kind)).toEqual(['pool', 'wallet-swap-trade-counter']);
    expect(engine.router.hostsOf('pool').map((h) => h.kind)).toEqual(['token', 'pool', 'feed']);
  });

  it('recomputes exactly the derived events a consumer lacks after a crash, its snapshot and the pool\'s at different seqs', async () => {
    const m = market(2);
    const [p0, p1, p2] = m.pools as [string, string, string];
    let engine = await temp.open({}, { actors });
    await send(engine, [m.quote(), m.token(), m.pool(p0), m.pool(p1)]);
    await send(engine, [...swaps(m, p0, 6), ...swaps(m, p1, 3)]);
    await engine.checkpoint();
    // The pool past the consumers: its snapshot holds swaps whose trades they lack.
    await send(engine, swaps(m, p0, 6));
    expect(engine.pools.passivateIfIdle(p0, Number.POSITIVE_INFINITY)).toBe(true);
    // Swaps that waited for their pool's event: their trades are derived at that event's seq, not theirs.
    await send(engine, [...swaps(m, p2, 3), m.pool(p2)]);
    expect(engine.pools.passivateIfIdle(p2, Number.POSITIVE_INFINITY)).toBe(true);
    // One consumer past the pools: its snapshot holds trades the pool applies again.
    await send(engine, [...swaps(m, p0, 3), ...swaps(m, p1, 3)]);
    for (const kind of [tradeCounter.kind, swapTradeCounter.kind]) {
      expect(engine.hosts.find((h) => h.kind === kind)!.passivateIfIdle(m.wallets[0]!, Number.POSITIVE_INFINITY)).toBe(true);
    }
    await send(engine, [...swaps(m, p0, 4, 1), ...swaps(m, p1, 2)]);
    expectExact(engine, m, 30);
    await temp.crash(engine);

    engine = await temp.open({}, { actors });
    expectExact(engine, m, 30);
    // And live again after it.
    await send(engine, swaps(m, p0, 5));
    expectExact(engine, m, 35);
    await engine.stop();
    engine = await temp.open({}, { actors });
    expectExact(engine, m, 35);
  });

  it('rebuilds a consumer that throws from its snapshot and the recomputed trades since, the seq under way included', async () => {
    const m = market(3);
    const [p0, p1] = m.pools as [string, string];
    const engine = await temp.open({}, { actors });
    await send(engine, [m.quote(), m.token(), m.pool(p0), m.pool(p1)]);
    await send(engine, swaps(m, p0, 6));
    await engine.checkpoint();
    await send(engine, [...swaps(m, p0, 6), ...swaps(m, p1, 6)]);
    const thrown = throwOnce.thrown;
    // A consumer taking only derived events: rebuilt from its snapshot and the trades
    // derived since, recomputed from the log.
    throwOnce.kind = tradeCounter.kind;
    throwOnce.wallet = m.wallets[0]!;
    await send(engine, swaps(m, p1, 1));
    expect(throwOnce.thrown).toBe(thrown + 1);
    expectExact(engine, m, 19);
    // One that took the swap of the same seq before the trade that throws: that swap too.
    throwOnce.kind = swapTradeCounter.kind;
    throwOnce.wallet = m.wallets[1]!;
    await send(engine, swaps(m, p0, 2, 1));
    expect(throwOnce.thrown).toBe(thrown + 2);
    expectExact(engine, m, 21);
    expect(engine.gate.deadLetters, 'a throw retried after the rebuild is no poison').toBe(0);
  });
});

/**
 * A test emitter: one per wallet, takes `label` events and emits a token.holders for
 * each (its label as the token); throws once when armed. A test consumer, one per
 * "token", counts the token.holders it applies, by wallet.
 */
const emitterArm = { wallet: null as string | null };
const labelEmitter: ActorBehavior<{ labels: number }> = {
  kind: 'label-emitter',
  takes: ['label'],
  emits: ['token.holders'],
  route: (e) => (e.type === 'label' ? e.wallet_address : undefined),
  initial: () => ({ labels: 0 }),
  apply(state, e, ctx) {
    if (e.type !== 'label') return;
    state.labels++;
    ctx.emit(holdersOf(e.wallet_address, e.label, e.at));
    if (emitterArm.wallet === e.wallet_address) {
      emitterArm.wallet = null;
      throw new Error('label emitter: the armed throw');
    }
  },
  rederive(_state, e, ctx) {
    if (e.type === 'label') ctx.emit(holdersOf(e.wallet_address, e.label, e.at));
  },
};
const holdersOf = (wallet: string, token: string, at: number): TokenHoldersEvent => ({ type: 'token.holders', token_address: token, wallet_address: wallet, balance_raw: '1', balance: 1, slot: 1, at });
const holdersCounter: ActorBehavior<{ by: Record<string, number> }> = {
  kind: 'holders-counter',
  takes: ['token.holders', 'pool.graduated'],
  route: (e) => (e.type === 'token.holders' ? e.token_address : e.type === 'pool.graduated' ? e.pool_address : undefined),
  initial: () => ({ by: {} }),
  apply(state, e) {
    const key = e.type === 'token.holders' ? e.wallet_address : e.type === 'pool.graduated' ? `graduated:${e.migrated_to_pool_address}` : '';
    state.by[key] = (state.by[key] ?? 0) + 1;
  },
};

describe('derived events of other kinds', () => {
  it('an emitter that throws is rebuilt without delivering what it derived again; on restart it re-derives what its snapshot holds', async () => {
    const random = rng(9);
    const wallets = [base58(random, 44), base58(random, 44)];
    const labels = ['kol', 'whale'];
    let at = T0;
    const label = (wallet: string, name: string) => ({ type: 'label', wallet_address: wallet, label: name, action: 'add', at: (at += 1_000) });
    const events = (n: number) => Array.from({ length: n }, (_, i) => label(wallets[i % 2]!, labels[(i >> 1) % 2]!));
    const counts = (engine: Engine) => {
      const host = engine.hosts.find((h) => h.kind === holdersCounter.kind)!;
      return labels.map((l) => (host.get(l) as { by: Record<string, number> } | undefined)?.by ?? {});
    };
    const expected = (n: number) => labels.map((_, li) => {
      const by: Record<string, number> = {};
      for (let i = 0; i < n; i++) if ((i >> 1) % 2 === li) by[wallets[i % 2]!] = (by[wallets[i % 2]!] ?? 0) + 1;
      return by;
    });
    const all = events(40);
    let engine = await temp.open({}, { actors: [labelEmitter, holdersCounter] });
    await send(engine, all.slice(0, 10));
    await engine.checkpoint();
    await send(engine, all.slice(10, 16));
    emitterArm.wallet = wallets[0]!;
    await send(engine, all.slice(16, 20));
    expect(emitterArm.wallet, 'the emitter threw').toBeNull();
    expect(counts(engine)).toEqual(expected(20));
    // The emitter past the consumers, then the consumers past the emitter.
    await send(engine, all.slice(20, 26));
    const emitters = engine.hosts.find((h) => h.kind === labelEmitter.kind)!;
    for (const w of wallets) expect(emitters.passivateIfIdle(w, Number.POSITIVE_INFINITY)).toBe(true);
    await send(engine, all.slice(26, 32));
    const consumers = engine.hosts.find((h) => h.kind === holdersCounter.kind)!;
    expect(consumers.passivateIfIdle(labels[0]!, Number.POSITIVE_INFINITY)).toBe(true);
    await send(engine, all.slice(32, 40));
    expect(counts(engine)).toEqual(expected(40));
    await temp.crash(engine);
    engine = await temp.open({}, { actors: [labelEmitter, holdersCounter] });
    expect(counts(engine)).toEqual(expected(40));
    expect(engine.gate.deadLetters).toBe(0);
  });

  it('the token emits token.holders for a balance that becomes the current one; the pool emits pool.graduated at its curve\'s completion and its migration', async () => {
    const random = rng(11);
    const mint = base58(random, 44);
    const curve = base58(random, 44);
    const amm = base58(random, 44);
    const wallet = base58(random, 44);
    const engine = await temp.open({}, { actors: [holdersCounter] });
    const seen: DerivedEvent[] = [];
    engine.router.subscribe('token.holders', (e) => seen.push(e));
    engine.router.subscribe('pool.graduated', (e) => seen.push(e));
    let slot = 100;
    const balance = (raw: string, s: number) => ({ type: 'balance', token_address: mint, wallet_address: wallet, balance_raw: raw, slot: s, at: T0 + s });
    await send(engine, [
      { type: 'quote_price', quote_address: WSOL, price_usd: 150, at: T0 },
      { type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'G', name: 'Grad', slot: ++slot, at: T0 },
      { type: 'pool', pool_address: curve, base_address: mint, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, slot: ++slot, curve_initial_real_base_raw: '800000000000000' },
    ]);
    await send(engine, [balance('5000000', 200), balance('7000000', 210), balance('1000000', 205)]);
    // 205 came after 210: not the current balance.
    expect(seen.map((e) => (e as TokenHoldersEvent).balance_raw)).toEqual(['5000000', '7000000']);
    const swap = (real: string) => ({
      type: 'swap', tx_hash: base58(random, 88), slot: ++slot, tx_index: 0, event_index: 0, at: T0 + slot, pool_address: curve, wallet_address: wallet, side: 'buy',
      base_amount_raw: '1000000', quote_amount_raw: '1000000000', base_reserve_raw: '1000000000', quote_reserve_raw: '1000000000', real_base_reserve_raw: real, real_quote_reserve_raw: '85000000000',
    });
    await send(engine, [swap('1000000'), swap('0'), swap('0')]);
    await send(engine, [
      { type: 'pool', pool_address: amm, base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0 + 1_000, slot: ++slot, migrated_from_pool_address: curve },
      { type: 'migration', token_address: mint, from_pool_address: curve, to_pool_address: amm, slot: ++slot, at: T0 + 2_000 },
    ]);
    expect(seen.slice(2)).toEqual([
      { type: 'pool.graduated', pool_address: curve, token_address: mint, migrated_to_pool_address: null, at: expect.any(Number) },
      { type: 'pool.graduated', pool_address: curve, token_address: mint, migrated_to_pool_address: amm, at: T0 + 2_000 },
    ]);
    const counter = engine.hosts.find((h) => h.kind === holdersCounter.kind)!;
    expect((counter.get(mint) as { by: Record<string, number> }).by).toEqual({ [wallet]: 2 });
    expect((counter.get(curve) as { by: Record<string, number> }).by).toEqual({ 'graduated:null': 1, [`graduated:${amm}`]: 1 });
  });
});
