import { Worker } from 'node:worker_threads';
import type { ParsedChunk } from './parsed-chunk.ts';
import type { ParseRequest } from './parse-worker.ts';
import { workerUrl } from '../worker-url.ts';

interface Waiter {
  resolve: (chunk: ParsedChunk) => void;
  reject: (err: Error) => void;
}

/**
 * The main thread's side of parse-worker.ts: pieces of NDJSON (whole lines) go to
 * the workers in turn and come back validated. Each worker answers in order, so
 * awaiting the promises in the order `parse` returned them gives input order.
 */
export class ChunkParser {
  private readonly workers: Array<{ worker: Worker; waiting: Waiter[] }> = [];
  private next = 0;
  private failure: Error | null = null;

  constructor(private readonly lineBytesMax: number, workerCount = 2) {
    for (let i = 0; i < workerCount; i++) {
      const worker = new Worker(workerUrl('parse-worker', import.meta.url));
      const entry = { worker, waiting: [] as Waiter[] };
      worker.on('message', (chunk: ParsedChunk) => {
        chunk.bytes = Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength);
        entry.waiting.shift()?.resolve(chunk);
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', (code) => this.fail(new Error(`parse worker exited with code ${code}`)));
      this.workers.push(entry);
    }
  }

  /**
   * Validates a piece of whole lines (the last one may lack its newline). Its memory
   * is transferred, not copied, when the piece spans all of it, or when the caller
   * says nothing else uses the rest (`transferable`); otherwise the piece is copied.
   */
  parse(bytes: Buffer, transferable = false, swapColumns = false): Promise<ParsedChunk> {
    if (this.failure) return Promise.reject(this.failure);
    const own = !(bytes.buffer instanceof SharedArrayBuffer) && (transferable || (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength));
    const payload = own ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
    const entry = this.workers[this.next]!;
    this.next = (this.next + 1) % this.workers.length;
    return new Promise((resolve, reject) => {
      entry.waiting.push({ resolve, reject });
      entry.worker.postMessage({ bytes: payload, lineBytesMax: this.lineBytesMax, swapColumns } satisfies ParseRequest, [payload.buffer as ArrayBuffer]);
    });
  }

  close(): Promise<unknown> {
    this.failure ??= new Error('parse workers closed');
    return Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const { waiting } of this.workers) for (const waiter of waiting.splice(0)) waiter.reject(err);
  }
}
