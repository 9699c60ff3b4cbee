import {
  deliveredThrough, expectedFrames, marketAddresses, poolsOfConnection, wallMs,
  type ClientCommand, type ClientReport, type ShapeParams,
} from './fanout-plan.ts';
import { openConnection, textFrame, type FrameReader, type FrameSink } from './fanout-wire.ts';

/**
 * One client process of the fan-out benchmark (bench/fanout.ts): holds connections
 * [first, first + count) to the server, each subscribed to pool_trades of its pools
 * (bench/fanout-plan.ts), and counts the frames they receive by header
 * (bench/fanout-wire.ts). One frame in `every` (over the process) is parsed: its
 * `created_at` + `tx_index` µs (the driver's ingest time, bench/fanout-server.ts)
 * against the arrival time of its bytes is one latency sample, and its stream and
 * pool are checked against the connection's subscriptions.
 *
 * Every few milliseconds it reports to the parent how far delivery has come on its
 * slowest connection (`deliveredThrough`): the parent turns that into the driver's
 * credit, so that no connection is ever more than a window of frames behind and the
 * servers measure delivered frames, not growing buffers.
 *
 * Usage: fanout-client.ts '<ClientPlan JSON>' (forked, with IPC).
 */

export interface ClientPlan extends ShapeParams {
  host: string;
  port: number;
  key: string;
  first: number;
  count: number;
  /** Handshakes in flight at once (the server's accept backlog is finite). */
  concurrency: number;
  /** How often the slowest connection's progress is reported (IPC costs ~0.1 ms a message on this machine). */
  progressMs: number;
}

const plan = JSON.parse(process.argv[2]!) as ClientPlan;
/** Reports to the parent; once it is gone (it failed and left), there is no one to tell, and no throw. */
const send = (report: ClientReport) => {
  if (process.connected) process.send!(report);
};
const { pools: addresses } = marketAddresses(plan.pools);

const shared = { counter: 0, sampleEvery: 1_000_000_000 };
let samples: number[] = [];
let wrong = 0;
let unexpected = 0;
let closed = 0;
let exiting = false;
const closeCodes: Record<string, number> = {};
const readers: FrameReader[] = [];
/** Pool addresses each reader may receive (a sample naming another pool is wrong). */
const allowed = new Map<FrameReader, Set<string>>();
const ponged = new Map<FrameReader, () => void>();

const sink: FrameSink = {
  onText(reader, payload, arrivedMs) {
    let frame: { type?: string; stream?: string; data?: { pool_address?: string; created_at?: number; tx_index?: number } };
    try {
      frame = JSON.parse(payload.toString('utf8'));
    } catch {
      wrong++;
      return;
    }
    if (reader.readAll) {
      if (frame.type === 'pong') ponged.get(reader)?.();
      else if (frame.type === 'error') fail(`connection ${reader.index}: error frame ${payload.toString('utf8').slice(0, 200)}`);
      else unexpected++;
      return;
    }
    const data = frame.data;
    if (frame.stream !== 'pool_trades' || !data || !allowed.get(reader)!.has(data.pool_address!) || typeof data.created_at !== 'number') {
      wrong++;
      return;
    }
    samples.push(arrivedMs - (data.created_at + (data.tx_index ?? 0) / 1000));
  },
  onClose(reader, code) {
    if (exiting) return;
    closeCodes[code] = (closeCodes[code] ?? 0) + 1;
    if (!reader.socket.destroyed) reader.socket.end();
  },
};

function fail(message: string): void {
  send({ type: 'error', message });
}

/** Opens connection j: upgrade, subscribe to its pools, ping, and resolves at the pong. */
function open(j: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const pools = poolsOfConnection(plan, j).map((p) => addresses[p]!);
    openConnection({
      host: plan.host, port: plan.port, key: plan.key, index: j, sink, shared,
      onOpen(reader) {
        readers.push(reader);
        allowed.set(reader, new Set(pools));
        ponged.set(reader, () => {
          ponged.delete(reader);
          resolve();
        });
        for (const pool of pools) reader.socket.write(textFrame(JSON.stringify({ type: 'subscribe', stream: 'pool_trades', payload: { pool_address: pool } })));
        reader.socket.write(textFrame('{"type":"ping"}'));
      },
      onClosed() {
        if (!exiting) closed++;
      },
    }).catch(reject);
  });
}

async function openAll(): Promise<void> {
  let next = plan.first;
  const end = plan.first + plan.count;
  const worker = async () => {
    while (next < end) await open(next++);
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, plan.count) }, worker));
}

/**
 * The slowest open connection's delivered-through index (see bench/fanout-plan.ts).
 * A closed connection receives nothing more: counting it would stall the driver
 * forever; the final accounting reports it instead. -1 while none is open.
 */
function through(): number {
  let min = Infinity;
  for (const r of readers) {
    if (r.socket.destroyed) continue;
    const t = deliveredThrough(plan, r.index, r.frames);
    if (t < min) min = t;
  }
  return min === Infinity ? -1 : min;
}

let lastThrough = -1;
let progressTimer: NodeJS.Timeout | null = null;

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

process.on('message', (command: ClientCommand) => {
  switch (command.type) {
    case 'count':
      for (const r of readers) r.readAll = false;
      progressTimer = setInterval(() => {
        const t = through();
        if (t > lastThrough) {
          lastThrough = t;
          send({ type: 'progress', through: t });
        }
      }, plan.progressMs);
      return;
    case 'mark': {
      let frames = 0;
      let bytes = 0;
      for (const r of readers) frames += r.frames;
      for (const r of readers) bytes += r.bytes;
      return send({ type: 'mark', atMs: wallMs(), frames, bytes, cpuUs: cpuUs(), closed });
    }
    case 'sample':
      shared.sampleEvery = command.every;
      shared.counter = 0;
      samples = [];
      return;
    case 'latency': {
      const out = samples;
      samples = [];
      shared.sampleEvery = 1_000_000_000;
      return send({ type: 'latency', samples: out });
    }
    case 'final': {
      let frames = 0;
      let mismatched = 0;
      let missing = 0;
      let extra = 0;
      for (const r of readers) {
        frames += r.frames;
        const diff = r.frames - expectedFrames(plan, r.index, command.events);
        if (diff !== 0) mismatched++;
        if (diff < 0) missing -= diff;
        else extra += diff;
      }
      return send({ type: 'final', frames, mismatched, missing, extra, closed, closeCodes, wrong: wrong + unexpected });
    }
    case 'exit':
      exiting = true;
      if (progressTimer) clearInterval(progressTimer);
      for (const r of readers) r.socket.destroy();
      process.disconnect();
      return;
  }
});
// The parent is gone (it failed or was killed): nothing is left to report to.
process.on('disconnect', () => {
  exiting = true;
  for (const r of readers) r.socket.destroy();
  setImmediate(() => process.exit(0));
});

const started = performance.now();
try {
  await openAll();
  send({ type: 'ready', connections: readers.length, connectMs: performance.now() - started });
} catch (err) {
  fail((err as Error).message);
}
