import { computeHeat, tokenName, tokenObject, type PoolState } from '../../actors/index.ts';
import type { MarketState } from './state.ts';
import { poolObject, snapshotOf, totalsOf } from './views.ts';

export interface PoolsQueryOptions {
  state: MarketState;
  /** The sniper window of the holder totals (config `market.sniperSlots`). */
  sniperSlots: number;
}

/**
 * The pool routes' reads: GET /pools/{pool}, GET /pools/metrics (and the pool_metrics
 * stream, which sends the same shape), a GET /pools list item and a pool's snapshot
 * as a search item shows it.
 */
export class PoolsQuery {
  private readonly state: MarketState;
  private readonly sniperSlots: number;

  constructor(options: PoolsQueryOptions) {
    this.state = options.state;
    this.sniperSlots = options.sniperSlots;
  }

  /** A declared pool's info (its tokens), without building any view; null if unknown. */
  poolInfo(address: string): PoolState['info'] {
    return this.state.pool(address)?.info ?? null;
  }

  /** What the pool views share: the pool, its base token, its quote's latest USD price. */
  private parts(address: string) {
    const st = this.state;
    const s = st.pool(address);
    if (!s) return null;
    const info = s.info!;
    const base = st.token(info.base_address);
    const usd = st.quoteUsd(info.quote_address);
    const snapshot = snapshotOf(s, usd);
    // The token's other pools hold some of its supply (circulating_supply); their order does not matter.
    const pools = base && base.pools.length > 1 ? st.poolStates(base) : [s];
    const now = st.clock.now();
    const totals = totalsOf(s, base, usd, { pools, now, sniperSlots: this.sniperSlots });
    // Windowed metrics and heat as of the engine clock's now.
    const windowed = s.windows.read(now);
    const heat = computeHeat({ windowed, ageMs: now - info.created_at, liquidityUsd: snapshot.liquidity_usd });
    return { s, info, base, snapshot, totals, windowed, heat };
  }

  /** GET /pools/{pool}: pool, token, snapshot, totals, windowed, heat. */
  pool(address: string) {
    const p = this.parts(address);
    if (!p) return null;
    return {
      pool: poolObject(p.s),
      token: p.base ? { ...tokenObject(p.base), migrated: p.base.migrated } : null,
      lifecycle: String(this.state.lifecycle(address) ?? 'unknown'),
      snapshot: p.snapshot,
      totals: p.totals,
      windowed: p.windowed,
      heat: p.heat,
      replaced_by_pool_address: p.info.replaced_by_pool_address,
    };
  }

  /**
   * A GET /pools list item: the pool object's fields, the token's name fields, the
   * snapshot, all-time volumes and trade count, as `pool()` has them. Built from the
   * pool's state alone: a list of 100 used to build each whole `pool()` view (windows,
   * heat, totals, the full token object) and keep a few fields, ~30 µs a pool.
   */
  poolListItem(address: string) {
    const s = this.state.pool(address);
    if (!s) return null;
    const info = s.info!;
    const base = this.state.token(info.base_address);
    const t = s.totals;
    return {
      ...poolObject(s),
      token: base ? tokenName(base) : null,
      snapshot: snapshotOf(s, this.state.quoteUsd(info.quote_address)),
      volume_quote: t.volume_quote,
      volume_usd: t.volume_usd,
      trade_count: t.trade_count,
      replaced_by_pool_address: info.replaced_by_pool_address,
    };
  }

  /** A pool's snapshot (SERVICE.md 2.3) alone, as a search item shows its token's main pool's; null for an unknown pool. */
  poolSnapshot(address: string) {
    const s = this.state.pool(address);
    return s ? snapshotOf(s, this.state.quoteUsd(s.info!.quote_address)) : null;
  }

  /** The pool_metrics shape (SERVICE.md 6) of a pool, for GET /pools/metrics and the pool_metrics stream. */
  poolMetrics(address: string) {
    const p = this.parts(address);
    if (!p) return null;
    const last = p.s.last_key;
    return {
      pool_address: address,
      token_address: p.info.base_address,
      quote_address: p.info.quote_address,
      pool_type: p.info.pool_type,
      slot: last?.[0] ?? null,
      tx_index: last?.[1] ?? null,
      ix_index: last?.[2] ?? null,
      snapshot: p.snapshot,
      totals: p.totals,
      windowed: p.windowed,
      heat: p.heat,
    };
  }

  /**
   * A version of what GET /pools/{pool} shows (for the response cache): the seqs of
   * the pool, its base token and its quote's price or token, and the second of the
   * clock (windowed metrics and heat decay with time). null when one of them is not
   * in memory.
   */
  poolVersion(address: string): string | null {
    const st = this.state;
    const own = st.seqsOf(address, true);
    if (own === null) return null;
    // The token's other pools move its circulating_supply: their versions, summed.
    let others = 0;
    const token = st.token(own.info.base_address);
    if (token && token.pools.length > 1) {
      for (const p of token.pools) {
        if (p === address) continue;
        const v = st.poolVersion(p);
        if (v === undefined) return null;
        others += v;
      }
    }
    return `${own.seqs}:${others}:${st.second()}`;
  }
}

/** A GET /pools list item (PoolsQuery.poolListItem): the pool object, its base token's names, snapshot, all-time volume. */
export type PoolItem = NonNullable<ReturnType<PoolsQuery['poolListItem']>>;
