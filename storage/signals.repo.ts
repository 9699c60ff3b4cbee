import type { Key } from 'lmdb';
import { isTokenSignal, type Signal, type SignalKind } from '../engine/model/index.ts';
import type { Storage } from './lmdb.ts';

/**
 * The signals store: every signal the signal actors emitted (the derived `signal` event,
 * fed to it by the router during live batches and start-up replay), by `signal_id`, and
 * the index keys routes 17 and 22 read newest first without scanning the rest:
 *
 * token kinds (route 17):
 * - ['t', token, at, id]        every signal of one token
 * - ['l', at, token] → id        the latest signal of each token (['lt', token] → its at)
 * - ['k', kind, at, token] → id  the latest signal of each token of one kind (['kt', kind, token] → its at)
 * wallet kinds (route 22):
 * - ['ws', at, id]               all of them
 * - ['wt', token, at, id]        those of one token
 * - ['w', wallet, at, id]        those naming one wallet
 *
 * Idempotent by signal_id: a signal already stored (replay recomputes what a crash may
 * or may not have written) writes nothing. A "latest" entry moved by a newer signal is
 * deleted; one left by two writes of a token in one transaction is skipped on reading
 * (its at is not the token's latest any more). Writes are lmdb-js async puts: they
 * commit with the event turn's others, before any snapshot written later.
 */


/** A position in a newest-first list: the at and the tie-break of the index key (signal_id, or the token for the latest lists). */
export interface SignalPosition {
  at: number;
  tie: string;
}

export interface SignalPage {
  items: Signal[];
  /** Where the next page starts (exclusive), or null at the end. */
  next: SignalPosition | null;
}

const MAX_KEY = '\uffff';

export class SignalsRepo {
  /** Ids written and not committed yet (gets read committed data). */
  private readonly pending = new Set<string>();
  /** Latest at per 'lt'/'kt' key written and not committed yet. */
  private readonly latestPending = new Map<string, number>();

  constructor(private readonly storage: Storage) {}

  has(id: string): boolean {
    return this.pending.has(id) || this.storage.signals.get(id) !== undefined;
  }

  get(id: string): Signal | undefined {
    return this.storage.signals.get(id) as Signal | undefined;
  }

  /** Stores a signal and its index keys; false when it is stored already. */
  put(signal: Signal): boolean {
    const id = signal.signal_id;
    if (this.has(id)) return false;
    const { signals, signalIndex } = this.storage;
    const at = signal.at;
    const token = signal.token_address;
    const writes: Promise<boolean>[] = [signals.put(id, signal)];
    this.pending.add(id);
    if (isTokenSignal(signal.kind)) {
      writes.push(signalIndex.put(['t', token, at, id], null));
      this.latest(['lt', token], ['l'], at, token, id, writes);
      this.latest(['kt', signal.kind, token], ['k', signal.kind], at, token, id, writes);
    } else {
      writes.push(signalIndex.put(['ws', at, id], null), signalIndex.put(['wt', token, at, id], null));
      for (const wallet of new Set(signal.wallet_addresses)) writes.push(signalIndex.put(['w', wallet, at, id], null));
    }
    void writes[writes.length - 1]!.then(
      () => this.pending.delete(id),
      () => this.pending.delete(id),
    );
    return true;
  }

  /** Moves the latest entry under `prefix` for `token` to `at` when it is not older than the current one. */
  private latest(pointer: Key[], prefix: Key[], at: number, token: string, id: string, writes: Promise<boolean>[]): void {
    const { signalIndex } = this.storage;
    const name = pointer.join('\u0000');
    const current = this.latestPending.get(name) ?? (signalIndex.get(pointer) as number | undefined);
    if (current !== undefined && current > at) return;
    if (current !== undefined) writes.push(signalIndex.remove([...prefix, current, token]));
    writes.push(signalIndex.put([...prefix, at, token], id), signalIndex.put(pointer, at));
    this.latestPending.set(name, at);
    const settled = () => {
      if (this.latestPending.get(name) === at) this.latestPending.delete(name);
    };
    void writes[writes.length - 1]!.then(settled, settled);
  }

