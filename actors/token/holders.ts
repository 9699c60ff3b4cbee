import { HOLDER_LOG_MAX, PRUNE_MIN } from '../../engine/bounds.ts';
import { HolderOrder } from './holder-order.ts';
/**
 * The holders of one token, from its `balance` events (INGEST.md: identity
 * `(token, wallet, slot)`, last write by slot wins). Plain mutable state owned by the
 * token actor; the holder-based totals of SERVICE.md 2.4 are read from it.
 *
 * Balances are raw on-chain integers kept as doubles (`Number(balance_raw)`): exact
 * below 2^53 raw units (9.0e15, e.g. every pump.fun token: 1e15 raw in all), and
 * above that within a relative 1.1e-16 per balance, far below what a percentage of
 * supply shows. A bigint would be exact for any size but costs an allocation per
 * event; whole-token doubles would not be exact for any decimals.
 *
 * Each wallet keeps the slot of its latest balance and the first slot at which it was
 * seen holding (the minimum over its non-zero balances, so arrival order does not
 * matter) with that balance's time (`first_seen_at`), and the number of the latest
 * change of its balance (every balance change of the token counts one: a walk over
 * the holder list pages compares with it, holder-order.ts). A wallet at 0 is not a holder but stays as a tombstone so that an older
 * balance arriving late cannot bring it back. Tombstones are bounded: once they
 * outnumber max(4,096, the holders, twice the last pass's survivors), a pass drops
 * those LATE_SLOTS behind the newest slot seen, except the early buyers (first
 * holding within the sniper window of the launch): they stay snipers or bundlers if
 * they sell out and buy back. The pass depends only on the events applied, in order,
 * so a replay prunes identically.
 */

/**
 * Snipers: first holding within this many slots after the launch pool's creation
 * slot, by default (INGEST.md: "wallets that buy within the first 3 slots of the
 * pool's creation slot (configurable)"; 3 slots ≈ 1.2 s: bots that react to the
 * creation, not people). Config `market.sniperSlots`.
 */
export const DEFAULT_SNIPER_SLOTS = 3;
/**
 * How far behind the newest slot a tombstone must be before a pass may drop it:
 * 750 slots ≈ 5 min, far past INGEST.md's "out of order by up to a few seconds". An
 * older balance for a dropped wallet would be taken as new.
 */
export const LATE_SLOTS = 750;
const NONE = Number.POSITIVE_INFINITY;
/** format u8, count u32, address bytes u32, newest slot f64, pruning threshold f64; format 2 adds the change count f64. */
const HEADER_BYTES_V1 = 1 + 4 + 4 + 8 + 8;
const HEADER_BYTES = HEADER_BYTES_V1 + 8;
/** 2: first_seen_at and the change number of each wallet, and the change count (1: without them). */
const FORMAT = 2;
/** float64 columns per wallet: balance, slot, first slot (format 1), first_seen_at, change number (format 2). */
const COLUMNS = 5;
const COLUMNS_V1 = 3;

/** One wallet's holding of the token. */
export interface Holding {
  /** The wallet's address (its key in the table): the holder order's tie-break. */
  readonly wallet: string;
  /** Raw units; 0 = not holding (a tombstone). */
  balance: number;
  /** Slot of the balance above (last write wins). */
  slot: number;
  /** Smallest slot of a non-zero balance seen; +Infinity if none. */
  first: number;
  /** Time (`at`, Unix ms) of the balance event of slot `first`; NaN if none or unknown (a snapshot of format 1). */
  firstAt: number;
  /** Number of the latest change of this wallet's balance (Holders.changes then); 0 for none since format 2. */
  changed: number;
}

/** What the stats depend on beyond the balances (from the token's other events). */
export interface HolderContext {
  /** The token's creator (dev), or null when unknown. */
  creator: string | null;
  /** Creation slot of the launch pool when it is a bonding curve; null: no sniper/bundler stats. */
  launchSlot: number | null;
  /** Addresses that are not holders: the token's own pools. */
  exclude: readonly string[];
  /** The sniper window: this many slots after the launch slot. */
  sniperSlots: number;
}

