import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import WebSocket from 'ws';
import { parseDuration } from '../engine/sources/sim/index.ts';

/**
 * Soak: `mds serve` with its simulator running fast, every HTTP route asked with items
 * seen so far and every trade list walked by cursor, WebSocket clients on every stream
 * (subscribing, unsubscribing, pinging); then SIGKILL, a restart on the same data, the
 * checks once more, and SIGTERM. It reports what must never happen:
 * - a 5xx, or a 400 on a well-formed request, or a body that is not JSON; requests
 *   malformed on purpose (bad paths and parameter values, repeated or unknown
 *   parameters) answered otherwise than 400/4000 or 404/4040; on a starter key (its
 *   limits kept), an answer without the rate and quota headers, a 429 without
 *   Retry-After or with another code than 4290/4292, or any status but 200 and 429;
 * - a trade listed twice or out of order in one walk (pool, token and wallet trades),
 *   a pool twice in a walk of `/pools` by creation time (lists by liquidity or volume
 *   may repeat a pool whose rank moved between pages: README);
 * - a candle seq going back on a subscription, an error frame, a close the client did
 *   not ask for; a malformed frame (not JSON, not an object, over 16 KiB, a bad
 *   payload, binary, another key) closed otherwise than with its code (4400; 4401 for
 *   the key), or ignored without the next ping's pong;
 * - an error in the server's log (warnings are printed and counted, not reported);
 * - a pool whose trade_count went back after the kill, once /health said the counts
 *   read were durable (a crash loses only what is not on disk).
 * Exit 1 if anything was reported. Items, routes and frames are drawn with Math.random:
 * each run asks differently. Not part of the suite: it measures nothing; a 3-minute run
 * found the simulator's restart repeating trade ids (fixed since: a restarted
 * simulator continues its saved market, engine/serve.ts serveSimSource).
 *
 *   node --import tsx bench/soak.ts [--duration 3m] [--clients 8] [--speed 30] [--keep]
 */

const program = new Command()
  .option('--duration <d>', 'load before the kill (the restart gets a third of it)', '3m')
  .option('--clients <n>', 'WebSocket clients', '8')
  .option('--speed <x>', 'simulated ms per wall ms', '30')
  .option('--keep', 'keep the data directory')
  .parse();
const opts = program.opts<{ duration: string; clients: string; speed: string; keep?: boolean }>();
const durationMs = parseDuration(opts.duration);
const clients = Number(opts.clients);

const MDS = join(import.meta.dirname, '..', 'bin', 'mds.js');
const dir = mkdtempSync(join(tmpdir(), 'mds-soak-'));
const data = join(dir, 'data');
const config = join(dir, 'config.json');
// Limits lifted for the scale key (requests, connections, watched items), as the benchmarks do (DECISIONS.md).
writeFileSync(config, JSON.stringify({ plans: { scale: { rps: 1e9, in_flight: 1e6, monthly_requests: 1e12, ws_connections: 10_000, watched_items: 1e9 } } }));

