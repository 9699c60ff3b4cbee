import { Worker } from 'node:worker_threads';
import type { ParsedChunk } from './parsed-chunk.ts';
import type { ParseRequest } from './parse-worker.ts';

/**
 * The main thread's side of parse-worker.ts: chunks of one NDJSON stream go to one
 * worker thread in order and come back validated, in the same order.
 */
export class ChunkParser {
  private readonly worker: Worker;
  private readonly waiting: Array<{ resolve: (chunk: ParsedChunk) => void; reject: (err: Error) => void }> = [];
  private failure: Error | null = null;

  constructor(private readonly lineBytesMax: number) {
    this.worker = new Worker(new URL('./parse-worker.boot.mjs', import.meta.url));
    this.worker.on('message', (chunk: ParsedChunk) => {
      chunk.bytes = Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength);
      this.waiting.shift()?.resolve(chunk);
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`parse worker exited with code ${code}`)));
  }

  /** Validates the lines of `bytes` (a line may continue in the next chunk). */
  parse(bytes: Buffer): Promise<ParsedChunk> {
    // Transfer the chunk's memory when it owns all of it; copy otherwise (a pooled or shared buffer).
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer);
    const payload = own ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
    return this.send({ kind: 'chunk', bytes: payload, lineBytesMax: this.lineBytesMax }, [payload.buffer as ArrayBuffer]);
  }

  /** The stream ended: validates a last line that had no newline. */
  end(): Promise<ParsedChunk> {
    return this.send({ kind: 'end', lineBytesMax: this.lineBytesMax }, []);
  }

  close(): Promise<number> {
    this.failure ??= new Error('parse worker closed');
    return this.worker.terminate();
  }

  private send(request: ParseRequest, transfer: ArrayBuffer[]): Promise<ParsedChunk> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(request, transfer);
    });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const waiter of this.waiting.splice(0)) waiter.reject(err);
  }
}
