import type { Logger } from 'pino';
import type { IngestSink } from '../source.ts';
import type { DecodedTx } from './decode.ts';

/** What the live Solana sources (solana-ws:, yellowstone:) share. */

/** Exponential backoff with jitter: half to all of min·2^attempt, capped at max. */
export const backoffMs = (attempt: number, minMs: number, maxMs: number) => Math.min(maxMs, minMs * 2 ** attempt) * (0.5 + Math.random() / 2);

/** A sleep that ends early when `signal` aborts. */
export const abortableSleep = (signal: AbortSignal) => (ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** Writes to the sink's dead letters (stage `source`), or logs where the sink has none. */
export const deadLetterTo = (sink: IngestSink, log: Logger, source: string) => (reason: string, raw: unknown) => {
  if (sink.deadLetter) sink.deadLetter('source', reason, raw, source);
  else log.warn({ source, reason }, 'dropped');
};

/**
 * Submits decoded transactions' events in order, awaiting the sink's backpressure
 * (`onWait(true)` before such a wait, `onWait(false)` after); a skipped transaction
 * (but a failed one) and each rejected event go to dead letters. Resolves to the count of
 * transactions and events submitted.
 */
export async function submitDecoded(
  txs: Iterable<DecodedTx>,
  sink: IngestSink,
  deadLetter: (reason: string, raw: unknown) => void,
  source: string,
  onWait?: (waiting: boolean) => void,
): Promise<{ transactions: number; events: number }> {
  let transactions = 0;
  let events = 0;
  for (const tx of txs) {
    transactions++;
    if (tx.skipped) {
      if (tx.skipped !== 'failed transaction (meta.err set)') deadLetter(tx.skipped, { signature: tx.signature });
      continue;
    }
    for (const r of tx.rejects) deadLetter(r.reason, { signature: tx.signature, event: r.event });
    for (const event of tx.events) {
      const wait = sink.writable();
      if (wait) {
        onWait?.(true);
        await wait;
        onWait?.(false);
      }
      sink.submit(event, source);
      events++;
    }
  }
  return { transactions, events };
}
