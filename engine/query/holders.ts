import { HOLDER_SCAN_MAX } from '../bounds.ts';
import {
  activeLabels,
  curveProgress,
  heldByHolders,
  holderStats,
  notHolders,
  rawSupplyOf,
  spotPrice,
  tokenName,
  type HolderPosition,
  type Holding,
  type PoolState,
  type QuotePriceState,
  type TokenState,
  type WalletLabelsState,
} from '../../actors/index.ts';
import { KNOWN_MINTS } from '../model/index.ts';
import type { CreatorIndex, CreatorPosition } from './creator-index.ts';
import type { ActorReader, MarketState } from './state.ts';
import type { PoolsQuery } from './pools.ts';
import type { TokensQuery } from './tokens.ts';
import { sharePct } from './views.ts';

/**
 * Reads of a token's holders and launch curve and of a wallet's deployed tokens
 * (DECISIONS.md routes 3, 4, 6, 27): the token actor's balances (actors/token/holders.ts),
 * its holder order (holder-order.ts), the pools' state, the labels, and the creator
 * index (engine/query/creator-index.ts).
 *
 * Holders are the wallets with a balance above 0, leaving out the token's own pool
 * accounts and the burn address (token.logic.ts notHolders). Shares are of the total
 * supply; values are at the token's USD price now: its main pool's spot price × that
 * pool's quote's USD price, as GET /tokens/{token} shows it in snapshot.price_usd.
 */

export interface HolderListOptions {
  limit: number;
  /** Only holders with this label (Pro). */
  label?: string;
  /** Where the walk is: begun at change `since`, the last page ended at `balance`, `wallet`. */
  after?: HolderWalkPosition;
}

/** A cursor's content: the walk's first change count and the position the last page ended at. */
export interface HolderWalkPosition extends HolderPosition {
  since: number;
}

interface Hosts {
  tokens: ActorReader<TokenState>;
  pools: ActorReader<PoolState>;
  quotePrices: ActorReader<QuotePriceState>;
  labels: ActorReader<WalletLabelsState> & { readonly version: number };
}

export interface HoldersQueryOptions {
  /** The actor hosts it reads (their states and versions). */
  hosts: Hosts;
  state: MarketState;
  tokens: TokensQuery;
  pools: PoolsQuery;
  /** Tokens by creator (deployed_tokens). */
  creators: CreatorIndex;
  sniperSlots: number;
}

/** USD value buckets of route 3's distribution, lower bounds, largest first. */
const BUCKETS = [
  ['gte_10k', 10_000],
  ['1k_10k', 1_000],
  ['100_1k', 100],
  ['10_100', 10],
] as const;

/** Rank groups of route 3's supply_pct_by_rank: the holders up to this rank (1-based). */
const RANKS = [
  ['top_10', 10],
  ['top_11_50', 50],
  ['top_51_100', 100],
] as const;

export class HoldersQuery {
  private readonly hosts: Hosts;
  private readonly state: MarketState;
  private readonly tokens: TokensQuery;
  private readonly pools: PoolsQuery;
  private readonly creators: CreatorIndex;
  private readonly sniperSlots: number;

  constructor(options: HoldersQueryOptions) {
    this.hosts = options.hosts;
    this.state = options.state;
    this.tokens = options.tokens;
    this.pools = options.pools;
    this.creators = options.creators;
    this.sniperSlots = options.sniperSlots;
  }

  private token(address: string): TokenState | undefined {
    return this.tokens.tokenExists(address) ? (this.hosts.tokens.get(address) as TokenState) : undefined;
  }

  /** The token's USD price now from its main pool (where it is the base), or null. */
  tokenUsd(address: string): number | null {
    const main = this.state.tokenPools(address)[0];
    if (!main || main.info!.base_address !== address || main.base_reserve <= 0) return null;
    const usd = this.state.quoteUsd(main.info!.quote_address);
    return usd === null ? null : spotPrice(main) * usd;
  }

