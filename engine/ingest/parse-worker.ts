import { parentPort } from 'node:worker_threads';
import { EVENT_TYPES, type IngestEvent } from './events.ts';
import { LineSplitter } from './lines.ts';
import type { ParsedChunk } from './parsed-chunk.ts';
import { SwapColumnsBuilder } from './swap-columns.ts';
import { validateLine } from './validate.ts';

/**
 * The parse stage on its own thread: a piece of NDJSON made of whole lines in
 * (transferred), validated lines out. Stateless between messages, so several workers
 * can share one input; positions are 1-based within the piece.
 */
export interface ParseRequest {
  bytes: Uint8Array;
  lineBytesMax: number;
  /** Send swap lines as columns too (swap-columns.ts). */
  swapColumns: boolean;
}

const NEWLINE = Buffer.from('\n');
const TYPE_CODE = new Map<string, number>(EVENT_TYPES.map((type, i) => [type, i]));

class Builder {
  private parts: Buffer[] = [];
  private size = 0;
  private ends: number[] = [];
  private unknown: number[] = [];
  private positions: number[] = [];
  private types: number[] = [];
  private buckets: string[] = [];
  private bucketEnds: number[] = [];
  private members: string[] = [];
  /** True while every kept line is the input line with its newline, back to back. */
  private verbatim = true;
  private inputEnd = 0;
  constructor(private readonly swaps: SwapColumnsBuilder | null) {}
  tokens: ParsedChunk['tokens'] = [];
  rejects: ParsedChunk['rejects'] = [];

  get count(): number {
    return this.ends.length;
  }

  add(line: Buffer, lineStart: number, position: number, event: IngestEvent, bucket: string, member: string, unknownFields: boolean): void {
    if (lineStart !== this.inputEnd) this.verbatim = false;
    this.inputEnd = lineStart + line.length + 1;
    // Where the line starts in the output bytes (the input itself while verbatim, the copy otherwise: the same place).
    this.swaps?.add(line, this.size, event, unknownFields);
    this.parts.push(line, NEWLINE);
    this.size += line.length + 1;
    this.ends.push(this.size);
    const runs = this.buckets.length;
    if (runs && this.buckets[runs - 1] === bucket) this.bucketEnds[runs - 1] = this.ends.length;
    else {
      this.buckets.push(bucket);
      this.bucketEnds.push(this.ends.length);
    }
    this.members.push(member);
    this.types.push(TYPE_CODE.get(event.type)!);
    this.unknown.push(unknownFields ? 1 : 0);
    this.positions.push(position);
  }

  finish(input: Buffer, lines: number): ParsedChunk {
    let bytes: Buffer;
    if (this.verbatim && this.size === input.length) {
      // Every line kept as it came, with its newline: send the input back, uncopied
      // (a view of the transferred memory, which goes back with it).
      bytes = input;
    } else {
      // Its own memory, never Buffer's shared pool: the buffer is transferred.
      bytes = Buffer.from(new ArrayBuffer(this.size));
      let offset = 0;
      for (const part of this.parts) offset += part.copy(bytes, offset);
    }
    return {
      bytes,
      ends: Uint32Array.from(this.ends),
      buckets: this.buckets,
      bucketEnds: Uint32Array.from(this.bucketEnds),
      members: this.members,
      types: Uint8Array.from(this.types),
      unknownFields: Uint8Array.from(this.unknown),
      positions: Uint32Array.from(this.positions),
      lines,
      tokens: this.tokens,
      rejects: this.rejects,
      swaps: this.swaps?.finish(),
    };
  }
}

export function parsePiece(bytes: Buffer, lineBytesMax: number, swapColumns = true): ParsedChunk {
  const out = new Builder(swapColumns ? new SwapColumnsBuilder(Math.ceil(bytes.length / 256)) : null);
  const splitter = new LineSplitter(lineBytesMax, {
    line(line, position) {
      const lineStart = line.byteOffset - bytes.byteOffset;
      const v = validateLine(line.toString('utf8'));
      if (!v.ok) {
        out.rejects.push({ position, reason: v.reason, raw: v.unknownType ? '' : line.toString('utf8', 0, 4096), type: v.type, unknownType: v.unknownType });
        return;
      }
      const e = v.event;
      if (e.type === 'token') {
        out.tokens.push({ index: out.count, token: e.token_address, decimals: e.decimals !== undefined && e.supply_raw !== undefined ? e.decimals : null });
      }
      out.add(line, lineStart, position, e, v.bucket, v.member, v.unknownFields);
    },
    reject(reason, head, position) {
      out.rejects.push({ position, reason, raw: head.toString('latin1') });
    },
  });
  splitter.push(bytes);
  splitter.end();
  return out.finish(bytes, splitter.lines);
}

parentPort?.on('message', (request: ParseRequest) => {
  const chunk = parsePiece(Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength), request.lineBytesMax, request.swapColumns);
  const transfer = [chunk.bytes.buffer as ArrayBuffer];
  if (chunk.swaps) transfer.push(chunk.swaps.rows.buffer as ArrayBuffer, chunk.swaps.offsets.buffer as ArrayBuffer, chunk.swaps.numbers.buffer as ArrayBuffer);
  parentPort!.postMessage(chunk, transfer);
});
