import { describe, expect, it } from 'vitest';
import { BENCHMARKS, runBenchmarks } from '../../bench/run.ts';

/** Every benchmark runs at its smoke size inside `npm test`, so none can rot. */
describe('benchmarks (smoke)', () => {
  for (const name of Object.keys(BENCHMARKS)) {
    it(`${name} runs and reports positive figures`, async () => {
      const lines: string[] = [];
      const results = await runBenchmarks([name], true, (line) => lines.push(line));
      const figures = Object.values(results[name]!.figures);
      expect(figures.length).toBeGreaterThan(0);
      for (const figure of figures) expect(figure.value).toBeGreaterThan(0);
      expect(lines.length).toBeGreaterThan(1);
    });
  }
});
