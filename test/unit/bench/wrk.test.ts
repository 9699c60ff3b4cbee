import { describe, expect, it } from 'vitest';
import { parseWrk, wrkMs } from '../../../bench/wrk.ts';

/** What `wrk --latency -s bench/wrk-pipeline.lua ... -- 4 && times` printed on this machine (a server answering 404 to one request in three). */
const OUTPUT = `Running 1s test @ http://127.0.0.1:39002/x
  1 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   577.25us    1.36ms  23.69ms   94.48%
    Req/Sec   106.62k    35.00k  130.01k    81.82%
  Latency Distribution
     50%  262.00us
     75%  401.00us
     90%    1.00ms
     99%    6.23ms
  116351 requests in 1.10s, 25.11MB read
  Non-2xx or 3xx responses: 38784
Requests/sec: 105807.40
Transfer/sec:     22.84MB
0m0.002s 0m0.000s
0m0.063s 0m0.321s
`;

describe('parseWrk', () => {
  it("reads wrk's report and bash's times for wrk's CPU", () => {
    const r = parseWrk(OUTPUT);
    expect(r).toEqual({ requests: 116_351, seconds: 1.1, p50Ms: 0.262, p99Ms: 6.23, maxMs: 23.69, non2xx: 38_784, errors: 0, timeouts: 0, cpuSeconds: 0.384 });
    expect(r.requests / r.seconds).toBeCloseTo(105_773.6, 1);
  });

  it('reads a percentile in seconds, which wrk pads with a trailing space', () => {
    expect(parseWrk(OUTPUT.replace('     99%    6.23ms\n', '     99%    1.67s \n')).p99Ms).toBe(1_670);
  });

  it('counts socket errors (connect, read, write) apart from timeouts', () => {
    const withErrors = OUTPUT.replace('  Non-2xx', '  Socket errors: connect 2, read 5, write 1, timeout 7\n  Non-2xx');
    expect(parseWrk(withErrors)).toMatchObject({ errors: 8, timeouts: 7 });
  });

  it('names what is missing from an output it cannot read', () => {
    expect(() => parseWrk(OUTPUT.replace('     99%    6.23ms\n', ''))).toThrow('wrk: no 99% latency');
    expect(() => parseWrk(OUTPUT.replace(/0m0.063s 0m0.321s\n$/, ''))).toThrow("wrk: no CPU times (bash's times)");
    expect(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n')).toThrow('wrk: no request count');
  });
});

describe('wrkMs', () => {
  it('reads every unit wrk prints', () => {
    expect([wrkMs('812.00us'), wrkMs('1.21ms'), wrkMs('5.00s'), wrkMs('1.50m')]).toEqual([0.812, 1.21, 5_000, 90_000]);
    expect(() => wrkMs('12 ms')).toThrow('wrk: unreadable time "12 ms"');
  });
});
