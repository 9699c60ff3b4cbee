import { CURSOR_CHARS_MAX } from '../../engine/bounds.ts';
import { z } from 'zod';

/**
 * Zod schemas for the parameters the routes share (DECISIONS.md "HTTP routes" and
 * "Validation"). Query values arrive as strings; these schemas turn them into
 * numbers, lists and enums. A message says what is wrong with the value and never
 * repeats the parameter's name: `validate` in request.ts prefixes it
 * (`limit: must be an integer from 1 to 100`).
 *
 * Number rules, the same for every integer parameter: plain decimal digits only.
 * No sign, no spaces, no fraction, no exponent (`1e3`), no hex (`0x10`), no trailing
 * text (`10abc`), and no leading zeros (`007`; `0` itself is fine where in range):
 * one spelling per value, so a value means the same to every client and cache.
 * Decimal parameters (`min_volume_usd`) also allow one `-` and a fraction (`12.5`).
 *
 * Address lists (`addresses=a,b,c`) reject a repeated address rather than dropping it,
 * as request.ts rejects a repeated parameter: a client sending one has a bug worth
 * hearing about, and a silent dedup would make the answer shorter than the question.
 */

/** SERVICE.md 2.1 addresses. */
export const ADDRESS_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const ADDRESS_MESSAGE = 'not a base58 address of 32 to 44 characters';

/** Unsigned canonical decimal integer. */
const INTEGER = /^(0|[1-9][0-9]*)$/;
/** Signed canonical decimal with an optional fraction; no exponent. */
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/** Longest integer text taken: 16 digits holds any safe integer and bounds the work. */
const INTEGER_DIGITS_MAX = 16;
/** Unix ms a Date can hold (ECMA-262 time value range). */
const TIME_MS_MAX = 8_640_000_000_000_000;

/** A required parameter reports `required`, not zod's `expected string, received undefined`. */
const text = () => z.string({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a string') });

/** `a, b or c` for messages. */
const listed = (values: readonly string[]): string =>
  values.length === 1 ? values[0]! : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

/** A base58 address (SERVICE.md 2.1): path parameters and single-address query parameters. */
export const address = text().regex(ADDRESS_PATTERN, ADDRESS_MESSAGE);

/**
 * A comma list of 1..max distinct addresses (`addresses=a,b,c`): no empty items, no
 * spaces, no repeats.
 */
export function addressList(max: number) {
  return text().transform((value, ctx) => {
    const items = value.split(',');
    const fail = (message: string) => {
      ctx.issues.push({ code: 'custom', message, input: value });
      return z.NEVER;
    };
    if (value === '') return fail(`must list 1 to ${max} comma-separated addresses`);
    if (items.length > max) return fail(`at most ${max} addresses, got ${items.length}`);
    const seen = new Set<string>();
    for (const [i, item] of items.entries()) {
      if (!ADDRESS_PATTERN.test(item)) {
        return fail(item === '' ? `item ${i + 1} is empty` : `item ${i + 1} is ${ADDRESS_MESSAGE}`);
      }
      if (seen.has(item)) return fail(`item ${i + 1} repeats ${item}`);
      seen.add(item);
    }
    return items;
  });
}

/** An integer in [min, max], written as the module comment says. */
export function integer(min: number, max: number) {
  const range = `must be an integer from ${min} to ${max}`;
  return text().transform((value, ctx) => {
    if (!INTEGER.test(value) || value.length > INTEGER_DIGITS_MAX) {
      ctx.issues.push({ code: 'custom', message: `${range} in plain digits`, input: value });
      return z.NEVER;
    }
    const n = Number(value);
    if (n < min || n > max) {
      ctx.issues.push({ code: 'custom', message: range, input: value });
      return z.NEVER;
    }
    return n;
  });
}

/** A decimal number in [min, max] (`12.5`, `-3`); for filters such as `min_volume_usd`. */
export function decimal(min: number = -Number.MAX_VALUE, max: number = Number.MAX_VALUE) {
  return text().transform((value, ctx) => {
    const n = DECIMAL.test(value) ? Number(value) : Number.NaN;
    if (!Number.isFinite(n)) {
      ctx.issues.push({ code: 'custom', message: 'must be a decimal number such as 12.5', input: value });
      return z.NEVER;
    }
    if (n < min || n > max) {
      ctx.issues.push({ code: 'custom', message: `must be from ${min} to ${max}`, input: value });
      return z.NEVER;
    }
    return n;
  });
}

/**
 * Rows per page: 1..max, `defaultValue` when absent. Above max is a 400 rather than a
 * silent clamp (DECISIONS.md: "a limit above the maximum is a 400 naming limit").
 */
export function limit(defaultValue: number, max: number) {
  return integer(1, max).default(defaultValue);
}

/** The `cursor` parameter: opaque, checked later by `decodeCursor`; absent on the first page. */
export const cursor = text().min(1, 'must not be empty').max(CURSOR_CHARS_MAX, `longer than ${CURSOR_CHARS_MAX} characters`).optional();

/** A time in Unix ms (`start_time`, `end_time`). */
export const timeMs = integer(0, TIME_MS_MAX);
export const startTime = timeMs.optional();
export const endTime = timeMs.optional();

/**
 * A check for a query schema with both `start_time` and `end_time`:
 * `z.object({ start_time: startTime, end_time: endTime }).superRefine(endNotBeforeStart)`.
 */
export function endNotBeforeStart(value: { start_time?: number; end_time?: number }, ctx: z.RefinementCtx): void {
  if (value.start_time !== undefined && value.end_time !== undefined && value.end_time < value.start_time) {
    ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'must not be before start_time', input: value.end_time });
  }
}

/** One of `values`; the message lists them. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: (issue) => (issue.input === undefined ? 'required' : `must be ${listed(values)}`) });
}

/** `asc` or `desc`, `defaultValue` when absent. */
export function order(defaultValue: 'asc' | 'desc') {
  return oneOf(['asc', 'desc']).default(defaultValue);
}

/** `true` or `false` (nothing else: not `1`, not `yes`), `defaultValue` when absent. */
export function flag(defaultValue: boolean) {
  return oneOf(['true', 'false'])
    .transform((value) => value === 'true')
    .default(defaultValue);
}

/** A wallet label as `label` events carry it (1 to 64 characters), for the `label` filters. */
export const labelName = text().min(1, 'must not be empty').max(64, 'longer than 64 characters');
