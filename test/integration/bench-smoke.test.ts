import { describe, expect, it } from 'vitest';
import type { Figure } from '../../bench/harness.ts';
import { BENCHMARKS, runBenchmarks } from '../../bench/run.ts';

/** What a benchmark's figures must show beyond being numbers, by benchmark. */
const EXPECT: Record<string, (figures: Record<string, Figure>) => void> = {
  engine: (f) => {
    expect(f.swaps_per_s!.baseline?.name).toBe('ingest gate alone');
    expect(f.swaps_per_s!.value).toBeGreaterThan(0);
    expect(f.restart_first_pool_ms!.value).toBeGreaterThan(0);
    expect(f.lmdb_bytes_per_million_trades!.value).toBeGreaterThan(0);
  },
  wallets: (f) => {
    // Wallet accounting on against off in the same run; the routes against the cheapest /v1 route.
    expect(f.swaps_per_s_wallets_on!.baseline?.name).toBe('wallet accounting off');
    expect(f.idle_heap_used!.baseline?.name).toBe('wallet accounting off');
    expect(f.positions_rps!.baseline?.name).toBe('/v1/market/sol-price');
    expect(f.leaderboard_rps!.value).toBeGreaterThan(0);
  },
  signals: (f) => {
    // Five simulated minutes through the engine fire the labeled buys, first buys and dev sells at least; on against off in the same run.
    for (const kind of ['smart_money_buy', 'kol_buy', 'whale_buy', 'dev_sell', 'first_buy']) expect(f[`fired_${kind}`]!.value, kind).toBeGreaterThan(0);
    expect(f.swaps_per_s_signals_on!.baseline?.name).toBe('signals off');
  },
  market: (f) => {
    // mds replay as a process beside the floor, on the realistic market and the uniform file.
    for (const shape of ['market', 'uniform']) {
      expect(f[`${shape}_events_per_s`]!.baseline?.name).toMatch(/^floor/);
      expect(f[`${shape}_cpu_us_per_event`]!.value).toBeGreaterThan(0);
      expect(f[`${shape}_heap_max`]!.value).toBeGreaterThan(0);
      expect(f[`${shape}_rss_anon_max`]!.value).toBeGreaterThan(0);
      expect(f[`${shape}_data_dir_per_million_swaps`]!.value).toBeGreaterThan(0);
    }
  },
  pipe: (f) => {
    // Every line written into mds serve's stdin came back as its frame (else the run throws), timed against the floor.
    expect(f.p50_ms_at_200_per_s!.baseline?.name).toMatch(/^pipe read by a bare process/);
    expect(f.p99_ms_at_200_per_s!.value).toBeGreaterThan(0);
  },
  'solana-decode': (f) => {
    // Every fixture decodes (4.46 INGEST events a transaction), against JSON.parse of the same texts.
    expect(f.events_per_tx!.value).toBe(4.46);
    expect(f.decode_from_json_tx_per_s!.baseline?.name).toBe('JSON.parse alone');
    expect(f.decode_tx_per_cpu_s!.value).toBeGreaterThan(0);
  },
  'fanout-topics': (f) => {
    // Every subscriber got every snapshot and each was serialized once (else the run throws): the figures say so too.
    expect(f.rankings_serializations_per_publish!.value).toBe(1);
    expect(f.rankings_subscribers!.value).toBe(20);
    expect(f.rankings_publish_to_last_p99_ms!.value).toBeGreaterThanOrEqual(f.rankings_publish_to_first_p50_ms!.value);
  },
  'serve-memory': (f) => {
    // mds serve at real-time simulator pace for ~20 s: every third has a heap, anonymous and file RSS and a data dir; the clients got frames.
    for (const third of [1, 2, 3]) {
      for (const figure of ['heap_max', 'heap_floor', 'rss_anon_max', 'rss_file_max', 'data_dir', 'heap_total_max', 'resident_pools', 'resident_wallets']) expect(f[`${figure}_third_${third}`]!.value, `${figure}_third_${third}`).toBeGreaterThan(0);
      // Negative while V8 has committed heap pages it has not touched yet (RssAnon counts touched pages only).
      expect(Number.isFinite(f[`native_max_third_${third}`]!.value)).toBe(true);
    }
    expect(Number.isFinite(f.rss_anon_slope!.value)).toBe(true);
    expect(Number.isFinite(f.heap_floor_slope!.value)).toBe(true);
    expect(f.rss_anon_last_over_middle!.value).toBeGreaterThan(0);
    expect(f.ws_frames!.value).toBeGreaterThan(0);
  },
  http: (f) => {
    // Every route mds serves is measured; candles may still be missing from the route table.
    expect(Object.keys(f)).toEqual(expect.arrayContaining(['sol_price_rps', 'pool_rps', 'token_trades_rps']));
    for (const [key, figure] of Object.entries(f)) {
      if (key.endsWith('_rps') && !key.endsWith('_ceiling_rps')) {
        expect(figure.baseline?.name, key).toBe('Fastify');
        expect(figure.value, key).toBeGreaterThan(0);
      }
    }
  },
};

/**
 * Every benchmark runs at its smoke size inside `npm test`, so none can rot. A smoke
 * run measures nothing worth keeping (sub-second loads on a busy machine); it proves
 * the benchmark still runs end to end against today's code and that what it checks
 * along the way holds: the engine ingests every event and its pools count every swap,
 * the restarted engine answers 200, the HTTP baseline answers byte-identical bodies.
 */
describe('benchmarks (smoke)', () => {
  for (const name of Object.keys(BENCHMARKS)) {
    it(`${name} runs and reports its figures`, async () => {
      const lines: string[] = [];
      const results = await runBenchmarks([name], true, (line) => lines.push(line));
      const figures = Object.entries(results[name]!.figures);
      expect(figures.length).toBeGreaterThan(0);
      for (const [key, figure] of figures) {
        expect(Number.isFinite(figure.value), key).toBe(true);
        // A slope (signed) may be below 0: memory shrinking over the run.
        if (!figure.signed) expect(figure.value, key).toBeGreaterThanOrEqual(0);
        expect(figure.unit, key).not.toBe('');
        if (figure.baseline) {
          expect(figure.baseline.value, key).toBeGreaterThan(0);
          expect(figure.ratio, key).toBeGreaterThan(0);
        }
      }
      expect(figures.some(([, f]) => f.value > 0)).toBe(true);
      // The header (question) and at least one line of figures.
      expect(lines[0]).toContain(name);
      expect(lines.length).toBeGreaterThan(2);
      EXPECT[name]?.(results[name]!.figures);
    });
  }

});
