import { describe, expect, it } from 'vitest';
import type { Signal, StoredTrade } from '../../engine/model/index.ts';
import type { Engine } from '../../engine/system.ts';
import { openStorage } from '../../storage/lmdb.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, WSOL } from '../helpers/fixtures.ts';
import { countsOf, storedTradesByWallet, tradeCounter } from '../helpers/trade-counter.ts';

/**
 * A token's signals whose snapshot is older than its pool's (signals-crash.test.ts's
 * flake, made deterministic): on start-up replay the pool derives the trades its
 * snapshot holds again from its stored trades (ActorBehavior.rederive), and the
 * signals must see each curve's progress as of that trade, not the pool's progress
 * now. The signals store after the crash and what follows it must equal a run
 * without a crash: no almost_bonded at another trade, none again inside the cooldown.
 */

const temp = useTempEngine('mds-signals-rederive-');
const T0 = 1_767_225_600_000;
const MIN = 60_000;
const INITIAL = 793_100_000_000_000;
const QUIET = { actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } };

function curveMarket(seed: number) {
  const random = rng(seed);
  const mint = base58(random, 44);
  const pool = base58(random, 44);
  const wallet = base58(random, 44);
  let slot = 1_000;
  return {
    mint,
    pool,
    wallet,
    setup: [
      { type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'BND', name: 'Bonding', slot: ++slot, at: T0 },
      { type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpfun', pool_type: 'bonding_curve', created_at: T0, slot: ++slot, curve_initial_real_base_raw: String(INITIAL) },
    ],
    /** A trade leaving the curve at `progress` %, `minutes` after T0. */
    swap: (side: 'buy' | 'sell', minutes: number, progress: number) => ({
      type: 'swap', tx_hash: base58(random, 88), slot: ++slot, tx_index: 0, event_index: 0, at: T0 + minutes * MIN, pool_address: pool, wallet_address: wallet, side,
      base_amount_raw: '1000000000000', quote_amount_raw: '1000000000', base_reserve_raw: '1000000000000000', quote_reserve_raw: '1000000000000',
      real_base_reserve_raw: String(Math.round(INITIAL * (1 - progress / 100))), real_quote_reserve_raw: '1000000000',
    }),
  };
}

type Market = ReturnType<typeof curveMarket>;

async function send(engine: Engine, events: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  for (const e of events) expect((await engine.ingest(e)).status, JSON.stringify(e)).toBe('applied');
}

const signalsOf = (engine: Engine): Signal[] => [...engine.signals!.all()].sort((a, b) => (a.signal_id < b.signal_id ? -1 : 1));

/**
 * Two curves of two tokens. A: 50 %, 65 %, 75 % (fires at 75 %), then 72 %. B: 50 %,
 * 75 % (fires), 65 %, then 72 % inside the hour (the cooldown: nothing). `crash`: each
 * token's signals are snapshotted after its 50 % trade and each pool after its third
 * trade, then the engine crashes and restarts before the last trades; `oldFormat`: the
 * pools' stored trades are written again before the restart as trades were stored
 * before StoredTrade.curvePct (12 values).
 */
async function run(a: Market, b: Market, options: { crash: boolean; wallets: boolean; oldFormat?: boolean }): Promise<{ signals: Signal[]; counted: Map<string, number>; stored: Map<string, number>; tradeLengths: number[] }> {
  const { crash, wallets } = options;
  const signalsKind = wallets ? 'token-traders' : 'token-signals';
  const data = `${temp.dir.path}/${crash ? 'crash' : 'reference'}-${wallets}-${options.oldFormat === true}`;
  let engine = await temp.open({ ...QUIET, data }, { wallets, actors: [tradeCounter] });
  await send(engine, [{ type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 }, ...a.setup, ...b.setup, a.swap('buy', 1, 50), b.swap('buy', 1, 50)]);
  if (crash) {
    const host = engine.hosts.find((h) => h.kind === signalsKind)!;
    for (const token of [a.mint, b.mint]) expect(host.passivateIfIdle(token, Number.POSITIVE_INFINITY), token).toBe(true);
  }
  await send(engine, [a.swap('buy', 2, 65), b.swap('buy', 2, 75), a.swap('buy', 3, 75), b.swap('sell', 3, 65)]);
  if (crash) {
    for (const pool of [a.pool, b.pool]) expect(engine.pools.passivateIfIdle(pool, Number.POSITIVE_INFINITY), pool).toBe(true);
    await temp.crash(engine);
    if (options.oldFormat) await toOldFormat(data, [a.pool, b.pool]);
    engine = await temp.open({ ...QUIET, data }, { wallets, actors: [tradeCounter] });
  }
  const tradeLengths = [a.pool, b.pool].flatMap((pool) => [...engine.trades.read(pool, { order: 'asc', minAt: 0, maxAt: Number.MAX_SAFE_INTEGER })].map((t) => t.length));
  await send(engine, [a.swap('buy', 10, 72), b.swap('buy', 10, 72)]);
  const out = { signals: signalsOf(engine), counted: countsOf(engine, tradeCounter.kind, [a.wallet, b.wallet]), stored: storedTradesByWallet(engine, [a.pool, b.pool]), tradeLengths };
  await engine.stop();
  return out;
}

/** Writes the pools' stored trades again without their 13th value, as msgpackr wrote blocks before TradeLog and curvePct. */
async function toOldFormat(data: string, pools: string[]): Promise<void> {
  const storage = openStorage(data);
  try {
    for (const pool of pools) {
      for (const { key, value } of storage.trades.getRange({ start: [pool], end: [`${pool}\u0000`] })) {
        await storage.trades.put(key, (value as StoredTrade[]).map((t) => t.slice(0, 12)));
      }
    }
  } finally {
    await storage.close();
  }
}

describe('signals of trades derived again on start-up replay', () => {
  for (const wallets of [true, false]) {
    it(`the same almost_bonded signals after a crash with the signals' snapshot before the crossing and the pool's after it (wallet accounting ${wallets ? 'on' : 'off'})`, async () => {
      const a = curveMarket(1);
      const b = curveMarket(2);
      const reference = await run(a, b, { crash: false, wallets });
      const bonded = reference.signals.filter((s) => s.kind === 'almost_bonded');
      expect(bonded.map((s) => s.token_address).sort()).toEqual([a.mint, b.mint].sort());
      for (const s of bonded) expect(s.detail.bonding_curve_progress_pct).toBeCloseTo(75, 6);
      const crashed = await run(curveMarket(1), curveMarket(2), { crash: true, wallets });
      expect(crashed.signals).toEqual(reference.signals);
      // The pools' trades were derived again from the store (with curvePct), each once.
      expect(crashed.tradeLengths).toEqual([13, 13, 13, 13, 13, 13]);
      expect(crashed.counted).toEqual(crashed.stored);
    });
  }

  it('derives again the curve trades stored before curvePct (12 values), reading the pool as it stands instead', async () => {
    const a = curveMarket(1);
    const b = curveMarket(2);
    const reference = await run(a, b, { crash: false, wallets: true });
    const crashed = await run(curveMarket(1), curveMarket(2), { crash: true, wallets: true, oldFormat: true });
    expect(crashed.tradeLengths).toEqual([12, 12, 12, 12, 12, 12]);
    // Each trade derived again once from the old values, and later trades stored with curvePct beside them.
    expect(crashed.counted).toEqual(crashed.stored);
    expect([...crashed.stored.values()].reduce((x, y) => x + y, 0)).toBe(8);
    // Every signal of the run without a crash (the store kept them); a trade derived again from an old value reads the pool now, past it (as before curvePct).
    const got = new Set(crashed.signals.map((s) => s.signal_id));
    for (const s of reference.signals) expect(got.has(s.signal_id), s.signal_id).toBe(true);
  });
});