/** Raw sums (divide by the raw total supply for a share). */
export interface HolderStats {
  holderCount: number;
  top10Raw: number;
  /** null when the creator is unknown. */
  creatorRaw: number | null;
  /** The next four are null without a launch slot. */
  bundlerCount: number | null;
  bundleRaw: number | null;
  sniperCount: number | null;
  sniperRaw: number | null;
}

export class Holders {
  private readonly wallets: Map<string, Holding>;
  /** Wallets with a non-zero balance, and tombstones. */
  private holding = 0;
  private zeros = 0;
  private pruneAt = PRUNE_MIN;
  /** The newest slot of any balance applied; -1 before the first. */
  private maxSlot = -1;
  /** Bumped when a balance or a first slot changes: the stats cache's key. */
  private version = 0;
  /** Balance changes applied since the token's first balance: numbers each change (persisted). */
  private changes = 0;
  /** The holders in list order, while reads use it (holder-order.ts); not persisted. */
  private order: HolderOrder<Holding> | null = null;
  /** The change count at the order's last read: an order unread for long is dropped (holder-order.ts). */
  private orderReadAt = 0;
  private cached: { version: number; creator: string | null; launchSlot: number | null; sniperSlots: number; exclude: readonly string[]; stats: HolderStats; heldRaw: number } | null = null;

  constructor(wallets = new Map<string, Holding>()) {
    this.wallets = wallets;
    for (const h of wallets.values()) {
      if (h.balance > 0) this.holding++;
      else this.zeros++;
    }
  }

  /** True once any balance of the token was applied (before that, holder fields are null). */
  get seen(): boolean {
    return this.maxSlot >= 0;
  }

  /** Wallets held in memory, tombstones included (for tests and metrics). */
  get size(): number {
    return this.wallets.size;
  }

  /** Whether the wallet's current balance is this one, of this slot (the token actor's rederive of token.holders). */
  isCurrent(wallet: string, balance: number, slot: number): boolean {
    const h = this.wallets.get(wallet);
    return h !== undefined && h.slot === slot && h.balance === balance;
  }

  /** The slot of the wallet's current balance; -1 if none is held. */
  slotOf(wallet: string): number {
    return this.wallets.get(wallet)?.slot ?? -1;
  }

  /** A wallet's current balance (raw units), 0 if none. */
  balanceOf(wallet: string): number {
    return this.wallets.get(wallet)?.balance ?? 0;
  }

  /** Wallets holding now (balance above 0), pools and the burn address included. */
  get holdingCount(): number {
    return this.holding;
  }

  /** Balance changes applied so far: the position of a walk over the holder list. */
  get changeCount(): number {
    return this.changes;
  }

  /**
   * The holders in list order (largest balance first, ties by wallet), made on first
   * use (O(n log n)) and kept up to date by `apply` from then on (holder-order.ts).
   */
  ordered(): HolderOrder<Holding> {
    this.order ??= new HolderOrder(() => this.holdingList(), this.changes);
    this.orderReadAt = this.changes;
    return this.order;
  }

  private holdingList(): Holding[] {
    const holding: Holding[] = [];
    for (const h of this.wallets.values()) if (h.balance > 0) holding.push(h);
    return holding;
  }

  /** Whether the holder order is kept (tests, metrics). */
  get hasOrder(): boolean {
    return this.order !== null;
  }

  /**
   * Applies one balance event. `earlyUntil` is the last slot of the sniper window
   * (launch slot + sniper slots), -1 when unknown: tombstones of wallets first seen
   * holding up to it are kept. `at`: the event's time (first_seen_at).
   */
  apply(wallet: string, balanceRaw: string, slot: number, earlyUntil: number, at = Number.NaN): boolean {
    const balance = Number(balanceRaw);
    if (slot > this.maxSlot) this.maxSlot = slot;
    const h = this.wallets.get(wallet);
    const version = this.version;
    if (h === undefined) {
      const held = balance > 0;
      const created: Holding = { wallet, balance, slot, first: held ? slot : NONE, firstAt: held ? at : Number.NaN, changed: held ? ++this.changes : 0 };
      this.wallets.set(wallet, created);
      if (held) {
        this.holding++;
        this.order?.changed(created, 0, this.changes);
      } else this.zeros++;
      this.version++;
    } else {
      let changed = false;
      if (balance > 0 && slot < h.first) {
        h.first = slot;
        h.firstAt = at;
        changed = true;
      }
      // Equal slots: the same identity, already applied (the gate drops repeats).
      if (slot > h.slot) {
        if ((h.balance > 0) !== (balance > 0)) {
          const delta = balance > 0 ? 1 : -1;
          this.holding += delta;
          this.zeros -= delta;
        }
        if (h.balance !== balance) {
          changed = true;
          const before = h.balance;
          h.balance = balance;
          h.changed = ++this.changes;
          if (this.order !== null) {
            this.order.changed(h, before, this.changes);
            if (this.changes - this.orderReadAt > Math.max(HOLDER_LOG_MAX, this.holding)) this.order = null;
          }
        }
        h.slot = slot;
      }
      if (changed) this.version++;
    }
    if (this.zeros > this.pruneAt) this.prune(earlyUntil);
    return this.version !== version;
  }

