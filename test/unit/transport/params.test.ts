import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EngineError } from '../../../engine/errors.ts';
import { validate } from '../../../transport/http/request.ts';
import {
  address,
  addressList,
  cursor,
  decimal,
  endNotBeforeStart,
  endTime,
  flag,
  integer,
  limit,
  oneOf,
  order,
  startTime,
} from '../../../transport/http/params.ts';

const A = 'So11111111111111111111111111111111111111112';
const B = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const C = '11111111111111111111111111111111';

/** The message a query gets through the dispatcher's `validate`, or the parsed value. */
function run<S extends z.ZodObject>(schema: S, query: Record<string, string>): z.output<S> | string {
  try {
    return validate(schema.strict(), query, 'query') as z.output<S>;
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe(4000);
    return (err as EngineError).message;
  }
}

describe('address', () => {
  const schema = z.object({ token_address: address });

  it('takes base58 of 32 to 44 characters', () => {
    for (const value of [A, B, C]) expect(run(schema, { token_address: value })).toEqual({ token_address: value });
  });

  it('rejects anything else, naming the parameter', () => {
    for (const value of ['', 'abc', `${B}x`, A.replace('S', '0'), A.replace('S', 'O'), A.replace('S', 'I'), A.replace('o', 'l'), ` ${A}`]) {
      expect(run(schema, { token_address: value })).toBe('token_address: not a base58 address of 32 to 44 characters');
    }
    expect(run(schema, {})).toBe('token_address: required');
  });
});

describe('addressList', () => {
  const schema = z.object({ addresses: addressList(3) });

  it('splits a comma list', () => {
    expect(run(schema, { addresses: A })).toEqual({ addresses: [A] });
    expect(run(schema, { addresses: `${A},${B},${C}` })).toEqual({ addresses: [A, B, C] });
  });

  it('rejects empty lists and items, spaces, bad items, too many and repeats', () => {
    expect(run(schema, { addresses: '' })).toBe('addresses: must list 1 to 3 comma-separated addresses');
    expect(run(schema, { addresses: `${A},` })).toBe('addresses: item 2 is empty');
    expect(run(schema, { addresses: `${A},,${B}` })).toBe('addresses: item 2 is empty');
    expect(run(schema, { addresses: `${A}, ${B}` })).toBe('addresses: item 2 is not a base58 address of 32 to 44 characters');
    expect(run(schema, { addresses: `${A},${B},${C},${A}` })).toBe('addresses: at most 3 addresses, got 4');
    expect(run(schema, { addresses: `${A},${B},${A}` })).toBe(`addresses: item 3 repeats ${A}`);
    expect(run(schema, {})).toBe('addresses: required');
  });
});

describe('limit', () => {
  const schema = z.object({ limit: limit(20, 100) });

  it('defaults when absent, takes 1..max', () => {
    expect(run(schema, {})).toEqual({ limit: 20 });
    expect(run(schema, { limit: '1' })).toEqual({ limit: 1 });
    expect(run(schema, { limit: '100' })).toEqual({ limit: 100 });
  });

  it('is a 400 naming limit outside the range', () => {
    expect(run(schema, { limit: '101' })).toBe('limit: must be an integer from 1 to 100');
    expect(run(schema, { limit: '0' })).toBe('limit: must be an integer from 1 to 100');
    expect(run(schema, { limit: '99999999999999999999' })).toBe('limit: must be an integer from 1 to 100 in plain digits');
  });

  it('takes plain digits only', () => {
    for (const value of ['', '10abc', '1e3', '1e1', '0x10', '-1', '+5', '5.0', '5.', ' 5', '5 ', '007', '01', 'Infinity', 'NaN', '١٠']) {
      expect(run(schema, { limit: value })).toBe('limit: must be an integer from 1 to 100 in plain digits');
    }
  });
});

