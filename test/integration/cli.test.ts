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
