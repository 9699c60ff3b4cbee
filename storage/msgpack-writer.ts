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

  /** A number as msgpackr packs it (no float32). Callers ensure(9) first. */
  number(x: number): void {
    const b = this.buf;
    if (x >>> 0 === x) {
      if (x < 0x40) b[this.pos++] = x;
      else if (x < 0x100) {
        b[this.pos++] = 0xcc;
        b[this.pos++] = x;
      } else if (x < 0x10000) {
        b[this.pos++] = 0xcd;
        b[this.pos++] = x >> 8;
        b[this.pos++] = x & 0xff;
      } else {
        b[this.pos++] = 0xce;
        this.view.setUint32(this.pos, x);
        this.pos += 4;
      }
    } else if (x >> 0 === x) {
      if (x >= -0x20) b[this.pos++] = 0x100 + x;
      else if (x >= -0x80) {
        b[this.pos++] = 0xd0;
        b[this.pos++] = x + 0x100;
      } else if (x >= -0x8000) {
        b[this.pos++] = 0xd1;
        this.view.setInt16(this.pos, x);
        this.pos += 2;
      } else {
        b[this.pos++] = 0xd2;
        this.view.setInt32(this.pos, x);
        this.pos += 4;
      }
    } else {
      b[this.pos++] = 0xcb;
      this.view.setFloat64(this.pos, x);
      this.pos += 8;
    }
  }

  /** The value written since the last `end`, as a view of the slab; the next value starts after it. */
  end(): Buffer {
    const out = this.buf.subarray(this.start, this.pos);
    this.start = this.pos;
    return out;
  }
}
