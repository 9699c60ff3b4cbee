import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { decodeBase58 } from '../../../engine/sources/solana/base58.ts';
import { SolanaDecoder } from '../../../engine/sources/solana/decode.ts';
import { readFixture } from '../../helpers/solana.ts';

describe('base58 decoding of instruction data', () => {
  it('equals bs58 on any bytes, leading zeros included', () => {
    fc.assert(
      fc.property(fc.nat({ max: 4 }), fc.uint8Array({ maxLength: 400 }), (zeros, bytes) => {
        const input = Uint8Array.from([...new Array(zeros).fill(0), ...bytes]);
        expect(decodeBase58(bs58.encode(input))).toEqual(input);
      }),
      { numRuns: 500 },
    );
  });

  it('throws on a character outside the alphabet, which the decoder reports instead of throwing', () => {
    expect(() => decodeBase58('abc0def')).toThrow(/not base58: "0" at 3/);
    const tx = structuredClone((readFixture('jeffro/pumpfun_buy_0.json') as any[])[0]);
    const event = tx.meta.innerInstructions.flatMap((g: any) => g.instructions).find((i: any) => i.accounts.length === 1 && i.data.length > 100);
    event.data = event.data.slice(0, 50) + 'O' + event.data.slice(51);
    const d = [...new SolanaDecoder().decodeValue(tx, 'auto', {}, { path: 'self-cpi' })][0]!;
    expect(d.rejects.map((r) => r.reason)).toEqual([expect.stringMatching(/^inner instruction \d+\.\d+ of 6EF8\w+: data is not base58$/)]);
  });
});

describe('the wire transaction of the base64 encoding', () => {
  const record = readFixture('solana-streamer/pumpswap_cpi_tx.json') as any;

  it('any truncation of it is a skipped record with the reason, never a throw', () => {
    const wire = Buffer.from(record.transaction[0], 'base64');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: wire.length - 1 }), (n) => {
        const cut = { ...record, transaction: [wire.subarray(0, n).toString('base64'), 'base64'] };
        const [d] = [...new SolanaDecoder().decodeValue(cut)];
        // Cut in the message: it ends inside a field; cut in the lookups (after the instructions): the accounts still resolve.
        if (d!.skipped) expect(d!.skipped).toMatch(/wire transaction ends at byte|no signature|does not resolve|compact-u16/);
        else expect(d!.events.filter((e) => e.type === 'swap')).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });

  it('a v1 message, or a token balance without a decimal amount, is skipped with its reason', () => {
    const wire = Buffer.from(record.transaction[0], 'base64');
    const v1 = Buffer.from(wire);
    v1[1 + 64] = 0x81;
    expect([...new SolanaDecoder().decodeValue({ ...record, transaction: [v1.toString('base64'), 'base64'] })][0]!.skipped).toBe('a v1 transaction message (legacy and v0 are read)');
    const bad = structuredClone(record);
    bad.meta.postTokenBalances[0].uiTokenAmount.amount = '12.5';
    expect([...new SolanaDecoder().decodeValue(bad)][0]!.skipped).toBe('a token balance lacks its mint or a decimal amount');
  });
});
