/**
 * Child process of the crash test: ingests an NDJSON file through the engine and
 * prints `ack <line>` each time every line up to <line> is durable, then `done`.
 * Usage: node --import tsx crash-child.ts <data-dir> <file>
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createEngine } from '../../engine/system.ts';
import { swapCounter } from './swap-counter.ts';
import { testConfig } from './fixtures.ts';

const [data, file] = process.argv.slice(2) as [string, string];
const engine = await createEngine({
  config: testConfig(data, { actors: { checkpointMs: 20, sweepMs: 20, idleMs: 30 } }),
  actors: [swapCounter],
});
let line = 0;
for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
  line++;
  engine.gate.submitLine(text, 'crash-test', line);
  if (line % 500 === 0) {
    await engine.gate.flush();
    process.stdout.write(`ack ${line}\n`);
  }
}
await engine.gate.flush();
process.stdout.write(`ack ${line}\n`);
await engine.stop();
process.stdout.write('done\n');
