/**
 * The contract every benchmark in bench/ follows. A benchmark states the question
 * it answers, runs at a `smoke` size (seconds, inside `npm test`) or a full size,
 * prints its figures and returns them for bench/results/latest.json.
 */
export interface Figure {
  value: number;
  unit: string;
  /** Over repeats, when the benchmark repeats. */
  min?: number;
  max?: number;
}

export interface BenchContext {
  smoke: boolean;
  /** Prints one line of the benchmark's report. */
  log(line: string): void;
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
