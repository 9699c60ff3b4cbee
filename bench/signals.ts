import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOKEN_SIGNAL_KINDS, WALLET_SIGNAL_KINDS, type SignalKind } from '../engine/model/index.ts';
import { runChild } from './child.ts';
import type { EngineChildResult } from './engine-child.ts';
import { writeSwaps } from './fixtures/swaps.ts';
import { compare, fmt, summarize, type Benchmark, type Figure } from './harness.ts';

/**
 * Question: does a simulated hour through the whole engine fire every signal kind, and
 * how often; and what do signals cost the engine per swap?
 *
 * - kinds: the simulator's events (seed 42; 60 minutes, 5 in the smoke run) written to
 *   an NDJSON file and replayed by a real engine under the event clock (the signal
 *   actors on the router, the signals store); the store's signals counted per kind. The
 *   full run fails if a kind never fires.
 * - swaps/s: bench/engine-child.ts on one file (bench/fixtures/swaps.ts: priced swaps
 *   round-robin over bonding curves, 5,000 unlabeled wallets), signals on (the engine as
 *   it ships) against off (MDS_BENCH_SIGNALS=off), fresh processes alternated. Budget
 *   (issue 23, feeds and signals together): on ≥ 0.9 × off; signals alone about 4 %.
 *   `node --import tsx bench/ab.ts --a . --b . --mode engine --a-env MDS_BENCH_SIGNALS=off`
 *   gives the same comparison over more rounds.
 */

const ENGINE_CHILD = fileURLToPath(new URL('./engine-child.ts', import.meta.url));
export const ALL_KINDS: readonly SignalKind[] = [...TOKEN_SIGNAL_KINDS, ...WALLET_SIGNAL_KINDS];

/** Signals per kind of `minutes` of the simulator (seed) through a real engine in `dir`. */
export async function signalsOfSimulation(dir: string, minutes: number, seed: number): Promise<{ counts: Record<SignalKind, number>; events: number; firstAt: Record<SignalKind, number | null>; seconds: number }> {
  const [{ writeSimFile, SIM_FILE_START_AT }, { createEngine }, { loadConfig }] = await Promise.all([
    import('../engine/sources/sim/index.ts'),
    import('../engine/system.ts'),
    import('../engine/config.ts'),
  ]);
  const file = join(dir, `sim-${seed}-${minutes}m.ndjson`);
  const { events } = await writeSimFile({ out: file, durationMs: minutes * 60_000, seed });
  const engine = await createEngine({ config: loadConfig({ flags: { data: join(dir, `data-${seed}`), source: 'none', clock: 'event', logLevel: 'silent', port: 0 } }) });
  const started = performance.now();
  try {
    await engine.runSource(engine.createSource(`ndjson:${file}`));
    const seconds = (performance.now() - started) / 1000;
    const counts = Object.fromEntries(ALL_KINDS.map((k) => [k, 0])) as Record<SignalKind, number>;
    const firstAt = Object.fromEntries(ALL_KINDS.map((k) => [k, null])) as Record<SignalKind, number | null>;
    for (const s of engine.signals!.all()) {
      counts[s.kind]++;
      const minute = (s.at - SIM_FILE_START_AT) / 60_000;
      if (firstAt[s.kind] === null || minute < firstAt[s.kind]!) firstAt[s.kind] = minute;
    }
    return { counts, events, firstAt, seconds };
  } finally {
    await engine.stop();
  }
}

const benchmark: Benchmark = {
  name: 'signals',
  question: 'Does a simulated hour through the engine fire every signal kind (how often), and what do signals cost per swap?',
  async run({ smoke, log }) {
    const minutes = smoke ? 5 : 60;
    const swaps = smoke ? 5_000 : 100_000;
    const pools = smoke ? 50 : 1_000;
    const repeats = smoke ? 1 : 3;
    const dir = mkdtempSync(join(tmpdir(), 'mds-bench-signals-'));
    try {
      const sim = await signalsOfSimulation(dir, minutes, 42);
      log(`simulator seed 42, ${minutes} min: ${fmt(sim.events)} events through the engine in ${sim.seconds.toFixed(1)} s`);
      const figures: Record<string, Figure> = {};
      for (const kind of ALL_KINDS) {
        const first = sim.firstAt[kind];
        log(`  ${kind.padEnd(16)} ${fmt(sim.counts[kind]).padStart(6)}${first === null ? '' : `  first at minute ${first.toFixed(1)}`}`);
        figures[`fired_${kind}`] = summarize([sim.counts[kind]], 'signals', 0);
      }
      const silent = ALL_KINDS.filter((k) => sim.counts[k] === 0);
      if (!smoke && silent.length > 0) throw new Error(`kinds that never fired in the simulated hour: ${silent.join(', ')}`);

      const file = join(dir, 'swaps.ndjson');
      const written = await writeSwaps(file, swaps, pools, { declare: true });
      const poolsFile = join(dir, 'pools.json');
      writeFileSync(poolsFile, JSON.stringify(written.pools));
      const on: number[] = [];
      const off: number[] = [];
      for (let r = 0; r < repeats; r++) {
        for (const mode of ['off', 'on'] as const) {
          const data = join(dir, `engine-${mode}-${r}`);
          const e = await runChild<EngineChildResult>(ENGINE_CHILD, ['engine', file, data, poolsFile], { env: { MDS_BENCH_SIGNALS: mode } });
          rmSync(data, { recursive: true, force: true });
          if (e.trades !== swaps || e.deadLetters) throw new Error(`engine (signals ${mode}) counted ${e.trades}/${swaps} trades, ${e.deadLetters} dead letters`);
          (mode === 'on' ? on : off).push(swaps / e.seconds);
          log(`whole engine, signals ${mode.padEnd(3)} #${r + 1}: ${fmt(swaps / e.seconds)} swaps/s`);
        }
      }
      const offRate = summarize(off, 'swaps/s', 0, 'higher');
      const onRate = compare(summarize(on, 'swaps/s', 0, 'higher'), 'signals off', offRate);
      log(`median: on ${fmt(onRate.value)} swaps/s = ${onRate.ratio}x off (${fmt(offRate.value)})`);
      figures.swaps_per_s_signals_on = onRate;
      figures.swaps_per_s_signals_off = offRate;
      return figures;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
