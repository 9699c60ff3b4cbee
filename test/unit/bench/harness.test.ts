import { describe, expect, it } from 'vitest';
import { compare } from '../../../bench/harness.ts';

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
