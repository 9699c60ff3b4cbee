import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { NODE_FLAGS, servingPort, TSX } from './child.ts';
import { openFifo } from './fifo.ts';
import { compare, fmt, percentile, type Benchmark, type Figure } from './harness.ts';
import { addressMaker, liveSwapLine, liveTxHash } from './fixtures/swaps.ts';

/**
 * Question: how long does a line written into the pipe of `mds serve --source ndjson:-`
 * take to reach a WebSocket client as a pool_trades frame, at a steady rate?
 *
 * Setup: `mds serve --source ndjson:-` (a child, the flags of `npm start`) whose stdin
 * is a named pipe (mkfifo), as with `decoder | mds serve --source ndjson:-`; this
 * process is the decoder: it writes one swap line per write(2) into the pipe, at a
 * steady rate, and holds one WebSocket connection subscribed to pool_trades of the
 * pool they trade in. Latency: from just before a line's write to its frame parsed by
 * the client (the same clock). Every line must come back exactly once. Unpinned: mds,
 * its parse workers and this process share the machine's cores.
 *
 * Baseline, same run, same phases: the floor, a bare process reading the pipe line by
 * line and publishing each swap at once through bare uWebSockets.js
 * (bench/baselines/pipe-echo.ts): what the pipe, an event loop, loopback and the client
 * add on this machine at that moment, with no engine. On a shared machine the p99 is
 * mostly the machine's; the floor's own p99 says how much.
 *
 * What a line goes through: the kernel pipe, mds's stdin read, a parse worker and back
 * (engine/sources/ndjson.ts), the gate's batch, the pool actor, the publisher, uWS.
 * Before issue 20's fix, the source applied nothing until six pieces were read (1 MiB
 * or the end of input); a line at a time never came out.
 *
 * Estimate: a worker round trip (~0.1-0.3 ms), a batch released in the turn it is
 * written (README "Batches"), the frame written in the same turn: p50 ~1 ms, p99 a few
 * ms at 1,000 lines/s on an idle machine. Target: p99 < 10 ms.
 */

const MDS = fileURLToPath(new URL('../bin/mds.js', import.meta.url));
const ECHO = fileURLToPath(new URL('./baselines/pipe-echo.ts', import.meta.url));
const HOST = '127.0.0.1';
/** wSOL (INGEST.md: known with 9 decimals, no token event needed). */
const WSOL = 'So11111111111111111111111111111111111111112';

interface Phase {
  /** Lines per second written. */
  rate: number;
  ms: number;
}

const FULL: Phase[] = [
  { rate: 100, ms: 5_000 },
  { rate: 1_000, ms: 5_000 },
  { rate: 10_000, ms: 5_000 },
];
const SMOKE: Phase[] = [{ rate: 200, ms: 500 }];

export interface PhaseResult {
  rate: number;
  lines: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Who reads the pipe: `mds serve --source ndjson:-`, or the floor (bench/baselines/pipe-echo.ts). */
export type PipeServer = 'mds' | 'echo';

/** The server with its stdin a named pipe this process writes; its port read from its start-up log line. */
async function startServe(dir: string, server: PipeServer): Promise<{ port: number; key: string; pipe: number; stop(): Promise<void> }> {
  const data = join(dir, 'data');
  let key = 'bench-pipe-echo';
  if (server === 'mds') {
    const created = spawnSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'pro', '--data', data], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`mds keys create: ${created.stderr}`);
    key = created.stdout.trim();
  }
  const { readFd: readEnd, writeFd: pipe } = openFifo(dir);
  const args =
    server === 'mds'
      ? [...NODE_FLAGS, MDS, 'serve', '--data', data, '--port', '0', '--host', HOST, '--source', 'ndjson:-', '--log-level', 'info']
      : ['--import', TSX, ...NODE_FLAGS, ECHO, key];
  const child = spawn(process.execPath, args, { stdio: [readEnd, 'ignore', 'pipe'] });
  closeSync(readEnd);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const serving = servingPort(child, exited, server);
  const port = await serving.port;
  return {
    port,
    key,
    pipe,
    async stop() {
      // With the pipe still open: mds stops on SIGTERM without waiting for its end.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      closeSync(pipe);
      if (code !== 0) throw new Error(`${server} exited ${code} on SIGTERM: ${serving.tail()}`);
    },
  };
}

/**
 * A client on pool_trades of `pool`: calls `onTrade` with each frame's tx_hash as it is
 * parsed, and `onProblem` with any other frame that should not come.
 */
async function subscribe(port: number, key: string, pool: string, onTrade: (txHash: string) => void, onProblem: (problem: string) => void): Promise<WebSocket> {
  const ws = new WebSocket(`ws://${HOST}:${port}/ws`, { headers: { authorization: `Bearer ${key}` }, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', (err) => onProblem(`client: ${err.message}`));
  ws.on('close', (code) => onProblem(`connection closed (${code})`));
  let pong!: () => void;
  const ponged = new Promise<void>((resolve) => (pong = resolve));
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as { type?: string; stream?: string; data?: { tx_hash: string } };
    if (frame.stream === 'pool_trades') onTrade(frame.data!.tx_hash);
    else if (frame.type === 'pong') pong();
    else onProblem(`unexpected frame ${JSON.stringify(frame).slice(0, 300)}`);
  });
  ws.send(JSON.stringify({ type: 'subscribe', stream: 'pool_trades', payload: { pool_address: pool } }));
  // The server handles a connection's frames in order: after the pong, the subscription holds.
  ws.send(JSON.stringify({ type: 'ping' }));
  await ponged;
  return ws;
}

/**
 * For each phase, writes swap lines into the pipe at its rate for its time, one
 * write(2) each, and waits for every line's frame; the latencies by phase.
 */
