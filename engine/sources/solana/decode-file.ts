import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { SolanaDecoder, type DecodedTx } from './decode.ts';
import type { Format } from './transaction.ts';

/**
 * `mds decode`: recorded transactions in (one JSON document, or NDJSON with one value
 * per line: a transaction, a block, an RPC response or notification, a Yellowstone
 * update), INGEST NDJSON out, each event serialized once. The input is NDJSON when its
 * first non-blank line is a JSON value by itself; it is then decoded line by line as it
 * streams, with the output's backpressure honoured. Otherwise the whole input is one
 * document (a pretty-printed getTransaction response, say).
 */

export interface DecodeSummary {
  transactions: number;
  /** Transactions that gave at least one event. */
  withEvents: number;
  events: Record<string, number>;
  /** Skipped transactions (or values that were none) by reason. */
  skipped: Record<string, number>;
  /** Program events that could not become INGEST events, by reason. */
  rejected: Record<string, number>;
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

export async function decodeStream(input: Readable, output: Writable, format: Format = 'auto'): Promise<DecodeSummary> {
  const summary: DecodeSummary = { transactions: 0, withEvents: 0, events: {}, skipped: {}, rejected: {} };
  const decoder = new SolanaDecoder();
  const write = async (value: unknown) => {
    let text = '';
    for (const tx of decoder.decodeValue(value, format)) {
      add(summary, tx);
      for (const e of tx.events) text += JSON.stringify(e) + '\n';
    }
    if (text && !output.write(text)) await once(output, 'drain');
  };
  const lines = createInterface({ input, crlfDelay: Infinity });
  let mode: 'unknown' | 'ndjson' | 'document' = 'unknown';
  let document = '';
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (mode === 'document') {
      document += line + '\n';
      continue;
    }
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (mode === 'unknown') {
        mode = 'document';
        document = line + '\n';
      } else {
        bump(summary.skipped, 'a line that is not JSON');
        summary.transactions++;
      }
      continue;
    }
    mode = 'ndjson';
    await write(value);
  }
  if (mode === 'document') {
    let value: unknown;
    try {
      value = JSON.parse(document);
    } catch (err) {
      throw new Error(`input is neither NDJSON nor one JSON document (${(err as Error).message}, line ${lineNo})`);
    }
    await write(value);
  }
  return summary;
}

function add(summary: DecodeSummary, tx: DecodedTx) {
  summary.transactions++;
  if (tx.skipped) bump(summary.skipped, tx.skipped);
  else if (tx.events.length) summary.withEvents++;
  for (const e of tx.events) bump(summary.events, e.type);
  if (!tx.skipped) for (const r of tx.rejects) bump(summary.rejected, r.reason);
}

/** The summary for stderr, one fact a line. */
export function formatSummary(s: DecodeSummary): string {
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `  ${n}  ${k}\n`)
      .join('');
  const total = Object.values(s.events).reduce((a, b) => a + b, 0);
  const skipped = Object.values(s.skipped).reduce((a, b) => a + b, 0);
  return (
    `decoded ${s.transactions} records (transactions, or values offered as one): ${s.withEvents} with events, ${skipped} skipped\n` +
    `events: ${total}${total ? ` (${Object.entries(s.events).map(([t, n]) => `${t} ${n}`).join(', ')})` : ''}\n` +
    (skipped ? `skipped:\n${list(s.skipped)}` : '') +
    (Object.keys(s.rejected).length ? `events rejected:\n${list(s.rejected)}` : '')
  );
}