  /**
   * GET /tokens/{token}/holders/stats; null for an unknown token. Holder fields are
   * null before the token's first balance event; shares null while the supply is
   * unknown. Cost: one pass over the wallets per balance change (cached, as the totals
   * have it) and a walk of the holder order over the 100 largest and those worth $10
   * or more.
   */
  holderStats(address: string) {
    const state = this.token(address);
    if (!state) return null;
    const exclude = notHolders(state);
    const stats = holderStats(state, this.sniperSlots);
    const supplyRaw = rawSupplyOf(state);
    const decimals = state.fields.decimals;
    const priceUsd = this.tokenUsd(address);
    let byRank: Record<string, number | null> | null = null;
    let distribution: Record<string, number> | null = null;
    if (stats !== null) {
      const held = heldByHolders(state, this.sniperSlots);
      const skip = new Set(exclude);
      const sums = [0, 0, 0];
      const counts = [0, 0, 0, 0];
      // Whole-token units of one raw unit × the USD price: a holding's value per raw unit.
      const usdPerRaw = priceUsd !== null && typeof decimals === 'number' ? priceUsd / 10 ** decimals : null;
      let rank = 0;
      for (const h of state.holders.ordered().after(undefined)) {
        if (skip.has(h.wallet)) continue;
        rank++;
        const value = usdPerRaw === null ? 0 : h.balance * usdPerRaw;
        if (rank > 100 && (usdPerRaw === null || value < 10)) break;
        if (rank <= 100) sums[rank <= 10 ? 0 : rank <= 50 ? 1 : 2] += h.balance;
        if (usdPerRaw !== null) {
          const bucket = BUCKETS.findIndex(([, min]) => value >= min);
          if (bucket >= 0) counts[bucket]!++;
        }
      }
      byRank = Object.fromEntries([...RANKS.map(([name], i) => [name, sharePct(sums[i]!, supplyRaw)]), ['rest', sharePct(Math.max(0, held - sums[0]! - sums[1]! - sums[2]!), supplyRaw)]]);
      if (usdPerRaw !== null) {
        const above = counts.reduce((a, b) => a + b, 0);
        distribution = { lt_10: stats.holderCount - above, ...Object.fromEntries(BUCKETS.map(([name], i) => [name, counts[i]!])) };
      }
    }
    return {
      token_address: address,
      holder_count: stats?.holderCount ?? null,
      top10_pct: sharePct(stats?.top10Raw, supplyRaw),
      dev_pct: sharePct(stats?.creatorRaw, supplyRaw),
      sniper_pct: sharePct(stats?.sniperRaw, supplyRaw),
      bundle_pct: sharePct(stats?.bundleRaw, supplyRaw),
      bundler_count: stats?.bundlerCount ?? null,
      sniper_count: stats?.sniperCount ?? null,
      distribution,
      supply_pct_by_rank: byRank,
      price_usd: priceUsd,
      excluded_addresses: exclude,
    };
  }

  /**
   * GET /tokens/{token}/holders: one page of the holder order after `after`, leaving out
   * holders the walk may have shown already (holder-order.ts), at most `limit` rows
   * and HOLDER_SCAN_MAX holdings looked at; `next` is where the next page starts.
   * Null for an unknown token.
   */
  holders(address: string, opts: HolderListOptions) {
    const state = this.token(address);
    if (!state) return null;
    const holders = state.holders;
    const order = holders.ordered();
    const skip = new Set(notHolders(state));
    const after = opts.after;
    const since = after?.since ?? holders.changeCount;
    const shown = after ? order.shownBefore(since, after) : null;
    const labelsOf = (wallet: string) => activeLabels(this.hosts.labels.get(wallet));
    const rows: Array<{ h: Holding; balance: number; labels: string[] }> = [];
    let last: HolderPosition | null = null;
    let scanned = 0;
    let more = false;
    for (const h of order.after(after)) {
      if (++scanned > HOLDER_SCAN_MAX) {
        more = true;
        break;
      }
      const eligible = !skip.has(h.wallet) && (after === undefined || (shown !== null ? !shown.has(h.wallet) : h.changed <= since));
      const labels = eligible && opts.label !== undefined ? labelsOf(h.wallet) : null;
      if (eligible && (labels === null || labels.includes(opts.label!))) {
        if (rows.length === opts.limit) {
          more = true;
          break;
        }
        rows.push({ h, balance: h.balance, labels: labels ?? labelsOf(h.wallet) });
      }
      last = { balance: h.balance, wallet: h.wallet };
    }
    const tail = rows[rows.length - 1];
    // A full page ends at its last row; a page cut short by the scan bound at the last holding looked at.
    const end = more && rows.length === opts.limit && tail ? { balance: tail.balance, wallet: tail.h.wallet } : last;
    const supplyRaw = rawSupplyOf(state);
    const decimals = typeof state.fields.decimals === 'number' ? state.fields.decimals : null;
    const priceUsd = this.tokenUsd(address);
    const items = rows.map(({ h, balance, labels }) => {
      const whole = decimals === null ? null : balance / 10 ** decimals;
      return {
        wallet_address: h.wallet,
        balance: whole,
        balance_raw: rawText(balance),
        supply_pct: sharePct(balance, supplyRaw),
        value_usd: whole === null || priceUsd === null ? null : whole * priceUsd,
        labels,
        first_seen_at: Number.isFinite(h.firstAt) ? h.firstAt : null,
      };
    });
    return { items, next: more && end ? ({ since, balance: end.balance, wallet: end.wallet } satisfies HolderWalkPosition) : null };
  }

