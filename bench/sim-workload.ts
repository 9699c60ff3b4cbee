import { parseArgs } from 'node:util';
import { parseDuration, SIM_DEFAULTS, SIM_FILE_START_AT } from '../engine/sources/sim/index.ts';
import { Market } from '../engine/sources/sim/market.ts';
import { fmt } from './harness.ts';

/**
 * What the simulator's market keeps alive over time, without mds (issue 25: is the
 * growth bench/serve-memory.ts sees at live pace workload or history?). Generates the
 * market offline (its Market, as fast as it can, no wall clock) and prints every
 * `--every` of simulated time: its live tokens, the pools with a swap in the last
 * `--idle` (what mds keeps resident at `actors.idleMs`), the pools seen so far (what the
 * structures over the last 24 h hold), the wallets with a swap or balance in the last
 * `--idle` (resident wallets) and the pools each of those has swapped in so far (about
 * its positions: history).
 *
 *   node --import tsx bench/sim-workload.ts [--hours 4] [--every 5m] [--idle 60s] [--seed 42]
 */

export interface WorkloadRow {
  minute: number;
  liveTokens: number;
  poolsActive: number;
  poolsSeen: number;
  walletsActive: number;
  walletsSeen: number;
  /** Mean over the active wallets of the pools each swapped in so far. */
  poolsPerActiveWallet: number;
  swapsPerMinute: number;
}

export function* simWorkload(opts: { seed: number; everyMs: number; idleMs: number; untilMs: number }): Generator<WorkloadRow> {
  const start = SIM_FILE_START_AT;
  const market = new Market({ ...SIM_DEFAULTS, seed: opts.seed, startAt: start });
  const poolLast = new Map<string, number>();
  const walletLast = new Map<string, number>();
  const walletPools = new Map<string, Set<string>>();
  let next = start + opts.everyMs;
  let swaps = 0;
  while (next <= start + opts.untilMs) {
    for (const e of market.nextSlot()) {
      if (e.type === 'swap') {
        swaps++;
        poolLast.set(e.pool_address, e.at);
        walletLast.set(e.wallet_address, e.at);
        let pools = walletPools.get(e.wallet_address);
        if (pools === undefined) walletPools.set(e.wallet_address, (pools = new Set()));
        pools.add(e.pool_address);
      } else if (e.type === 'balance') walletLast.set(e.wallet_address, e.at);
      else if (e.type === 'pool') poolLast.set(e.pool_address, e.created_at);
    }
    const now = market.nextAt;
    if (now < next) continue;
    let poolsActive = 0;
    for (const at of poolLast.values()) if (now - at < opts.idleMs) poolsActive++;
    let walletsActive = 0;
    let pools = 0;
    for (const [wallet, at] of walletLast) {
      if (now - at >= opts.idleMs) continue;
      walletsActive++;
      pools += walletPools.get(wallet)?.size ?? 0;
    }
    yield {
      minute: Math.round((now - start) / 60_000),
      liveTokens: market.world.tokens.length,
      poolsActive,
      poolsSeen: poolLast.size,
      walletsActive,
      walletsSeen: walletLast.size,
      poolsPerActiveWallet: pools / Math.max(1, walletsActive),
      swapsPerMinute: (swaps * 60_000) / opts.everyMs,
    };
    swaps = 0;
    next += opts.everyMs;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      hours: { type: 'string', default: '4' },
      every: { type: 'string', default: '5m' },
      idle: { type: 'string', default: '60s' },
      seed: { type: 'string', default: '42' },
    },
  });
  console.log('# sim-workload: what the simulator (its defaults) keeps alive, by simulated time');
  console.log('minute  live tokens  pools active  pools seen  wallets active  wallets seen  pools per active wallet  swaps/min');
  for (const r of simWorkload({ seed: Number(values.seed), everyMs: parseDuration(values.every!), idleMs: parseDuration(values.idle!), untilMs: Number(values.hours) * 3_600_000 })) {
    console.log(
      [r.minute, r.liveTokens, r.poolsActive, r.poolsSeen, r.walletsActive, r.walletsSeen, r.poolsPerActiveWallet.toFixed(1), fmt(Math.round(r.swapsPerMinute))].map(String).join('  '),
    );
  }
}
