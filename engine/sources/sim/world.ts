import type { IngestEvent, SwapEvent } from '../../ingest/index.ts';
import { ammPrice } from './amm.ts';
import { randomAddress, TxHashes } from './base58.ts';
import { curvePriceSol } from './curve.ts';
import { kolProfile, type KolProfile } from './metadata.ts';
import type { Action, Holding, PoolState, TokenState } from './model.ts';
import { SLOT_MS, type ResolvedSimOptions } from './options.ts';
import { PERSONA_WALLETS, PERSONAS, type Persona } from './personas.ts';
import { Rng } from './rng.ts';

/** Solana's slot at SLOT_EPOCH_AT (2026-01-01), so simulated slots look like mainnet's. */
const SLOT_AT_EPOCH = 390_000_000;
const SLOT_EPOCH_AT = 1_767_225_600_000;

/**
 * The simulated market's state and the primitives every part of the simulation uses:
 * the clock (slot and block time), transactions, wallets, balances, the event buffer
 * of the current slot, pool selection and the schedule of deferred actions.
 *
 * Invariant: all events of a slot carry that slot's block time `at`, and slots only
 * advance, so the stream is in non-decreasing time order.
 */
/** The first revival (social.ts `revive`), after the start: the tokens launched since then are past their launch rush by it. */
const REVIVAL_FIRST_MS = 15 * 60_000;

export class World {
  readonly rng: Rng;
  readonly options: ResolvedSimOptions;
  readonly hashes: TxHashes;
  readonly slot0: number;
  slot: number;
  /** Block time of the current slot (Unix ms). */
  at: number;
  /** Events of the current slot. */
  out: IngestEvent[] = [];
  /** tx_index and signature of the current transaction. */
  txIndex = 0;
  txHash = '';

  readonly walletAddress: string[] = [];
  readonly walletPersona: Persona[] = [];
  readonly byPersona: Record<Persona, number[]>;
  readonly kols = new Map<number, KolProfile>();

  /** Tokens alive (trading); dead ones are dropped. */
  tokens: TokenState[] = [];
  /** Established tokens that quote token-to-token pools. */
  readonly bluechips: TokenState[] = [];
  private tradable: PoolState[] = [];
  private cumulative = new Float64Array(0);
  private totalWeight = 0;
  poolsDirty = true;
  private readonly schedule = new Map<number, Action[]>();

  solPriceUsd: number;
  usdcPriceUsd = 1;
  nextLaunchAt: number;
  nextSolPriceAt: number;
  nextUsdcPriceAt: number;
  nextMusingAt: number;
  nextLabelAt: number;
  /** The next revival (social.ts `revive`): a KOL calls a token past its launch rush. */
  nextRevivalAt: number;
  postCount = 0;

  constructor(options: ResolvedSimOptions) {
    this.options = options;
    this.rng = new Rng(options.seed);
    this.hashes = new TxHashes(this.rng);
    this.slot0 = Math.max(1, SLOT_AT_EPOCH + Math.floor((options.startAt - SLOT_EPOCH_AT) / SLOT_MS));
    this.slot = this.slot0;
    this.at = options.startAt;
    this.solPriceUsd = options.solPriceUsd;
    this.byPersona = Object.fromEntries(PERSONAS.map((p) => [p, [] as number[]])) as unknown as Record<Persona, number[]>;
    for (const persona of PERSONAS) {
      for (let i = 0; i < PERSONA_WALLETS[persona]; i++) {
        const wallet = this.addWallet(persona);
        if (persona === 'kol') this.kols.set(wallet, kolProfile(this.rng));
      }
    }
    this.nextLaunchAt = options.launchRate > 0 ? options.startAt + SLOT_MS : Number.POSITIVE_INFINITY;
    this.nextSolPriceAt = options.startAt;
    this.nextUsdcPriceAt = options.startAt;
    this.nextMusingAt = options.startAt + this.rng.exp(120_000);
    // After the first slot, whose labels a change at the same `at` would collide with.
    this.nextLabelAt = options.startAt + 60_000 + this.rng.exp(600_000);
    // Not drawn here: the draws before the first revival stay those of a world without them.
    this.nextRevivalAt = options.startAt + REVIVAL_FIRST_MS;
  }

  /** Block time of a slot. */
  slotAt(slot: number): number {
    return this.options.startAt + (slot - this.slot0) * SLOT_MS;
  }

  beginSlot(): void {
    this.at = this.slotAt(this.slot);
    this.out = [];
    // Other programs' transactions come before and between ours: positions have gaps.
    this.txIndex = this.rng.int(12);
  }

  /** Opens the next transaction of the slot: a new signature and a higher tx_index. */
  newTx(): void {
    this.txIndex += 1 + this.rng.int(4);
    this.txHash = this.hashes.next();
  }

  /** A wallet of a persona; `listed` ones are picked for random trades and labelled. */
  addWallet(persona: Persona, listed = true): number {
    const wallet = this.walletAddress.length;
    this.walletAddress.push(randomAddress(this.rng));
    this.walletPersona.push(persona);
    if (listed) this.byPersona[persona].push(wallet);
    return wallet;
  }

  randomWallet(persona: Persona): number {
    const list = this.byPersona[persona];
    return list[this.rng.int(list.length)]!;
  }

  /** False when the wallet already has a balance event for the token in this slot. */
  canTouch(token: TokenState, wallet: number): boolean {
    const holding = token.holdings.get(wallet);
    return holding === undefined || holding.slot !== this.slot;
  }

