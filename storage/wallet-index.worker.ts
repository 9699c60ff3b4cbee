import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openStorage } from './lmdb.ts';
import { indexJournalStep } from './wallet-index.ts';

/**
 * The wallet indexer's thread (wallet-index.ts): moves the wallet journal into
 * `trades_by_wallet`, step after step while there is any, then looks again every
 * `intervalMs`. Messages: `drain` (answered `drained` once the journal was seen empty
 * after it came), `stop` (answered `stopped` after the step under way, with storage
 * closed).
 */
export interface WalletIndexerData {
  path: string;
  intervalMs: number;
}

export type ToIndexer = { type: 'drain'; id: number } | { type: 'stop' };
export type FromIndexer = { type: 'drained'; id: number } | { type: 'stopped' } | { type: 'error'; message: string };

const { path, intervalMs } = workerData as WalletIndexerData;

/**
 * This thread runs at the lowest priority (nice 19; Linux takes a thread id where a
 * process id goes): it only catches up, and the engine's thread, which applies the
 * events, goes first. Elsewhere it stays as it is.
 */
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19);
} catch {
  // not Linux, or not allowed: the default priority
}
const port = parentPort!;
const storage = openStorage(path);
let stopping = false;
let drains: number[] = [];
let wake: (() => void) | null = null;

port.on('message', (m: ToIndexer) => {
  if (m.type === 'drain') drains.push(m.id);
  else stopping = true;
  wake?.();
});

async function run(): Promise<void> {
  while (!stopping) {
    // Asked before this step: answered once a step finds nothing left.
    const asked = drains;
    let moved = 0;
    try {
      moved = indexJournalStep(storage, undefined, (message) => port.postMessage({ type: 'error', message } satisfies FromIndexer));
    } catch (err) {
      port.postMessage({ type: 'error', message: (err as Error).message } satisfies FromIndexer);
    }
    if (moved > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    drains = drains.filter((id) => !asked.includes(id));
    for (const id of asked) port.postMessage({ type: 'drained', id } satisfies FromIndexer);
    if (drains.length > 0) continue;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
  }
  await storage.close();
  port.postMessage({ type: 'stopped' } satisfies FromIndexer);
}

void run();
