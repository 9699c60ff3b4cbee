import { CandleRows, type CandleInterval, type StoredCandle } from '../engine/model/index.ts';
import { PoolCandles, type ClosedCandleStore } from '../actors/pool/candles.ts';
import type { PoolTrade } from '../actors/pool/trade.ts';
import { median, peakRssMiB, type Benchmark, type Figure } from './harness.ts';
import { Rng } from '../engine/sources/sim/rng.ts';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ROUTE_CASES, routeTimes, type RouteTimes } from './candles-route.ts';

/**
 * Question: what does PoolCandles.add cost per trade (7 intervals × 4 tracks + 2
 * volumes), with trades spread over 10,000 pools as the engine sees them?
 * Estimate: per interval a bucket-range check, ~16 compares and stores on unboxed
 * fields and two double-double sums (~20 flops): ~30–60 ns, so ~0.3 µs for 7
 * intervals; cache misses on 10k pools' buckets (~7 × 270 B each) add some. Target
 * ≤ 1 µs (ARCHITECTURE.md: ~10 µs per swap for everything).
 * Shape: 100,000 trades/s of event time (10 per second per pool at 10k pools), 2 %
 * arriving up to 3 s late, USD known; takeChanged and drainClosedInto on every pool once
 * per second of event time (timed apart), after 30 s of warm-up to a steady state. The
 * drain goes into one reused CandleRows, as the engine's (actors/pool/closed-candles.ts)
 * reuses each pool's buffer: no array per pool per drain.
 *
 * Then the candles route's read of 300 candles of 1s (bench/candles-route.ts), folded
 * from the stored trades since issue 25, beside 300 of 1m (a stored series) in the
 * same run, and with `--other TREE` (a source tree of an older commit with its
 * node_modules, e.g. 6dc95a3, whose 1s candles were a stored series) the same reads
 * there, alternated. `node --import tsx bench/candles.ts [--smoke] [--part add|route]
 * [--other TREE] [--rounds 200] [--hours 5.5]`.
 */

const T0 = 1_767_225_600_000;
const TRADES_PER_SECOND = 100_000;

/** Drained candles go nowhere; late trades find nothing stored (a new bucket). */
class NullStore implements ClosedCandleStore {
  read(_interval: CandleInterval, _from: number, _to: number, _limit: number): StoredCandle[] {
    return [];
  }
  get(_interval: CandleInterval, _startAt: number): StoredCandle | undefined {
    return undefined;
  }
}

/** Uniform draws in [0, 1) from the project's one seeded generator (the simulator's Rng). */
function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.float();
}

/**
 * Fills `trades` (reused: the timed loop then sees only PoolCandles' own allocation
 * and GC) and `poolOf` with one second of event time (not timed).
 */
function fillSecond(trades: PoolTrade[], poolOf: Int32Array, second: number, count: number, pools: number, next: () => number): void {
  for (let k = 0; k < count; k++) {
    const late = next() < 0.02 ? Math.floor(next() * 3000) : 0;
    const at = T0 + second * 1000 + Math.floor((k * 1000) / count) - late;
    const price = 1e-7 * (1 + next());
    const quoteUsd = 150 + next();
    const quoteAmount = 0.01 + next() * 5;
    const t = trades[k]!;
    t.at = at;
    t.slot = 300_000_000 + Math.floor((at - T0) / 400);
    t.txIndex = k % 4096;
    t.side = k & 1 ? 'buy' : 'sell';
    t.baseAmount = quoteAmount / price;
    t.quoteAmount = quoteAmount;
    t.priceQuote = price;
    t.priceUsd = price * quoteUsd;
    t.marketCapQuote = price * 1e9;
    t.marketCapUsd = price * 1e9 * quoteUsd;
    t.quoteUsd = quoteUsd;
    poolOf[k] = Math.floor(next() * pools);
  }
}

function blankTrade(): PoolTrade {
  return { at: 0, slot: 0, txIndex: 0, eventIndex: 0, side: 'buy', wallet: 'W1111111111111111111111111111111', baseAmount: 0.5, quoteAmount: 0.5, priceQuote: 0.5, priceUsd: 0.5, marketCapQuote: 0.5, marketCapUsd: 0.5, quoteUsd: 0.5 };
}

