import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { describe, FULL, SMOKE } from './fanout.ts';
import { runCase, type Sizes } from './fanout-case.ts';
import type { ServerKind, Shape } from './fanout-plan.ts';
import type { Feed } from './fanout-server.ts';
import { profileLines, profileOfPid, summarizeProfile } from './profile.ts';

/**
 * One case of the fan-out benchmark (bench/fanout.ts), repeated, for A/B work on one
 * figure without the whole 4-minute matrix; it writes no results file.
 *
 *   npx tsx bench/fanout-one.ts [--smoke] [--kind mds|ws|uws] [--shape one-topic|ten-pools]
 *     [--connections 100] [--repeat 1] [--full-ms 4000] [--latency-ms 3000]
 *     [--small-frames] [--stages] [--feed pipe|embedded] [--profile DIR] [--server-flags=--max-semi-space-size=16]
 *
 * Sizes are FULL's (3 clients, 10,000 pools, 1 s warm-up) or, with `--smoke`, SMOKE's.
 * `--stages`: the server child (mds or ws) also prints where the sampled events' time
 * went between ingest and publish, its GC pauses and event-loop delay
 * (bench/fanout-stages.ts). `--server-flags`: V8 flags for the server child only.
 * `--feed`: the engine servers' events through a named pipe into the NDJSON source, as
 * `decoder | mds serve --source ndjson:-` (`pipe`, the default), or submitted to the
 * gate in process (`embedded`, how the benchmark fed them before issue 20).
 */

const { values } = parseArgs({
  options: {
    kind: { type: 'string', default: 'mds' },
    smoke: { type: 'boolean', default: false },
    shape: { type: 'string', default: 'one-topic' },
    connections: { type: 'string', default: '100' },
    repeat: { type: 'string', default: '1' },
    'full-ms': { type: 'string' },
    'latency-ms': { type: 'string' },
    'small-frames': { type: 'boolean', default: false },
    stages: { type: 'boolean', default: false },
    feed: { type: 'string', default: 'pipe' },
    'server-flags': { type: 'string', default: '' },
    profile: { type: 'string' },
  },
});

const kind = values.kind as ServerKind;
const feed = values.feed as Feed;
if (!['pipe', 'embedded'].includes(feed)) throw new Error(`--feed: pipe or embedded, not ${feed}`);
const shape = values.shape as Shape;
if (!['mds', 'ws', 'uws'].includes(kind)) throw new Error(`--kind: mds, ws or uws, not ${kind}`);
if (!['one-topic', 'ten-pools'].includes(shape)) throw new Error(`--shape: one-topic or ten-pools, not ${shape}`);
const connections = Number(values.connections);
if (!Number.isInteger(connections) || connections < 1) throw new Error(`--connections: a positive integer, not ${values.connections}`);
const base = values.smoke ? SMOKE : FULL;
const sizes: Sizes = {
  ...base,
  connections: [connections],
  fullMs: values['full-ms'] === undefined ? base.fullMs : Number(values['full-ms']),
  latencyMs: values['latency-ms'] === undefined ? base.latencyMs : Number(values['latency-ms']),
};
const cpuProfDir = values.profile;
if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });

for (let i = 0; i < Number(values.repeat); i++) {
  const load = loadavg().map((v) => v.toFixed(2)).join(' ');
  console.log(`# ${kind} ${shape} x ${connections} (run ${i + 1}, load ${load})`);
  const r = await runCase(kind, shape, connections, sizes, { smallFrames: values['small-frames'], cpuProfDir, stages: values.stages, feed, serverFlags: values['server-flags'].split(' ').filter(Boolean) });
  for (const line of describe(r)) console.log(line);
  for (const line of r.stageLines) console.log(`    ${line}`);
  if (cpuProfDir) {
    const profile = profileOfPid(cpuProfDir, r.serverPid);
    if (profile) for (const line of profileLines(summarizeProfile(profile, 25))) console.log(`    server ${line}`);
  }
}