  /**
   * Route 17: token signals newest first. With `token`, every signal of it (of `kind`
   * when given); without, the latest signal of each token (of `kind`: the latest of that
   * kind). Down to `startTime`, after `before` (exclusive).
   */
  tokenSignals(q: { token?: string; kind?: SignalKind; startTime: number; limit: number; before?: SignalPosition }): SignalPage {
    const { signalIndex } = this.storage;
    const items: Signal[] = [];
    const b = q.before;
    let next: SignalPosition | null = null;
    const take = (at: number, tie: string, id: string): boolean => {
      if (items.length === q.limit) {
        next = { at: items[items.length - 1]!.at, tie: lastTie };
        return false;
      }
      const s = this.get(id);
      if (s) {
        items.push(s);
        lastTie = tie;
      }
      return true;
    };
    let lastTie = '';
    if (q.token !== undefined) {
      const start = b ? ['t', q.token, b.at, b.tie] : ['t', q.token, Number.MAX_SAFE_INTEGER];
      for (const { key } of signalIndex.getRange({ start, end: ['t', q.token, q.startTime], reverse: true, exclusiveStart: b !== undefined })) {
        const [, , at, id] = key as [string, string, number, string];
        if (q.kind !== undefined && !id.startsWith(`${q.kind}:`)) continue;
        if (!take(at, id, id)) break;
      }
    } else {
      const prefix: Key[] = q.kind === undefined ? ['l'] : ['k', q.kind];
      const start = b ? [...prefix, b.at, b.tie] : [...prefix, Number.MAX_SAFE_INTEGER];
      for (const { key, value } of signalIndex.getRange({ start, end: [...prefix, q.startTime], reverse: true, exclusiveStart: b !== undefined })) {
        const k = key as Key[];
        const at = k[k.length - 2] as number;
        const token = k[k.length - 1] as string;
        const pointer: Key[] = q.kind === undefined ? ['lt', token] : ['kt', q.kind, token];
        if (signalIndex.get(pointer) !== at) continue; // moved by a later signal of the token
        if (!take(at, token, value as string)) break;
      }
    }
    return { items, next };
  }

  /**
   * Route 22's candidates: wallet signals newest first from `from` (inclusive) up, after
   * `before` (exclusive), naming one of `wallets` (merged over their lists, each signal
   * once) or of `token`, or all; `keep` filters each; at most `limit`.
   */
  walletSignals(q: { wallets?: readonly string[]; token?: string; from: number; limit: number; before?: SignalPosition; keep: (s: Signal) => boolean }): SignalPage {
    const { signalIndex } = this.storage;
    const b = q.before;
    const lists: Key[][] = q.wallets !== undefined ? q.wallets.map((w) => ['w', w]) : q.token !== undefined ? [['wt', q.token]] : [['ws']];
    const heads = lists.map((prefix) => {
      const it = signalIndex
        .getRange({ start: b ? [...prefix, b.at, b.tie] : [...prefix, Number.MAX_SAFE_INTEGER], end: [...prefix, q.from], reverse: true, exclusiveStart: b !== undefined })
        [Symbol.iterator]();
      return { it, head: it.next() };
    });
    const items: Signal[] = [];
    const seen = new Set<string>();
    let next: SignalPosition | null = null;
    for (;;) {
      // The newest head of every list (by at, then id descending: the lists' own order).
      let best = -1;
      let bestAt = -Infinity;
      let bestId = '';
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i]!.head;
        if (h.done) continue;
        const key = h.value.key as Key[];
        const at = key[key.length - 2] as number;
        const id = key[key.length - 1] as string;
        if (at > bestAt || (at === bestAt && id > bestId)) {
          best = i;
          bestAt = at;
          bestId = id;
        }
      }
      if (best < 0) break;
      for (const h of heads) {
        if (h.head.done) continue;
        const key = h.head.value.key as Key[];
        if (key[key.length - 2] === bestAt && key[key.length - 1] === bestId) h.head = h.it.next();
      }
      if (seen.has(bestId)) continue;
      seen.add(bestId);
      const s = this.get(bestId);
      if (!s || !q.keep(s)) continue;
      if (items.length === q.limit) {
        const last = items[items.length - 1]!;
        next = { at: last.at, tie: last.signal_id };
        break;
      }
      items.push(s);
    }
    for (const h of heads) h.it.return?.();
    return { items, next };
  }

  /** How many signals are stored (tests, the simulated hour's counts). */
  count(): number {
    return this.storage.signals.getCount();
  }

  /** Every stored signal, in id order (tests, benches). */
  *all(): Iterable<Signal> {
    for (const { value } of this.storage.signals.getRange({ start: '', end: MAX_KEY })) yield value as Signal;
  }
}
