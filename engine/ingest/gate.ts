import { APPLY_BACKLOG_MAX, DEAD_LETTER_RAW_MAX, IN_FLIGHT_BYTES_FREE } from '../bounds.ts';
import { KNOWN_MINTS } from '../model/index.ts';
import type { Logger } from 'pino';
import { Subject } from 'rxjs';
import type { Metrics } from '../metrics.ts';
import type { IngestSink } from '../sources/index.ts';
import { logBytes, whenFlushed, type Storage } from '../../storage/index.ts';
import { CommittedBatch, logLineCount, logLines } from './batch.ts';
import { EVENT_TYPES, type IngestEvent } from './events.ts';
import { IdentityIndex } from './identities.ts';
import type { ParsedChunk } from './parsed-chunk.ts';
import { validateLine, validateObject, type Validation } from './validate.ts';

export { CommittedBatch } from './batch.ts';

/** What `ingest(event)` resolves to, once the outcome is durable. */
export type IngestResult =
  | { status: 'applied'; seq: number }
  | { status: 'duplicate' }
  | { status: 'rejected'; reason: string }
  | { status: 'ignored'; reason: string };

interface OpenBatch {
  firstSeq: number;
  /** Log bytes so far, in seq order, each line ending in '\n'. */
  pieces: Buffer[];
  /** Text of events taken as objects or strings, not yet moved into `pieces`. */
  text: string;
  /** The event objects the gate holds (undefined for lines validated on the worker). */
  events: Array<IngestEvent | undefined>;
  /** Per event: the parsed chunk that holds its swap columns, or null (CommittedBatch). */
  columns: Array<ParsedChunk | null>;
  /** Per event: its row in those columns (-1 without). */
  rows: number[];
  typeCounts: Record<string, number>;
  mints: Array<[string, number]>;
  /** Resolves when this batch is durable. */
  durable: Promise<void>;
  resolveDurable: () => void;
  rejectDurable: (err: Error) => void;
}

/** The actors' side of the gate (engine/apply.ts Applier): batches it was handed and has not applied yet. */
export interface AppliedSide {
  readonly backlog: number;
  /** The seq of the last event applied. */
  readonly appliedSeq: number;
  /** Resolves once every batch handed over is applied. */
  settled(): Promise<void>;
  /** Resolves once `backlog` is at most `atMost`. */
  whenBacklogAtMost(atMost: number): Promise<void>;
  /** Resolves once the event of `seq` is applied. */
  whenApplied(seq: number): Promise<void>;
}

export interface GateOptions {
  storage: Storage;
  metrics: Metrics;
  log: Logger;
  batchMax: number;
  batchesInFlightMax: number;
  /** See IngestSink.swapColumns: true for an engine's gate, whose batches the actors apply. */
  swapColumns?: boolean;
}

/**
 * The ingest gate: validate (zod), drop duplicates by identity, stamp a monotonically
 * increasing ingest seq, append batches to the ingest log. A batch is published on
 * `committed$` in the event turn its log put is queued in (it commits in that turn's
 * transaction, with whatever the actors write while applying it), in seq order, and
 * acknowledged (promises of `ingest` and `flush` resolve) once it is flushed to disk.
 */
export class IngestGate implements IngestSink {
  readonly committed$ = new Subject<CommittedBatch>();
  readonly swapColumns: boolean;
  private readonly storage: Storage;
  private readonly metrics: Metrics;
  private readonly log: Logger;
  private readonly batchMax: number;
  private readonly batchesInFlightMax: number;
  private readonly identities: IdentityIndex;
  private nextSeq: number;
  private nextDeadLetter: number;
  private deadLetterCount: number;
  private open: OpenBatch | null = null;
  private flushScheduled = false;
  private inFlight = 0;
  /** Batches written and not handed to the actors yet (a microtask away): counted with their backlog. */
  private handing = 0;
  /** First seqs of the batches written and not yet durable, in seq order (a failed one stays). */
  private readonly unsettled: number[] = [];
  /** Log bytes of those batches. */
  private inFlightBytes = 0;
  /** Mints declared by token events in batches not yet flushed. */
  private readonly pendingMints = new Map<string, number>();
  private lastDurable: Promise<unknown> = Promise.resolve();
  private writableWaiters: Array<() => void> = [];
  private readonly unknownTypesLogged = new Set<string>();
  /** Where committed batches are applied, once the engine has said (follow). */
  private applied: AppliedSide | null = null;
  /** A failed ingest-log write: nothing after it is acknowledged. */
  private failure: Error | null = null;
  /**
   * Batches released to the actors and not yet durable, in seq order: LMDB reads do not
   * show a batch before its commit, and a rebuild must replay what the actors saw (history).
   * Bytes only, no parsed events (those held until the fsync cost GC time; see writeOpenBatch).
   */
  private readonly released: Array<{ firstSeq: number; bytes: Buffer }> = [];

