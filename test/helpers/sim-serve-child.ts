/**
 * Child process of the simulator restart test: `mds serve`'s simulator (serveSimSource)
 * on a data directory at `speed` simulated ms per wall ms from <start-at>, saving its
 * state every 1,000 events; prints `applied <count>` after each applied batch, until
 * killed. Usage: node --import tsx sim-serve-child.ts <data-dir> <start-at> <speed>
 */
import { serveSimSource } from '../../engine/serve.ts';
import { createEngine } from '../../engine/system.ts';
import { KEEP_LOG, testConfig } from './fixtures.ts';

const [data, startAt, speed] = process.argv.slice(2) as [string, string, string];
const engine = await createEngine({ config: testConfig(data, { source: 'sim', sim: { seed: 42, speed: Number(speed) }, ingest: KEEP_LOG }) });
// Wall time from <start-at> at its first reading (the market's start).
let origin = -1;
const now = () => {
  const t = performance.now();
  if (origin < 0) origin = t;
  return Number(startAt) + (t - origin);
};
let applied = 0;
engine.onApplied((events) => {
  applied += events.length;
  process.stdout.write(`applied ${applied}\n`);
});
void engine.runSource(serveSimSource(engine, { now, persist: { everyEvents: 1_000 } }));