interface Window {
  /** Wall time per add. */
  nsPerAdd: number;
  /** CPU time of the process (all its threads, GC helpers included) per add. */
  cpuNsPerAdd: number;
  /** Wall time per takeChanged + drainClosedInto of one pool (the actor's once-a-second chores). */
  nsPerPoolDrain: number;
  drained: number;
}

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

/** `pools` pools fed `TRADES_PER_SECOND` trades per second of event time, drained every second. */
class Market {
  private readonly candles: PoolCandles[];
  private readonly trades: PoolTrade[];
  private readonly poolOf: Int32Array;
  /** Every pool's drain goes here and is cleared once read (its rows are the candles' bucket layout). */
  private readonly drainedRows = new CandleRows();
  private readonly next = rng(42);
  private second = 0;
  checksum = 0;

  constructor(private readonly pools: number) {
    const store = new NullStore();
    this.candles = Array.from({ length: pools }, () => new PoolCandles(store));
    this.trades = Array.from({ length: TRADES_PER_SECOND }, blankTrade);
    this.poolOf = new Int32Array(TRADES_PER_SECOND);
  }

  /** Runs `count` trades (whole seconds of event time but the last). */
  run(count: number): Window {
    let addNs = 0;
    let addCpuNs = 0;
    let drainNs = 0;
    let drains = 0;
    let drained = 0;
    const { candles, trades, poolOf, drainedRows } = this;
    for (let done = 0; done < count; ) {
      const n = Math.min(TRADES_PER_SECOND, count - done);
      fillSecond(trades, poolOf, this.second++, n, this.pools, this.next);
      const cpuStarted = cpuNs();
      let started = process.hrtime.bigint();
      for (let k = 0; k < n; k++) candles[poolOf[k]!]!.add(trades[k]!);
      addNs += Number(process.hrtime.bigint() - started);
      addCpuNs += cpuNs() - cpuStarted;
      done += n;
      started = process.hrtime.bigint();
      for (const c of candles) {
        c.takeChanged();
        c.drainClosedInto(drainedRows);
        drained += drainedRows.length;
        // Price close and volume: a StoredCandle's items 9 and 14 are the row's too.
        const data = drainedRows.data;
        for (let i = 0; i < drainedRows.length; i++) {
          const o = CandleRows.offset(i);
          this.checksum = (this.checksum + data[o + 9]! * 1e7 + data[o + 14]!) % 1e9;
        }
        drainedRows.clear();
      }
      drainNs += Number(process.hrtime.bigint() - started);
      drains += candles.length;
    }
    return { nsPerAdd: addNs / count, cpuNsPerAdd: addCpuNs / count, nsPerPoolDrain: drainNs / drains, drained };
  }
}

/** Prints one tree's route timings; the cases of `base` (another tree's), if given, as ratios. */
function describeRoute(name: string, t: RouteTimes, log: (line: string) => void, base?: RouteTimes): void {
  const parts = ROUTE_CASES.map(({ interval, limit }) => {
    const k = `${interval}x${limit}`;
    const c = t.cases[k]!;
    const ratio = base ? ` (${(c.p50Us / base.cases[k]!.p50Us).toFixed(2)}x)` : '';
    return `${interval} x ${limit}: ${c.candles} candles p50 ${c.p50Us.toFixed(0)} µs${ratio} mean ${c.meanUs.toFixed(0)} µs`;
  });
  log(`route read, ${name} (${t.swaps.toLocaleString('en-US')} swaps): ${parts.join('; ')}`);
}

