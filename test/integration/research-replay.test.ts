import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSimFile } from '../../engine/sources/sim/index.ts';
import { ResearchStore } from '../../engine/query/research-store.ts';
import { createEngine, type Engine } from '../../engine/system.ts';
import { openStorage } from '../../storage/lmdb.ts';
import { serveEngine, type EngineServer } from '../helpers/engine-server.ts';
import { tempDir, testConfig, USDC, WSOL, type TempDir } from '../helpers/fixtures.ts';

/**
 * The research read models (token search, pool list) answer from the events alone:
 * - two engines ingest the same simulated quarter hour in event-clock mode, one
 *   refreshing its records after every applied batch and checkpointing now and then,
 *   the other only when asked: every search and pool list page is byte-identical;
 * - after a restart (records loaded from LMDB, nothing replayed) and after a restart
 *   with the records deleted (rebuilt from the actors), still byte-identical.
 */

const cursorSecret = randomBytes(32);
let dir: TempDir;
let file: string;
let eager: EngineServer;
let lazy: EngineServer;

const serve = (engine: Engine) => serveEngine(engine, { plan: 'scale', cursorSecret });

async function ingest(name: string, eagerly: boolean): Promise<EngineServer> {
  const engine = await createEngine({ config: testConfig(join(dir.path, name)) });
  if (eagerly) {
    let batches = 0;
    engine.onApplied(() => {
      engine.query.research!.refresh();
      if (++batches % 7 === 0) void engine.checkpoint();
    });
  } else {
    // Only queries refresh it: no timer (a slow machine would let the timer catch up).
    engine.query.research!.stop();
  }
  await engine.runSource(engine.createSource(`ndjson:${file}`));
  return serve(engine);
}

async function restart(i: EngineServer, dropRecords: boolean): Promise<EngineServer> {
  i.close();
  const config = i.engine.config;
  const time = i.engine.clock.now();
  await i.engine.stop();
  if (dropRecords) {
    // As a data directory made before the research records: rebuilt from the actors.
    const storage = openStorage(config.data);
    await storage.env.openDB({ name: 'research' }).clearAsync();
    await storage.close();
  }
  const engine = await createEngine({ config });
  // The event clock resumes at the latest event time applied before the stop.
  expect(engine.clock.now()).toBe(time);
  return serve(engine);
}


/** Searches and pool lists over names, symbols, mints and pools of the file. */
function paths(): string[] {
  const tokens: Array<{ token_address: string; name?: string; symbol?: string }> = [];
  const bases = new Map<string, number>();
  const tokenQuotes: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('{"type":"token"')) tokens.push(JSON.parse(line));
    else if (line.startsWith('{"type":"pool"')) {
      const e = JSON.parse(line);
      bases.set(e.base_address, (bases.get(e.base_address) ?? 0) + 1);
      if (e.quote_address !== WSOL && e.quote_address !== USDC) tokenQuotes.push(e.quote_address);
    }
  }
  const named = tokens.filter((t) => t.name && t.symbol);
  const words = named.slice(0, 4).map((t) => encodeURIComponent(t.name!.split(' ')[0]!.slice(0, 5)));
  const out: string[] = [];
  for (const sort of ['relevance', 'market_cap_usd', 'volume_usd', 'liquidity_usd', 'trader_count', 'created_at']) {
    out.push(`/v1/tokens/search?sort=${sort}&limit=30`, `/v1/tokens/search?sort=${sort}&order=asc&limit=30`);
  }
  for (const window of ['5m', '1h', '6h', '24h']) out.push(`/v1/tokens/search?sort=volume_usd&window=${window}&limit=25`);
  for (const q of words) out.push(`/v1/tokens/search?q=${q}`, `/v1/tokens/search?q=${q}&match=prefix&sort=market_cap_usd`);
  out.push(`/v1/tokens/search?q=${encodeURIComponent(named[0]!.symbol!)}&match=exact`, `/v1/tokens/search?q=${named[1]!.token_address}`);
  for (const sort of ['created_at', 'liquidity_usd', 'volume_usd']) {
    out.push(`/v1/pools?sort=${sort}&limit=40`, `/v1/pools?sort=${sort}&order=asc&limit=40`, `/v1/pools?sort=${sort}&quote_address=${WSOL}&limit=40`);
  }
  const multi = [...bases].filter(([, n]) => n > 1).map(([b]) => b);
  for (const b of multi.slice(0, 3)) out.push(`/v1/pools?base_address=${b}`, `/v1/pools?base_address=${b}&sort=liquidity_usd`);
  out.push(`/v1/pools?quote_address=${USDC}`);
  if (tokenQuotes[0]) out.push(`/v1/pools?quote_address=${tokenQuotes[0]}`);
  return out;
}

