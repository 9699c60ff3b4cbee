/**
 * The contract every benchmark in bench/ follows. A benchmark states the question
 * it answers, runs at a `smoke` size (seconds, inside `npm test`) or a full size,
 * prints its figures and returns them for bench/results/latest.json.
 */
export interface Figure {
  value: number;
  unit: string;
  /** Over repeats, when the benchmark repeats (`value` is then the median). */
  min?: number;
  max?: number;
  /** Every repeat's value, in run order. */
  repeats?: number[];
  /** Which way is better, for the chart and the ratio's reading. */
  better?: 'higher' | 'lower';
  /** The same figure of the baseline measured in the same run (its median). */
  baseline?: { name: string; value: number };
  /** value / baseline.value (for `better: 'lower'`, baseline.value / value): above 1, mds is ahead. */
  ratio?: number;
  /** The value may be below 0 (a slope: memory shrinking over the run). */
  signed?: boolean;
}

export interface BenchContext {
  smoke: boolean;
  /** Prints one line of the benchmark's report. */
  log(line: string): void;
  /** `--profile DIR`: benchmarks write V8 CPU profiles of the processes they measure here. */
  cpuProfDir?: string;
}

export interface Benchmark {
  name: string;
  question: string;
  run(ctx: BenchContext): Promise<Record<string, Figure>>;
}

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The p-quantile (0..1) of ascending `sorted` by nearest rank (the element at
 * floor(p × n), the last for p = 1); NaN for an empty list: no samples is no figure,
 * and 0 would read as a perfect latency.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** The median of repeated measurements as a Figure, with min, max and every repeat. */
export function summarize(values: number[], unit: string, digits = 0, better?: 'higher' | 'lower'): Figure {
  const round = (v: number) => Number(v.toFixed(digits));
  const figure: Figure = { value: round(median(values)), unit, min: round(Math.min(...values)), max: round(Math.max(...values)), repeats: values.map(round) };
  if (better) figure.better = better;
  return figure;
}

/**
 * Adds the baseline's figure and the ratio (above 1: mds ahead, whichever way is better),
 * to four significant digits: a ratio far below 1 (a noisy 1-byte baseline) stays above 0.
 */
export function compare(figure: Figure, baselineName: string, baseline: Figure): Figure {
  const better = figure.better ?? baseline.better ?? 'higher';
  const ratio = better === 'higher' ? figure.value / baseline.value : baseline.value / figure.value;
  return { ...figure, better, baseline: { name: baselineName, value: baseline.value }, ratio: Number(ratio.toPrecision(4)) };
}

/** 1234567 → "1,234,567". */
export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
