import type { Storage } from '../../storage/index.ts';

interface Bucket {
  members: Set<string>;
  /** The newest batch that added to it; evictable once that batch is durable. */
  lastBatchSeq: number;
}

/**
 * The dedup index: which identities were applied, exact and durable. Identities are
 * grouped in buckets (a slot, a second, or one rare event); a batch writes one LMDB
 * value per bucket it touches, keyed [bucket, batch seq], in the batch's own
 * transaction. Hot buckets live in memory; a bucket seen again after eviction is
 * loaded back from LMDB. Costs per event: a Map and a Set lookup, a Set add.
 */
export class IdentityIndex {
  private readonly buckets = new Map<string, Bucket>();
  /** Members added per bucket by the open batch. */
  private staged = new Map<string, string[]>();
  private durableSeq = 0;
  /**
   * durableSeq when the last eviction pass could not get down to the cap (the buckets
   * not yet durable were too many): no new pass until a batch more is durable. Without
   * it, each new bucket rescanned the whole map while nothing could go, as when tens of
   * thousands of pool events (a bucket each) arrive before the first fsync.
   */
  private stalledAt = -1;
  /** Eviction passes run, for tests. */
  evictionPasses = 0;

  constructor(
    private readonly storage: Storage,
    /** Buckets kept in memory at most (a bucket is a slot's or a second's events). */
    private readonly bucketsMax = 4_096,
  ) {}

  has(bucket: string, member: string): boolean {
    return this.bucket(bucket).members.has(member);
  }

  /** Records an identity for the open batch (the caller checked `has` first). */
  add(bucket: string, member: string, batchSeq: number): void {
    const entry = this.bucket(bucket);
    entry.members.add(member);
    entry.lastBatchSeq = batchSeq;
    const staged = this.staged.get(bucket);
    if (staged) staged.push(member);
    else this.staged.set(bucket, [member]);
  }

  /** Queues the open batch's identities; called in the event turn of the batch's log put. */
  writeStaged(batchSeq: number): void {
    // One string per bucket is cheaper to encode than an array of short strings; members
    // holding a newline (free text, as labels may) keep the array.
    for (const [bucket, members] of this.staged) {
      this.storage.identities.put([bucket, batchSeq], members.some(hasNewline) ? members : members.join('\n'));
    }
    this.staged = new Map();
  }

  /** Batches up to this seq are durable: their buckets may be evicted. */
  markDurable(seq: number): void {
    if (seq > this.durableSeq) this.durableSeq = seq;
  }

  private bucket(name: string): Bucket {
    let entry = this.buckets.get(name);
    if (entry) return entry;
    // Room is made before the new bucket goes in, never by evicting it: a bucket made
    // by `add` and evicted at once lost its member from memory before the member was
    // written, and a copy of the event in the same batch then passed as new.
    if (this.buckets.size >= this.bucketsMax && this.durableSeq !== this.stalledAt) this.evict();
    const members = new Set<string>();
    for (const { value } of this.storage.identities.getRange({ start: [name], end: [name, Number.MAX_SAFE_INTEGER] })) {
      for (const member of typeof value === 'string' ? value.split('\n') : value) members.add(member);
    }
    entry = { members, lastBatchSeq: 0 };
    this.buckets.set(name, entry);
    return entry;
  }

  /** Drops the oldest buckets whose identities are all durable in LMDB, down to 7/8 of the cap if it can. */
  private evict(): void {
    this.evictionPasses++;
    let excess = this.buckets.size + 1 - ((this.bucketsMax * 7) >> 3);
    for (const [name, entry] of this.buckets) {
      if (excess <= 0) break;
      if (entry.lastBatchSeq <= this.durableSeq && !this.staged.has(name)) {
        this.buckets.delete(name);
        excess--;
      }
    }
    this.stalledAt = this.buckets.size >= this.bucketsMax ? this.durableSeq : -1;
  }
}

const hasNewline = (member: string) => member.includes('\n');
