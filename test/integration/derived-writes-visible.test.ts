import { describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { base58, rng, testConfig, WSOL } from '../helpers/fixtures.ts';

/**
 * What the actors write while applying (here: the signals store) is readable once the
 * engine says the events are in: `gate.flush()` (what `runSource` ends with) and
 * `createEngine` (start-up replay). The actors apply a backlog in slices, and a
 * slice's writes join a later LMDB transaction than the batch's log; LMDB shows a
 * write only once its transaction commits. signals-crash.test.ts read its reference
 * run's signals right after `runSource` and on a loaded machine missed the last
 * ones (1,100 or 1,050 of 1,103).
 */

const temp = useTempEngine('mds-derived-visible-');
const T0 = 1_767_225_600_000;
const QUIET = { actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } };
/** Swaps before the whale's: a backlog the actors apply over many slices of 1 ms, far longer than a commit. */
const BACKLOG = 6_000;

function market() {
  const random = rng(77);
  const mint = base58(random, 44);
  const pool = base58(random, 44);
  const wallets = Array.from({ length: 50 }, () => base58(random, 44));
  let slot = 1_000;
  let at = T0;
  const swap = (wallet: string, sol: number) => ({
    type: 'swap', tx_hash: base58(random, 88), slot: ++slot, tx_index: 0, event_index: 0, at: (at += 100), pool_address: pool, wallet_address: wallet, side: 'buy',
    base_amount_raw: String(Math.round(sol * 1e12)), quote_amount_raw: String(Math.round(sol * 1e9)), base_reserve_raw: '800000000000000', quote_reserve_raw: '40000000000',
  });
  return {
    setup: [
      { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
      { type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'VIS', name: 'Visible', slot: ++slot, at: T0 },
      { type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: ++slot },
    ],
    /** Small buys, then a whale's (100 SOL at 100 USD: whale_buy and volume_spike fire at it, the last event). */
    backlog: () => [...Array.from({ length: BACKLOG }, (_, i) => swap(wallets[i % wallets.length]!, 0.01)), swap(base58(random, 44), 100)],
  };
}

async function send(engine: Engine, events: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  for (const e of events) expect((await engine.ingest(e)).status, JSON.stringify(e)).toBe('applied');
}

const kinds = (engine: Engine) => [...engine.signals!.all()].map((s) => s.kind).sort();

describe('writes made while applying are readable when the engine says the events are in', () => {
  it('gate.flush (the end of runSource) resolves once the signals of the last slice are readable', async () => {
    const m = market();
    const engine = await temp.open({ ...QUIET, ingest: { applySliceMs: 1, batchMax: 500 } });
    await send(engine, m.setup);
    // Submitted in one turn: committed batch after batch and applied in slices behind them.
    const ingested = Promise.all(m.backlog().map((e) => engine.ingest(e)));
    await engine.gate.flush();
    expect(kinds(engine)).toEqual(['volume_spike', 'whale_buy']);
    expect((await ingested).every((r) => r.status === 'applied')).toBe(true);
  });

  it('createEngine resolves once the signals the start-up replay computed are readable', async () => {
    const m = market();
    // A run without signals, crashed: the log holds the events, the store no signal, no checkpoint.
    let engine = await createEngine({ config: testConfig(temp.dir.path, QUIET), signals: false });
    await send(engine, m.setup);
    await Promise.all(m.backlog().map((e) => engine.ingest(e)));
    await temp.crash(engine);
    // The restart replays the whole log with the signals on.
    engine = await temp.open(QUIET);
    expect(kinds(engine)).toEqual(['volume_spike', 'whale_buy']);
  });
});
