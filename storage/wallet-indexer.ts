import { Worker } from 'node:worker_threads';
import type { FromIndexer, ToIndexer, WalletIndexerData } from './wallet-index.worker.ts';
import { workerUrl } from '../engine/worker-url.ts';

/**
 * The engine's side of the wallet indexer thread (wallet-index.worker.ts). The thread
 * starts with the first journal entry (`poke`), so an engine that never stores a trade
 * starts none. Reads never wait for it: they take the journal too (wallet-index.ts).
 */
export class WalletIndexer {
  private worker: Worker | null = null;
  private closed = false;
  private nextId = 1;
  private readonly drains = new Map<number, () => void>();
  private stopped: Promise<void> | null = null;

  constructor(
    private readonly path: string,
    private readonly onError: (message: string) => void,
    private readonly intervalMs = 50,
  ) {}

  /** The journal has entries: start the thread if it is not running. */
  poke(): void {
    if (this.worker || this.closed) return;
    const worker = new Worker(workerUrl('wallet-index.worker', import.meta.url), {
      workerData: { path: this.path, intervalMs: this.intervalMs } satisfies WalletIndexerData,
    });
    worker.unref();
    this.stopped = new Promise<void>((resolve) => {
      worker.on('message', (m: FromIndexer) => {
        if (m.type === 'drained') {
          this.drains.get(m.id)?.();
          this.drains.delete(m.id);
        } else if (m.type === 'error') this.onError(m.message);
        else resolve();
      });
      worker.on('error', (err) => this.onError(`wallet indexer failed: ${err.message}`));
      worker.on('exit', (code) => {
        for (const done of this.drains.values()) done();
        this.drains.clear();
        // Gone without being asked: the next journal entry starts another.
        if (!this.closed) {
          this.onError(`wallet indexer exited with code ${code}; it starts again with the next stored trades`);
          this.worker = null;
        }
        resolve();
      });
    });
    this.worker = worker;
  }

  /** Resolves once the journal, as committed now, is in the index (at once with no thread). */
  drain(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.closed) return Promise.resolve();
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      this.drains.set(id, resolve);
      worker.postMessage({ type: 'drain', id } satisfies ToIndexer);
    });
  }

  /** Stops the thread after its current step (what is left stays in the journal for the next run). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    worker.postMessage({ type: 'stop' } satisfies ToIndexer);
    await this.stopped;
    await worker.terminate();
  }
}
