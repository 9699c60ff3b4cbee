import { REJECTED_HEAD_BYTES } from '../bounds.ts';
import { isUtf8 } from 'node:buffer';

const NEWLINE = 0x0a;
const CR = 0x0d;

export interface LineSink {
  /** A complete line (no newline), valid UTF-8, within the length limit. */
  line(bytes: Buffer, position: number): void;
  /** A line rejected whole: over the limit, or not valid UTF-8. */
  reject(reason: string, head: Buffer, position: number): void;
}


/**
 * Splits NDJSON bytes into lines, across chunk boundaries. A line longer than
 * `lineBytesMax` is rejected whole without being buffered (a 10 MB line costs no
 * memory), a line that is not valid UTF-8 is rejected rather than decoded with
 * replacement characters, blank lines and a trailing CR are skipped. Positions are
 * 1-based line numbers.
 */
export class LineSplitter {
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private oversized = false;
  private lineNo = 0;

  constructor(private readonly lineBytesMax: number, private readonly sink: LineSink) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.oversized) {
        // Skipping the rest of an over-long line.
      } else if (this.carryBytes + piece.length > this.lineBytesMax) {
        const head = Buffer.concat([...this.carry, piece]).subarray(0, REJECTED_HEAD_BYTES);
        this.sink.reject(`line: longer than ${this.lineBytesMax} bytes`, head, this.lineNo + 1);
        this.oversized = true;
        this.carry = [];
        this.carryBytes = 0;
      } else if (nl === -1) {
        if (piece.length) {
          // Copied: the chunk's memory may be reused or transferred after push returns.
          this.carry.push(Buffer.from(piece));
          this.carryBytes += piece.length;
        }
      } else if (this.carryBytes) {
        this.carry.push(piece);
        this.emit(Buffer.concat(this.carry));
        this.carry = [];
        this.carryBytes = 0;
      } else this.emit(piece);
      if (nl === -1) return;
      if (this.oversized) {
        this.oversized = false;
        this.lineNo++;
      }
      start = nl + 1;
    }
  }

  /** Lines seen so far, blank and rejected ones included. */
  get lines(): number {
    return this.lineNo;
  }

  /** The input ended: a last line without a newline still counts. */
  end(): void {
    if (this.oversized) {
      this.oversized = false;
      this.lineNo++;
    } else if (this.carryBytes) this.emit(Buffer.concat(this.carry));
    this.carry = [];
    this.carryBytes = 0;
  }

  private emit(line: Buffer): void {
    this.lineNo++;
    if (line.length && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    if (line.length === 0) return;
    if (!isUtf8(line)) {
      this.sink.reject('line: invalid UTF-8', line.subarray(0, REJECTED_HEAD_BYTES), this.lineNo);
      return;
    }
    this.sink.line(line, this.lineNo);
  }
}
