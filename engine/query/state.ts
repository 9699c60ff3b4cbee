import {
  activeLabels,
  graduationOf,
  knownMintUsd,
  poolValue,
  quoteUsdOf,
  quoteUsdVia,
  supplyOf,
  type Graduation,
  type PoolInfo,
  type PoolState,
  type QuotePriceState,
  type TokenState,
  type UsdReader,
  type WalletLabelsState,
} from '../../actors/index.ts';
import type { Clock } from '../clock.ts';
import { KNOWN_MINTS } from '../model/index.ts';

/**
 * What the reads need of an actor kind's host (engine/supervisor/host.ts ActorHost):
 * an actor's state, activated from its snapshot when passivated, and its version (the
 * seq of the last event it applied), for the response cache.
 */
export interface ActorReader<S> {
  get(key: string): Readonly<S> | undefined;
  versionOf(key: string): number | undefined;
}

export interface MarketStateOptions {
  /** `peek`: a read in the background, which leaves what stays resident alone (ActorHost.peek). */
  pools: ActorReader<PoolState> & { lifecycle(key: string): unknown; peek(key: string): Readonly<PoolState> | undefined; isResident(key: string): boolean };
  tokens: ActorReader<TokenState> & { peek(key: string): Readonly<TokenState> | undefined };
  quotePrices: ActorReader<QuotePriceState>;
  /** Wallet labels for trade records; `version` moves with every label event. */
  labels: ActorReader<WalletLabelsState> & { readonly version: number };
  /** The engine clock: windowed metrics, heat and the trade lists' 24 hours are as of its now. */
  clock: Clock;
}

/** A pool of a token with its rank (tokenPools): where the token is the base first, then the most liquid in USD. */
export interface RankedPool {
  p: PoolState;
  base: number;
  value: number;
}
const byRank = (a: RankedPool, b: RankedPool) => b.base - a.base || b.value - a.value || a.p.pool_address.localeCompare(b.p.pool_address);

/** Where a pool stands in a token's list (tokenPools' order): a page's cursor position. */
export interface PoolRank {
  /** 1: the token is the pool's base; 0: its quote. */
  base: number;
  /**
   * Liquidity in USD where the quote's USD price is known (a token quote at its own
   * USD price); else −1 / (1 + liquidity in quote units), below every known value
   * (actors/pool/usd-price.ts poolValue).
   */
  value: number;
  pool_address: string;
}

/**
 * The actor state every route group reads (pools, tokens, trades, candles, search):
 * declared pools, tokens, USD prices at the latest quotes, a token's pools in rank
 * order, the curve a pool graduated from, and the versions the response cache keys on.
 */
export class MarketState {
  readonly clock: Clock;

  constructor(private readonly actors: MarketStateOptions) {
    this.clock = actors.clock;
  }

  /** What valuing reads at the latest prices (actors/pool/usd-price.ts). */
  readonly latest: UsdReader = {
    token: (address) => this.token(address),
    pool: (address) => this.pool(address),
    mintUsd: (mint) => knownMintUsd(mint, this.actors.quotePrices.get(mint) as QuotePriceState | undefined),
  };

  /** `latest` for reads in the background: tokens and pools peeked (ActorHost.peek). */
  private readonly peeking: UsdReader = {
    token: (address) => this.peekToken(address),
    pool: (address) => this.peekPool(address),
    mintUsd: (mint) => knownMintUsd(mint, this.actors.quotePrices.get(mint) as QuotePriceState | undefined),
  };

  /** A declared pool's state (one whose `pool` event was applied), or undefined. */
  pool(address: string): PoolState | undefined {
    const s = this.actors.pools.get(address);
    return s?.info ? (s as PoolState) : undefined;
  }

  /**
   * A declared pool's state for a read in the background (the ranking feeds' recompute,
   * the research refresh): as `pool`, but a passivated pool is not made resident past
   * the bound, nor a resident one moved in the LRU order (ActorHost.peek).
   */
  peekPool(address: string): PoolState | undefined {
    const s = this.actors.pools.peek(address);
    return s?.info ? (s as PoolState) : undefined;
  }

  /** The pool's state is in memory (a read costs no activation nor snapshot unpacked: ActorHost.isResident). */
  poolResident(address: string): boolean {
    return this.actors.pools.isResident(address);
  }

  /** A pool's lifecycle state (its machine's value), or undefined when unknown. */
  lifecycle(address: string): unknown {
    return this.actors.pools.lifecycle(address);
  }

  token(address: string): TokenState | undefined {
    return this.actors.tokens.get(address) as TokenState | undefined;
  }

  /** A token's state for a read in the background, as `peekPool` (ActorHost.peek). */
  peekToken(address: string): TokenState | undefined {
    return this.actors.tokens.peek(address) as TokenState | undefined;
  }

  /** `tokenPools` for a read in the background: the token and its pools peeked (the research refresh). */
  peekTokenPools(token: string): PoolState[] {
    const t = this.peekToken(token);
    if (!t) return [];
    const states: PoolState[] = [];
    for (const address of t.pools) {
      const s = this.peekPool(address);
      if (s !== undefined) states.push(s);
    }
    return this.inRankOrder(token, states, this.peeking);
  }

  /** `quoteUsdVia` for a read in the background: the tokens and pools it goes through peeked. */
  peekQuoteUsdVia(quote: string): [mint: string, factor: number] | null {
    return quoteUsdVia(quote, this.peeking);
  }

  /** A token's total supply in whole tokens, or null (actors/token supplyOf). */
  supply(token: string): number | null {
    return supplyOf(this.token(token));
  }

