import type { Encoded } from './compression.ts';

/** A cached response: its version, what `writeResponse` writes, and the input it was made from. */
export interface CachedResponse {
  version: string;
  /** Status line and content-type (envelope.ts `responseHead`): always a success. */
  head: string;
  /** The body as UTF-8 bytes, encoded once: uWS sends a Buffer without converting a string per request. */
  body: Buffer;
  params: unknown;
  query: unknown;
  /** The body compressed, per encoding, made on first demand (compression.ts). */
  encoded?: Encoded;
}

/**
 * Rendered successful responses of routes with a `version` (route.ts), by route and
 * raw URL + query. A hit skips validation (the same raw string validated the same
 * way before: its parsed params and query are kept), the handler and JSON.stringify;
 * the version check still runs, so a response is never older than the state it
 * describes. Bounded by total body bytes: the entries written longest ago go first
 * (Map order; a hit does not reorder, which would cost a delete and a set per request).
 * The bound counts plain bytes; the compressed copies an entry may hold beside them
 * add a fraction of that (a trade list compresses to about a fifth).
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;

  constructor(private readonly bytesMax = 64 * 1024 * 1024) {}

  get(key: string): CachedResponse | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: CachedResponse): void {
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.body.length;
      this.entries.delete(key);
    }
    if (entry.body.length > this.bytesMax / 16) return;
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.bytesMax) break;
      this.entries.delete(k);
      this.bytes -= e.body.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
