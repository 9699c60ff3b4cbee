import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, PLAN_NAMES, loadConfig, type Config } from './config.ts';
import { createLogger } from './log.ts';

/**
 * The command-line contract (operators, scripts and black-box tests drive the
 * service through it): serve, replay, sim, decode, keys, terminal-url, sessions. Exit 0 on success, 2 on a usage
 * error (with a message on stderr), 1 on a failure at run time.
 */

class UsageError extends Error {}

const int = (name: string) => (value: string) => {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer`);
  return Number(value);
};
const positive = (name: string) => (value: string) => {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};

function resolveConfig(opts: Record<string, unknown>): Config {
  try {
    return loadConfig({
      file: opts.config as string | undefined,
      env: process.env,
      flags: {
        data: opts.data,
        port: opts.port,
        host: opts.host,
        source: opts.source,
        clock: opts.clock,
        logLevel: opts.logLevel,
        'sim.seed': opts.simSeed,
        'sim.speed': opts.simSpeed,
        'sim.launchRate': opts.simLaunchRate,
        'sim.tradeRate': opts.simTradeRate,
      },
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

const program = new Command('mds')
  .description('Market data engine for Solana launchpad tokens: HTTP and WebSocket over LMDB')
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) })
  .showHelpAfterError();

const dataOption = () => new Option('--data <dir>', 'data directory (LMDB environment); default ./data');
const configOption = () => new Option('--config <file>', 'JSON config file (plans, limits...)');

program
  .command('serve')
  .description('ingest from a source and serve HTTP and /ws on one port')
  .addOption(dataOption())
  .option('--port <n>', 'port (default 8080; 0 = any free port)', int('--port'))
  .option('--host <addr>', 'address to bind (default 127.0.0.1)')
  .option('--source <spec>', 'sim (default), ndjson:<path>, ndjson:-, solana-ws:<RPC WebSocket URL>, yellowstone:<gRPC endpoint> (token: MDS_YELLOWSTONE_TOKEN) or none')
  .addOption(new Option('--clock <kind>', 'wall (default) or event time').choices(['wall', 'event']))
  .addOption(configOption())
  .option('--log-level <level>', 'fatal, error, warn, info (default), debug, trace, silent')
  .option('--sim-seed <n>', 'simulator seed', int('--sim-seed'))
  .option('--sim-speed <x>', 'simulated seconds per wall second', positive('--sim-speed'))
  .option('--sim-launch-rate <n>', 'token launches per simulated minute', positive('--sim-launch-rate'))
  .option('--sim-trade-rate <n>', 'target swaps per simulated second', positive('--sim-trade-rate'))
  .action(async (opts) => {
    const { serve } = await import('./serve.ts');
    await serve(resolveConfig(opts));
  });

program
  .command('replay')
  .description('ingest an NDJSON file into the data directory and exit')
  .argument('<file>', 'NDJSON file of INGEST.md events, or - for stdin')
  .addOption(dataOption())
  .addOption(new Option('--clock <kind>', 'wall (default) or event time').choices(['wall', 'event']))
  .addOption(configOption())
  .option('--log-level <level>', 'log level (default info)')
  .action(async (file: string, opts) => {
    const { replay } = await import('./serve.ts');
    await replay(resolveConfig({ ...opts, source: `ndjson:${file}` }));
  });

program
  .command('sim')
  .description('write the simulated market to an NDJSON file, as fast as it can')
  .requiredOption('--out <file>', 'output NDJSON file')
  .option('--duration <d>', 'simulated time: 1h, 30m, 90s, 500ms or ms', '1h')
  .option('--seed <n>', 'seed', int('--seed'), 42)
  .option('--launch-rate <n>', 'token launches per simulated minute', positive('--launch-rate'))
  .option('--trade-rate <n>', 'target swaps per simulated second', positive('--trade-rate'))
  .option('--start <ms>', 'Unix ms of the first event (default 2026-01-01T00:00:00Z)', int('--start'))
  .action(async (opts) => {
    const sim = await import('./sources/sim/index.ts');
    let durationMs: number;
    try {
      durationMs = sim.parseDuration(opts.duration);
    } catch (err) {
      throw new UsageError(`--duration: ${(err as Error).message}`);
    }
    const result = await sim.writeSimFile({
      out: opts.out,
      durationMs,
      seed: opts.seed,
      startAt: opts.start,
      launchRate: opts.launchRate,
      tradeRate: opts.tradeRate,
      progress: process.stderr.isTTY === true,
    });
    process.stderr.write(`wrote ${result.events} events (${result.bytes} bytes) to ${opts.out}\n`);
  });

program
  .command('decode')
  .description('decode recorded Solana transactions (pump.fun, PumpSwap) into INGEST NDJSON on stdout; a summary on stderr')
  .argument('<file>', 'a JSON document or NDJSON (one transaction, block or update a line), or - for stdin')
  .addOption(new Option('--format <format>', 'input shape: auto (default), rpc (getTransaction, getBlock, blockSubscribe) or yellowstone').choices(['auto', 'rpc', 'yellowstone']).default('auto'))
  .action(async (file: string, opts) => {
    const { createReadStream, existsSync } = await import('node:fs');
    const { decodeStream, formatSummary } = await import('./sources/index.ts');
    if (file !== '-' && !existsSync(file)) throw new UsageError(`no such file: ${file}`);
    const input = file === '-' ? process.stdin : createReadStream(file);
    const summary = await decodeStream(input, process.stdout, opts.format);
    process.stderr.write(formatSummary(summary));
  });

const keys = program.command('keys').description('create, list and revoke API keys');

async function withKeys<T>(opts: Record<string, unknown>, run: (store: import('./plans/index.ts').KeyStore) => Promise<T> | T): Promise<T> {
  const config = resolveConfig(opts);
  const { openStorage } = await import('../storage/index.ts');
  const { createKeyStore } = await import('./plans/index.ts');
  const { WallClock } = await import('./clock.ts');
  const storage = openStorage(config.data);
  try {
    return await run(createKeyStore(storage, new WallClock()));
  } finally {
    await storage.close();
  }
}

keys
  .command('create')
  .description('create a key; prints the key and nothing else on stdout, its id on stderr')
  .addOption(new Option('--plan <plan>', 'plan of the key').choices(PLAN_NAMES).makeOptionMandatory())
  .option('--expires-at <ms>', 'expiry, Unix ms', int('--expires-at'))
  .addOption(dataOption())
  .addOption(configOption())
  .action(async (opts) => {
    const created = await withKeys(opts, (store) => store.create({ plan: opts.plan, expiresAt: opts.expiresAt ?? null }));
    process.stdout.write(`${created.key}\n`);
    // The id (for `keys revoke`) on stderr, so that `KEY=$(mds keys create ...)` still takes the key alone.
    process.stderr.write(`created key id ${created.id} (plan ${created.plan})\n`);
  });

keys
  .command('list')
  .description('list keys (ids, plans, expiry, state: active, grace, expired or revoked; never the keys)')
  .addOption(dataOption())
  .addOption(configOption())
  .action(async (opts) => {
    const { keyState, graceEndsAt } = await import('./plans/index.ts');
    const accounts = await withKeys(opts, (store) => store.list());
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const a of accounts) {
      const expires = a.expiresAt ? iso(a.expiresAt) : '-';
      const state = keyState(a, now);
      const detail =
        state === 'revoked'
          ? `revoked ${iso(a.revokedAt!)}`
          : state === 'grace'
            ? `grace (${a.plan} until ${iso(graceEndsAt(a.expiresAt!))}, then free)`
            : state === 'expired'
              ? 'expired (free plan)'
              : 'active';
      process.stdout.write(`${a.id}\t${a.plan}\texpires ${expires}\t${detail}\n`);
    }
  });

keys
  .command('revoke')
  .description('revoke a key by its id')
  .argument('<id>', 'key id, as `mds keys list` shows it')
  .addOption(dataOption())
  .addOption(configOption())
  .action(async (id: string, opts) => {
    const revoked = await withKeys(opts, (store) => store.revoke(id));
    if (!revoked) throw new UsageError(`no key with id ${id}`);
    process.stderr.write(`revoked ${id}\n`);
  });

/** A duration flag: `12h`, `30m`, `90s`, `2d`. */
const duration = (name: string) => (value: string) => {
  const m = /^(\d+)(s|m|h|d)$/.exec(value);
  if (!m || Number(m[1]) === 0) throw new InvalidArgumentError(`${name} must be a positive duration such as 30m, 12h or 7d`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
};

program
  .command('terminal-url')
  .description('print a one-time link to the web terminal; opening it starts a session of --plan (a key of that plan kept on the server)')
  .addOption(new Option('--plan <plan>', 'plan of the session').choices(PLAN_NAMES).default('pro'))
  .option('--ttl <duration>', 'how long the session lasts once opened (30m, 12h, 7d); default 12h', duration('--ttl'))
  .option('--port <n>', 'port mds serves on, for the link (default: the configured port)', int('--port'))
  .option('--host <addr>', 'host mds serves on, for the link (default: the configured host)')
  .addOption(dataOption())
  .addOption(configOption())
  .action(async (opts) => {
    const { terminalUrl } = await import('./serve.ts');
    const config = resolveConfig(opts);
    const login = await withSessionStore(opts, (store) => store.createLogin({ plan: opts.plan, ...(opts.ttl ? { sessionTtlMs: opts.ttl } : {}) }));
    process.stdout.write(`${terminalUrl(config.host, config.port, login.token)}\n`);
    process.stderr.write(`one-time link ${login.id} (plan ${opts.plan}), to open before ${new Date(login.expiresAt).toISOString()}\n`);
  });

async function withSessionStore<T>(opts: Record<string, unknown>, run: (store: import('./plans/index.ts').SessionStore) => Promise<T> | T): Promise<T> {
  const config = resolveConfig(opts);
  const { openStorage } = await import('../storage/index.ts');
  const { createKeyStore, createSessionStore } = await import('./plans/index.ts');
  const { WallClock } = await import('./clock.ts');
  const storage = openStorage(config.data);
  try {
    const clock = new WallClock();
    return await run(createSessionStore(storage, createKeyStore(storage, clock), clock));
  } finally {
    await storage.close();
  }
}

const sessions = program.command('sessions').description('list and revoke web terminal sessions');

sessions
  .command('list')
  .description('list one-time links not yet opened and sessions (ids, plans, expiry, state; never secrets)')
  .addOption(dataOption())
  .addOption(configOption())
  .action(async (opts) => {
    const list = await withSessionStore(opts, (store) => store.list());
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const s of list) {
      const state = s.revokedAt !== null ? `revoked ${iso(s.revokedAt)}` : s.expiresAt <= now ? 'expired' : 'active';
      process.stdout.write(`${s.id}\t${s.kind}\t${s.plan}\texpires ${iso(s.expiresAt)}\t${state}\n`);
    }
  });

sessions
  .command('revoke')
  .description('revoke a session (or a one-time link) by its id')
  .argument('<id>', 'session id, as `mds sessions list` shows it')
  .addOption(dataOption())
  .addOption(configOption())
  .action(async (id: string, opts) => {
    const revoked = await withSessionStore(opts, (store) => store.revoke(id));
    if (!revoked) throw new UsageError(`no session with id ${id}`);
    process.stderr.write(`revoked ${id}\n`);
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and version exit 0; every other commander error is a usage error.
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  if (err instanceof UsageError) {
    process.stderr.write(`mds: ${err.message}\n`);
    process.exit(2);
  }
  createLogger('error').fatal({ err }, 'mds failed');
  process.stderr.write(`mds: ${(err as Error).message}\n`);
  process.exit(1);
}
