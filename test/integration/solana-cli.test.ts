import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SolanaDecoder } from '../../engine/sources/solana/decode.ts';
import { tempDir, type TempDir } from '../helpers/fixtures.ts';
import { fixturePath, readFixture, referenceTransactions, toYellowstone } from '../helpers/solana.ts';

/** `mds decode` as a child process: recorded transactions in, INGEST NDJSON out, then `mds replay -`. */

const MDS = fileURLToPath(new URL('../../bin/mds.js', import.meta.url));
const mds = (args: string[], input?: string) => spawnSync(process.execPath, [MDS, ...args], { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
const REFERENCE = referenceTransactions();
const BLOCK_ITEM = 'chainstack/raw_create_tx_from_blockSubscribe.json';

let dir: TempDir;
afterEach(() => dir?.cleanup());

/** Every fixture transaction, one a line: the blockSubscribe item inside a block notification (its slot and time), a failed copy of one, a bad line. */
function ndjsonInput() {
  const lines = REFERENCE.map((tx) => {
    const value = readFixture(tx.local);
    if (tx.local !== BLOCK_ITEM) return JSON.stringify(value);
    return JSON.stringify({ jsonrpc: '2.0', method: 'blockNotification', params: { subscription: 1, result: { context: { slot: 300_000_001 }, value: { slot: 300_000_001, block: { blockTime: 1_750_000_000, transactions: [value] }, err: null } } } });
  });
  const failed = structuredClone((readFixture('jeffro/pumpfun_sell_0.json') as any[])[0]);
  failed.meta.err = { InstructionError: [1, { Custom: 6003 }] };
  return [...lines, JSON.stringify(failed), '{"truncated": ', ''].join('\n');
}

describe('mds decode', () => {
  it('NDJSON of every fixture: INGEST NDJSON equal to the library decoder, a summary on stderr, and mds replay - takes it with no dead letter', () => {
    dir = tempDir();
    const file = join(dir.path, 'txs.ndjson');
    writeFileSync(file, ndjsonInput());
    const decoded = mds(['decode', file]);
    expect(decoded.status, decoded.stderr).toBe(0);
    const events = decoded.stdout.trim().split('\n').map((l) => JSON.parse(l));
    // The same events as the decoder in this process gives, in input order.
    const decoder = new SolanaDecoder();
    const expected = ndjsonInput().split('\n').slice(0, REFERENCE.length).flatMap((l) => [...decoder.decodeValue(JSON.parse(l))].flatMap((t) => t.events));
    expect(events).toEqual(expected);
    const swapsOfBlockItem = events.filter((e) => e.type === 'swap' && e.slot === 300_000_001);
    expect(swapsOfBlockItem).toHaveLength(1);
    expect(swapsOfBlockItem[0]).toMatchObject({ at: 1_750_000_000_000, tx_index: 0 });
    const count = (t: string) => events.filter((e) => e.type === t).length;
    expect(decoded.stderr).toBe(
      'decoded 15 records (transactions, or values offered as one): 13 with events, 2 skipped\n' +
        `events: ${events.length} (swap ${count('swap')}, balance ${count('balance')}, token 2, pool 2)\n` +
        'skipped:\n  1  failed transaction (meta.err set)\n  1  a line that is not JSON\n',
    );
    expect(count('swap')).toBe(REFERENCE.reduce((n, t) => n + t.events_selfcpi.filter((e) => e.event !== 'pump.CreateEvent').length, 0));
    expect(count('swap')).toBe(17);

    const replayed = mds(['replay', '-', '--data', join(dir.path, 'data'), '--log-level', 'silent'], decoded.stdout);
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.stderr).toContain(`${events.length} events in the log, 0 dead letters`);
  });

  it('a pretty-printed JSON document on stdin (-), and Yellowstone updates with --format yellowstone', () => {
    const pretty = readFileSync(fixturePath('chainstack/raw_create_tx_from_getTransaction.json'), 'utf8');
    expect(pretty.split('\n').length).toBeGreaterThan(100);
    const fromStdin = mds(['decode', '-'], pretty);
    expect(fromStdin.status, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout.trim().split('\n').map((l) => JSON.parse(l).type)).toEqual(['token', 'pool', 'swap', 'balance', 'balance']);

    dir = tempDir();
    const rpc = (readFixture('jeffro/pumpfun_buy_bundle.json') as any[])[0];
    const file = join(dir.path, 'updates.ndjson');
    writeFileSync(file, [JSON.stringify(toYellowstone(rpc, 5, 'base64')), JSON.stringify(rpc)].join('\n') + '\n');
    const yellowstone = mds(['decode', file, '--format', 'yellowstone']);
    expect(yellowstone.status, yellowstone.stderr).toBe(0);
    const swaps = yellowstone.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'swap');
    expect(swaps.map((s) => [s.tx_index, s.event_index])).toEqual([[5, 0], [5, 1], [5, 2], [5, 3]]);
    expect(yellowstone.stderr).toContain('1  not a Yellowstone update (transaction.transaction with signature and meta)');
  });

  it('usage errors exit 2 with a message: an unknown --format, a missing file', () => {
    const badFormat = mds(['decode', '-', '--format', 'protobuf'], '');
    expect(badFormat.status).toBe(2);
    expect(badFormat.stderr).toMatch(/protobuf/);
    const missing = mds(['decode', '/nonexistent/txs.json']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no such file: /nonexistent/txs.json');
  });
});