/** Every path and the two pages after it give the same bytes on both instances. */
async function compare(a: EngineServer, b: EngineServer): Promise<{ compared: number; items: number }> {
  let compared = 0;
  let items = 0;
  for (const first of paths()) {
    let path = first;
    for (let page = 0; page < 3; page++) {
      const [x, y] = [await a.text(path), await b.text(path)];
      expect(y, path).toBe(x);
      expect(x.startsWith('200 '), path).toBe(true);
      compared++;
      items += (JSON.parse(x.slice(4)).data as unknown[]).length;
      const cursor = /"next_cursor":"([^"]+)"/.exec(x)?.[1];
      if (!cursor) break;
      path = `${first}&cursor=${encodeURIComponent(cursor)}`;
    }
  }
  return { compared, items };
}

beforeAll(async () => {
  dir = tempDir();
  file = join(dir.path, 'quarter.ndjson');
  await writeSimFile({ out: file, durationMs: 15 * 60_000, seed: 21 });
  eager = await ingest('eager', true);
  lazy = await ingest('lazy', false);
}, 120_000);

afterAll(async () => {
  for (const i of [eager, lazy]) {
    i.close();
    await i.engine.stop();
  }
  dir.cleanup();
});

describe('research routes in event-clock mode', () => {
  it('answer byte-identically whenever records were refreshed', async () => {
    expect(eager.engine.query.status().ingested).toBe(lazy.engine.query.status().ingested);
    expect(lazy.engine.query.research!.pending).toBeGreaterThan(0); // nothing refreshed it yet
    const { compared, items } = await compare(eager, lazy);
    expect(compared).toBeGreaterThan(60);
    expect(items).toBeGreaterThan(1_000);
  });

  it('write records only in the two shapes whose structures the store saved when it opened', () => {
    // A record in another key order would save a structure of its own, in a transaction
    // that waits for the commit in flight (research-store.ts POOL_SHAPE).
    const store = new ResearchStore(eager.engine.storage, eager.engine.log);
    expect([...store.pools()].length).toBeGreaterThan(100);
    expect([...store.tokens()].length).toBeGreaterThan(100);
    // lmdb-js keeps a database's shared structures under its sharedStructuresKey.
    const structures = eager.engine.storage.env.openDB<unknown[], symbol>({ name: 'research', encoding: 'msgpack' }).get(Symbol.for('structures'));
    expect(structures).toHaveLength(2);
  });

  it('answer the same after a restart, from the stored records', async () => {
    lazy = await restart(lazy, false);
    expect(lazy.engine.query.research!.tokens.size).toBeGreaterThan(100);
    expect(lazy.engine.query.research!.pending).toBe(0); // loaded, not rebuilt
    await compare(eager, lazy);
  }, 60_000);

  it('answer the same after a restart without records, rebuilt from the actors', async () => {
    lazy = await restart(lazy, true);
    expect(lazy.engine.query.research!.tokens.size).toBe(0);
    expect(lazy.engine.query.research!.pending).toBeGreaterThan(100);
    await compare(eager, lazy);
    expect(lazy.engine.query.research!.tokens.size).toBe(eager.engine.query.research!.tokens.size);
  }, 60_000);
});
