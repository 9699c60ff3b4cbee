import type { Logger } from 'pino';
import { Subject } from 'rxjs';
import type { Metrics } from '../metrics.ts';
import type { IngestSink } from '../sources/source.ts';
import { DEAD_LETTER_RAW_MAX, whenFlushed, type Storage } from '../../storage/lmdb.ts';
import { KNOWN_MINTS, type IngestEvent } from './events.ts';
import { validateLine, validateObject, type Validation } from './validate.ts';

/** Events that passed the gate and are committed in one ingest-log transaction. */
export interface CommittedBatch {
  /** Ingest seq of events[0]; events[i] has seq firstSeq + i. */
  firstSeq: number;
  events: IngestEvent[];
}

/** What `ingest(event)` resolves to, once the outcome is durable. */
export type IngestResult =
  | { status: 'applied'; seq: number }
  | { status: 'duplicate' }
  | { status: 'rejected'; reason: string }
  | { status: 'ignored'; reason: string };

interface OpenBatch {
  firstSeq: number;
  texts: string[];
  events: IngestEvent[];
  ids: string[];
  mints: Array<[string, number]>;
  /** Set once its transaction is committed; batches are released in seq order. */
  committed: boolean;
  /** Resolves when this batch is durable. */
  durable: Promise<void>;
  resolveDurable: () => void;
  rejectDurable: (err: Error) => void;
}

export interface GateOptions {
  storage: Storage;
  metrics: Metrics;
  log: Logger;
  batchMax: number;
  batchesInFlightMax: number;
}

/**
 * The ingest gate: validate (zod), drop duplicates by identity, stamp a monotonically
 * increasing ingest seq, append batches to the ingest log. A batch is published on
 * `committed$` once its transaction is committed, in seq order, and acknowledged
 * (promises of `ingest` and `flush` resolve) once it is flushed to disk.
 */
export class IngestGate implements IngestSink {
  readonly committed$ = new Subject<CommittedBatch>();
  private readonly storage: Storage;
  private readonly metrics: Metrics;
  private readonly log: Logger;
  private readonly batchMax: number;
  private readonly batchesInFlightMax: number;
  private nextSeq: number;
  private nextDeadLetter: number;
  private open: OpenBatch | null = null;
  private flushScheduled = false;
  private inFlight = 0;
  /** Identities of events in batches not yet flushed (LMDB may not show them yet). */
  private readonly pending = new Set<string>();
  /** Mints declared by token events in batches not yet flushed. */
  private readonly pendingMints = new Map<string, number>();
  private lastDurable: Promise<unknown> = Promise.resolve();
  private writableWaiters: Array<() => void> = [];
  /** Written batches not yet released to committed$, oldest first. */
  private readonly unreleased: OpenBatch[] = [];
  private readonly unknownTypesLogged = new Set<string>();
  private deadLetterCount = 0;
  /** A failed ingest-log write: nothing after it is acknowledged. */
  private failure: Error | null = null;

  constructor(options: GateOptions) {
    this.storage = options.storage;
    this.metrics = options.metrics;
    this.log = options.log;
    this.batchMax = options.batchMax;
    this.batchesInFlightMax = options.batchesInFlightMax;
    this.nextSeq = lastLoggedSeq(options.storage) + 1;
    let lastDeadLetter = 0;
    for (const key of options.storage.deadLetters.getKeys({ reverse: true, limit: 1 })) lastDeadLetter = key;
    this.nextDeadLetter = lastDeadLetter + 1;
    this.deadLetterCount = options.storage.deadLetters.getCount();
  }

  /** Events stamped so far (the last ingest seq). */
  get ingested(): number {
    return this.nextSeq - 1;
  }

  get deadLetters(): number {
    return this.deadLetterCount;
  }

  submit(event: unknown, origin: string, position?: number): void {
    this.accept(validateObject(event), null, event, origin, position);
  }

  submitLine(line: string, origin: string, position?: number): void {
    this.accept(validateLine(line), line, line, origin, position);
  }

