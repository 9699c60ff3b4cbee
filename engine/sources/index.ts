import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ndjsonSource } from './ndjson.ts';
import { solanaWsSource } from './solana/ws-source.ts';
import type { IngestSink, Source } from './source.ts';

export type { IngestSink, LiveSource, Source } from './source.ts';
export { ndjsonSource } from './ndjson.ts';

/**
 * Creates a source from its command-line name, or null when the name is not its own;
 * `host` is what it runs against (the engine: `sim` reads its data directory).
 */
export type SourceFactory<Host> = (spec: string, host: Host) => Source | null;

/** What the built-in sources are made with. */
export interface SourceDeps {
  config: Pick<Config, 'ingest' | 'yellowstoneToken' | 'solanaWsBackfillMaxPages'>;
  log: Logger;
}

/**
 * The `--source` names an engine knows: the built-in ndjson:<path>, solana-ws:<url>,
 * yellowstone:<endpoint> and none, then its own factories in the order given (the
 * simulator's `sim`, which `mds serve` passes in). One registry per engine: nothing is
 * registered process-wide.
 */
export class SourceRegistry<Host> {
  private readonly factories: SourceFactory<Host>[];

  constructor(
    private readonly deps: SourceDeps,
    private readonly host: Host,
    factories: readonly SourceFactory<Host>[] = [],
  ) {
    this.factories = [...factories];
  }

  /** Makes another `--source` name available on this engine (tried after those before it). */
  register(factory: SourceFactory<Host>): void {
    this.factories.push(factory);
  }

  /** Resolves the `--source` name: ndjson:<path>, solana-ws:<url>, yellowstone:<endpoint>, a registered one, or none (null). */
  create(spec: string): Source | null {
    if (spec === 'none') return null;
    const { config, log } = this.deps;
    if (spec.startsWith('ndjson:')) {
      const path = spec.slice('ndjson:'.length);
      return ndjsonSource({ path, lineBytesMax: config.ingest.lineBytesMax, progress: path !== '-' && process.stderr.isTTY === true });
    }
    if (spec.startsWith('yellowstone:')) {
      // gRPC and the Geyser codecs load only when this source runs (they load a native module).
      const endpoint = spec.slice('yellowstone:'.length);
      let inner: Source | null = null;
      return {
        name: spec,
        finite: false,
        run: async (sink, signal) => {
          const { yellowstoneSource } = await import('./solana/yellowstone-source.ts');
          inner = yellowstoneSource({ endpoint, token: config.yellowstoneToken, log: log.child({ part: 'source' }) });
          return inner.run(sink, signal);
        },
        state: () => inner?.state?.() ?? { connected: false, reconnects: 0, last_slot: null, last_event_at: null },
      };
    }
    if (spec.startsWith('solana-ws:')) {
      return solanaWsSource({ url: spec.slice('solana-ws:'.length), backfillMaxPages: config.solanaWsBackfillMaxPages, log: log.child({ part: 'source' }) });
    }
    for (const factory of this.factories) {
      const source = factory(spec, this.host);
      if (source) return source;
    }
    throw new Error(`unknown source: ${spec}`);
  }
}

/** The gate as a source run sees it: the sink, and what the run logs at its end. */
export interface SourceGate extends IngestSink {
  readonly ingested: number;
  readonly deadLetters: number;
}

/** The engine's running source: at most one at a time, stopped by `stop()`; what /health reports of it. */
export class SourceRunner {
  /** The running (or last) source's name; `none` before any. */
  name = 'none';
  /** For a finite source, whether it reached its end (null: endless, or none). */
  done: boolean | null = null;
  private source: Source | null = null;
  private abort: AbortController | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly gate: SourceGate,
    private readonly log: Logger,
  ) {}

  /** The running source's own state (connected, reconnects...), or null. */
  state(): object | null {
    return this.source?.state?.() ?? null;
  }

  /** Runs a source to its end (or until stop); resolves when it is fully durable. */
  run(source: Source | null): Promise<void> {
    if (!source) return Promise.resolve();
    this.name = source.name;
    this.source = source;
    this.done = source.finite ? false : null;
    const abort = (this.abort = new AbortController());
    this.running = source.run(this.gate, abort.signal).then(async () => {
      await this.gate.flush();
      const aborted = this.abort?.signal.aborted === true;
      if (source.finite && !aborted) this.done = true;
      this.log.info({ source: source.name, ingested: this.gate.ingested, dead_letters: this.gate.deadLetters }, aborted ? 'source stopped' : 'source done');
    });
    return this.running;
  }

  /** Aborts the running source and waits for it to return (a failure is logged, not thrown). */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running?.catch((err) => this.log.error({ err }, 'source failed'));
  }
}
/** `mds decode`: recorded Solana transactions decoded into INGEST events (sources/solana/decode-file.ts). */
export { decodeStream, formatSummary } from './solana/decode-file.ts';