async function measureRoute(smoke: boolean, log: (line: string) => void, opts: { other?: string; rounds?: number; hours?: number } = {}): Promise<Record<string, Figure>> {
  const here = fileURLToPath(new URL('..', import.meta.url));
  const run = { hours: opts.hours ?? (smoke ? 0.2 : 5.5), rounds: opts.rounds ?? (smoke ? 3 : 200) };
  const mine = await routeTimes(here, run);
  describeRoute('this tree', mine, log);
  const oneSecond = mine.cases['1sx300']!;
  const figures: Record<string, Figure> = {
    route_1s_300_us: { value: Math.round(oneSecond.p50Us), unit: 'µs' },
    route_1s_300_over_1m_300: { value: Number((oneSecond.p50Us / mine.cases['1mx300']!.p50Us).toFixed(2)), unit: 'x' },
  };
  if (opts.other) {
    const other = await routeTimes(opts.other, run);
    describeRoute(`other tree ${opts.other}`, other, log);
    const again = await routeTimes(here, run);
    describeRoute('this tree again, as ratios to the other', again, log, other);
    for (const c of ROUTE_CASES) {
      const k = `${c.interval}x${c.limit}`;
      if (other.cases[k]!.hash !== mine.cases[k]!.hash) log(`  ${k}: the trees' candles differ (hash ${mine.cases[k]!.hash} against ${other.cases[k]!.hash})`);
    }
    figures.route_1s_300_over_other = { value: Number((((oneSecond.p50Us + again.cases['1sx300']!.p50Us) / 2) / other.cases['1sx300']!.p50Us).toFixed(2)), unit: 'x' };
  }
  return figures;
}

const benchmark: Benchmark = {
  name: 'candles',
  question: 'How many ns does PoolCandles.add cost per trade (7 intervals, 4 tracks, 2 volumes) across 10,000 pools, and the candles route 300 candles of 1s folded from the trades?',
  async run({ smoke, log }) {
    return { ...(await measureAdd(smoke, log)), ...(await measureRoute(smoke, log)) };
  },
};

async function measureAdd(smoke: boolean, log: (line: string) => void): Promise<Record<string, Figure>> {
  const total = smoke ? 20_000 : 1_000_000;
  const pools = smoke ? 100 : 10_000;
  const repeats = smoke ? 1 : 5;
  const market = new Market(pools);
  // Warm-up, 30 s of event time: the JIT settles and the pools reach their steady
  // state (buckets closing 10 s behind, drained buckets reused).
  market.run(smoke ? 20_000 : 30 * TRADES_PER_SECOND);
  const runs: Window[] = [];
  for (let r = 0; r < repeats; r++) runs.push(market.run(total));
  const ns = runs.map((r) => r.nsPerAdd);
  const cpu = runs.map((r) => r.cpuNsPerAdd);
  const value = median(ns);
  const drainNs = median(runs.map((r) => r.nsPerPoolDrain));
  const n = (x: number) => x.toFixed(0);
  log(`${total.toLocaleString('en-US')} trades over ${pools.toLocaleString('en-US')} pools, ${repeats} runs: ${n(value)} ns/add wall (min ${n(Math.min(...ns))}, max ${n(Math.max(...ns))}); CPU ${n(median(cpu))} ns/add (min ${n(Math.min(...cpu))})`);
  log(`takeChanged + drainClosedInto: ${n(drainNs)} ns per pool per second; ${runs[0]!.drained.toLocaleString('en-US')} candles closed per run; peak RSS ${peakRssMiB().toFixed(0)} MiB; result hash ${n(market.checksum)}`);
  return {
    ns_per_add: { value: Math.round(value), unit: 'ns', min: Math.round(Math.min(...ns)), max: Math.round(Math.max(...ns)) },
    cpu_ns_per_add: { value: Math.round(median(cpu)), unit: 'ns', min: Math.round(Math.min(...cpu)), max: Math.round(Math.max(...cpu)) },
    ns_per_pool_drain: { value: Math.round(drainNs), unit: 'ns' },
    peak_rss: { value: Math.round(peakRssMiB()), unit: 'MiB' },
  };
}

export default benchmark;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { smoke: { type: 'boolean', default: false }, part: { type: 'string' }, other: { type: 'string' }, rounds: { type: 'string' }, hours: { type: 'string' } } });
  const smoke = values.smoke!;
  if (values.part !== 'route') await measureAdd(smoke, console.log);
  if (values.part !== 'add') {
    await measureRoute(smoke, console.log, { other: values.other, rounds: values.rounds ? Number(values.rounds) : undefined, hours: values.hours ? Number(values.hours) : undefined });
  }
  process.exit(0);
}
