import type { ActorHost } from './host.ts';

/**
 * The estimated heap of the resident actors of every host that shares it (config
 * `actors.residentBytesMax`): each host adds an actor's estimate (ActorBehavior.sizeOf)
 * when it becomes resident, updates it at its first use in a batch, and takes it out when
 * the actor leaves memory. Shared by an engine's hosts, so that the bound is over every
 * kind together: small actors used for long (wallets) stay where a count per kind evicted
 * them to keep pools nobody trades any more.
 */
export class ResidentBytes {
  /** Estimated bytes of the actors resident now. */
  bytes = 0;

  constructor(readonly max: number) {}

  /** Bytes past the bound; 0 within it. */
  get over(): number {
    return this.bytes > this.max ? this.bytes - this.max : 0;
  }
}

/**
 * Passivates the least recently used actors of any kind among `hosts` until `budget` is
 * within its bound (ActorHost.evictOne: snapshot, then dropped; one that must stay, as in
 * evictOverBound, is passed over). A merge of the hosts' LRU orders by their last use
 * (the stamp of the batch that used them last), each host looked at once per resident at
 * most, so actors that eviction itself brings back (a flush reading a token) cannot make
 * it loop. Among heads used last in the same batch the larger estimate goes first: a
 * tie went to the first host, the tokens (~1.3 KB) before their pools (~22 KB), and on
 * the engine benchmark's 1M swaps over 10,000 pools with feeds and signals on the bound
 * then evicted 103,513 tokens (each read back at its pool's next trade) beside 33,169
 * pools; larger first, 5,022 and 31,132. With a `deadline` (performance.now()), checked
 * before each but the first (so that each call gets on), it stops there: the rest go at
 * a later call. Returns how many were passivated.
 */
export function evictOverBytes(hosts: readonly ActorHost<any>[], budget: ResidentBytes, deadline = Infinity): number {
  if (budget.bytes <= budget.max) return 0;
  const heads = hosts.filter((h) => h.budget === budget && h.size > 0).map((host) => {
    const order = host.leastRecentlyUsed();
    return { host, order, next: order.next(), left: host.size };
  });
  let evicted = 0;
  while (budget.bytes > budget.max) {
    if (deadline !== Infinity && evicted > 0 && performance.now() >= deadline) break;
    let best: (typeof heads)[number] | null = null;
    for (const head of heads) {
      if (head.next.done || head.left === 0) continue;
      if (best === null) {
        best = head;
        continue;
      }
      const v = head.next.value;
      const b = best.next.value;
      // Used as last in the same batch (one stamp): the larger goes first, freeing more an eviction.
      if (v.lastUsed < b.lastUsed || (v.lastUsed === b.lastUsed && v.bytes > b.bytes)) best = head;
    }
    if (best === null) break;
    const key = best.next.value.key;
    // Moved on before the eviction: a Map iterator goes on past an entry deleted behind it.
    best.next = best.order.next();
    best.left--;
    if (best.host.evictOne(key)) evicted++;
  }
  return evicted;
}
