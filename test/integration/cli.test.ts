import { WebSocket } from 'ws';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WSOL, sampleEvents, tempDir, type TempDir } from '../helpers/fixtures.ts';
import { listeningPort } from '../helpers/serve-child.ts';

const MDS = fileURLToPath(new URL('../../bin/mds.js', import.meta.url));
const mds = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [MDS, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

let dir: TempDir;
afterEach(() => dir?.cleanup());

describe('mds CLI', () => {
  it('creates, lists and revokes keys; create prints the key and nothing else', () => {
    dir = tempDir();
    const created = mds(['keys', 'create', '--plan', 'pro', '--data', dir.path]);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^mds_[A-Za-z0-9_-]{43}\n$/);
    const listed = mds(['keys', 'list', '--data', dir.path]);
    expect(listed.status).toBe(0);
    const [id, plan] = listed.stdout.trim().split('\t');
    expect(plan).toBe('pro');
    expect(listed.stdout).not.toContain(created.stdout.trim());
    expect(mds(['keys', 'revoke', id!, '--data', dir.path]).status).toBe(0);
    expect(mds(['keys', 'list', '--data', dir.path]).stdout).toContain('revoked');
    expect(mds(['keys', 'revoke', 'nope', '--data', dir.path]).status).toBe(2);
  });

  it('keys create prints the id on stderr; keys list tells active, grace, expired and revoked apart', () => {
    dir = tempDir();
    const now = Date.now();
    const make = (expiresAt?: number) => {
      const r = mds(['keys', 'create', '--plan', 'pro', '--data', dir.path, ...(expiresAt === undefined ? [] : ['--expires-at', String(expiresAt)])]);
      expect(r.status, r.stderr).toBe(0);
      const id = /created key id ([0-9a-f]{12})/.exec(r.stderr)?.[1];
      expect(id, r.stderr).toBeDefined();
      return id!;
    };
    const active = make(now + 3_600_000);
    const grace = make(now - 3_600_000); // expired an hour ago: within the 2-hour grace
    const expired = make(now - 3 * 3_600_000); // past the grace: behaves as free
    const revoked = make();
    expect(mds(['keys', 'revoke', revoked, '--data', dir.path]).status).toBe(0);
    const rows = new Map(
      mds(['keys', 'list', '--data', dir.path])
        .stdout.trim()
        .split('\n')
        .map((line) => line.split('\t'))
        .map(([id, , , state]) => [id!, state!]),
    );
    expect(rows.get(active)).toBe('active');
    expect(rows.get(grace)).toMatch(/^grace \(pro until .*, then free\)$/);
    expect(rows.get(expired)).toBe('expired (free plan)');
    expect(rows.get(revoked)).toMatch(/^revoked /);
  });

  it('serve on the wall clock says at start when the newest event is older than the 24 hours lists cover, naming --clock event', async () => {
    dir = tempDir();
    const file = join(dir.path, 'events.ndjson');
    // Events of 2026-01-01: long before the wall clock's last 24 hours.
    const { token, quote_price } = sampleEvents();
    writeFileSync(file, [token, quote_price].map((e) => JSON.stringify(e)).join('\n') + '\n');
    const data = join(dir.path, 'data');
    expect(mds(['replay', file, '--data', data, '--log-level', 'silent']).status).toBe(0);
    /** The log lines of `mds serve` up to the one saying it serves; the server is then stopped. */
    const startLog = (clock: string) => {
      const server = spawn(process.execPath, [MDS, 'serve', '--data', data, '--port', '0', '--source', 'none', '--clock', clock], { stdio: ['ignore', 'ignore', 'pipe'] });
      return new Promise<Array<{ level: number; msg: string; latest_event_at?: string }>>((resolve, reject) => {
        let err = '';
        server.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          if (!err.includes('"mds serving"')) return;
          server.kill('SIGTERM');
          resolve(err.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line)));
        });
        server.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      }).finally(() => server.kill('SIGKILL'));
    };
    const wall = (await startLog('wall')).filter((line) => line.msg.includes('--clock event'));
    expect(wall).toHaveLength(1);
    expect(wall[0]).toMatchObject({ level: 40, latest_event_at: new Date(quote_price!.at as number).toISOString() });
    expect(wall[0]!.msg).toContain('24 hours');
    // On the event clock the data is read as of its own time: nothing to say.
    expect((await startLog('event')).filter((line) => line.msg.includes('--clock event'))).toEqual([]);
  });

  it('exits 2 with a message on usage errors and bad config values', () => {
    dir = tempDir();
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [['frobnicate'], /unknown command/],
      [['keys', 'create', '--data', dir.path], /--plan/],
      [['keys', 'create', '--plan', 'gold', '--data', dir.path], /gold/],
      [['serve', '--port', 'http'], /--port must be an integer/],
      [['serve', '--port', '70000', '--data', dir.path], /port/],
      [['serve', '--clock', 'sundial'], /sundial/],
      [['serve', '--source', 'kafka://x', '--data', dir.path], /source/],
      [['serve', '--data', dir.path], /MDS_PORT|port/, { MDS_PORT: 'eighty' }],
      [['serve', '--config', join(dir.path, 'missing.json')], /missing\.json/],
    ];
    for (const [args, message, env] of cases) {
      const result = mds(args, env);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const file = join(dir.path, 'bad.json');
    writeFileSync(file, JSON.stringify({ plans: { pro: { rps: -1 } } }));
    const bad = mds(['serve', '--config', file, '--data', dir.path]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('plans.pro.rps');
  });

  it('replays a file and exits 0; serve then answers /health and the SOL price over HTTP', async () => {
    dir = tempDir();
    const file = join(dir.path, 'events.ndjson');
    const { token, quote_price } = sampleEvents();
    writeFileSync(file, [token, quote_price, { ...quote_price, price_usd: 180, at: quote_price!.at as number + 60_000 }, 'not json'].map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n') + '\n');
    const data = join(dir.path, 'data');
    const replayed = mds(['replay', file, '--data', data, '--log-level', 'silent']);
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.stderr).toContain('3 events in the log, 1 dead letters');
    const key = mds(['keys', 'create', '--plan', 'starter', '--data', data]).stdout.trim();

    const server = spawn(process.execPath, [MDS, 'serve', '--data', data, '--port', '0', '--source', 'none', '--clock', 'event'], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const port = await listeningPort(server);
      const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
      expect(health).toMatchObject({ code: 0, data: { status: 'ready', ingested: 3, dead_letters: 1 } });
      const price = await fetch(`http://127.0.0.1:${port}/v1/market/sol-price`, { headers: { authorization: `Bearer ${key}` } });
      expect(await price.json()).toEqual({ code: 0, error: null, message: 'OK', data: { price_usd: 180, updated_at: (quote_price!.at as number) + 60_000 } });
      expect(price.status).toBe(200);
      // The plans' headers are on, and /ws shares the port.
      expect(price.headers.get('ratelimit-limit')).toBe('25');
      expect(Number(price.headers.get('x-quota-remaining'))).toBe(2_000_000 - 1);
      const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { authorization: `Bearer ${key}` } });
      const pong = await new Promise<string>((resolve, reject) => {
        socket.on('open', () => socket.send(JSON.stringify({ type: 'ping' })));
        socket.on('message', (data) => resolve(data.toString()));
        socket.on('error', reject);
      });
      expect(JSON.parse(pong)).toEqual({ type: 'pong' });
      socket.close();
      const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
  });
});
