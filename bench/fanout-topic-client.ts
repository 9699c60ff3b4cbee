import { openConnection, textFrame, type FrameReader, type FrameSink } from './fanout-wire.ts';

/**
 * One client process of the topic fan-out benchmark (bench/fanout-topics.ts): holds
 * `count` connections, each subscribed once (`subscribe`, the case's message), and
 * reads every frame whole. A frame of the case's stream is one delivery of a round,
 * named by the number after `"<roundField>":` (searched from the frame's end, without
 * parsing the rest); anything else is counted as wrong. When every connection of the
 * process has received a round, it reports the round's first and last arrival times
 * (the same clock in every process: wallMs); at `final`, how many rounds each
 * connection missed.
 *
 * Usage: fanout-topic-client.ts '<TopicClientPlan JSON>' (forked, with IPC).
 */

export interface TopicClientPlan {
  host: string;
  port: number;
  key: string;
  count: number;
  /** The subscribe message every connection sends (`{"type":"subscribe",...}`). */
  subscribe: unknown;
  /** The `stream` of the frames counted. */
  stream: string;
  /** The numeric field naming a frame's round (the last occurrence in the frame). */
  roundField: string;
  /** Handshakes in flight at once. */
  concurrency: number;
}

export type TopicClientCommand = { type: 'final' } | { type: 'exit' };
export type TopicClientReport =
  | { type: 'ready'; connections: number; round: number }
  | { type: 'round'; round: number; firstMs: number; lastMs: number; bytes: number }
  | { type: 'final'; rounds: number; missed: number; wrong: number; closed: number }
  | { type: 'error'; message: string };

const plan = JSON.parse(process.argv[2]!) as TopicClientPlan;
const send = (report: TopicClientReport) => {
  if (process.connected) process.send!(report);
};
const prefix = Buffer.from(`{"stream":${JSON.stringify(plan.stream)}`);
const field = Buffer.from(`"${plan.roundField}":`);

/** Per round: connections that received it, first and last arrival, the frame's size. */
const rounds = new Map<number, { got: number; firstMs: number; lastMs: number; bytes: number }>();
/** Per connection: the rounds it received. */
const received = new Map<FrameReader, Set<number>>();
const readers: FrameReader[] = [];
let wrong = 0;
let closed = 0;
let exiting = false;
let readyRound: ((round: number) => void) | null = null;

function roundOf(payload: Buffer): number | null {
  if (payload.subarray(0, prefix.length).compare(prefix) !== 0) return null;
  const at = payload.lastIndexOf(field);
  if (at < 0) return null;
  let i = at + field.length;
  let n = 0;
  let digits = 0;
  for (; i < payload.length && payload[i]! >= 48 && payload[i]! <= 57; i++, digits++) n = n * 10 + payload[i]! - 48;
  return digits > 0 ? n : null;
}

const sink: FrameSink = {
  onText(reader, payload, arrivedMs) {
    const round = roundOf(payload);
    const mine = received.get(reader)!;
    if (round === null || mine.has(round)) {
      wrong++;
      return;
    }
    mine.add(round);
    let r = rounds.get(round);
    if (!r) rounds.set(round, (r = { got: 0, firstMs: arrivedMs, lastMs: arrivedMs, bytes: payload.length }));
    r.got++;
    if (arrivedMs < r.firstMs) r.firstMs = arrivedMs;
    if (arrivedMs > r.lastMs) r.lastMs = arrivedMs;
    if (r.got === plan.count) {
      if (readyRound) readyRound(round);
      else send({ type: 'round', round, firstMs: r.firstMs, lastMs: r.lastMs, bytes: r.bytes });
    }
  },
  onClose(reader) {
    if (!exiting && !reader.socket.destroyed) reader.socket.end();
  },
};

/** Opens connection j: upgrade, then the subscribe message; resolves once upgraded. */
async function open(j: number): Promise<void> {
  await openConnection({
    host: plan.host, port: plan.port, key: plan.key, index: j, sink, shared: { counter: 0, sampleEvery: 1 },
    onOpen(reader) {
      readers.push(reader);
      received.set(reader, new Set());
      reader.socket.write(textFrame(JSON.stringify(plan.subscribe)));
    },
    onClosed() {
      if (!exiting) closed++;
    },
  });
}

process.on('message', (command: TopicClientCommand) => {
  if (command.type === 'final') {
    let missed = 0;
    for (const r of readers) missed += rounds.size - received.get(r)!.size;
    send({ type: 'final', rounds: rounds.size, missed, wrong, closed });
  } else {
    exiting = true;
    for (const r of readers) r.socket.destroy();
    process.disconnect();
  }
});
process.on('disconnect', () => {
  exiting = true;
  for (const r of readers) r.socket.destroy();
  setImmediate(() => process.exit(0));
});

try {
  // Every connection's first frame is the snapshot a subscribe sends: once all have it, the process is ready.
  const first = new Promise<number>((resolve) => (readyRound = resolve));
  let next = 0;
  const worker = async () => {
    while (next < plan.count) await open(next++);
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, plan.count) }, worker));
  const round = await first;
  readyRound = null;
  send({ type: 'ready', connections: readers.length, round });
} catch (err) {
  send({ type: 'error', message: (err as Error).message });
}
