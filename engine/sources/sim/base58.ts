import type { Rng } from './rng.ts';

/** Bitcoin's base58 alphabet, as Solana uses it. */
export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGITS = BASE58_ALPHABET.split('');
const INDEX = new Map<string, number>(DIGITS.map((ch, i) => [ch, i]));

/** Base58 of bytes (leading zero bytes become leading '1's). Slow: setup and tests only. */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j]! << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '1'.repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) out += DIGITS[digits[i]!];
  return out;
}

/** The bytes of a base58 string; throws on a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    const value = INDEX.get(text[i]!);
    if (value === undefined) throw new Error(`not base58: ${JSON.stringify(text[i])} in ${text}`);
    let carry = value;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let i = 0; i < bytes.length; i++) out[out.length - 1 - i] = bytes[i]!;
  return out;
}

/**
 * Random base58 digits written directly (no big-number encoding), bounded so that the
 * string decodes to exactly `bytes` bytes with no leading zero: a `long` string of
 * `longLength` digits starts with a digit in 1..longFirstMax, and a short one (one
 * digit fewer) with a digit in shortFirstMin..57. The bounds come from
 * 58^(n-1) versus 2^(8·bytes): see the checks in test/sim.
 */
interface DigitShape {
  longLength: number;
  longFirstMax: number;
  shortFirstMin: number;
  /** Share of strings with the short length, as among uniformly random keys. */
  shortShare: number;
}

/** 32 bytes: 44 digits below 17·58^43 < 2^256, or 43 digits at least 4·58^42 ≥ 2^248. */
const ADDRESS: DigitShape = { longLength: 44, longFirstMax: 16, shortFirstMin: 4, shortShare: 0.06 };
/** 64 bytes: 88 digits below 5·58^87 < 2^512, or 87 digits at least 2·58^86 ≥ 2^504. */
const SIGNATURE: DigitShape = { longLength: 88, longFirstMax: 4, shortFirstMin: 2, shortShare: 0.19 };

/**
 * `length` random digits after `first`. Built with join: a string grown by `+=` is a
 * deep rope in V8 that every later concatenation and JSON.stringify walks again.
 */
function digits(rng: Rng, first: string, length: number): string {
  const chars: string[] = [first];
  for (let i = 1; i < length; i++) chars.push(DIGITS[rng.int(58)]!);
  return chars.join('');
}

function randomDigits(rng: Rng, shape: DigitShape, short: boolean, length: number): string {
  const first = short ? DIGITS[shape.shortFirstMin + rng.int(58 - shape.shortFirstMin)]! : DIGITS[1 + rng.int(shape.longFirstMax)]!;
  return digits(rng, first, length);
}

/**
 * A random 32-byte Solana address (43 or 44 characters). `suffix` replaces the last
 * characters (pump.fun mints end in "pump"); `prefix` the first ones, and it forces the
 * 43-character form whose first digit may be anything from '5' up.
 */
export function randomAddress(rng: Rng, suffix = '', prefix = ''): string {
  const short = prefix !== '' || rng.chance(ADDRESS.shortShare);
  const length = short ? ADDRESS.longLength - 1 : ADDRESS.longLength;
  if (prefix !== '' && (INDEX.get(prefix[0]!) ?? 0) < ADDRESS.shortFirstMin) throw new Error(`address prefix ${prefix} would not decode to 32 bytes`);
  const body = randomDigits(rng, ADDRESS, short, length - suffix.length);
  return [prefix, body.slice(prefix.length), suffix].join('');
}

const TABLE_SIZE = 4096;
/** Characters per index part: four parts make the first 24 characters. */
const INDEX_PART = 6;

/**
 * Unique 64-byte transaction signatures (87 or 88 base58 characters) at the cost of
 * four string concatenations. The n-th signature starts with four 6-character parts
 * chosen by the four 12-bit fields of a 48-bit Feistel permutation of n; table
 * entries are distinct, so the first 24 characters alone are unique for the first
 * 2^48 signatures (the engine's dedup index keeps only those) and look random. A
 * 63- or 64-character tail from a third table completes it. The first table holds the
 * leading digits; some of its entries lead an 87-character signature.
 */
export class TxHashes {
  private readonly heads: string[];
  private readonly parts: string[][];
  private readonly longTails: string[];
  private readonly shortTails: string[];
  private readonly shortHead: Uint8Array;
  private readonly keys: number[];
  private count = 0;

  constructor(rng: Rng) {
    const distinct = (make: () => string): string[] => {
      const seen = new Set<string>();
      while (seen.size < TABLE_SIZE) seen.add(make());
      return [...seen];
    };
    this.heads = distinct(() => {
      const short = rng.chance(SIGNATURE.shortShare);
      // Short heads start at digit 2 or above, long ones at 1-4: the two never coincide
      // in length, and a head's first digit says which it is.
      return short ? digits(rng, DIGITS[SIGNATURE.longFirstMax + 1 + rng.int(57 - SIGNATURE.longFirstMax)]!, INDEX_PART) : randomDigits(rng, SIGNATURE, false, INDEX_PART);
    });
    this.shortHead = Uint8Array.from(this.heads, (head) => (INDEX.get(head[0]!)! > SIGNATURE.longFirstMax ? 1 : 0));
    const part = (): string => digits(rng, DIGITS[rng.int(58)]!, INDEX_PART);
    this.parts = [distinct(part), distinct(part), distinct(part)];
    const tailLength = SIGNATURE.longLength - 4 * INDEX_PART;
    this.longTails = Array.from({ length: TABLE_SIZE }, () => digits(rng, DIGITS[rng.int(58)]!, tailLength));
    this.shortTails = this.longTails.map((tail) => tail.slice(1));
    this.keys = [rng.u32(), rng.u32(), rng.u32(), rng.u32()];
  }

  next(): string {
    const n = this.count++;
    let left = Math.floor(n / 16777216) & 0xffffff;
    let right = n & 0xffffff;
    for (let round = 0; round < 4; round++) {
      let f = Math.imul(right ^ this.keys[round]!, 0x9e3779b1);
      f = Math.imul(f ^ (f >>> 15), 0x85ebca6b);
      const next = (left ^ (f >>> 8)) & 0xffffff;
      left = right;
      right = next;
    }
    const head = left >>> 12;
    const tail = (left ^ right ^ (right >>> 12)) & 0xfff;
    return (
      this.heads[head]! +
      this.parts[0]![left & 0xfff]! +
      this.parts[1]![right >>> 12]! +
      this.parts[2]![right & 0xfff]! +
      (this.shortHead[head] === 1 ? this.shortTails[tail]! : this.longTails[tail]!)
    );
  }
}
