import { parentPort } from 'node:worker_threads';
import { LineSplitter } from './lines.ts';
import type { ParsedChunk } from './parsed-chunk.ts';
import { validateLine } from './validate.ts';

/**
 * The parse stage on its own thread: NDJSON chunks in (transferred), validated lines
 * out. Messages are handled in order, and line splitting carries across chunks, so
 * one worker serves one input stream.
 */
export type ParseRequest = { kind: 'chunk'; bytes: Uint8Array; lineBytesMax: number } | { kind: 'end'; lineBytesMax: number };

let splitter: LineSplitter | null = null;
let out: Builder;

class Builder {
  private parts: Buffer[] = [];
  private size = 0;
  private ends: number[] = [];
  buckets: string[] = [];
  members: string[] = [];
  types: string[] = [];
  private unknown: number[] = [];
  private positions: number[] = [];
  tokens: ParsedChunk['tokens'] = [];
  rejects: ParsedChunk['rejects'] = [];

  add(line: Buffer, position: number, type: string, bucket: string, member: string, unknownFields: boolean): void {
    this.parts.push(line, NEWLINE);
    this.size += line.length + 1;
    this.ends.push(this.size);
    this.buckets.push(bucket);
    this.members.push(member);
    this.types.push(type);
    this.unknown.push(unknownFields ? 1 : 0);
    this.positions.push(position);
  }

  get count(): number {
    return this.ends.length;
  }

  finish(): ParsedChunk {
    // Its own memory, never Buffer's shared pool: the buffer is transferred.
    const bytes = Buffer.from(new ArrayBuffer(this.size));
    let offset = 0;
    for (const part of this.parts) offset += part.copy(bytes, offset);
    return {
      bytes,
      ends: Uint32Array.from(this.ends),
      buckets: this.buckets,
      members: this.members,
      types: this.types,
      unknownFields: Uint8Array.from(this.unknown),
      positions: Uint32Array.from(this.positions),
      tokens: this.tokens,
      rejects: this.rejects,
    };
  }
}

const NEWLINE = Buffer.from('\n');

function splitterFor(lineBytesMax: number): LineSplitter {
  return (splitter ??= new LineSplitter(lineBytesMax, {
    line(bytes, position) {
      const v = validateLine(bytes.toString('utf8'));
      if (!v.ok) {
        out.rejects.push({ position, reason: v.reason, raw: v.unknownType ? '' : bytes.toString('utf8', 0, 4096), type: v.type, unknownType: v.unknownType });
        return;
      }
      const e = v.event;
      if (e.type === 'token') {
        out.tokens.push({ index: out.count, token: e.token_address, decimals: e.decimals !== undefined && e.supply_raw !== undefined ? e.decimals : null });
      }
      out.add(bytes, position, e.type, v.bucket, v.member, v.unknownFields);
    },
    reject(reason, head, position) {
      out.rejects.push({ position, reason, raw: head.toString('latin1') });
    },
  }));
}

parentPort!.on('message', (request: ParseRequest) => {
  out = new Builder();
  const split = splitterFor(request.lineBytesMax);
  if (request.kind === 'chunk') split.push(Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength));
  else {
    split.end();
    splitter = null;
  }
  const chunk = out.finish();
  parentPort!.postMessage(chunk, [chunk.bytes.buffer as ArrayBuffer]);
});
