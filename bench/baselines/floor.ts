import { createReadStream } from 'node:fs';
import { open } from 'lmdb';

/**
 * The floor of a durable ingest (issue 25): read the NDJSON file's lines, JSON.parse
 * each, one lmdb-js put per event (keyed by its line number, the parsed object as the
 * value, lmdb-js's default msgpack encoding), the puts' own batching into transactions;
 * done when the last put is committed. No validation, no dedup, no derived figure: what
 * any design that keeps every event durably must at least do.
 * Usage: node --import tsx bench/baselines/floor.ts FILE DIR
 */
const [file, dir] = process.argv.slice(2);
const db = open({ path: dir! });
let seq = 0;
let last: Promise<boolean> = Promise.resolve(true);
let rest = '';
let sinceWait = 0;
const started = performance.now();
for await (const chunk of createReadStream(file!, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
  const text = rest + (chunk as string);
  let from = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
    if (nl > from) {
      last = db.put(++seq, JSON.parse(text.slice(from, nl)));
      sinceWait++;
    }
    from = nl + 1;
  }
  rest = text.slice(from);
  // As a source honouring backpressure would: wait for the commits when many are queued.
  if (sinceWait >= 50_000) {
    await last;
    sinceWait = 0;
  }
}
if (rest.trim()) last = db.put(++seq, JSON.parse(rest));
await last;
const seconds = (performance.now() - started) / 1000;
await db.close();
process.stdout.write(`${JSON.stringify({ events: seq, seconds })}\n`);
