import { tokenObject } from '../../actors/index.ts';
import type { MarketState, PoolRank, RankedPool } from './state.ts';
import { poolObject, snapshotOf, tokenTotals, totalsOf, tradedPools } from './views.ts';

export interface TokensQueryOptions {
  state: MarketState;
  /** The sniper window of the holder totals (config `market.sniperSlots`). */
  sniperSlots: number;
}

/** The token routes' reads: GET /tokens/{token}, GET /tokens?addresses=, GET /tokens/{token}/pools. */
export class TokensQuery {
  private readonly state: MarketState;
  private readonly sniperSlots: number;

  constructor(options: TokensQueryOptions) {
    this.state = options.state;
    this.sniperSlots = options.sniperSlots;
  }

  /** Whether GET /tokens/{token} knows the token (without building its overview). */
  tokenExists(address: string): boolean {
    const t = this.state.token(address);
    return t !== undefined && !(t.fields.decimals === undefined && t.pools.length === 0);
  }

  /**
   * GET /tokens/{token}: the token object, its main pool (the most liquid in USD),
   * its snapshot, and the token's totals: counts, volumes, ATH and launch across its
   * pools, bonding curve included (views.ts tokenTotals, as search counts them); the
   * per-pool fields (curve gain) are the main pool's.
   */
  token(address: string) {
    if (!this.tokenExists(address)) return null;
    const st = this.state;
    const t = st.token(address)!;
    const pools = st.tokenPools(address);
    const main = pools[0];
    const usd = main ? st.quoteUsd(main.info!.quote_address) : null;
    const token = main ? tokenTotals(tradedPools(address, pools), main.info!.quote_address) : undefined;
    return {
      token: { ...tokenObject(t), migrated: t.migrated },
      pool: main ? poolObject(main) : null,
      snapshot: main ? snapshotOf(main, usd) : null,
      totals: main ? totalsOf(main, t, usd, { pools, now: st.clock.now(), sniperSlots: this.sniperSlots, token }) : null,
    };
  }

  /**
   * GET /tokens/{token}/pools: each pool with its snapshot, in tokenPools' order, at
   * most `limit` of them after `after`; `next` is the last one's rank when more follow.
   */
  tokenPoolList(address: string, limit: number, after?: PoolRank) {
    const st = this.state;
    const t = st.token(address);
    const ranked = t ? st.rank(address, st.poolStates(t)) : [];
    // The pools ranked after `after` (an earlier page's last), as they rank now (byRank's order).
    let from = 0;
    if (after) {
      const notAfter = (r: RankedPool) => (r.base - after.base || r.value - after.value || after.pool_address.localeCompare(r.p.pool_address)) >= 0;
      while (from < ranked.length && notAfter(ranked[from]!)) from++;
    }
    const taken = ranked.slice(from, from + limit);
    const last = taken[taken.length - 1];
    return {
      items: taken.map(({ p }) => ({ ...poolObject(p), snapshot: snapshotOf(p, st.quoteUsd(p.info!.quote_address)) })),
      next: last && from + limit < ranked.length ? ({ base: last.base, value: last.value, pool_address: last.p.pool_address } satisfies PoolRank) : null,
    };
  }
}