  private prune(earlyUntil: number): void {
    const cutoff = this.maxSlot - LATE_SLOTS;
    // Deleting the entry being visited is safe in a Map's for...of.
    for (const [wallet, h] of this.wallets) {
      if (h.balance === 0 && h.slot < cutoff && !(h.first <= earlyUntil)) {
        this.wallets.delete(wallet);
        this.zeros--;
      }
    }
    // Amortized: the next pass comes after at least as many new tombstones as survived.
    this.pruneAt = Math.max(PRUNE_MIN, this.holding, 2 * this.zeros);
  }

  /**
   * One pass over the wallets, cached until a balance or the context changes: the
   * reads (HTTP, pool_metrics) pay O(holders) at most once per change, events never.
   */
  stats(ctx: HolderContext): HolderStats {
    const c = this.cached;
    return this.pass(ctx).stats;
  }

  /** What the holders hold in all (raw units), `ctx.exclude` left out: from the same cached pass as `stats`. */
  heldRaw(ctx: HolderContext): number {
    return this.pass(ctx).heldRaw;
  }

  private pass(ctx: HolderContext): NonNullable<Holders['cached']> {
    const c = this.cached;
    if (c && c.version === this.version && c.creator === ctx.creator && c.launchSlot === ctx.launchSlot && c.sniperSlots === ctx.sniperSlots && sameList(c.exclude, ctx.exclude)) return c;
    const { stats, heldRaw } = this.compute(ctx);
    return (this.cached = { version: this.version, creator: ctx.creator, launchSlot: ctx.launchSlot, sniperSlots: ctx.sniperSlots, exclude: ctx.exclude.slice(), stats, heldRaw });
  }

  private compute({ creator, launchSlot, exclude, sniperSlots }: HolderContext): { stats: HolderStats; heldRaw: number } {
    // The 10 largest balances, largest first (insertion into a sorted run of at most 10).
    const top = new Float64Array(10);
    let topLength = 0;
    let holderCount = 0;
    let bundlerCount = 0;
    let bundleRaw = 0;
    let sniperCount = 0;
    let sniperRaw = 0;
    let heldRaw = 0;
    const windowEnd = launchSlot === null ? -1 : launchSlot + sniperSlots;
    for (const [wallet, h] of this.wallets) {
      if (exclude.length > 0 && exclude.includes(wallet)) continue;
      const b = h.balance;
      if (b > 0) {
        holderCount++;
        heldRaw += b;
        if (topLength < 10 || b > top[9]!) {
          let i = topLength < 10 ? topLength++ : 9;
          while (i > 0 && top[i - 1]! < b) {
            top[i] = top[i - 1]!;
            i--;
          }
          top[i] = b;
        }
      }
      if (launchSlot === null || wallet === creator || h.first > windowEnd || h.first < launchSlot) continue;
      if (h.first === launchSlot) {
        bundlerCount++;
        bundleRaw += b;
      } else {
        sniperCount++;
        sniperRaw += b;
      }
    }
    let top10Raw = 0;
    for (let i = 0; i < topLength; i++) top10Raw += top[i]!;
    const creatorRaw = creator === null ? null : exclude.includes(creator) ? 0 : this.balanceOf(creator);
    const launched = launchSlot !== null;
    const stats = {
      holderCount,
      top10Raw,
      creatorRaw,
      bundlerCount: launched ? bundlerCount : null,
      bundleRaw: launched ? bundleRaw : null,
      sniperCount: launched ? sniperCount : null,
      sniperRaw: launched ? sniperRaw : null,
    };
    return { stats, heldRaw };
  }