const problems: string[] = [];
let warnings = 0;
function report(problem: string): void {
  problems.push(problem);
  if (problems.length <= 50) console.log(`  PROBLEM ${problem}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

interface Served {
  child: ChildProcess;
  port: number;
  exited: Promise<void>;
}

/** `mds serve` on the data, its port read from its start-up log line. */
function serve(): Promise<Served> {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', MDS, 'serve', '--data', data, '--port', '0', '--config', config, '--sim-speed', opts.speed, '--sim-trade-rate', '300', '--sim-launch-rate', '60', '--log-level', 'info'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        let entry: { level?: number; msg?: string; port?: number };
        try {
          entry = JSON.parse(line);
        } catch {
          report(`server wrote a line that is not a log entry: ${line.slice(0, 200)}`);
          continue;
        }
        // Errors are problems; warnings are told (a restart before the first checkpoint
        // rebuilds the research records, and says so).
        if ((entry.level ?? 0) >= 50) report(`server log: ${line.slice(0, 300)}`);
        else if ((entry.level ?? 0) >= 40) {
          warnings++;
          console.log(`  warning in the server log: ${line.slice(0, 300)}`);
        }
        if (entry.msg === 'mds serving' && entry.port) resolve({ child, port: entry.port, exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`mds serve exited ${code} before serving`)));
  });
}

class Client {
  requests = 0;
  /** Answers to the starter key: 200, 429 4290, 429 4292. */
  readonly starter = { ok: 0, rate: 0, inFlight: 0 };
  readonly pools: string[] = [];
  readonly tokens: string[] = [];
  readonly wallets: string[] = [];
  constructor(
    readonly port: number,
    private readonly key: string,
    /** A key of the starter plan (25 requests/s, 5 in flight): its limits are not lifted. */
    private readonly limitedKey: string,
  ) {}

  /**
   * Eight requests at once on the starter key: every answer carries the rate and quota
   * headers; the ones past its limits are 429 with 4290 (rate) or 4292 (in flight) and
   * Retry-After; none is anything else than 200 or 429.
   */
  async limited(): Promise<void> {
    const path = pick([`/v1/pools/${pick(this.pools)}`, '/v1/market/sol-price', `/v1/tokens/${pick(this.tokens)}/trades`]);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        this.requests++;
        let res: Response;
        try {
          res = await fetch(`http://127.0.0.1:${this.port}${path}`, { headers: { authorization: `Bearer ${this.limitedKey}` } });
        } catch (err) {
          return report(`GET ${path} (starter): ${(err as Error).message}`);
        }
        const body = await res.json().catch(() => null);
        for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-quota-remaining']) {
          if (!res.headers.has(h)) report(`GET ${path} (starter) ${res.status}: no ${h} header`);
        }
        if (res.status === 200) this.starter.ok++;
        if (res.status === 429) {
          if (body?.code === 4290) this.starter.rate++;
          else if (body?.code === 4292) this.starter.inFlight++;
          else report(`GET ${path} (starter): 429 with code ${body?.code}`);
          if (!res.headers.has('retry-after')) report(`GET ${path} (starter): 429 without Retry-After`);
        } else if (res.status !== 200) report(`GET ${path} (starter): ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }),
    );
  }

  async get(path: string, malformed = false): Promise<{ status: number; body: any } | null> {
    this.requests++;
    let res: Response;
    try {
      res = await fetch(`http://127.0.0.1:${this.port}${path}`, { headers: { authorization: `Bearer ${this.key}` } });
    } catch (err) {
      report(`GET ${path}: ${(err as Error).message}`);
      return null;
    }
    const text = await res.text();
    if (res.status >= 500 || (res.status === 400 && !malformed)) report(`${res.status} GET ${path}: ${text.slice(0, 200)}`);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      report(`GET ${path}: not JSON`);
      return null;
    }
    // Malformed input: 400/4000 naming what is wrong, or 404 for a path that is no route.
    if (malformed && !((res.status === 400 && body.code === 4000 && body.message) || (res.status === 404 && body.code === 4040))) {
      report(`malformed GET ${path}: ${res.status} ${text.slice(0, 200)}`);
    }
    return { status: res.status, body };
  }

  /** One request whose path or parameters are wrong in one of many ways. */
  fuzz(): Promise<unknown> {
    const p = pick(this.pools);
    const t = pick(this.tokens);
    const junk = pick(['', '%', '%zz', '%00', 'x'.repeat(4_000), '../../etc/passwd', '%F0%9F%92%A5', '-1', '1e400', 'NaN', '0x10', ' 1', '1.5', '[]', '{}', 'null', encodeURIComponent(p + p)]);
    const paths = [
      `/v1/pools/${junk}`,
      `/v1/pools/${junk}/trades`,
      `/v1/tokens/${junk}/pools`,
      `/v1/wallets/${junk}/trades`,
      `/v1/pools/${p}/trades?limit=${junk}`,
      `/v1/pools/${p}/trades?start_time=${junk}`,
      `/v1/pools/${p}/trades?order=${junk || 'sideways'}`,
      `/v1/pools/${p}/trades?cursor=${junk || 'AAAA'}`,
      `/v1/pools/${p}/trades?limit=1&limit=2`,
      `/v1/pools/${p}/candles?interval=${junk || '2m'}`,
      `/v1/pools/${p}/candles?start_time=${junk || 'x'}&end_time=1`,
      `/v1/pools/${p}/candles?mode=${junk || 'volume'}`,
      `/v1/pools/metrics?addresses=${junk || ','}`,
      `/v1/pools/metrics?addresses=${Array.from({ length: 51 }, () => p).join(',')}`,
      `/v1/tokens?addresses=${t},${junk || ','}`,
      `/v1/tokens/search?q=${junk}&match=${junk || 'fuzzy'}`,
      `/v1/tokens/search?q=a&sort=${junk || 'price'}`,
      `/v1/tokens/${t}/trades?token=${junk || t}`,
      `/v1/pools?sort=${junk || 'heat'}`,
      `/v1/pools?base_address=${junk || 'x'}`,
      `/v1/market/sol-price?${junk || 'x'}=1`,
      `/v1/${junk || 'nothing'}`,
    ];
    return this.get(pick(paths), true);
  }

  /** A connection sending frames that are wrong in one of many ways: ignored, or closed with 4400. */
  fuzzStream(): Promise<void> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${this.port}/ws`, { headers: { authorization: `Bearer ${this.key}` } });
      // Each frame, and the close it gets (null: ignored, the next ping answered).
      const frames: Array<[string | Buffer, number | null]> = [
        ['x', 4400],
        ['[]', 4400],
        ['null', 4400],
        ['{}', null],
        ['{"type":"subscribe"}', null],
        ['{"type":"subscribe","stream":"candles","payload":{"pool_address":123}}', null],
        ['{"type":"subscribe","stream":"pool_metrics","payload":{"pool_addresses":[]}}', null],
        ['{"type":"subscribe","stream":"trades","payload":{}}', null],
        ['{"type":"unsubscribe","stream":"pool_trades","payload":{"pool_address":"nope"}}', null],
        [`{"type":"subscribe","stream":"pool_trades","payload":{"pool_address":"${'1'.repeat(5_000)}"}}`, null],
        // Another key on an authenticated connection: DECISIONS.md, an invalid key.
        ['{"type":"auth","key":"not-a-key"}', 4401],
        ['['.repeat(5_000) + ']'.repeat(5_000), 4400],
        [Buffer.from([0xff, 0xfe, 0x00]), 4400],
        ['y'.repeat(20_000), 4400],
      ];
      const [frame, expected] = pick(frames);
      let answeredPing = false;
      ws.on('open', () => {
        ws.send(frame);
        ws.send('{"type":"ping"}');
      });
      ws.on('message', (bytes) => {
        if (String(bytes).includes('"pong"')) {
          answeredPing = true;
          ws.close();
        }
      });
      ws.on('close', (code) => {
        const ok = expected === null ? answeredPing && code === 1005 : code === expected && !answeredPing;
        if (!ok) report(`WebSocket frame ${String(frame).slice(0, 60)}: closed ${code}, ping ${answeredPing ? '' : 'not '}answered (expected ${expected ?? 'a pong'})`);
        resolve();
      });
      ws.on('error', () => {});
    });
  }

  /** Pools and tokens to ask about: the busiest and the newest. */
  async refresh(): Promise<void> {
    for (const sort of ['volume_usd', 'created_at']) {
      for (const p of (await this.get(`/v1/pools?limit=100&sort=${sort}`))?.body?.data ?? []) {
        if (!this.pools.includes(p.pool_address)) this.pools.push(p.pool_address);
        if (!this.tokens.includes(p.base_address)) this.tokens.push(p.base_address);
      }
    }
  }

  /** Walks a list by cursor: every item once, trades in the order asked. */
  async walk(path: string, pages: number, repeatsAllowed = false): Promise<void> {
    const desc = !path.includes('order=asc');
    const seen = new Set<string>();
    let last: number[] | null = null;
    let cursor: string | null = null;
    for (let page = 0; page < pages; page++) {
      const r = await this.get(`${path}${path.includes('?') ? '&' : '?'}limit=${pick([1, 7, 50])}${cursor ? `&cursor=${cursor}` : ''}`);
      if (r?.status !== 200) return;
      for (const item of r.body.data) {
        const id = item.trade_id ?? item.pool_address;
        if (seen.has(id) && !repeatsAllowed) report(`${id} twice in a walk of ${path}`);
        seen.add(id);
        if (item.trade_id === undefined) continue;
        const key = [item.created_at, item.slot, item.tx_index, item.event_index];
        if (last) {
          const k = key.findIndex((x, j) => x !== last![j]);
          if (k >= 0 && (desc ? key[k]! > last[k]! : key[k]! < last[k]!)) report(`trade ${id} out of order in a walk of ${path}`);
        }
        last = key;
        if (this.wallets.length < 500 && !this.wallets.includes(item.wallet_address)) this.wallets.push(item.wallet_address);
      }
      cursor = r.body.pagination?.next_cursor ?? null;
      if (!cursor) return;
    }
  }

  /** Three requests at a time, each on a random route, until `until`. */
  async load(until: number): Promise<void> {
    const intervals = ['1s', '15s', '1m', '15m', '1h', '6h', '24h'];
    while (Date.now() < until) {
      if (this.pools.length === 0 || Math.random() < 0.02) {
        await this.refresh();
        if (this.pools.length === 0) {
          await sleep(200);
          continue;
        }
      }
      const p = pick(this.pools);
      const t = pick(this.tokens);
      const order = pick(['asc', 'desc']);
      const jobs = [
        () => this.get(`/v1/pools/${p}`),
        () => this.get(`/v1/tokens/${t}`),
        () => this.get(`/v1/tokens/${t}/pools`),
        () => this.get('/v1/market/sol-price'),
        () => this.get(`/v1/pools/${p}/candles?interval=${pick(intervals)}&mode=${pick(['price', 'market_cap'])}&currency=${pick(['usd', 'quote'])}&limit=${pick([1, 300, 1000])}`),
        () => this.get(`/v1/pools/metrics?addresses=${[...new Set([p, pick(this.pools), pick(this.pools)])].join(',')}`),
        () => this.get(`/v1/tokens?addresses=${[...new Set([t, pick(this.tokens)])].join(',')}`),
        () => this.get(`/v1/tokens/search?q=${encodeURIComponent(pick(['a', 'pe', 'moon', t.slice(0, 6)]))}&match=${pick(['smart', 'exact', 'prefix'])}&sort=${pick(['relevance', 'market_cap_usd', 'volume_usd', 'liquidity_usd', 'trader_count', 'created_at'])}`),
        () => this.walk(`/v1/pools/${p}/trades?order=${order}`, 5),
        () => this.walk(`/v1/tokens/${t}/trades?order=${order}`, 5),
        () => (this.wallets.length ? this.walk(`/v1/wallets/${pick(this.wallets)}/trades?order=${order}`, 4) : null),
        () => this.walk(`/v1/pools?sort=created_at&order=${order}`, 3),
        () => this.walk(`/v1/pools?sort=${pick(['liquidity_usd', 'volume_usd'])}&order=${order}`, 3, true),
        () => this.fuzz(),
        () => this.fuzz(),
        () => this.fuzzStream(),
        () => this.limited(),
      ];
      await Promise.all([pick(jobs)(), pick(jobs)(), pick(jobs)()]);
    }
  }

  /** A WebSocket client on every stream until `until`: frames counted, candle seqs checked. */
  stream(until: number): Promise<number> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${this.port}/ws`, { headers: { authorization: `Bearer ${this.key}` } });
      const seqs = new Map<string, number>();
      let frames = 0;
      let closing = false;
      const send = (m: unknown) => ws.send(JSON.stringify(m));
      const subscribe = () => {
        if (this.pools.length === 0) return;
        const pool = pick(this.pools);
        send({ type: 'subscribe', stream: 'pool_trades', payload: { pool_address: pool } });
        send({ type: 'subscribe', stream: 'token_trades', payload: { token_address: pick(this.tokens) } });
        send({ type: 'subscribe', stream: 'candles', payload: { pool_address: pool, interval: pick(['1s', '15s', '1m', '15m', '1h']), subscription_id: `s-${pool.slice(0, 6)}` } });
        send({ type: 'subscribe', stream: 'pool_metrics', payload: { pool_addresses: [pool, pick(this.pools)] } });
        if (Math.random() < 0.3) send({ type: 'unsubscribe', stream: 'pool_trades', payload: { pool_address: pool } });
      };
      ws.on('open', () => {
        send({ type: 'subscribe', stream: 'token_metadata', payload: {} });
        subscribe();
        const timer = setInterval(() => {
          if (Date.now() >= until) {
            clearInterval(timer);
            closing = true;
            ws.close();
            return;
          }
          subscribe();
          send({ type: 'ping' });
        }, 2_000);
      });
      ws.on('message', (bytes) => {
        frames++;
        let m: any;
        try {
          m = JSON.parse(String(bytes));
        } catch {
          return report('a WebSocket frame that is not JSON');
        }
        if (m.type === 'error') report(`error frame: ${String(bytes).slice(0, 200)}`);
        if (m.stream === 'candles') {
          const series = `${m.data.subscription_id}:${m.data.interval}`;
          const previous = seqs.get(series);
          if (previous !== undefined && m.data.seq <= previous) report(`candle seq ${previous} then ${m.data.seq} on ${series}`);
          seqs.set(series, m.data.seq);
        }
      });
      ws.on('close', (code) => {
        if (!closing) report(`WebSocket closed by the server: ${code}`);
        resolve(frames);
      });
      ws.on('error', (err) => report(`WebSocket error: ${err.message}`));
    });
  }

  async tradeCounts(pools: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const p of pools) {
      const r = await this.get(`/v1/pools/${p}`);
      if (r?.status === 200) out.set(p, r.body.data.totals.trade_count);
    }
    return out;
  }
}

