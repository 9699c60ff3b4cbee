import { SLAB_BYTES } from '../../engine/bounds.ts';
/**
 * Memory in slices of shared slabs (SLAB_BYTES, 64 KiB): an ArrayBuffer of its own per
 * small array costs more than the numbers in it (a backing store, external memory
 * accounting, and a young-generation object), and its allocation is one more place a
 * busy machine stalls. A slab lives as long as one of its slices, so each user whose
 * slices live alike has its own Slabs: a slice that outlives the others pins the whole
 * slab (the pools' windows logs, which live as long as their pool, have buffers of
 * their own for that reason). Requests past SLICE_MAX get a buffer of their own.
 * Slices are not zeroed.
 */
export class Slabs {
  private slab = new ArrayBuffer(0);
  private used = 0;

  bytes(size: number): Buffer {
    if (size > SLICE_MAX) return Buffer.allocUnsafeSlow(size);
    const at = this.carve(size);
    return Buffer.from(this.slab, at, size);
  }

  float64(length: number): Float64Array {
    if (8 * length > SLICE_MAX) return new Float64Array(length);
    const at = this.carve(8 * length);
    return new Float64Array(this.slab, at, length);
  }

  /** An 8-aligned offset of `size` bytes in the slab (a new slab if needed). */
  private carve(size: number): number {
    const aligned = (size + 7) & ~7;
    if (this.used + aligned > this.slab.byteLength) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES).buffer as ArrayBuffer;
      this.used = 0;
    }
    const at = this.used;
    this.used += aligned;
    return at;
  }
}

/** The largest slice: an eighth of a slab. */
export const SLICE_MAX = SLAB_BYTES >> 3;
