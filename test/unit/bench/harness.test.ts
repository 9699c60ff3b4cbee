import { describe, expect, it } from 'vitest';
import { compare, percentile } from '../../../bench/harness.ts';

describe('compare', () => {
  it('reads the ratio so that above 1 means mds is ahead, either way round', () => {
    expect(compare({ value: 300, unit: 'req/s', better: 'higher' }, 'Fastify', { value: 100, unit: 'req/s' }).ratio).toBe(3);
    expect(compare({ value: 2, unit: 'ms', better: 'lower' }, 'ws library', { value: 5, unit: 'ms' }).ratio).toBe(2.5);
  });

  it('keeps a ratio far below 1 above zero (a 1-byte baseline against 400 KB)', () => {
    const figure = compare({ value: 400_000, unit: 'B', better: 'lower' }, 'ws library', { value: 1, unit: 'B', better: 'lower' });
    expect(figure.ratio).toBe(0.0000025);
  });
});

describe('percentile', () => {
  it('takes the nearest rank at floor(p × n), the last element for p = 1', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0)).toBe(1);
    expect(percentile(sorted, 0.5)).toBe(51);
    expect(percentile(sorted, 0.99)).toBe(100);
    expect(percentile(sorted, 1)).toBe(100);
    expect(percentile([2, 4, 8], 0.5)).toBe(4);
    expect(percentile([7], 0.99)).toBe(7);
  });

  it('answers NaN for no samples, not a figure', () => {
    expect(percentile(new Float64Array(0), 0.5)).toBeNaN();
    expect(percentile([], 0.99)).toBeNaN();
  });
});