  constructor(options: GateOptions) {
    this.swapColumns = options.swapColumns ?? false;
    this.storage = options.storage;
    this.metrics = options.metrics;
    this.log = options.log;
    this.batchMax = options.batchMax;
    this.batchesInFlightMax = options.batchesInFlightMax;
    this.identities = new IdentityIndex(options.storage);
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

  /**
   * Events on disk: every seq up to this one is durable (an `ingest` of it has resolved,
   * and a crash keeps it). Below `ingested` while batches wait for their fsync.
   */
  get durable(): number {
    const first = this.unsettled[0] ?? this.open?.firstSeq;
    return first === undefined ? this.ingested : first - 1;
  }

  get deadLetters(): number {
    return this.deadLetterCount;
  }

  /**
   * The actors apply committed batches in slices (engine/apply.ts): sources also wait
   * while more than APPLY_BACKLOG_MAX batches are still to apply (memory stays bounded
   * when the log commits faster than the actors apply), and an acknowledgement
   * (`ingest`, `flush`) waits until its batch is applied as well as durable.
   */
  follow(side: AppliedSide): void {
    this.applied = side;
  }

  submit(event: unknown, origin: string, position?: number): void {
    this.accept(validateObject(event), null, event, origin, position);
  }

  submitLine(line: string, origin: string, position?: number): void {
    this.accept(validateLine(line), line, line, origin, position);
  }

  /**
   * Lines validated on the parse worker, in input order: only dedup, the mint check
   * and the append are left, and the valid lines' bytes go to the log as they are.
   */
  submitParsed(chunk: ParsedChunk, origin: string): void {
    for (const r of chunk.rejects) this.reject(r.reason, r.raw, `${origin}:${r.position}`, r.type, r.unknownType);
    const { buckets, bucketEnds, members, types, ends, tokens, unknownFields, swaps } = chunk;
    const bytes = chunk.bytes as Buffer;
    const count = ends.length;
    // A chunk is never split across batches, and starts a new one when it would take
    // the open batch past batchMax: a batch that is one whole chunk logs the chunk's own
    // bytes, uncopied. So a batch may pass batchMax when a single chunk does.
    if (this.open && this.open.events.length + count > this.batchMax) this.writeOpenBatch();
    let runStart = 0; // first line of the run of kept lines not yet in a batch
    let token = 0;
    let bucketRun = 0;
    for (let i = 0; i < count; i++) {
      while (i >= bucketEnds[bucketRun]!) bucketRun++;
      const bucket = buckets[bucketRun]!;
      const tokenEvent = token < tokens.length && tokens[token]!.index === i ? tokens[token++]! : null;
      // Duplicates first: a repeated token event declares nothing and is not rejected.
      let keep = !this.identities.has(bucket, members[i]!);
      if (!keep) this.metrics.duplicates.inc();
      else if (tokenEvent && tokenEvent.decimals === null && !this.mintKnown(tokenEvent.token)) {
        const start = i ? ends[i - 1]! : 0;
        this.reject(`token.decimals: required on a mint's first token event (with supply_raw)`, bytes.toString('utf8', start, ends[i]! - 1), `${origin}:${chunk.positions[i]}`, 'token');
        keep = false;
      } else if (tokenEvent && tokenEvent.decimals !== null) this.declareMint(tokenEvent.token, tokenEvent.decimals);
      if (!keep) {
        this.appendRun(bytes, ends, runStart, i);
        runStart = i + 1;
        continue;
      }
      const batch = this.openBatch();
      this.identities.add(bucket, members[i]!, batch.firstSeq);
      this.nextSeq++;
      batch.events.push(undefined);
      const row = swaps === undefined ? -1 : swaps.rows[i]!;
      batch.columns.push(row === -1 ? null : chunk);
      batch.rows.push(row);
      const type = EVENT_TYPES[types[i]!]!;
      batch.typeCounts[type] = (batch.typeCounts[type] ?? 0) + 1;
      if (unknownFields[i]) this.metrics.unknownFields.inc({ type });
    }
    this.appendRun(bytes, ends, runStart, count);
    if (this.open && this.open.events.length >= this.batchMax) this.writeOpenBatch();
  }

  /**
   * The embedded API: resolves with the outcome once it is durable. Calls made in
   * one callback (with the promise jobs it queues) share one batch and one commit.
   */
  ingest(event: unknown, origin = 'embedded'): Promise<IngestResult> {
    const result = this.accept(validateObject(event), null, event, origin, undefined);
    // An applied event is durable with its batch; a rejection or a duplicate with
    // everything before it (its dead letter, or the batch holding the first copy).
    const durable = result.status === 'applied' && this.open ? this.open.durable : this.whenAllDurable();
    return durable.then(() => {
      this.throwIfFailed();
      const applied = this.applied;
      return applied && result.status === 'applied' && applied.appliedSeq < result.seq ? applied.whenApplied(result.seq).then(() => result) : result;
    });
  }

  /**
   * Sources pause once `batchesInFlightMax` batches wait for their commit, unless those
   * hold less than IN_FLIGHT_BYTES_FREE together: a live pipe's batches of a line or a
   * few each (one per read) would otherwise wait for the disk's fsync (p99 ~100 ms on
   * this machine's disk) every eighth batch, and their lines with them, while holding
   * less than one read of a file. Memory stays bounded either way. They pause too while
   * the actors have more than APPLY_BACKLOG_MAX batches to apply, and go on once they are
   * back within it.
   */
  writable(): Promise<void> | null {
    if (this.hasRoom()) {
      const applied = this.applied;
      // Batches being handed over count (a source submitting in a loop writes several in
      // one turn); it goes on once the actors are back within the bound, not drained, so
      // that they have batches to apply while the next ones are read.
      return applied && applied.backlog + this.handing > APPLY_BACKLOG_MAX ? applied.whenBacklogAtMost(APPLY_BACKLOG_MAX) : null;
    }
    return new Promise((resolve) => this.writableWaiters.push(resolve));
  }

  /**
   * Resolves once every event submitted is durable and applied, and what the actors
   * wrote applying them is committed: a backlog's slices after the first write in later
   * transactions than their batch's log, which LMDB shows only once they commit (a
   * signal of the last slice was missing from a read right after `runSource`).
   */
  flush(): Promise<void> {
    if (this.open) this.writeOpenBatch();
    return this.lastDurable.then(async () => {
      this.throwIfFailed();
      const applied = this.applied;
      if (applied && applied.backlog > 0) await applied.settled();
      await this.storage.ingestLog.committed;
    });
  }

  /**
   * Events from `fromSeq` to `toSeq` (inclusive), in seq order, as the actors saw them:
   * the committed log, then the batches released to the actors but not durable yet. A
   * batch that commits meanwhile stays in `released` until durable (by then LMDB reads
   * show it), so the log is read only below the first released seq and nothing comes twice.
   */
  *history(fromSeq: number, toSeq = Number.MAX_SAFE_INTEGER): Generator<{ seq: number; event: IngestEvent }> {
    const released = this.released.slice(); // as of the first next(): later settles do not shift it
    const logEnd = released.length ? Math.min(toSeq, released[0]!.firstSeq - 1) : toSeq;
    if (fromSeq <= logEnd) yield* readLog(this.storage, fromSeq, logEnd);
    for (const batch of released) {
      if (batch.firstSeq > toSeq) return;
      yield* batchEvents(batch.firstSeq, batch.bytes, fromSeq, toSeq);
    }
  }

  /** Writes a rejected event to dead letters; used by the gate, sources and supervisors. */
  deadLetter(stage: string, reason: string, raw: unknown, source: string, extra: { seq?: number; type?: string } = {}): Promise<unknown> {
    let text: string;
    try {
      text = typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? String(raw));
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

  private hasRoom(): boolean {
    return this.inFlight < this.batchesInFlightMax || this.inFlightBytes < IN_FLIGHT_BYTES_FREE;
  }

  private whenAllDurable(): Promise<void> {
    const open = this.open;
    const all = open ? Promise.all([this.lastDurable, open.durable]) : this.lastDurable;
    return all.then(() => this.throwIfFailed());
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

  private reject(reason: string, raw: unknown, source: string, type?: string, unknownType?: boolean): IngestResult {
    if (unknownType) {
      const name = type!.slice(0, 64);
      this.metrics.unknownTypes.inc({ type: name });
      if (!this.unknownTypesLogged.has(name) && this.unknownTypesLogged.size < 1000) {
        this.unknownTypesLogged.add(name);
        this.log.warn({ type: name, source }, 'unknown event type ignored (logged once per type)');
      }
      return { status: 'ignored', reason };
    }
    this.deadLetter('gate', reason, raw, source, type ? { type } : {});
    return { status: 'rejected', reason };
  }

  private mintKnown(mint: string): boolean {
    return mint in KNOWN_MINTS || this.pendingMints.has(mint) || this.storage.mints.doesExist(mint);
  }

  private declareMint(mint: string, decimals: number): void {
    this.openBatch().mints.push([mint, decimals]);
    this.pendingMints.set(mint, decimals);
  }

  private accept(v: Validation, line: string | null, raw: unknown, origin: string, position: number | undefined): IngestResult {
    if (!v.ok) return this.reject(v.reason, raw, sourceAt(origin, position), v.type, v.unknownType);
    const { event, bucket, member } = v;
    if (this.identities.has(bucket, member)) {
      this.metrics.duplicates.inc();
      return { status: 'duplicate' };
    }
    if (event.type === 'token') {
      if (event.decimals === undefined || event.supply_raw === undefined) {
        if (!this.mintKnown(event.token_address)) {
          const field = event.decimals === undefined ? 'decimals' : 'supply_raw';
          return this.reject(`token.${field}: required on a mint's first token event`, raw, sourceAt(origin, position), 'token');
        }
      } else this.declareMint(event.token_address, event.decimals);
    }
    if (v.unknownFields) this.metrics.unknownFields.inc({ type: event.type });
    const batch = this.openBatch();
    const seq = this.nextSeq++;
    this.identities.add(bucket, member, batch.firstSeq);
    batch.text += (line ?? JSON.stringify(event)) + '\n';
    batch.events.push(event);
    batch.columns.push(null);
    batch.rows.push(-1);
    batch.typeCounts[event.type] = (batch.typeCounts[event.type] ?? 0) + 1;
    if (batch.events.length >= this.batchMax) this.writeOpenBatch();
    return { status: 'applied', seq };
  }

  private openBatch(): OpenBatch {
    if (this.open) return this.open;
    let resolveDurable!: () => void;
    let rejectDurable!: (err: Error) => void;
    const durable = new Promise<void>((resolve, reject) => {
      resolveDurable = resolve;
      rejectDurable = reject;
    });
    // Awaited only by embedded callers; a failure is also recorded by chain().
    durable.catch(() => undefined);
    this.open = {
      firstSeq: this.nextSeq, pieces: [], text: '', events: [], columns: [], rows: [], typeCounts: {}, mints: [],
      durable, resolveDurable, rejectDurable,
    };
    if (!this.flushScheduled) {
      // Written once the callback that opened the batch returns (its promise jobs
      // included, so an async loop over buffered lines still fills one batch), not in
      // the next check phase: a batch opened in a check-phase callback waited a whole
      // loop iteration for it, behind the socket writes of that iteration (~4 ms with
      // 1,000 subscribers). lmdb-js closes its write batch in a setImmediate, so the log
      // put and what the actors write while applying still share one transaction.
      this.flushScheduled = true;
      process.nextTick(() => {
        this.flushScheduled = false;
        if (this.open) this.writeOpenBatch();
      });
    }
    return this.open;
  }

  /** Moves lines [from, to) of a parsed chunk into the open batch's bytes. */
  private appendRun(bytes: Buffer, ends: Uint32Array, from: number, to: number): void {
    if (to <= from) return;
    const batch = this.open!;
    if (batch.text) {
      batch.pieces.push(Buffer.from(batch.text));
      batch.text = '';
    }
    batch.pieces.push(bytes.subarray(from ? ends[from - 1]! : 0, ends[to - 1]!));
  }

  private writeOpenBatch(): void {
    const batch = this.open!;
    this.open = null;
    if (batch.text) batch.pieces.push(Buffer.from(batch.text));
    batch.text = '';
    const bytes = batch.pieces.length === 1 ? batch.pieces[0]! : Buffer.concat(batch.pieces);
    batch.pieces = [];
    const { storage } = this;
    // All puts of one event turn commit in one LMDB transaction, so the log batch,
    // its identities and its mints are durable together or not at all.
    const write = storage.ingestLogWrites.put(batch.firstSeq, bytes);
    this.identities.writeStaged(batch.firstSeq);
    for (const [mint, decimals] of batch.mints) storage.mints.put(mint, decimals);
    this.inFlight++;
    this.inFlightBytes += bytes.length;
    this.metrics.batches.inc();
    // Counted per batch: a labelled prom-client inc per event costs more than the rest of the count.
    for (const type in batch.typeCounts) this.metrics.ingested.inc({ type }, batch.typeCounts[type]);
    // Released to the actors in this event turn, without waiting for the commit: lmdb-js
    // resolves a put only after its transaction's fsync (p99 ~100 ms on this disk), which
    // every live frame would wait for. What the actors write while applying joins this
    // turn's transaction, so nothing derived from a batch commits before the batch; a
    // crash before the commit loses the batch and what was derived from it alike, and
    // none of it was acknowledged (acknowledgements still wait for `durable` below).
    // Batches are written in seq order, and microtasks run in the order queued.
    // The events go with the CommittedBatch only: `batch` stays referenced until the
    // fsync (~100 ms), and parsed events held that long survive young-generation GCs
    // and get copied and promoted (most of the engine's GC time, when they were).
    const { events, columns, rows } = batch;
    batch.events = [];
    batch.columns = [];
    batch.rows = [];
    const logged = { firstSeq: batch.firstSeq, bytes };
    this.unsettled.push(batch.firstSeq);
    this.handing++;
    queueMicrotask(() => {
      this.handing--;
      this.released.push(logged);
      this.committed$.next(new CommittedBatch(batch.firstSeq, bytes, events, columns, rows));
    });
    // Settles in write order, so `logged` is the first one left in all but odd cases.
    // A failed batch leaves too: the log never holds it, and nothing after it is acknowledged.
    const settled = () => {
      const i = this.released.indexOf(logged);
      if (i >= 0) this.released.splice(i, 1);
    };
    const durable = Promise.all([write, whenFlushed(write)]).then(
      () => {
        settled();
        this.unsettled.splice(this.unsettled.indexOf(batch.firstSeq), 1);
        this.identities.markDurable(batch.firstSeq);
        for (const [mint] of batch.mints) this.pendingMints.delete(mint);
        this.inFlight--;
        this.inFlightBytes -= bytes.length;
        batch.resolveDurable();
        if (this.hasRoom() && this.writableWaiters.length) {
          const waiters = this.writableWaiters;
          this.writableWaiters = [];
          for (const wake of waiters) wake();
        }
      },
      (err: Error) => {
        settled();
        batch.rejectDurable(err);
        throw err;
      },
    );
    this.chain(durable);
  }
}

/** Where a rejected event came from: `origin`, or `origin:position`. Built only on rejection. */
function sourceAt(origin: string, position: number | undefined): string {
  return position === undefined ? origin : `${origin}:${position}`;
}

/** The last ingest seq in the log (0 for an empty log). */
export function lastLoggedSeq(storage: Storage): number {
  for (const { key, value } of storage.ingestLog.getRange({ reverse: true, limit: 1 })) return key + logLineCount(logBytes(value)) - 1;
  return 0;
}

/** Events of the log from `fromSeq` (inclusive) to `toSeq` (inclusive), in seq order. */
export function* readLog(storage: Storage, fromSeq: number, toSeq = Number.MAX_SAFE_INTEGER): Generator<{ seq: number; event: IngestEvent }> {
  let start = fromSeq;
  // The batch holding fromSeq starts at or before it.
  for (const key of storage.ingestLog.getKeys({ start: fromSeq, reverse: true, limit: 1 })) start = key;
  for (const { key, value } of storage.ingestLog.getRange({ start, end: toSeq + 1 })) yield* batchEvents(key, logBytes(value), fromSeq, toSeq);
}

/** Events of one log batch (its first seq and NDJSON bytes) from `fromSeq` to `toSeq`. */
function* batchEvents(firstSeq: number, bytes: Uint8Array, fromSeq: number, toSeq: number): Generator<{ seq: number; event: IngestEvent }> {
  let seq = firstSeq;
  for (const line of logLines(bytes)) {
    if (seq > toSeq) return;
    if (seq >= fromSeq) yield { seq, event: JSON.parse(line) as IngestEvent };
    seq++;
  }
}
