import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { WallClock } from '../engine/clock.ts';
import { loadConfig } from '../engine/config.ts';
import { createKeyStore } from '../engine/plans/index.ts';
import { writeSimFile } from '../engine/sources/sim/index.ts';
import { createEngine } from '../engine/system.ts';
import { loadCursorSecret } from '../transport/http/cursor.ts';

/**
 * The data bench/http.ts serves (run as a child, so its heap is not the runner's): a
 * simulated market written to NDJSON and ingested into a data directory, the way an
 * operator would (`mds sim` then `mds replay`), with simulated time ending a minute
 * before now so that the trade routes' default 24-hour window holds it all under the
 * wall clock `mds serve` runs with. Then a `scale` key, the cursor secret, and the pool with the most
 * swaps (its base token for the token route) as the subject of the loaded routes.
 *
 * Usage: http-setup.ts --dir DIR --minutes N --trade-rate X
 */

export interface HttpSetup {
  key: string;
  pool: string;
  token: string;
  events: number;
  swaps: number;
  poolSwaps: number;
  seconds: number;
}

const { values } = parseArgs({ options: { dir: { type: 'string' }, minutes: { type: 'string' }, 'trade-rate': { type: 'string' } } });
const dir = values.dir!;
const durationMs = Number(values.minutes) * 60_000;
const started = performance.now();
const file = `${dir}/market.ndjson`;
const { events } = await writeSimFile({ out: file, durationMs, seed: 42, startAt: Date.now() - durationMs - 60_000, tradeRate: Number(values['trade-rate']) });

// The busiest pool, from the file (JSON.parse only on the lines that matter).
const swapsByPool = new Map<string, number>();
const baseOf = new Map<string, string>();
let swaps = 0;
for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
  if (line.startsWith('{"type":"swap"')) {
    const pool = (JSON.parse(line) as { pool_address: string }).pool_address;
    swapsByPool.set(pool, (swapsByPool.get(pool) ?? 0) + 1);
    swaps++;
  } else if (line.startsWith('{"type":"pool"')) {
    const e = JSON.parse(line) as { pool_address: string; base_address: string };
    baseOf.set(e.pool_address, e.base_address);
  }
}
const [pool, poolSwaps] = [...swapsByPool].sort((a, b) => b[1] - a[1])[0]!;

const config = loadConfig({ flags: { data: `${dir}/data`, source: `ndjson:${file}`, logLevel: 'warn' } });
const engine = await createEngine({ config });
await engine.runSource(engine.createSource(config.source));
const { ingested, deadLetters } = engine.query.status();
if (ingested !== events || deadLetters !== 0) throw new Error(`ingested ${ingested} of ${events} events, ${deadLetters} dead letters`);
const { key } = await createKeyStore(engine.storage, new WallClock()).create({ plan: 'scale' });
// Made now, before the directory is copied for the baseline, so both servers sign cursors alike.
await loadCursorSecret(engine.storage);
await engine.stop();

const setup: HttpSetup = { key, pool, token: baseOf.get(pool)!, events, swaps, poolSwaps, seconds: (performance.now() - started) / 1000 };
process.send!(setup);
process.disconnect();