  /**
   * The embedded API: resolves with the outcome once it is durable. Calls made in
   * one event turn share one batch and one commit.
   */
  ingest(event: unknown, origin = 'embedded'): Promise<IngestResult> {
    const result = this.accept(validateObject(event), null, event, origin, undefined);
    // An applied event is durable with its batch; a rejection or a duplicate with
    // everything before it (its dead letter, or the batch holding the first copy).
    const durable = result.status === 'applied' && this.open ? this.open.durable : this.whenAllDurable();
    return durable.then(() => {
      this.throwIfFailed();
      return result;
    });
  }

  /** Everything accepted so far is durable, without forcing the open batch out early. */
  private whenAllDurable(): Promise<void> {
    const open = this.open;
    const all = open ? Promise.all([this.lastDurable, open.durable]) : this.lastDurable;
    return all.then(() => this.throwIfFailed());
  }

  writable(): Promise<void> | null {
    if (this.inFlight < this.batchesInFlightMax) return null;
    return new Promise((resolve) => this.writableWaiters.push(resolve));
  }

  flush(): Promise<void> {
    if (this.open) this.writeOpenBatch();
    return this.lastDurable.then(() => this.throwIfFailed());
  }

  private throwIfFailed(): void {
    if (this.failure) throw new Error(`ingest log write failed: ${this.failure.message}`, { cause: this.failure });
  }

  /** Chains a durable step so that a write failure is recorded, never unhandled. */
  private chain(step: Promise<unknown>): void {
    this.lastDurable = Promise.all([this.lastDurable, step]).catch((err: Error) => {
      if (!this.failure) this.log.error({ err }, 'ingest log write failed; no further events are acknowledged');
      this.failure ??= err;
    });
  }

  /** Writes a rejected event to dead letters; used by the gate and by supervisors. */
  deadLetter(stage: string, reason: string, raw: unknown, source: string, extra: { seq?: number; type?: string } = {}): Promise<unknown> {
    let text: string;
    try {
      text = typeof raw === 'string' ? raw : JSON.stringify(raw) ?? String(raw);
    } catch {
      text = String(raw);
    }
    if (text.length > DEAD_LETTER_RAW_MAX) text = text.slice(0, DEAD_LETTER_RAW_MAX);
    const key = this.nextDeadLetter++;
    this.deadLetterCount++;
    this.metrics.deadLetters.inc({ stage });
    const write = this.storage.deadLetters.put(key, { at: Date.now(), reason, source, raw: text, ...extra });
    const durable = whenFlushed(write);
    this.chain(durable);
    return this.lastDurable;
  }