  balanceOf(token: TokenState, wallet: number): number {
    return token.holdings.get(wallet)?.balance ?? 0;
  }

  private holding(token: TokenState, wallet: number): Holding {
    let holding = token.holdings.get(wallet);
    if (holding === undefined) {
      holding = { wallet, balance: 0, slot: -1, position: -1, entryPriceSol: 0 };
      token.holdings.set(wallet, holding);
    }
    return holding;
  }

  /** Adds to a balance and emits the wallet's new balance. */
  credit(token: TokenState, wallet: number, amount: number): Holding {
    const holding = this.holding(token, wallet);
    holding.balance += amount;
    if (holding.position < 0 && holding.balance > 0) {
      holding.position = token.holders.length;
      token.holders.push(wallet);
    }
    this.emitBalance(token, holding);
    return holding;
  }

  /** Takes from a balance (never below zero) and emits the wallet's new balance. */
  debit(token: TokenState, wallet: number, amount: number): void {
    const holding = this.holding(token, wallet);
    if (amount > holding.balance) throw new Error(`sim: debit of ${amount} exceeds balance ${holding.balance} of ${token.symbol}`);
    holding.balance -= amount;
    if (holding.balance === 0 && holding.position >= 0) {
      const last = token.holders.pop()!;
      if (last !== wallet) {
        token.holders[holding.position] = last;
        token.holdings.get(last)!.position = holding.position;
      }
      holding.position = -1;
    }
    this.emitBalance(token, holding);
  }

  private emitBalance(token: TokenState, holding: Holding): void {
    holding.slot = this.slot;
    this.out.push({
      type: 'balance',
      token_address: token.mint,
      wallet_address: this.walletAddress[holding.wallet]!,
      balance_raw: String(holding.balance),
      slot: this.slot,
      at: this.at,
    });
  }

  /** Emits the swap event of a fill in the current transaction. */
  emitSwap(pool: PoolState, wallet: number, side: 'buy' | 'sell', base: bigint, quote: bigint, eventIndex: number): void {
    const curve = pool.curve;
    pool.traded = true;
    // A curve prices by its virtual reserves; its real reserves follow (INGEST.md).
    const swap: SwapEvent = {
      type: 'swap',
      tx_hash: this.txHash,
      slot: this.slot,
      tx_index: this.txIndex,
      event_index: eventIndex,
      at: this.at,
      pool_address: pool.address,
      wallet_address: this.walletAddress[wallet]!,
      side,
      base_amount_raw: base.toString(),
      quote_amount_raw: quote.toString(),
      base_reserve_raw: (curve ? curve.virtualBase : pool.amm!.base).toString(),
      quote_reserve_raw: (curve ? curve.virtualQuote : pool.amm!.quote).toString(),
    };
    if (curve) {
      swap.real_base_reserve_raw = curve.realBase.toString();
      swap.real_quote_reserve_raw = curve.realQuote.toString();
    }
    this.out.push(swap);
  }


  /** Price of a pool in quote per base (virtual reserves on a curve). */
  poolPrice(pool: PoolState): number {
    return pool.curve !== null ? curvePriceSol(pool.curve) : ammPrice(pool.amm!, 6, pool.quoteDecimals);
  }

  /** Price of a token in SOL, from its primary pool (SOL- or USDC-quoted). */
  priceSol(token: TokenState): number {
    const price = this.poolPrice(token.primary);
    return token.primary.quoteDecimals === 9 ? price : price / this.solPriceUsd;
  }

  /** Pool selection weights: token heat × the pool's share. Cheap to call each tick. */
  rebuildPools(): void {
    const pools: PoolState[] = [];
    for (const token of this.tokens) {
      for (const pool of token.pools) if (pool.active) pools.push(pool);
    }
    if (this.cumulative.length < pools.length) this.cumulative = new Float64Array(pools.length * 2);
    let sum = 0;
    for (let i = 0; i < pools.length; i++) {
      const pool = pools[i]!;
      sum += pool.token.heat * pool.share;
      this.cumulative[i] = sum;
    }
    this.tradable = pools;
    this.totalWeight = sum;
    this.poolsDirty = false;
  }

  /** A pool at random, in proportion to its weight; null when none trades. */
  pickPool(): PoolState | null {
    if (this.poolsDirty) this.rebuildPools();
    const n = this.tradable.length;
    if (n === 0 || this.totalWeight <= 0) return null;
    const target = this.rng.float() * this.totalWeight;
    const c = this.cumulative;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (c[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return this.tradable[lo]!;
  }

  /** Defers an action by about `delayMs` (at least one slot). */
  later(delayMs: number, action: Action): void {
    const slot = this.slot + Math.max(1, Math.round(delayMs / SLOT_MS));
    const due = this.schedule.get(slot);
    if (due === undefined) this.schedule.set(slot, [action]);
    else due.push(action);
  }

  /** Removes and returns the actions due in the current slot. */
  takeDue(): Action[] | undefined {
    const due = this.schedule.get(this.slot);
    if (due !== undefined) this.schedule.delete(this.slot);
    return due;
  }

  /** Drops a token: no more trades; its holdings are freed. */
  kill(token: TokenState): void {
    token.dead = true;
    for (const pool of token.pools) pool.active = false;
    token.holdings.clear();
    token.holders.length = 0;
    this.poolsDirty = true;
  }
}
