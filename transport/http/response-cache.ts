import type { Outgoing } from '../envelope.ts';

interface Entry {
  version: string;
  out: Outgoing;
  params: unknown;
  query: unknown;
}

/**
 * Rendered successful responses of routes with a `version` (route.ts), by route and
 * raw URL + query. A hit skips validation (the same raw string validated the same
 * way before: its parsed params and query are kept), the handler and JSON.stringify;
 * the version check still runs, so a response is never older than the state it
 * describes. Bounded by total body bytes: the oldest entries go first (Map order;
 * a hit moves its entry to the end).
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly bytesMax = 64 * 1024 * 1024) {}

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  set(key: string, version: string, out: Outgoing, params: unknown, query: unknown): void {
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.out.body.length;
      this.entries.delete(key);
    }
    if (out.body.length > this.bytesMax / 16) return;
    this.entries.set(key, { version, out, params, query });
    this.bytes += out.body.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.bytesMax) break;
      this.entries.delete(k);
      this.bytes -= e.out.body.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