  /** The labels of a wallet now (SERVICE.md 2.8 `labels`). */
  labels(wallet: string): string[] {
    return activeLabels(this.actors.labels.get(wallet));
  }

  /**
   * Latest USD price of a pool's quote asset, or null: wSOL, USDC, USDT from
   * quote_price (USDC and USDT 1 until one), a token from its main pool
   * (actors/pool/usd-price.ts).
   */
  quoteUsd(quote: string): number | null {
    return quoteUsdOf(quote, this.latest);
  }

  /** `quoteUsd` with the known mints' USD prices given (the ranking recompute's, as at its tick): the tokens and pools as they stand. */
  quoteUsdWith(quote: string, mintUsd: (mint: string) => number | null): number | null {
    return quoteUsdOf(quote, { token: this.latest.token, pool: this.latest.pool, mintUsd });
  }

  /** The known mint a quote asset is valued through and its factor (usd-price.ts quoteUsdVia), as the pools stand now. */
  quoteUsdVia(quote: string): [mint: string, factor: number] | null {
    return quoteUsdVia(quote, this.latest);
  }

  /** A known mint's latest USD price (USDC and USDT 1 until a quote_price says otherwise), or null. */
  mintUsd(mint: string): number | null {
    return this.latest.mintUsd(mint);
  }

  /** The curve whose candles and trades a pool's continue (actors/pool/candle-series.ts), or null. */
  graduation(s: PoolState): Graduation | null {
    return graduationOf(s, (address) => this.pool(address));
  }

  /**
   * The pools of a token: those where it is the base first, most liquid in USD first
   * (a pool quoted in a token valued at that token's USD price; a pool whose USD value
   * is unknown after every pool whose value is known: actors/pool/usd-price.ts), then
   * those where it is the quote (token-to-token pools: their liquidity is counted in
   * another token). The first is the token's main pool.
   */
  tokenPools(token: string): PoolState[] {
    const t = this.token(token);
    if (!t) return [];
    return this.inRankOrder(token, this.poolStates(t), this.latest);
  }

  /** `states` sorted in place in tokenPools' order. */
  private inRankOrder(token: string, states: PoolState[], reader: UsdReader): PoolState[] {
    // Most tokens have one pool: nothing to rank. (Called for every search item, and
    // with no closure made per call: tsx gives each a defineProperty for its name.)
    if (states.length < 2) return states;
    const ranked = this.rank(token, states, reader);
    for (let i = 0; i < ranked.length; i++) states[i] = ranked[i]!.p;
    return states;
  }

  /** The pools `states` of `token` in tokenPools' order, with their ranks. */
  rank(token: string, states: PoolState[], reader: UsdReader = this.latest): RankedPool[] {
    // Each pool's rank computed once, not in every comparison (a USD price lookup each).
    const ranked: RankedPool[] = [];
    for (const p of states) {
      ranked.push({ p, base: p.info!.base_address === token ? 1 : 0, value: poolValue(p, reader) });
    }
    return ranked.sort(byRank);
  }

  /** The token's pools that have been declared, in no particular order, in a new array. */
  poolStates(t: TokenState): PoolState[] {
    const states: PoolState[] = [];
    for (const address of t.pools) {
      const s = this.pool(address);
      if (s !== undefined) states.push(s);
    }
    return states;
  }

  /** A pool actor's version, or undefined when it is not in memory. */
  poolVersion(address: string): number | undefined {
    return this.actors.pools.versionOf(address);
  }

  /** A token actor's version, or undefined when it is not in memory. */
  tokenVersion(address: string): number | undefined {
    return this.actors.tokens.versionOf(address);
  }

  /** Moves with every wallet label change (trade records carry labels). */
  labelsVersion(): number {
    return this.actors.labels.version;
  }

  /** The second of the engine clock: windowed figures, heat and the 24-hour trade window move with it. */
  second(): number {
    return Math.floor(this.clock.now() / 1_000);
  }

  /**
   * The seqs of a pool and of its tokens, dot-joined, with the pool's info; for a
   * known quote mint (wSOL, USDC), its price's seq when `priced`, else 0. null when one
   * of them is not in memory.
   */
  seqsOf(address: string, priced: boolean): { seqs: string; info: PoolInfo } | null {
    const a = this.actors;
    const pool = a.pools.versionOf(address);
    if (pool === undefined) return null;
    const info = (a.pools.get(address) as PoolState).info;
    if (!info) return null;
    const base = a.tokens.versionOf(info.base_address);
    const known = info.quote_address in KNOWN_MINTS;
    const quote = known ? (priced ? a.quotePrices.versionOf(info.quote_address) ?? 0 : 0) : a.tokens.versionOf(info.quote_address);
    if (base === undefined || quote === undefined) return null;
    if (priced && !known) {
      // A token quote's USD price moves with its pools and the known mints' prices (usd-price.ts).
      const usd = this.tokenUsdVersion(info.quote_address);
      return usd === null ? null : { seqs: `${pool}.${base}.${quote}.${usd}`, info };
    }
    return { seqs: `${pool}.${base}.${quote}`, info };
  }

  /** What a token's USD price is read from, as a version: its pools' seqs and the known mints' price seqs; null when one is not in memory. */
  private tokenUsdVersion(token: string): string | null {
    const a = this.actors;
    let pools = 0;
    for (const p of (a.tokens.get(token) as TokenState).pools) {
      const v = a.pools.versionOf(p);
      if (v === undefined) return null;
      pools += v;
    }
    let mints = '';
    for (const mint in KNOWN_MINTS) mints += `.${a.quotePrices.versionOf(mint) ?? 0}`;
    return `${pools}${mints}`;
  }
}
