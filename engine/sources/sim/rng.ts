/**
 * The simulator's only source of randomness: sfc32 (Chris Doty-Humphrey's small fast
 * counting generator, PractRand-clean, period at least 2^32), seeded through
 * splitmix32. Every draw of the simulator comes from one instance in a fixed order, so
 * a seed fixes the whole stream. Never Math.random.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  /** Box-Muller makes normals in pairs; the second waits here (NaN = none). */
  private spare = Number.NaN;

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new Error(`rng seed must be a finite number, got ${seed}`);
    const whole = Math.floor(seed);
    const low = whole >>> 0;
    const high = Math.floor(whole / 4294967296) >>> 0;
    let s = splitmix32(low ^ 0x5eed5eed);
    this.a = s;
    s = splitmix32(s ^ high);
    this.b = s;
    s = splitmix32(s + 0x6a09e667);
    this.c = s;
    this.d = splitmix32(s ^ 0xbb67ae85);
    for (let i = 0; i < 16; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const t = (((a + b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n), n at most 2^32. */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.float();
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Exponential with the given mean (the gap of a Poisson process). */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.float());
  }

  /** Standard normal. */
  normal(): number {
    const spare = this.spare;
    if (spare === spare) {
      this.spare = Number.NaN;
      return spare;
    }
    const u = 1 - this.float();
    const v = this.float();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal with the given median and log-space standard deviation. */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Poisson count with mean lambda: Knuth below 30, a rounded normal above. */
  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda < 30) {
      const limit = Math.exp(-lambda);
      let k = 0;
      let p = this.float();
      while (p > limit) {
        k++;
        p *= this.float();
      }
      return k;
    }
    const k = Math.round(lambda + Math.sqrt(lambda) * this.normal());
    return k < 0 ? 0 : k;
  }
}

function splitmix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}
