import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, unsupportedNode } from '../../engine/node-version.ts';
import { createEngine } from '../../engine/system.ts';
import { base58, rng, sampleEvents, swapMaker, tempDir, testConfig, WSOL, type TempDir } from '../helpers/fixtures.ts';
import { startWsServer } from '../helpers/ws.ts';

/**
 * mds as an embedder uses it: a separate package that depends on mds by path
 * (node_modules/mds a link to this repository, as npm makes it for "file:"), running
 * plain `node` (no tsx) on the README's library example, and TypeScript checking the
 * embedder's own code against the package's types. The package's JavaScript is built
 * first (`npm run build`, what `npm install` runs as `prepare`), from the sources as
 * they are now.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The embedder's environment: plain node, nothing preloaded. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'));
const node = (args: string[], cwd: string) => spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
/** A preload that makes process.version say `version`, as a Node.js mds does not support would. */
const pretendNode = (version: string) => `--import=data:text/javascript,Object.defineProperty(process,"version",{value:"${version}"})`;

/** The js block that follows the marker `<!-- <name> example: ... -->` in README.md. */
function readmeExample(name = 'library'): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- ${name} example: [^\\n]*-->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README.md has no ${name} example block`);
  return match[1]!;
}

let dir: TempDir;
beforeAll(() => {
  const built = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  expect(built.status, built.stdout + built.stderr).toBe(0);
  dir = tempDir('mds-embedder-');
  writeFileSync(join(dir.path, 'package.json'), JSON.stringify({ name: 'embedder', private: true, type: 'module', dependencies: { mds: `file:${ROOT}` } }));
  mkdirSync(join(dir.path, 'node_modules'));
  symlinkSync(ROOT, join(dir.path, 'node_modules', 'mds'), 'dir');
}, 180_000);
afterAll(() => dir?.cleanup());

describe('mds as a library', () => {
  it("runs the README's example with plain node from a package that depends on mds by path", () => {
    writeFileSync(join(dir.path, 'example.mjs'), readmeExample());
    const run = node(['example.mjs'], dir.path);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(['applied 1 quote_price', 'applied', '150', '200 150']);
  });

  it('ingests an NDJSON file through its worker threads, loaded from the built JavaScript', () => {
    const events = Object.values(sampleEvents());
    writeFileSync(join(dir.path, 'events.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    writeFileSync(
      join(dir.path, 'replay.mjs'),
      `import { createEngine, loadConfig } from 'mds';
const engine = await createEngine({ config: loadConfig({ flags: { data: './replay-data', source: 'ndjson:events.ndjson' } }) });
await engine.runSource(engine.createSource(engine.config.source));
const { ingested, deadLetters } = engine.query.status();
await engine.stop();
console.log(ingested, deadLetters);
`,
    );
    const run = node(['replay.mjs'], dir.path);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`${events.length} 0`);
  });

  it("type-checks an embedder's TypeScript against the package's .d.ts (named types, not any)", () => {
    writeFileSync(
      join(dir.path, 'check.ts'),
      `import { createEngine, loadConfig, startService, type Engine, type IngestResult, type KeyState, type Service } from 'mds';
import { createClient } from 'mds/client';
const engine: Engine = await createEngine({ config: loadConfig({ flags: { data: 'd', source: 'none' } }) });
const result: IngestResult = await engine.ingest({ type: 'quote_price' });
if (result.status === 'rejected') console.log(result.reason);
const service: Service = await startService(engine);
const state: KeyState = 'grace';
// @ts-expect-error the port is a number: the types are real, not any
const port: string = service.port;
// @ts-expect-error only the entry point is exported
await import('mds/engine/system.ts');
// @ts-expect-error no such option
await createEngine({ config: loadConfig(), nope: 1 });
console.log(port, state);
// The client SDK's types, from the built .d.ts: parameters and records of the route table.
const mds = createClient({ baseUrl: 'http://127.0.0.1:1', key: 'k' });
const trades = await mds.http.tokens.trades('x', { limit: 1, order: 'asc' });
const id: string | undefined = trades.data[0]?.trade_id;
// @ts-expect-error no such parameter
await mds.http.tokens.trades('x', { limt: 1 });
for await (const t of mds.socket().poolTrades('p')) console.log(id, t.created_at satisfies number);
`,
    );
    writeFileSync(
      join(dir.path, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, typeRoots: [join(ROOT, 'node_modules', '@types')], types: ['node'] },
        files: ['check.ts'],
      }),
    );
    const checked = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir.path, encoding: 'utf8' });
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
  });

  it("runs the README's client SDK example with plain node: mds/client prints a token's live trades", async () => {
    const r = rng(2628);
    const [mint, pool, wallet] = [base58(r, 44), base58(r, 44), base58(r, 44)];
    const data = tempDir('mds-client-example-');
    const engine = await createEngine({ config: testConfig(data.path) });
    const srv = await startWsServer({ engine });
    try {
      const T0 = 1_767_225_600_000;
      for (const e of [
        { type: 'quote_price', quote_address: WSOL, price_usd: 100, at: T0 },
        { type: 'token', token_address: mint, decimals: 6, supply_raw: '1000000000000000', symbol: 'M', name: 'Mint', slot: 1, at: T0 },
        { type: 'pool', pool_address: pool, base_address: mint, quote_address: WSOL, dex: 'pumpswap', pool_type: 'amm', created_at: T0, slot: 2 },
      ]) expect((await engine.ingest(e)).status).toBe('applied');
      writeFileSync(join(dir.path, 'trades.mjs'), readmeExample('client'));
      const { key } = await srv.key('pro');
      const child = spawn(process.execPath, ['trades.mjs', mint], { cwd: dir.path, env: { ...env, MDS_URL: `http://127.0.0.1:${srv.port}`, MDS_KEY: key } });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      try {
        const first = await lines.next();
        expect(first.value, stderr).toBe('subscribed; last trade: none');
        const swap = swapMaker(pool, wallet, 2628, 10)(T0 + 1_000);
        expect((await engine.ingest(swap)).status).toBe('applied');
        expect((await lines.next()).value).toBe(`buy 1 for 1 at 100 USD ${swap.tx_hash}:0`);
      } finally {
        child.kill();
      }
    } finally {
      await srv.close();
      await engine.stop();
      data.cleanup();
    }
  });

  it('refuses, with the supported range, to load on a Node.js version outside it: the library and the mds command', () => {
    writeFileSync(join(dir.path, 'load.mjs'), "await import('mds');\n");
    const library = node([pretendNode('v24.11.1'), 'load.mjs'], dir.path);
    expect(library.status).not.toBe(0);
    expect(library.stderr).toContain(`mds needs Node.js ${SUPPORTED_NODE} (Node 20 or 22); this is Node.js v24.11.1`);
    const cli = node([pretendNode('v24.11.1'), join(ROOT, 'bin', 'mds.js'), 'keys', 'list', '--data', join(dir.path, 'data')], dir.path);
    expect(cli.status).toBe(1);
    expect(cli.stderr.trim()).toBe(unsupportedNode('v24.11.1'));
  });
});

describe('supported Node.js versions', () => {
  it("are package.json's engines range, and the check follows it", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(SUPPORTED_NODE);
    for (const ok of ['v20.19.0', 'v20.20.2', 'v22.12.0', 'v22.21.1']) expect(unsupportedNode(ok), ok).toBeNull();
    for (const no of ['v18.20.8', 'v20.18.3', 'v21.7.3', 'v22.11.0', 'v23.11.1', 'v24.0.0', 'v25.2.1']) expect(unsupportedNode(no), no).toContain(no);
  });
});
