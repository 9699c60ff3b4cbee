/**
 * Writes msgpack by hand, for values the engine encodes millions of times (candle
 * segments): msgpackr's `pack` walks each value's type and allocates per array, where
 * these writers know the shape. The bytes are what msgpackr writes for the same
 * numbers in the databases of storage/lmdb.ts (a test compares them), so they decode
 * with the database's own msgpack and the format on disk does not change; lmdb-js's
 * `asBinary` stores them as they are.
 *
 * Values are written one after another into 1 MiB slabs and handed out as views of
 * them, never copied: lmdb-js keeps the address of a value until its commit, so no
 * byte handed out is ever written again (a full slab is left to the GC once the
 * writes holding views of it are done). Allocating a buffer per value cost more than
 * encoding it.
 *
 * Positive integers from 0x40 up take 0xcc..0xce, never a one-byte fixint: in the
 * record-aware databases (shared structures) bytes 0x40..0x7f name a record, and
 * msgpackr itself writes them so there.
 */
const SLAB = 1 << 20;

export class MsgpackWriter {
  private buf = Buffer.allocUnsafeSlow(SLAB);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  private pos = 0;
  /** Where the value being written starts. */
  private start = 0;

  /** Room for n more bytes of the current value. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const partial = this.pos - this.start;
    const next = Buffer.allocUnsafeSlow(Math.max(SLAB, 2 * (partial + n)));
    this.buf.copy(next, 0, this.start, this.pos);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
    this.start = 0;
    this.pos = partial;
  }

  arrayHeader(n: number): void {
    this.ensure(5);
    const b = this.buf;
    if (n < 16) b[this.pos++] = 0x90 | n;
    else if (n < 0x10000) {
      b[this.pos++] = 0xdc;
      this.view.setUint16(this.pos, n);
      this.pos += 2;
    } else {
      b[this.pos++] = 0xdd;
      this.view.setUint32(this.pos, n);
      this.pos += 4;
    }
  }

  /**
   * Room for n bytes of the current value, taken now: returns the buffer and the offset
   * to fill them at (valid until the next call into the writer).
   */
  take(n: number): { buffer: Buffer; offset: number } {
    this.ensure(n);
    const offset = this.pos;
    this.pos += n;
    return { buffer: this.buf, offset };
  }

  /** A number (see writeNumber). Callers ensure(9) first. */
  number(x: number): void {
    this.pos = writeNumber(this.buf, this.pos, x);
  }

  /** The value written since the last `end`, as a view of the slab; the next value starts after it. */
  end(): Buffer {
    const out = this.buf.subarray(this.start, this.pos);
    this.start = this.pos;
    return out;
  }
}

/**
 * Writes x at `pos` (room for 9 bytes checked by the caller); returns the end. As
 * msgpackr writes numbers: integers in [-2^31, 2^32) as msgpack ints, positive ones
 * from 0x40 up never as a fixint (see above), every other number as float64:
 * fractions, NaN, ±Infinity, integers past 2^32 (exact as doubles; a msgpack int64
 * would decode as a BigInt) and -0 (msgpackr writes 0 for it; a float64 keeps the sign).
 */
export function writeNumber(b: Buffer, pos: number, x: number): number {
  if (x >>> 0 === x && (x !== 0 || 1 / x > 0)) {
    if (x < 0x40) b[pos++] = x;
    else if (x < 0x100) {
      b[pos++] = 0xcc;
      b[pos++] = x;
    } else if (x < 0x10000) {
      b[pos++] = 0xcd;
      b[pos++] = x >>> 8;
      b[pos++] = x & 0xff;
    } else {
      b[pos++] = 0xce;
      b.writeUInt32BE(x, pos);
      pos += 4;
    }
  } else if (x >> 0 === x && x !== 0) {
    if (x >= -0x20) b[pos++] = 0x100 + x;
    else if (x >= -0x80) {
      b[pos++] = 0xd0;
      b[pos++] = x + 0x100;
    } else if (x >= -0x8000) {
      b[pos++] = 0xd1;
      b.writeInt16BE(x, pos);
      pos += 2;
    } else {
      b[pos++] = 0xd2;
      b.writeInt32BE(x, pos);
      pos += 4;
    }
  } else {
    b[pos++] = 0xcb;
    b.writeDoubleBE(x, pos);
    pos += 8;
  }
  return pos;
}

/**
 * The writer database values are encoded with (candle segments, trade blocks): one for
 * the thread, so every value shares its slabs.
 */
export const valueWriter = new MsgpackWriter();