  /**
   * GET /tokens/{token}/bonding_curve: the token's launch curve (the launch pool when it
   * is a bonding curve, else its earliest bonding-curve pool where it is the base);
   * undefined for an unknown token, null for a token without a curve.
   */
  bondingCurve(address: string) {
    const state = this.token(address);
    if (!state) return undefined;
    const s = this.curveOf(state);
    if (!s) return null;
    const info = s.info!;
    const traded = s.last_key !== null;
    const graduated = info.replaced_by_pool_address !== null;
    const complete = graduated || (s.real_base_reserve !== null && s.real_base_reserve <= 0);
    return {
      token_address: address,
      pool_address: s.pool_address,
      dex: info.dex,
      quote_address: info.quote_address,
      created_at: info.created_at,
      progress_pct: complete ? 100 : (curveProgress(s) ?? 0),
      complete,
      real_token_reserve: traded ? s.real_base_reserve : info.curve_initial_real_base,
      real_quote_reserve: traded ? s.real_quote_reserve : null,
      virtual_token_reserve: traded ? s.base_reserve : null,
      virtual_quote_reserve: traded ? s.quote_reserve : null,
      initial_real_token_reserve: info.curve_initial_real_base,
      price_quote: traded ? spotPrice(s) : null,
      migrated_to_pool_address: info.replaced_by_pool_address,
      migrated_at: graduated ? info.migrated_at : null,
    };
  }

  private curveOf(state: TokenState): PoolState | undefined {
    const read = (address: string) => {
      const s = this.hosts.pools.get(address) as PoolState | undefined;
      return s?.info && s.info.pool_type === 'bonding_curve' && s.info.base_address === state.token_address ? s : undefined;
    };
    const launch = state.launch?.curve ? read(state.launch.pool) : undefined;
    if (launch) return launch;
    let best: PoolState | undefined;
    for (const address of state.pools) {
      const s = read(address);
      if (s && (!best || s.info!.created_slot < best.info!.created_slot)) best = s;
    }
    return best;
  }

  /**
   * A version of what the holder routes show (for the response cache): the token's seq
   * (its balances, supply, pools), its pools' seqs and the known mints' price seqs (its
   * USD price), and with `labels` every wallet label's (labels.version); null when one
   * is not in memory.
   */
  holdersVersion(address: string, labels: boolean): string | null {
    const h = this.hosts;
    const token = h.tokens.versionOf(address);
    if (token === undefined) return null;
    let pools = 0;
    for (const p of (h.tokens.get(address) as TokenState).pools) {
      const v = h.pools.versionOf(p);
      if (v === undefined) return null;
      pools += v;
    }
    let out = `${token}:${pools}`;
    for (const mint in KNOWN_MINTS) out += `.${h.quotePrices.versionOf(mint) ?? 0}`;
    return labels ? `${out}:${h.labels.version}` : out;
  }

  /** What a version of the bonding curve route reads: the token's and its curve's seqs; null when one is not in memory. */
  curveVersion(address: string): string | null {
    const token = this.hosts.tokens.versionOf(address);
    if (token === undefined) return null;
    const s = this.curveOf(this.hosts.tokens.get(address) as TokenState);
    if (!s) return `${token}`;
    const pool = this.hosts.pools.versionOf(s.pool_address);
    return pool === undefined ? null : `${token}.${pool}`;
  }

  /**
   * GET /wallets/{wallet}/deployed_tokens: tokens whose creator_address is the wallet,
   * newest first (by the time of the token event that named the creator), with their
   * main pool, market cap (in its quote asset and in USD, as search items have them)
   * and migrated flag. A wallet that created none has an empty list.
   */
  deployedTokens(wallet: string, limit: number, after?: CreatorPosition) {
    const { items, next } = this.creators.list(wallet, limit, after);
    return {
      items: items.map(({ token_address, created_at }) => {
        const state = this.hosts.tokens.get(token_address) as TokenState | undefined;
        const main = this.state.tokenPools(token_address)[0];
        const pool = main && main.info!.base_address === token_address ? main : undefined;
        const snapshot = pool ? this.pools.poolSnapshot(pool.pool_address) : null;
        return {
          ...(state ? tokenName(state) : { token_address, symbol: null, name: null, image_url: null }),
          created_at,
          launched_at: (state?.fields.launched_at as number | null | undefined) ?? null,
          migrated: state?.migrated ?? false,
          migrated_at: state?.migrated_at ?? null,
          pool_address: pool?.pool_address ?? null,
          dex: pool?.info!.dex ?? null,
          pool_type: pool?.info!.pool_type ?? null,
          market_cap_quote: snapshot?.market_cap_quote ?? null,
          market_cap_usd: snapshot?.market_cap_usd ?? null,
          bonding_curve_progress_pct: pool?.info!.pool_type === 'bonding_curve' ? (snapshot?.bonding_curve_progress_pct ?? null) : null,
        };
      }),
      next,
    };
  }
}

/**
 * A raw balance as the decimal integer it stands for (SERVICE.md 2.1: a string). Exact
 * below 2^53; above it the double's own integer value (holders.ts keeps balances as
 * doubles), never an exponent form.
 */
function rawText(raw: number): string {
  return Number.isSafeInteger(raw) ? String(raw) : BigInt(raw).toString();
}
