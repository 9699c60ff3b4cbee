import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { SolanaDecoder } from '../../../engine/sources/solana/decode.ts';
import {
  AMM_BUY_EVENT, AMM_SELL_EVENT, CREATE_EVENT, CREATE_POOL_EVENT, EVENT_IX_TAG, MIGRATION_EVENT, TRADE_EVENT, decodeEvent, type Layout, type RawEvent,
} from '../../../engine/sources/solana/layouts.ts';
import { encodeEvent, readFixture } from '../../helpers/solana.ts';

/**
 * The prefix reader's properties (fast-check): any truncation of an event never throws
 * and gives the whole fields before the cut; bytes after the last known field are
 * ignored; and in a transaction, the log path and the self-CPI path read a truncated
 * event alike (the same events, or the same reject).
 */

interface Vector {
  test: string;
  kind: string;
  hex: string;
}
const VECTORS = (readFixture('pinax/vectors.json') as Vector[]).filter((v) => v.kind === 'selfcpi_event');
/** The 16 event bytes of pinax: self-CPI data (tag + discriminator + fields). */
const EVENTS = VECTORS.map((v) => ({ name: v.test, bytes: Buffer.from(v.hex, 'hex') }));
const program = (b: Uint8Array) => (decodeEvent('pump', b, 8) ? 'pump' : 'amm');

const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bs58.encode(b));
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
function arbitraryValues(layout: Layout) {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, type] of layout.fields) {
    parts[name] = { pubkey: key, u64, i64, u16: fc.integer({ min: 0, max: 65535 }), u8: fc.integer({ min: 0, max: 255 }), bool: fc.boolean(), string: fc.string({ maxLength: 40 }), shareholders: fc.constant([]) }[type];
  }
  return fc.record(parts) as fc.Arbitrary<Record<string, string | bigint | number | boolean>>;
}

describe('event layouts, read as a prefix', () => {
  it('decodes the pinax vectors of every layout generation (TradeEvent of 8, 10, 16 and 21 fields; CreateEvent; PumpSwap buy, sell, create-pool)', () => {
    const read = EVENTS.map(({ name, bytes }) => [name, decodeEvent(program(bytes), bytes, 8)] as const);
    const summary = Object.fromEntries(read.map(([name, raw]) => [name, raw && `${raw.name}/${raw.fields}/${raw.trailing_bytes}/${raw.cut}`]));
    expect(summary).toEqual({
      anchor_self_cpi_trade_v0: 'pump.TradeEvent/8/0/false',
      anchor_self_cpi_trade_v1: 'pump.TradeEvent/10/0/false',
      anchor_self_cpi_trade_v2: 'pump.TradeEvent/16/0/false',
      anchor_self_cpi_create: 'pump.CreateEvent/12/0/false',
      anchor_self_cpi_trade_v3_sell: 'pump.TradeEvent/21/0/false',
      anchor_self_cpi_trade_v3_buy: 'pump.TradeEvent/21/0/false',
      unpack_sell_event_v2: 'pump_amm.SellEvent/23/0/false',
      unpack_buy_event_v2: 'pump_amm.BuyEvent/23/0/false',
      // 325 bytes of fields: up to coin_creator, before is_mayhem_mode was added.
      unpack_create_pool_v2_event: 'pump_amm.CreatePoolEvent/20/0/false',
    });
    // The create-pool event's mints, decimals and amounts are where SOLANA.md puts them: a pool
    // with wSOL as its base (9 decimals, 170 SOL) and a pump token (6 decimals, the 1e15 supply) as quote.
    const pool = read.find(([name]) => name === 'unpack_create_pool_v2_event')![1]!.data;
    expect([pool.base_mint, pool.base_mint_decimals, pool.quote_mint_decimals, pool.base_amount_in, pool.quote_amount_in]).toEqual([
      'So11111111111111111111111111111111111111112', 9, 6, 170_000_000_000n, 1_000_000_000_000_000n,
    ]);
    expect(String(pool.quote_mint)).toMatch(/pump$/);
  });

  it('any truncation never throws and yields the whole fields before the cut, in order, with their values', () => {
    fc.assert(
      fc.property(fc.constantFrom(...EVENTS), fc.nat(), ({ bytes }, n) => {
        const full = decodeEvent(program(bytes), bytes, 8)!;
        const cut = bytes.subarray(0, 8 + (n % (bytes.length - 7)));
        const raw = decodeEvent(program(bytes), cut, 8);
        if (cut.length < 16) {
          expect(raw).toBeNull();
          return;
        }
        const names = Object.keys(raw!.data);
        expect(names).toEqual(Object.keys(full.data).slice(0, names.length));
        for (const name of names) expect(raw!.data[name]).toEqual(full.data[name]);
        expect(raw!.fields).toBe(names.length);
        expect(raw!.len).toBe(cut.length - 8);
      }),
    );
  });

  it('bytes after the last field a layout knows are ignored and counted as trailing', () => {
    for (const layout of [TRADE_EVENT, CREATE_EVENT, MIGRATION_EVENT, AMM_BUY_EVENT, AMM_SELL_EVENT, CREATE_POOL_EVENT]) {
      fc.assert(
        fc.property(arbitraryValues(layout), fc.uint8Array({ maxLength: 200 }), (values, extra) => {
          const bytes = Buffer.concat([encodeEvent(layout, values), extra]);
          const raw = decodeEvent(layout.name.startsWith('pump.') ? 'pump' : 'amm', bytes, 0)!;
          expect(raw.fields).toBe(layout.fields.length);
          expect(raw.trailing_bytes).toBe(extra.length);
          for (const [name, type] of layout.fields) {
            const expected = type === 'u64' || type === 'i64' ? BigInt(values[name] as bigint) : values[name];
            expect(raw.data[name], name).toEqual(type === 'shareholders' ? [] : expected);
          }
        }),
        { numRuns: 50 },
      );
    }
  });
});