const started = performance.now();
const key = execFileSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'scale', '--data', data]).toString().trim();
const limitedKey = execFileSync(process.execPath, [MDS, 'keys', 'create', '--plan', 'starter', '--data', data]).toString().trim();
console.log(`soak: mds serve (simulator at ${opts.speed}x) on ${data}, ${opts.duration} of load, ${clients} WebSocket clients`);
let served = await serve();
let client = new Client(served.port, key, limitedKey);
const until = Date.now() + durationMs;
const [frames] = await Promise.all([
  Promise.all(Array.from({ length: clients }, () => client.stream(until))).then((counts) => counts.reduce((a, b) => a + b, 0)),
  client.load(until),
  client.load(until),
]);
const watched = client.pools.slice(0, 60);
const before = await client.tradeCounts(watched);
const health = (await client.get('/health'))?.body?.data;
// The counts read are of applied events, which reach the disk ~100 ms later: the kill
// must not land before they do (a crash loses what is not durable, never acknowledged).
const deadline = Date.now() + 10_000;
while (((await client.get('/health'))?.body?.data?.durable ?? 0) < (health?.ingested ?? 0)) {
  if (Date.now() > deadline) {
    report(`events applied before the kill were not durable 10 s later (ingested ${health?.ingested})`);
    break;
  }
}
console.log(`  ${client.requests.toLocaleString('en-US')} requests, ${frames.toLocaleString('en-US')} frames, ${client.pools.length} pools, ${client.wallets.length} wallets seen; ingested ${health?.ingested?.toLocaleString('en-US')}, dead letters ${health?.dead_letters}`);
console.log(`  starter key: ${client.starter.ok} answered, ${client.starter.rate} 429 rate (4290), ${client.starter.inFlight} 429 in flight (4292)`);

served.child.kill('SIGKILL');
await served.exited;
served = await serve();
const again = new Client(served.port, key, limitedKey);
again.pools.push(...client.pools);
again.tokens.push(...client.tokens);
again.wallets.push(...client.wallets);
client = again;
const after = await client.tradeCounts(watched);
let back = 0;
for (const [pool, count] of before) {
  const now = after.get(pool);
  if (now === undefined || now < count) {
    back++;
    report(`after SIGKILL and restart, pool ${pool} has trade_count ${now} (it had ${count})`);
  }
}
console.log(`  SIGKILL, restart: ${before.size} pools' trade_count checked, ${back} went back`);
await client.load(Date.now() + durationMs / 3);
served.child.kill('SIGTERM');
await served.exited;
console.log(`  ${problems.length} problem(s), ${warnings} warning(s) logged, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (!opts.keep) rmSync(dir, { recursive: true, force: true });
else console.log(`  data kept in ${data}`);
process.exit(problems.length === 0 ? 0 : 1);
