import { createHash } from 'node:crypto';
import type { PoolTrade } from '../actors/pool/trade.ts';
import { PoolWindows } from '../actors/pool/windows.ts';
import { median, peakRssMiB, type Benchmark } from './harness.ts';
import { BASE58_ALPHABET } from '../engine/sources/sim/base58.ts';
import { Rng } from '../engine/sources/sim/rng.ts';

/**
 * Question: what do a pool's rolling windows (actors/pool/windows.ts) cost per trade
 * added (all five windows, exact distinct wallets) and per read, with trades spread over
 * 10,000 pools as on a launchpad, and for one busy pool?
 * Estimate: a busy pool in cache costs a wallet Map lookup (~50 ns) and, per window, a
 * bucket index, two double-double sums into bucket and ring totals and a few counters
 * (~50 ns): ~300-400 ns. Spread over 10,000 pools the state is out of cache: each add
 * touches the pool's fields, its Map and ~5 × 5 cache lines of rings (~100 ns each
 * from memory) in ring mode, a few lines in log mode: ~1-3 µs. A ring-mode read is 5
 * ring totals less the buckets `now` has left: ~1-2 µs; a log-mode read scans up to
 * 128 trades and the wallets 5 times: ~5-10 µs.
 */

const T0 = 1_767_225_600_000;
const B58 = BASE58_ALPHABET;
const SPAN_MS = 6 * 3_600_000;

/** Uniform draws in [0, 1) from the project's one seeded generator (the simulator's Rng). */
function random(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.float();
}

/**
 * `count` trades over `pools` pools across 6 h of trade time (every ring advances and
 * evicts), wallets drawn (skewed) from 50,000, one trade in ten up to 3 s late. Pool
 * popularity is skewed as on a launchpad: pool ⌊u³ × pools⌋, so the busiest takes ~5 %
 * of trades and half of them go to the quiet 90 %.
 */
function makeTrades(count: number, pools: number) {
  const next = random(7);
  const wallets = Array.from({ length: 50_000 }, () => Array.from({ length: 44 }, () => B58[Math.floor(next() * 58)]).join(''));
  const trades: PoolTrade[] = new Array(count);
  const poolOf = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const late = next() < 0.1 ? Math.floor(next() * 3_000) : 0;
    const price = 1e-6 * (1 + next());
    const quote = 0.01 + next() * 5;
    trades[i] = {
      at: T0 + Math.floor((i * SPAN_MS) / count) - late,
      slot: 300_000_000 + Math.floor((i * SPAN_MS) / count / 400),
      txIndex: i & 1023,
      eventIndex: 0,
      side: next() < 0.55 ? 'buy' : 'sell',
      wallet: wallets[Math.floor(next() ** 2 * wallets.length)]!,
      baseAmount: quote / price,
      quoteAmount: quote,
      priceQuote: price,
      priceUsd: price * 150,
      marketCapQuote: price * 1e9,
      marketCapUsd: price * 1.5e11,
      quoteUsd: 150,
    };
    poolOf[i] = Math.floor(next() ** 3 * pools);
  }
  return { trades, poolOf };
}

/** Fresh pools, then every trade added in order (timed). */
function addAll(trades: PoolTrade[], poolOf: Uint32Array, pools: number) {
  const windows = Array.from({ length: pools }, () => new PoolWindows());
  const started = performance.now();
  for (let i = 0; i < trades.length; i++) windows[poolOf[i]!]!.add(trades[i]!);
  return { windows, addNs: ((performance.now() - started) * 1e6) / trades.length };
}

function readAll(windows: PoolWindows[], now: number): { us: number; traders: number } {
  let traders = 0;
  const started = performance.now();
  for (const w of windows) traders += w.read(now).m[4]!;
  return { us: ((performance.now() - started) * 1000) / windows.length, traders };
}

