import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../../storage/lmdb.ts';
import { simRunSeed } from '../../../engine/serve.ts';
import { simulate, SIM_FILE_START_AT, SIM_STOCK_MINTS } from '../../../engine/sources/sim/index.ts';
import { useTempStorage } from '../../helpers/fixtures.ts';

/**
 * `mds serve` on a data directory the simulator ran on before without keeping its
 * state (an mds before `sim:state`; a directory with a state goes on with its market:
 * test/integration/sim-restart.test.ts): each new market takes a seed of its own
 * (engine/serve.ts simRunSeed), so it never sends an earlier run's transaction
 * signatures again at other slots, where the ingest gate would take them as new trades
 * with an existing trade_id.
 */

const temp = useTempStorage();

/**
 * Transaction signatures of the first swaps, and the mints launched, of a seed's market
 * (not the tokenized stocks: their mints are the same for every seed, by design).
 */
function firstOf(seed: number, swaps = 2_000): { txs: Set<string>; mints: Set<string> } {
  const txs = new Set<string>();
  const mints = new Set<string>();
  for (const e of simulate({ seed, startAt: SIM_FILE_START_AT })) {
    if (e.type === 'swap') txs.add(e.tx_hash);
    if (e.type === 'token' && !SIM_STOCK_MINTS.has(e.token_address)) mints.add(e.token_address);
    if (txs.size === swaps) break;
  }
  return { txs, mints };
}

const shared = <T>(a: Set<T>, b: Set<T>) => [...a].filter((x) => b.has(x)).length;

describe('the simulator restarted on the same data', () => {
  it('takes the configured seed the first time, then a new one at every start, counted across reopening', async () => {
    const dir = temp.dir.path;
    const seeds = [simRunSeed(temp.storage, 42), simRunSeed(temp.storage, 42)];
    await temp.storage.close();
    const reopened = openStorage(dir);
    try {
      seeds.push(simRunSeed(reopened, 42));
    } finally {
      await reopened.close();
    }
    expect(seeds[0]).toBe(42);
    expect(new Set(seeds).size).toBe(3);
    for (const s of seeds) expect(Number.isSafeInteger(s)).toBe(true);
    // At the top of the safe range the offset goes the other way.
    const top = openStorage(join(dir, 'top'));
    try {
      simRunSeed(top, Number.MAX_SAFE_INTEGER);
      expect(Number.isSafeInteger(simRunSeed(top, Number.MAX_SAFE_INTEGER))).toBe(true);
    } finally {
      await top.close();
    }
  });

  it("never repeats an earlier run's signatures or launched mints (the same seed would)", () => {
    const [firstSeed, ...laterSeeds] = [0, 1, 2].map(() => simRunSeed(temp.storage, 42));
    const first = firstOf(firstSeed!);
    const again = firstOf(firstSeed!);
    expect(shared(first.txs, again.txs)).toBe(first.txs.size);
    expect(first.mints.size).toBeGreaterThan(0);
    for (const seed of laterSeeds) {
      const later = firstOf(seed);
      expect(shared(first.txs, later.txs)).toBe(0);
      expect(shared(first.mints, later.mints)).toBe(0);
    }
  });
});