  /**
   * The whole table as one buffer for the actor's snapshot, columnar: a header
   * (format, count, address bytes, newest slot, pruning threshold, change count),
   * every address's length, the addresses (ASCII: base58) back to back, then balance,
   * slot, first slot, first_seen_at and change number of each as float64 (platform
   * order: little-endian on x64 and arm64). About 85 bytes per wallet; nothing for
   * msgpack to walk but one binary value.
   * Decoded addresses are slices of one string: it stays in memory while any does.
   */
  encode(): Buffer {
    const count = this.wallets.size;
    let addressBytes = 0;
    for (const wallet of this.wallets.keys()) addressBytes += wallet.length;
    const numbersAt = align8(HEADER_BYTES + count + addressBytes);
    // Not zero-filled: every byte is written below (the padding too, so equal tables give equal bytes).
    const out = Buffer.allocUnsafeSlow(numbersAt + count * 8 * COLUMNS);
    out.writeUInt8(FORMAT, 0);
    out.writeUInt32LE(count, 1);
    out.writeUInt32LE(addressBytes, 5);
    out.writeDoubleLE(this.maxSlot, 9);
    out.writeDoubleLE(this.pruneAt, 17);
    out.writeDoubleLE(this.changes, 25);
    out.fill(0, HEADER_BYTES + count + addressBytes, numbersAt);
    const numbers = new Float64Array(out.buffer, out.byteOffset + numbersAt, count * COLUMNS);
    let i = 0;
    let at = HEADER_BYTES + count;
    for (const [wallet, h] of this.wallets) {
      out[HEADER_BYTES + i] = wallet.length;
      at += out.write(wallet, at, 'latin1');
      const k = COLUMNS * i;
      numbers[k] = h.balance;
      numbers[k + 1] = h.slot;
      numbers[k + 2] = h.first;
      numbers[k + 3] = h.firstAt;
      numbers[k + 4] = h.changed;
      i++;
    }
    return out;
  }

  /**
   * The inverse of encode; an absent value (a snapshot from before holders) is an empty
   * table. Format 1 (before first_seen_at) decodes with first_seen_at unknown and every
   * change number 0.
   */
  static decode(data: Uint8Array | undefined | null): Holders {
    if (!data) return new Holders();
    const format = data[0];
    const header = format === FORMAT ? HEADER_BYTES : HEADER_BYTES_V1;
    const columns = format === FORMAT ? COLUMNS : COLUMNS_V1;
    if ((format !== FORMAT && format !== 1) || data.length < header) throw new Error(`holders snapshot: unknown format ${data[0]}`);
    // A copy in memory of its own (offset 0: the float64 column is aligned); the snapshot's bytes are not ours.
    const copy = new Uint8Array(data);
    const buf = Buffer.from(copy.buffer, 0, copy.length);
    const count = buf.readUInt32LE(1);
    const addressBytes = buf.readUInt32LE(5);
    const addresses = buf.toString('latin1', header + count, header + count + addressBytes);
    const numbers = new Float64Array(buf.buffer, buf.byteOffset + align8(header + count + addressBytes), count * columns);
    const wallets = new Map<string, Holding>();
    const v2 = columns === COLUMNS;
    let at = 0;
    for (let i = 0; i < count; i++) {
      const length = buf[header + i]!;
      const wallet = addresses.slice(at, at + length);
      const k = columns * i;
      wallets.set(wallet, { wallet, balance: numbers[k]!, slot: numbers[k + 1]!, first: numbers[k + 2]!, firstAt: v2 ? numbers[k + 3]! : Number.NaN, changed: v2 ? numbers[k + 4]! : 0 });
      at += length;
    }
    const holders = new Holders(wallets);
    holders.maxSlot = buf.readDoubleLE(9);
    holders.pruneAt = buf.readDoubleLE(17);
    if (v2) holders.changes = buf.readDoubleLE(25);
    return holders;
  }
}

/** Offsets of the float64 column; the buffers start at offset 0 of their own memory (allocUnsafeSlow, new Uint8Array). */
const align8 = (n: number) => (n + 7) & ~7;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