  private accept(v: Validation, line: string | null, raw: unknown, origin: string, position: number | undefined): IngestResult {
    if (!v.ok) {
      const source = position === undefined ? origin : `${origin}:${position}`;
      if (v.unknownType) {
        this.metrics.unknownTypes.inc({ type: v.type!.slice(0, 64) });
        if (!this.unknownTypesLogged.has(v.type!) && this.unknownTypesLogged.size < 1000) {
          this.unknownTypesLogged.add(v.type!);
          this.log.warn({ type: v.type, source }, 'unknown event type ignored (logged once per type)');
        }
        return { status: 'ignored', reason: v.reason };
      }
      this.deadLetter('gate', v.reason, raw, source, v.type ? { type: v.type } : {});
      return { status: 'rejected', reason: v.reason };
    }
    const { event, id } = v;
    if (this.pending.has(id) || this.storage.identities.doesExist(id)) {
      this.metrics.duplicates.inc();
      return { status: 'duplicate' };
    }
    if (event.type === 'token' && (event.decimals === undefined || event.supply_raw === undefined)) {
      const known = event.token_address in KNOWN_MINTS || this.pendingMints.has(event.token_address) || this.storage.mints.doesExist(event.token_address);
      if (!known) {
        const field = event.decimals === undefined ? 'decimals' : 'supply_raw';
        const reason = `token.${field}: required on a mint's first token event`;
        this.deadLetter('gate', reason, raw, position === undefined ? origin : `${origin}:${position}`, { type: 'token' });
        return { status: 'rejected', reason };
      }
    }
    if (v.unknownFields) this.metrics.unknownFields.inc({ type: event.type });
    let batch = this.open;
    if (!batch) {
      let resolveDurable!: () => void;
      let rejectDurable!: (err: Error) => void;
      const durable = new Promise<void>((resolve, reject) => {
        resolveDurable = resolve;
        rejectDurable = reject;
      });
      // Awaited only by embedded callers; a failure is also recorded by chain().
      durable.catch(() => undefined);
      batch = this.open = { firstSeq: this.nextSeq, texts: [], events: [], ids: [], mints: [], committed: false, durable, resolveDurable, rejectDurable };
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          if (this.open) this.writeOpenBatch();
        });
      }
    }
    const seq = this.nextSeq++;
    batch.texts.push(line ?? JSON.stringify(event));
    batch.events.push(event);
    batch.ids.push(id);
    this.pending.add(id);
    if (event.type === 'token' && event.decimals !== undefined) {
      batch.mints.push([event.token_address, event.decimals]);
      this.pendingMints.set(event.token_address, event.decimals);
    }
    if (batch.texts.length >= this.batchMax) this.writeOpenBatch();
    return { status: 'applied', seq };
  }

  private writeOpenBatch(): void {
    const batch = this.open!;
    this.open = null;
    const { storage } = this;
    // All puts of one event turn commit in one LMDB transaction, so the log batch,
    // its identities and its mints are durable together or not at all.
    const write = storage.ingestLog.put(batch.firstSeq, batch.texts);
    for (let i = 0; i < batch.ids.length; i++) storage.identities.put(batch.ids[i]!, batch.firstSeq + i);
    for (const [mint, decimals] of batch.mints) storage.mints.put(mint, decimals);
    this.inFlight++;
    this.metrics.batches.inc();
    // Counted per batch: a labelled prom-client inc per event costs more than the rest of the count.
    const byType: Record<string, number> = {};
    for (const event of batch.events) byType[event.type] = (byType[event.type] ?? 0) + 1;
    for (const type in byType) this.metrics.ingested.inc({ type }, byType[type]);
    this.unreleased.push(batch);
    // lmdb-js resolves the promises of one transaction in no set order, so a batch is
    // released only when every batch before it is committed too.
    const committed = write.then(() => {
      batch.committed = true;
      while (this.unreleased.length && this.unreleased[0]!.committed) {
        const next = this.unreleased.shift()!;
        this.committed$.next({ firstSeq: next.firstSeq, events: next.events });
      }
    });
    const durable = Promise.all([committed, whenFlushed(write)]).then(() => {
      for (const id of batch.ids) this.pending.delete(id);
      for (const [mint] of batch.mints) this.pendingMints.delete(mint);
      this.inFlight--;
      batch.resolveDurable();
      if (this.inFlight < this.batchesInFlightMax && this.writableWaiters.length) {
        const waiters = this.writableWaiters;
        this.writableWaiters = [];
        for (const wake of waiters) wake();
      }
    }, (err: Error) => {
      batch.rejectDurable(err);
      throw err;
    });
    this.chain(durable);
  }
}

/** The last ingest seq in the log (0 for an empty log). */
export function lastLoggedSeq(storage: Storage): number {
  for (const { key, value } of storage.ingestLog.getRange({ reverse: true, limit: 1 })) return key + value.length - 1;
  return 0;
}

/** Events of the log from `fromSeq` (inclusive) to `toSeq` (inclusive), in seq order. */
export function* readLog(storage: Storage, fromSeq: number, toSeq = Number.MAX_SAFE_INTEGER): Generator<{ seq: number; event: IngestEvent }> {
  let start = fromSeq;
  // The batch holding fromSeq starts at or before it.
  for (const key of storage.ingestLog.getKeys({ start: fromSeq, reverse: true, limit: 1 })) start = key;
  for (const { key, value } of storage.ingestLog.getRange({ start, end: toSeq + 1 })) {
    for (let i = 0; i < value.length; i++) {
      const seq = key + i;
      if (seq < fromSeq) continue;
      if (seq > toSeq) return;
      yield { seq, event: JSON.parse(value[i]!) as IngestEvent };
    }
  }
}