describe('integer and decimal', () => {
  it('integer takes 0 where in range', () => {
    const schema = z.object({ min_trade_count: integer(0, 1_000_000).optional() });
    expect(run(schema, { min_trade_count: '0' })).toEqual({ min_trade_count: 0 });
    expect(run(schema, {})).toEqual({});
  });

  it('decimal takes signs and fractions, not exponents or trailing text', () => {
    const schema = z.object({ min_volume_usd: decimal(0) });
    expect(run(schema, { min_volume_usd: '12.5' })).toEqual({ min_volume_usd: 12.5 });
    expect(run(schema, { min_volume_usd: '0' })).toEqual({ min_volume_usd: 0 });
    for (const value of ['1e3', '12.5usd', '.5', '5.', '00.5', '', 'Infinity', '0x1']) {
      expect(run(schema, { min_volume_usd: value })).toBe('min_volume_usd: must be a decimal number such as 12.5');
    }
    expect(run(schema, { min_volume_usd: '-1' })).toMatch(/^min_volume_usd: must be from 0 to /);
    expect(run(z.object({ pnl: decimal() }), { pnl: '-3.25' })).toEqual({ pnl: -3.25 });
    expect(run(z.object({ pnl: decimal() }), { pnl: '9'.repeat(400) })).toBe('pnl: must be a decimal number such as 12.5');
  });
});

describe('cursor', () => {
  const schema = z.object({ cursor });

  it('is optional, 1..2048 characters', () => {
    expect(run(schema, {})).toEqual({});
    expect(run(schema, { cursor: 'abc' })).toEqual({ cursor: 'abc' });
    expect(run(schema, { cursor: '' })).toBe('cursor: must not be empty');
    expect(run(schema, { cursor: 'a'.repeat(2049) })).toBe('cursor: longer than 2048 characters');
  });
});

describe('start_time and end_time', () => {
  const schema = z.object({ start_time: startTime, end_time: endTime }).superRefine(endNotBeforeStart);

  it('take Unix ms in plain digits', () => {
    expect(run(schema, { start_time: '1767225600000' })).toEqual({ start_time: 1_767_225_600_000 });
    expect(run(schema, { start_time: '0', end_time: '0' })).toEqual({ start_time: 0, end_time: 0 });
    expect(run(schema, { start_time: '1767225600000.5' })).toMatch(/^start_time: must be an integer from 0 to /);
    expect(run(schema, { start_time: '2026-01-01' })).toMatch(/^start_time: must be an integer/);
    expect(run(schema, { end_time: '8640000000000001' })).toMatch(/^end_time: must be an integer from 0 to 8640000000000000$/);
  });

  it('end_time before start_time is a 400 naming end_time', () => {
    expect(run(schema, { start_time: '2000', end_time: '1000' })).toBe('end_time: must not be before start_time');
    expect(run(schema, { start_time: '1000', end_time: '1000' })).toEqual({ start_time: 1000, end_time: 1000 });
  });

  it('unknown parameters are still rejected through defineRoute-style strict()', () => {
    expect(run(schema, { start: '1' })).toBe('unknown parameter: start');
  });
});

describe('enums', () => {
  it('order defaults and lists its values', () => {
    const schema = z.object({ order: order('desc') });
    expect(run(schema, {})).toEqual({ order: 'desc' });
    expect(run(schema, { order: 'asc' })).toEqual({ order: 'asc' });
    expect(run(schema, { order: 'ASC' })).toBe('order: must be asc or desc');
  });

  it('oneOf names every value', () => {
    const schema = z.object({ window: oneOf(['5m', '1h', '6h', '24h']).optional(), match: oneOf(['smart', 'exact', 'prefix']) });
    expect(run(schema, { match: 'exact' })).toEqual({ match: 'exact' });
    expect(run(schema, { match: 'exact', window: '1d' })).toBe('window: must be 5m, 1h, 6h or 24h');
    expect(run(schema, {})).toBe('match: required');
  });

  it('flag takes true or false only', () => {
    const schema = z.object({ include_bots: flag(false) });
    expect(run(schema, {})).toEqual({ include_bots: false });
    expect(run(schema, { include_bots: 'true' })).toEqual({ include_bots: true });
    expect(run(schema, { include_bots: 'false' })).toEqual({ include_bots: false });
    expect(run(schema, { include_bots: '1' })).toBe('include_bots: must be true or false');
  });
});
