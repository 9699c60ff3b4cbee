import { describe, expect, it, vi } from 'vitest';
import { CommittedBatch } from '../../../engine/ingest/batch.ts';
import { parsePiece } from '../../../engine/ingest/parse-worker.ts';
import type { ParsedChunk } from '../../../engine/ingest/parsed-chunk.ts';
import { swapFromColumns } from '../../../engine/ingest/swap-columns.ts';
import { base58, rng } from '../../helpers/fixtures.ts';

/**
 * Swap lines as columns (engine/ingest/swap-columns.ts): the parse worker vouches for
 * the swap lines whose string values it finds right after their keys, and the main
 * thread builds their events from the columns. Such an event has the fields and values
 * `JSON.parse` of its line gives; any other line is parsed as before.
 */

const r = rng(4242);
const POOL = base58(r, 44);
const WALLET = base58(r, 44);
let n = 0;
const swap = (extra: Record<string, unknown> = {}) => ({
  type: 'swap', tx_hash: base58(rng(9_000 + ++n), 88), slot: 300_000_000 + n, tx_index: n % 7, event_index: n % 3, at: 1_767_225_600_000 + n,
  pool_address: POOL, wallet_address: WALLET, side: n % 2 ? 'buy' : 'sell',
  base_amount_raw: String(1_000_000 + n), quote_amount_raw: '18446744073709551615', base_reserve_raw: '800000000000000', quote_reserve_raw: '40000000000',
  real_base_reserve_raw: '500000000000000', real_quote_reserve_raw: '10000000000', ...extra,
});
const pool = { type: 'pool', pool_address: POOL, base_address: base58(r, 44), quote_address: 'So11111111111111111111111111111111111111112', dex: 'pumpswap', pool_type: 'amm', created_at: 1, slot: 1 };

/** The lines, each built from columns or parsed: what CommittedBatch.each gives for them. */
function applied(lines: string[]): { chunk: ParsedChunk; events: unknown[]; parses: number } {
  const chunk = parsePiece(Buffer.from(lines.join('\n') + '\n'), 65_536);
  expect(chunk.ends.length).toBe(lines.length);
  const rows = Array.from(chunk.swaps?.rows ?? lines.map(() => -1));
  const batch = new CommittedBatch(1, chunk.bytes as Buffer, lines.map(() => undefined), rows.map((row) => (row === -1 ? null : chunk)), rows);
  const events: unknown[] = [];
  // White box: how many lines were parsed rather than built from columns.
  const parse = vi.spyOn(JSON, 'parse');
  try {
    batch.each((event) => events.push(event));
    return { chunk, events, parses: parse.mock.calls.length };
  } finally {
    parse.mockRestore();
  }
}

/**
 * Keys written with an escape, each as long as another field's name: read by length,
 * the first pool_address's bytes would pass for the pool (JSON.parse keeps the second),
 * the second's for quote_reserve_raw, and that one's for real_quote_reserve_raw.
 */
function escapedKeys(): string {
  const [a, b] = [base58(r, 40), base58(r, 40)];
  const [q, real] = ['1'.repeat(40), '2'.repeat(40)];
  return JSON.stringify(swap({ pool_address: a, quote_reserve_raw: q, real_quote_reserve_raw: real }))
    .replace('"quote_reserve_raw":', `"pool\\u005faddress":"${b}","quote\\u005freserve_raw":`)
    .replace('"real_quote_reserve_raw":', '"real\\u005fquote_reserve_raw":');
}

describe('swap columns', () => {
  it('give each swap the fields and values of its parsed line: real reserves given, null or missing, and u64 amounts', () => {
    const lines = [
      JSON.stringify(swap()),
      JSON.stringify(swap({ real_base_reserve_raw: null, real_quote_reserve_raw: null })),
      JSON.stringify(swap({ real_base_reserve_raw: undefined, real_quote_reserve_raw: undefined })),
      JSON.stringify(pool),
      // Keys in another order.
      JSON.stringify(Object.fromEntries(Object.entries(swap()).reverse())),
    ];
    const { chunk, events, parses } = applied(lines);
    expect(Array.from(chunk.swaps!.rows)).toEqual([0, 1, 2, -1, 3]);
    expect(parses).toBe(1);
    lines.forEach((line, i) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const event = events[i] as Record<string, unknown>;
      // The same defined fields with the same values; a missing field reads undefined.
      expect(Object.fromEntries(Object.entries(event).filter(([, v]) => v !== undefined))).toEqual(parsed);
      expect(Object.keys(parsed).every((k) => k in event)).toBe(true);
    });
    expect((events[1] as { real_base_reserve_raw: unknown }).real_base_reserve_raw).toBeNull();
    expect((events[2] as { real_base_reserve_raw: unknown }).real_base_reserve_raw).toBeUndefined();
  });

  it('are not vouched for on lines with whitespace around a colon, an escape in a key or a value, unknown fields or a repeated key: those are parsed', () => {
    const s = swap();
    const lines = [
      JSON.stringify(s).replace('"pool_address":"', '"pool_address": "'),
      JSON.stringify(swap()).replace(/"base_amount_raw":"1/, '"base_amount_raw":"\\u0031'),
      JSON.stringify(swap({ memo: 'hello' })),
      // A repeated key: JSON.parse keeps the last value.
      JSON.stringify(swap()).replace('"side":', `"pool_address":"${base58(r, 44)}","side":`),
      escapedKeys(),
      JSON.stringify(swap()),
    ];
    const { chunk, events, parses } = applied(lines);
    expect(Array.from(chunk.swaps!.rows)).toEqual([-1, -1, -1, -1, -1, 0]);
    expect(parses).toBe(5);
    expect(events).toEqual(lines.map((line) => JSON.parse(line)));
    expect(events).toEqual(lines.map((line) => JSON.parse(line)));
    // The escaped amount reads as its value.
    expect((events[1] as { base_amount_raw: string }).base_amount_raw).toMatch(/^1\d+$/);
  });

  it('read their values from the bytes the chunk carries, also when rejected and duplicate-free lines are mixed in', () => {
    const good = [swap(), swap(), swap()].map((e) => JSON.stringify(e));
    const lines = [good[0]!, '{"type":"swap","slot":"x"}', good[1]!, 'not json', good[2]!];
    const chunk = parsePiece(Buffer.from(lines.join('\n') + '\n'), 65_536);
    // Three kept lines (the output bytes are a copy: rejected lines left out).
    expect(chunk.rejects).toHaveLength(2);
    expect(Array.from(chunk.swaps!.rows)).toEqual([0, 1, 2]);
    for (let row = 0; row < 3; row++) expect(swapFromColumns(chunk.bytes as Buffer, chunk.swaps!, row)).toEqual(JSON.parse(good[row]!));
  });

  it('are absent from a chunk without swaps', () => {
    expect(parsePiece(Buffer.from(JSON.stringify(pool) + '\n'), 65_536).swaps).toBeUndefined();
  });
});