export async function measurePipe(phases: Phase[], log: (line: string) => void, server: PipeServer = 'mds'): Promise<PhaseResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-pipe-'));
  let serve: Awaited<ReturnType<typeof startServe>> | null = null;
  let ws: WebSocket | null = null;
  let stopping = false;
  let failed = false;
  try {
    serve = await startServe(dir, server);
    const make = addressMaker(9_001);
    const [mint, pool, wallet, tail] = [make(44), make(44), make(44), make(77)];
    /** Lines written whose frame has not come: tx hash → when written (performance.now()). */
    const sentAt = new Map<string, number>();
    let latencies: number[] = [];
    let phase: { left: number; settle: (problem: string | null) => void } | null = null;
    const problem = (text: string) => {
      if (!stopping) phase?.settle(text);
    };
    ws = await subscribe(
      serve.port,
      serve.key,
      pool,
      (txHash) => {
        const at = sentAt.get(txHash);
        if (at === undefined) return problem(`a frame for a trade not written, or a second one: ${txHash}`);
        latencies.push(performance.now() - at);
        sentAt.delete(txHash);
        if (phase && --phase.left === 0) phase.settle(null);
      },
      problem,
    );
    const write = (line: string) => {
      const bytes = Buffer.from(line + '\n');
      // A full pipe (64 KiB) blocks here, as it blocks a decoder; mds drains it at these rates.
      for (let off = 0; off < bytes.length; ) off += writeSync(serve!.pipe, bytes, off);
    };
    const now = Date.now();
    const slot = Math.floor(now / 400) - 10;
    write(`{"type":"quote_price","quote_address":"${WSOL}","price_usd":150,"at":${now}}`);
    write(`{"type":"token","token_address":"${mint}","decimals":6,"supply_raw":"1000000000000000","symbol":"PIPE","name":"Pipe bench","slot":${slot},"at":${now}}`);
    write(`{"type":"pool","pool_address":"${pool}","base_address":"${mint}","quote_address":"${WSOL}","dex":"pumpfun","pool_type":"bonding_curve","created_at":${now},"curve_initial_real_base_raw":"793100000000000","slot":${slot}}`);
    let k = 0;
    /** Writes lines at `rate` for `ms`; resolves once all their frames are in. */
    const run = (rate: number, ms: number) =>
      new Promise<void>((resolve, reject) => {
        const total = Math.max(1, Math.round((rate * ms) / 1000));
        let written = 0;
        let timer: NodeJS.Timeout | null = null;
        phase = {
          left: total,
          settle(failure) {
            if (timer) clearTimeout(timer);
            phase = null;
            if (failure) reject(new Error(failure));
            else resolve();
          },
        };
        const started = performance.now();
        const tick = () => {
          if (!phase) return;
          const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
          for (; written < due; written++, k++) {
            const writtenAt = performance.now();
            sentAt.set(liveTxHash(k, tail), writtenAt);
            write(liveSwapLine(k, Date.now(), pool, wallet, tail));
          }
          if (written < total) timer = setTimeout(tick, 1);
          else timer = setTimeout(() => phase?.settle(`${sentAt.size} of ${total} lines got no frame within 10 s of the last write`), 10_000);
        };
        tick();
      });
    // Warm-up: the pool actor active, the code paths compiled.
    await run(200, 500);
    const results: PhaseResult[] = [];
    for (const { rate, ms } of phases) {
      latencies = [];
      await run(rate, ms);
      const sorted = Float64Array.from(latencies).sort();
      const r = { rate, lines: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: sorted[sorted.length - 1]! };
      results.push(r);
      log(`${server}: ${fmt(rate)} lines/s, one write(2) each (${fmt(r.lines)} lines): pipe write to pool_trades frame p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, max ${r.maxMs.toFixed(2)} ms`);
    }
    return results;
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    stopping = true;
    ws?.close();
    try {
      await serve?.stop();
    } catch (err) {
      // Not in place of the failure that brought us here.
      if (!failed) throw err;
      log(`and then: ${(err as Error).message.split('\n')[0]}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

const one = (value: number, unit: string, digits: number, better: 'higher' | 'lower'): Figure => ({ value: Number(value.toFixed(digits)), unit, better });

const benchmark: Benchmark = {
  name: 'pipe',
  question: 'How long does a line written into the pipe of `mds serve --source ndjson:-` take to reach a WebSocket client (pool_trades), at a steady rate?',
  async run({ smoke, log }) {
    const phases = smoke ? SMOKE : FULL;
    const results = await measurePipe(phases, log, 'mds');
    const floor = await measurePipe(phases, log, 'echo');
    const figures: Record<string, Figure> = {};
    const name = 'pipe read by a bare process (readline, JSON.parse, bare uWS publish)';
    results.forEach((r, i) => {
      const f = floor[i]!;
      figures[`p50_ms_at_${r.rate}_per_s`] = compare(one(r.p50Ms, 'ms', 3, 'lower'), name, one(Math.max(f.p50Ms, 0.001), 'ms', 3, 'lower'));
      figures[`p99_ms_at_${r.rate}_per_s`] = compare(one(r.p99Ms, 'ms', 3, 'lower'), name, one(Math.max(f.p99Ms, 0.001), 'ms', 3, 'lower'));
      figures[`max_ms_at_${r.rate}_per_s`] = one(r.maxMs, 'ms', 3, 'lower');
      log(`=> ${fmt(r.rate)} lines/s: mds p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms; the floor (no engine) p50 ${f.p50Ms.toFixed(2)} ms, p99 ${f.p99Ms.toFixed(2)} ms`);
    });
    return figures;
  },
};

export default benchmark;