const benchmark: Benchmark = {
  name: 'windows',
  question: 'What do rolling windows (1m..24h, exact distinct wallets) cost per trade added and per read, over 10,000 pools and for one busy pool?',
  async run({ smoke, log }) {
    const count = smoke ? 20_000 : 1_000_000;
    const pools = smoke ? 200 : 10_000;
    const repeats = smoke ? 1 : 3;
    const { trades, poolOf } = makeTrades(count, pools);
    const now = T0 + SPAN_MS + 1_000;
    addAll(trades.slice(0, 20_000), poolOf, pools); // warm-up (JIT), not measured

    const addRuns: number[] = [];
    let spread = addAll(trades, poolOf, pools);
    for (let repeat = 0; repeat < repeats; repeat++) {
      if (repeat > 0) spread = addAll(trades, poolOf, pools);
      addRuns.push(spread.addNs);
    }
    const readRuns = Array.from({ length: 3 }, () => readAll(spread.windows, now));
    const ringPools = spread.windows.filter((w) => w.mode === 'rings');
    const ringTrades = poolOf.reduce((n, p) => n + (spread.windows[p]!.mode === 'rings' ? 1 : 0), 0);
    const wallets = spread.windows.reduce((n, w) => n + w.walletCount, 0);

    // One busy pool, all trades into it (~46 trades/s over 6 h): its state stays in cache.
    const busyRuns: number[] = [];
    let busy = new PoolWindows();
    for (let repeat = 0; repeat < repeats; repeat++) {
      busy = new PoolWindows();
      const started = performance.now();
      for (const t of trades) busy.add(t);
      busyRuns.push(((performance.now() - started) * 1e6) / count);
    }
    const busyReadRuns = Array.from({ length: 3 }, () => {
      const started = performance.now();
      for (let i = 0; i < 10_000; i++) busy.read(now + i);
      return (performance.now() - started) / 10;
    });
    const busyReadUs = median(busyReadRuns);

    const hash = createHash('sha256').update(String(readRuns[0]!.traders)).update(JSON.stringify(busy.read(now)));
    for (const w of spread.windows.slice(0, 50)) hash.update(JSON.stringify(w.read(now)));
    const addNs = median(addRuns);
    const readUs = median(readRuns.map((r) => r.us));
    const busyNs = median(busyRuns);
    log(`${count.toLocaleString('en-US')} adds over ${pools.toLocaleString('en-US')} pools: ${addNs.toFixed(0)} ns/add (runs ${addRuns.map((x) => x.toFixed(0)).join(', ')})`);
    log(`  ${ringPools.length} pools in ring mode took ${((100 * ringTrades) / count).toFixed(0)} % of the trades; ${wallets.toLocaleString('en-US')} wallets tracked`);
    log(`read, every pool: ${readUs.toFixed(2)} µs/read (runs ${readRuns.map((r) => r.us.toFixed(2)).join(', ')})`);
    log(`one busy pool: ${busyNs.toFixed(0)} ns/add (runs ${busyRuns.map((x) => x.toFixed(0)).join(', ')}), ${busyReadUs.toFixed(2)} µs/read`);
    log(`ring-mode state 36,000 B per pool off-heap; peak RSS ${peakRssMiB().toFixed(0)} MiB; result hash ${hash.digest('hex').slice(0, 16)}`);
    return {
      add_ns: { value: Math.round(addNs), unit: 'ns', min: Math.round(Math.min(...addRuns)), max: Math.round(Math.max(...addRuns)) },
      read_us: { value: Number(readUs.toFixed(2)), unit: 'µs' },
      busy_add_ns: { value: Math.round(busyNs), unit: 'ns', min: Math.round(Math.min(...busyRuns)), max: Math.round(Math.max(...busyRuns)) },
      busy_read_us: { value: Number(busyReadUs.toFixed(2)), unit: 'µs' },
      ring_mode_pools: { value: ringPools.length, unit: 'pools' },
      peak_rss: { value: Math.round(peakRssMiB()), unit: 'MiB' },
    };
  },
};

export default benchmark;
