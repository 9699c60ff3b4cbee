import { USDC, WSOL } from '../../engine/model/index.ts';
import { describe, expect, it } from 'vitest';
import { EVENT_SCHEMAS, identityOf, timeOf, type IngestEvent, type PoolEvent, type SwapEvent } from '../../engine/ingest/events.ts';
import { decodeBase58 } from '../../engine/sources/sim/base58.ts';
import { PUMP_INITIAL_REAL_BASE_RAW, PUMP_INITIAL_VIRTUAL_BASE_RAW, PUMP_INITIAL_VIRTUAL_QUOTE_RAW, PUMP_MIGRATION_BASE_RAW } from '../../engine/sources/sim/curve.ts';
import { simulate, SLOT_MS, type SimOptions } from '../../engine/sources/sim/index.ts';

/** Checks inside loops over ~100k events: vitest's expect is too slow there. */
function check(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

/** The events of the first `durationMs` of a simulation. */
function take(options: SimOptions, durationMs: number): IngestEvent[] {
  const events: IngestEvent[] = [];
  for (const event of simulate(options)) {
    if (timeOf(event) >= options.startAt + durationMs) break;
    events.push(event);
  }
  return events;
}

const START = 1_767_225_600_000;
/** `SEED=n npx vitest run test/sim` replays another seed (STYLE.md, test layer 4). */
const OPTIONS: SimOptions = { seed: Number(process.env.SEED ?? 2024), startAt: START };
// 20 simulated minutes at the default rates: ~100k events.
const EVENTS = take(OPTIONS, 20 * 60_000);
const swaps = EVENTS.filter((e): e is SwapEvent => e.type === 'swap');

describe('simulated stream: contract', () => {
  it('emits only events that pass EVENT_SCHEMAS, of every type', () => {
    const failures: string[] = [];
    for (const event of EVENTS) {
      const result = EVENT_SCHEMAS[event.type].safeParse(event);
      if (!result.success && failures.length < 5) failures.push(`${JSON.stringify(event)}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(EVENTS.length).toBeGreaterThan(50_000);
    expect(new Set(EVENTS.map((e) => e.type))).toEqual(new Set(Object.keys(EVENT_SCHEMAS)));
  });

  it('is in non-decreasing time order, starting at startAt', () => {
    expect(timeOf(EVENTS[0]!)).toBe(START);
    for (let i = 1; i < EVENTS.length; i++) {
      if (timeOf(EVENTS[i]!) < timeOf(EVENTS[i - 1]!)) throw new Error(`event ${i} goes back in time`);
    }
  });

  it('never repeats an identity', () => {
    const seen = new Set<string>();
    for (const event of EVENTS) {
      const identity = identityOf(event);
      if (seen.has(identity)) throw new Error(`duplicate identity ${identity}`);
      seen.add(identity);
    }
  });

  it('advances 2.5 slots per second, every event of a slot at its block time', () => {
    const withSlot = EVENTS.filter((e) => 'slot' in e) as Array<IngestEvent & { slot: number }>;
    const slot0 = withSlot[0]!.slot;
    for (const event of withSlot) check(timeOf(event) === START + (event.slot - slot0) * SLOT_MS, () => `slot ${event.slot} at ${timeOf(event)}`);
    const last = withSlot[withSlot.length - 1]!;
    expect((last.slot - slot0) / ((timeOf(last) - START) / 1000)).toBeCloseTo(2.5, 5);
  });

  it('orders positions within a slot; one transaction shares tx_hash, slot and tx_index', () => {
    const txOf = new Map<string, string>();
    const hashAt = new Map<string, string>();
    let slot = -1;
    let lastTx = -1;
    let lastEvent = -1;
    let multiHop = 0;
    for (const swap of swaps) {
      if (swap.slot !== slot) {
        slot = swap.slot;
        lastTx = -1;
        lastEvent = -1;
      }
      const increasing = swap.tx_index > lastTx || (swap.tx_index === lastTx && swap.event_index > lastEvent);
      if (!increasing) throw new Error(`position (${swap.tx_index}, ${swap.event_index}) not after (${lastTx}, ${lastEvent}) in slot ${slot}`);
      lastTx = swap.tx_index;
      lastEvent = swap.event_index;
      const position = `${swap.slot}/${swap.tx_index}`;
      check((txOf.get(swap.tx_hash) ?? position) === position, () => `${swap.tx_hash} at two positions`);
      txOf.set(swap.tx_hash, position);
      check((hashAt.get(position) ?? swap.tx_hash) === swap.tx_hash, () => `two transactions at ${position}`);
      hashAt.set(position, swap.tx_hash);
      if (swap.event_index > 0) multiHop++;
    }
    expect(multiHop).toBeGreaterThan(0);
  });

  it('uses 32-byte addresses and 64-byte signatures', () => {
    const checked = new Set<string>([WSOL, USDC]);
    const checkAddress = (address: string | null | undefined, bytes: number): void => {
      if (address == null || checked.has(address)) return;
      checked.add(address);
      const decoded = decodeBase58(address);
      if (decoded.length !== bytes) throw new Error(`${address} decodes to ${decoded.length} bytes`);
    };
    let n = 0;
    for (const e of EVENTS) {
      switch (e.type) {
        case 'swap':
          check(e.tx_hash.length === 87 || e.tx_hash.length === 88, () => `signature length ${e.tx_hash.length}`);
          // Decoding is slow; every signature is made the same way, so a sample will do.
          if (n++ % 25 === 0) checkAddress(e.tx_hash, 64);
          checkAddress(e.pool_address, 32);
          checkAddress(e.wallet_address, 32);
          break;
        case 'pool':
          checkAddress(e.pool_address, 32);
          checkAddress(e.base_address, 32);
          checkAddress(e.quote_address, 32);
          checkAddress(e.migrated_from_pool_address, 32);
          break;
        case 'balance':
          checkAddress(e.token_address, 32);
          checkAddress(e.wallet_address, 32);
          break;
        case 'token':
          checkAddress(e.token_address, 32);
          checkAddress(e.creator_address, 32);
          checkAddress(e.mint_authority, 32);
          break;
        case 'label':
          checkAddress(e.wallet_address, 32);
          break;
        default:
          break;
      }
    }
    expect(checked.size).toBeGreaterThan(1_000);
  });
});

interface Reserves {
  base: bigint;
  quote: bigint;
  realBase: bigint;
  realQuote: bigint;
}

describe('simulated stream: reserves and balances', () => {
  it('moves every pool by its swaps exactly, by the curve math on bonding curves', () => {
    const pools = new Map<string, PoolEvent>();
    const state = new Map<string, Reserves>();
    const migratedFrom = new Map<string, string>();
    let checkedCurve = 0;
    let checkedMigrated = 0;
    for (const e of EVENTS) {
      if (e.type === 'pool') pools.set(e.pool_address, e);
      if (e.type === 'migration') {
        expect(pools.get(e.to_pool_address)?.migrated_from_pool_address).toBe(e.from_pool_address);
        expect(state.get(e.from_pool_address)?.realBase).toBe(0n);
        migratedFrom.set(e.to_pool_address, e.from_pool_address);
      }
      if (e.type !== 'swap') continue;
      const pool = pools.get(e.pool_address);
      check(pool !== undefined, () => `swap before the pool event of ${e.pool_address}`);
      const curve = pool!.pool_type === 'bonding_curve';
      const base = BigInt(e.base_amount_raw);
      const quote = BigInt(e.quote_amount_raw);
      const after: Reserves = {
        base: BigInt(e.base_reserve_raw),
        quote: BigInt(e.quote_reserve_raw),
        realBase: BigInt(e.real_base_reserve_raw ?? '0'),
        realQuote: BigInt(e.real_quote_reserve_raw ?? '0'),
      };
      const sign = e.side === 'buy' ? 1n : -1n;
      let before = state.get(e.pool_address);
      if (before === undefined && curve) {
        before = { base: PUMP_INITIAL_VIRTUAL_BASE_RAW, quote: PUMP_INITIAL_VIRTUAL_QUOTE_RAW, realBase: PUMP_INITIAL_REAL_BASE_RAW, realQuote: 0n };
      } else if (before === undefined && migratedFrom.has(e.pool_address)) {
        before = { base: PUMP_MIGRATION_BASE_RAW, quote: state.get(migratedFrom.get(e.pool_address)!)!.realQuote, realBase: 0n, realQuote: 0n };
        checkedMigrated++;
      }
      const where = (): string => `${e.tx_hash}/${e.event_index} on ${pool!.dex}`;
      if (before !== undefined) {
        check(after.base === before.base - sign * base, where);
        check(after.quote === before.quote + sign * quote, where);
        check(after.base * after.quote >= before.base * before.quote, () => `k fell at ${where()}`);
      }
      if (curve) {
        check(after.realBase === before!.realBase - sign * base, where);
        check(after.realQuote === before!.realQuote + sign * quote, where);
        const k = before!.base * before!.quote;
        if (e.side === 'sell') check(quote === (base * before!.quote) / (before!.base + base), () => `sell price at ${where()}`);
        else if (after.realBase > 0n) check(base === before!.base - (k / (before!.quote + quote) + 1n), () => `buy price at ${where()}`);
        else check(base === before!.realBase, () => `completing buy at ${where()}`);
        checkedCurve++;
      }
      state.set(e.pool_address, after);
    }
    expect(checkedCurve).toBeGreaterThan(1_000);
    expect(checkedMigrated).toBeGreaterThan(0);
  });

  it('emits the balances swaps imply: never negative, no tokens from nowhere', () => {
    const pools = new Map<string, PoolEvent>();
    const balances = new Map<string, bigint>();
    let slot = -1;
    let swapDelta = new Map<string, bigint>();
    let slotBalances = new Map<string, bigint>();
    let checked = 0;
    const settle = (): void => {
      for (const [key, delta] of swapDelta) {
        const before = balances.get(key) ?? 0n;
        const after = slotBalances.get(key);
        if (after === undefined) check(delta === 0n, () => `${key} traded ${delta} without a balance event`);
        else check(after - before === delta, () => `${key}: balance moved ${after - before}, swaps ${delta}`);
        checked++;
      }
      // Balances without a swap: transfers (net zero) and deposits into pools (negative);
      // only the first slot seeds holdings.
      const loose = new Map<string, bigint>();
      for (const [key, after] of slotBalances) {
        if (swapDelta.has(key)) continue;
        const token = key.slice(0, key.indexOf('|'));
        loose.set(token, (loose.get(token) ?? 0n) + after - (balances.get(key) ?? 0n));
      }
      if (checked > 0) for (const [token, net] of loose) check(net <= 0n, () => `${net} of ${token} appeared in slot ${slot}`);
      for (const [key, after] of slotBalances) balances.set(key, after);
      swapDelta = new Map();
      slotBalances = new Map();
    };
    const add = (key: string, delta: bigint): void => {
      swapDelta.set(key, (swapDelta.get(key) ?? 0n) + delta);
    };
    for (const e of EVENTS) {
      if (!('slot' in e)) continue;
      if (e.slot !== slot) {
        settle();
        slot = e.slot;
      }
      if (e.type === 'pool') pools.set(e.pool_address, e);
      if (e.type === 'balance') {
        const value = BigInt(e.balance_raw);
        check(value >= 0n, () => `negative balance ${e.balance_raw}`);
        slotBalances.set(`${e.token_address}|${e.wallet_address}`, value);
      }
      if (e.type === 'swap') {
        const pool = pools.get(e.pool_address)!;
        const sign = e.side === 'buy' ? 1n : -1n;
        add(`${pool.base_address}|${e.wallet_address}`, sign * BigInt(e.base_amount_raw));
        if (pool.quote_address !== WSOL && pool.quote_address !== USDC) add(`${pool.quote_address}|${e.wallet_address}`, -sign * BigInt(e.quote_amount_raw));
        if (e.side === 'sell') {
          // A seller held at least what it sold before the slot began or bought in it.
          const key = `${pool.base_address}|${e.wallet_address}`;
          check((balances.get(key) ?? 0n) + (swapDelta.get(key) ?? 0n) >= 0n, () => `${key} sold more than it held`);
        }
      }
    }
    settle();
    expect(checked).toBeGreaterThan(10_000);
  });
});

describe('simulated stream: determinism', () => {
  it('gives identical output for identical seeds and different output for different seeds', () => {
    const first = (seed: number): string => {
      const out: string[] = [];
      for (const event of simulate({ seed, startAt: START })) {
        out.push(JSON.stringify(event));
        if (out.length === 20_000) break;
      }
      return out.join('\n');
    };
    const a = first(7);
    expect(first(7)).toBe(a);
    expect(first(8)).not.toBe(a);
  });
});