describe('a truncated event in a transaction', () => {
  // A real buy (json encoding): its self-CPI event and its Program data line, both replaced.
  const base = (readFixture('jeffro/pumpfun_buy_0.json') as any[])[0];
  const original = Buffer.from(bs58.decode(base.meta.innerInstructions.flatMap((g: any) => g.instructions).find((i: any) => i.accounts.length === 1 && base.transaction.message.accountKeys[i.programIdIndex] === '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P').data)).subarray(8);

  function withEvent(event: Buffer) {
    const tx = structuredClone(base);
    for (const g of tx.meta.innerInstructions) {
      for (const i of g.instructions) {
        if (i.accounts.length === 1 && tx.transaction.message.accountKeys[i.programIdIndex] === '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P') {
          i.data = bs58.encode(Buffer.concat([Buffer.from(EVENT_IX_TAG, 'hex'), event]));
        }
      }
    }
    tx.meta.logMessages = tx.meta.logMessages.map((l: string) => (l.startsWith('Program data: ') ? `Program data: ${event.toString('base64')}` : l));
    return tx;
  }

  it('never throws; the swap with the fields present, or a reject naming what is missing; both paths alike', () => {
    expect(decodeEvent('pump', original, 0)!.name).toBe('pump.TradeEvent');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: original.length }), fc.uint8Array({ maxLength: 40 }), (n, extra) => {
        // A cut event, or the whole event with bytes a later version appended.
        const event = n < original.length ? original.subarray(0, n) : Buffer.concat([original, extra]);
        const tx = withEvent(event);
        const viaSelfCpi = [...new SolanaDecoder().decodeValue(tx, 'auto', {}, { path: 'self-cpi' })][0]!;
        const viaLogs = [...new SolanaDecoder().decodeValue(tx, 'auto', {}, { path: 'logs' })][0]!;
        expect(viaLogs.events).toEqual(viaSelfCpi.events);
        const swaps = viaSelfCpi.events.filter((e) => e.type === 'swap');
        const raw: RawEvent | undefined = viaSelfCpi.found[0]?.raw;
        if (n < 8) {
          // No discriminator: nothing to read; the self-CPI path says so.
          expect(swaps).toEqual([]);
          expect(viaSelfCpi.rejects[0]!.reason).toMatch(/too few for its tag and discriminator/);
        } else if (raw!.fields < 8) {
          expect(swaps).toEqual([]);
          expect(viaSelfCpi.rejects).toEqual([{ reason: `pump.TradeEvent of ${event.length} bytes lacks virtual reserves`, event: 'pump.TradeEvent' }]);
          expect(viaLogs.rejects).toEqual(viaSelfCpi.rejects);
        } else {
          expect(swaps).toHaveLength(1);
          expect(swaps[0]!.base_amount_raw).toBe('56716561396327');
          expect('real_base_reserve_raw' in swaps[0]!).toBe(raw!.fields >= 10);
        }
      }),
      { numRuns: 200 },
    );
  });
});
