/**
 * Child process of the crash test: ingests an NDJSON file through the engine and
 * prints `ack <line>` each time every line up to <line> is durable, then `done`; before
 * each, `thrown <n>`: how often its trade counter threw (armed every 1,000 lines).
 * Usage: node --import tsx crash-child.ts <data-dir> <file> [<ingest.logRetentionMs>]
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createEngine } from '../../engine/system.ts';
import { swapCounter } from './swap-counter.ts';
import { throwOnce, tradeCounter } from './trade-counter.ts';
import { testConfig } from './fixtures.ts';

const [data, file, logRetentionMs] = process.argv.slice(2) as [string, string, string | undefined];
const engine = await createEngine({
  config: testConfig(data, { actors: { checkpointMs: 20, sweepMs: 20, idleMs: 30 }, ...(logRetentionMs === undefined ? {} : { ingest: { logRetentionMs: Number(logRetentionMs) } }) }),
  actors: [swapCounter, tradeCounter],
});
/** Every this many lines, the trade counter of that line's swap's wallet is armed to throw once at its next trade (a rebuild). */
const THROW_EVERY = 1_000;
let line = 0;
for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
  line++;
  if (line % THROW_EVERY === 0) {
    const event = JSON.parse(text) as { type: string; wallet_address?: string };
    if (event.type === 'swap') Object.assign(throwOnce, { kind: tradeCounter.kind, wallet: event.wallet_address });
  }
  engine.gate.submitLine(text, 'crash-test', line);
  if (line % 500 === 0) {
    await engine.gate.flush();
    process.stdout.write(`thrown ${throwOnce.thrown}\nack ${line}\n`);
  }
}
await engine.gate.flush();
process.stdout.write(`ack ${line}\n`);
await engine.stop();
process.stdout.write(`thrown ${throwOnce.thrown}\ndone\n`);
