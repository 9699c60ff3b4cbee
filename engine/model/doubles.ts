/**
 * Numbers a snapshot keeps as one binary of doubles (msgpack writes a Uint8Array as its
 * bytes, where an array of numbers costs it a type check and up to 9 bytes a number,
 * and a boxed number each way): a pool's candles, the feed books' scores, `traded`'s
 * times, the leaderboard's rows.
 */
export const bytesOfDoubles = (d: Float64Array): Uint8Array => new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

/** bytesOfDoubles' bytes as doubles again: copied, since msgpack gives a binary at any offset and a Float64Array needs one of 8. */
export const doublesOfBytes = (bytes: Uint8Array): Float64Array => new Float64Array(new Uint8Array(bytes).buffer);
