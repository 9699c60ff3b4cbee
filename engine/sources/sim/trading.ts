import { ammBuy, ammNetOfFee, ammSell } from './amm.ts';
import { curveBuy, curveNetOfFee, curveSell } from './curve.ts';
import type { PoolState, TokenState } from './model.ts';
import { buySizeSol, pickBuyerPersona, sellFraction, type BuyerMood, type Persona } from './personas.ts';
import type { World } from './world.ts';

/**
 * Trades: one fill moves a pool's reserves exactly (curve.ts, amm.ts) and emits its
 * swap; the wrappers then emit the balances it changed. A wallet gets at most one
 * balance event per token per slot (the event's identity), so a trade that would
 * touch a wallet's token twice in one slot is skipped.
 */

interface Fill {
  base: bigint;
  quote: bigint;
}

/** Trades `amountIn` (gross quote on a buy, base on a sell) in the current transaction. */
function fill(w: World, pool: PoolState, wallet: number, side: 'buy' | 'sell', amountIn: bigint, eventIndex: number): Fill | null {
  let result: Fill | null;
  const curve = pool.curve;
  if (curve !== null) {
    result = side === 'buy' ? curveBuy(curve, curveNetOfFee(amountIn)) : curveSell(curve, amountIn);
  } else {
    const amm = pool.amm!;
    result = side === 'buy' ? ammBuy(amm, ammNetOfFee(amountIn, pool.venue!.outsideFeeBps)) : ammSell(amm, amountIn);
  }
  if (result === null) return null;
  w.emitSwap(pool, wallet, side, result.base, result.quote, eventIndex);
  if (curve !== null && curve.complete) {
    // The curve takes no more trades; its AMM pool appears in the next slot.
    pool.active = false;
    w.poolsDirty = true;
    w.later(0, { kind: 'migrate', token: pool.token });
  }
  return result;
}

/** Quote units worth `sol` SOL in a pool's quote asset. */
export function quoteRawForSol(w: World, pool: PoolState, sol: number): bigint {
  let raw: number;
  if (pool.quoteToken !== null) raw = (sol / w.priceSol(pool.quoteToken)) * 1e6;
  else if (pool.quoteDecimals === 9) raw = sol * 1e9;
  else raw = sol * w.solPriceUsd * 1e6;
  return raw >= 1 && Number.isFinite(raw) ? BigInt(Math.floor(raw)) : 0n;
}

/**
 * A buy of `quoteIn` gross quote units. On a token-to-token pool the wallet pays with
 * the quote token; without any, it routes SOL → quote token → base in one
 * transaction (a two-hop swap: one event per pool).
 */
export function buy(w: World, pool: PoolState, wallet: number, quoteIn: bigint): boolean {
  const token = pool.token;
  if (!pool.active || quoteIn <= 0n || !w.canTouch(token, wallet)) return false;
  const quoteToken = pool.quoteToken;
  if (quoteToken === null) {
    w.newTx();
    const result = fill(w, pool, wallet, 'buy', quoteIn, 0);
    if (result === null) return false;
    w.credit(token, wallet, Number(result.base)).entryPriceSol = w.priceSol(token);
    return true;
  }
  if (!w.canTouch(quoteToken, wallet)) return false;
  const held = w.balanceOf(quoteToken, wallet);
  if (held > 0) {
    const spend = Math.min(Number(quoteIn), held);
    w.newTx();
    const result = fill(w, pool, wallet, 'buy', BigInt(spend), 0);
    if (result === null) return false;
    w.debit(quoteToken, wallet, spend);
    w.credit(token, wallet, Number(result.base)).entryPriceSol = w.priceSol(token);
    return true;
  }
  const hop = quoteToken.primary;
  if (!hop.active || hop.quoteToken !== null || hop.curve !== null) return false;
  const lamports = quoteRawForSol(w, hop, (Number(quoteIn) / 1e6) * w.priceSol(quoteToken));
  w.newTx();
  const first = fill(w, hop, wallet, 'buy', lamports, 0);
  if (first === null) return false;
  const second = fill(w, pool, wallet, 'buy', first.base, 1);
  // Without the second hop the wallet keeps the quote token it bought.
  if (second === null) w.credit(quoteToken, wallet, Number(first.base));
  else w.credit(token, wallet, Number(second.base)).entryPriceSol = w.priceSol(token);
  return true;
}

/** Sells `fraction` of a wallet's holding (at least one raw unit) into the pool. */
export function sell(w: World, pool: PoolState, wallet: number, fraction: number): boolean {
  const token = pool.token;
  const holding = token.holdings.get(wallet);
  if (!pool.active || holding === undefined || holding.balance <= 0 || holding.slot === w.slot) return false;
  const amount = fraction >= 1 ? holding.balance : Math.floor(holding.balance * fraction);
  return sellAmount(w, pool, wallet, amount);
}

function sellAmount(w: World, pool: PoolState, wallet: number, amount: number): boolean {
  const quoteToken = pool.quoteToken;
  if (amount <= 0 || (quoteToken !== null && !w.canTouch(quoteToken, wallet))) return false;
  w.newTx();
  const result = fill(w, pool, wallet, 'sell', BigInt(amount), 0);
  if (result === null) return false;
  w.debit(pool.token, wallet, amount);
  if (quoteToken !== null) w.credit(quoteToken, wallet, Number(result.quote));
  return true;
}

/** Who buys a token right now: smart money and KOLs crowd into tokens bound to graduate. */
function moodOf(w: World, token: TokenState): BuyerMood {
  if (token.fate === 'dud') return 'bad';
  if (token.fate === 'graduate' || token.fate === 'runner') {
    if (token.graduatedAt < 0 || w.at < token.pumpUntil) return 'good';
  }
  return 'neutral';
}

/** Personas that take profit later rather than at random. */
function plansExit(persona: Persona): boolean {
  return persona === 'smart_money' || persona === 'kol' || persona === 'whale';
}

/** One swap of the background flow: a pool by weight, a side by the token's buy bias. */
export function randomSwap(w: World): void {
  const pool = w.pickPool();
  if (pool === null || !pool.active || pool.tradableSlot > w.slot) return;
  const token = pool.token;
  if (token.stock !== null || pool.role === 'secondary') {
    arbitrage(w, pool);
    return;
  }
  const rng = w.rng;
  const holders = token.holders;
  if (holders.length === 0 || rng.float() < token.buyBias + token.boostBias) {
    const mood = moodOf(w, token);
    const persona = pickBuyerPersona(rng, mood);
    const wallet = w.randomWallet(persona);
    const bought = buy(w, pool, wallet, quoteRawForSol(w, pool, buySizeSol(rng, persona)));
    if (bought && plansExit(persona) && mood === 'good') {
      w.later(rng.range(30_000, 300_000), { kind: 'take_profit', token, wallet, tries: 0 });
    }
  } else {
    const wallet = pickSeller(w, token);
    const persona = w.walletPersona[wallet]!;
    if (token.fate === 'established') {
      if (w.canTouch(token, wallet)) sellAmount(w, pool, wallet, sellSizeRaw(w, token, wallet, persona));
    } else {
      sell(w, pool, wallet, sellFraction(rng, persona));
    }
  }
}

/**
 * A sell sized like a buy of the persona (in SOL), capped by the holding: for tokens
 * whose holders were seeded with positions far larger than the pool, where selling a
 * share of a holding would empty the pool in a few trades.
 */
function sellSizeRaw(w: World, token: TokenState, wallet: number, persona: Persona): number {
  const sol = token.stock !== null ? w.rng.lognormal(800, 0.9) / w.solPriceUsd : buySizeSol(w.rng, persona);
  return Math.min(w.balanceOf(token, wallet), Math.floor((sol / w.priceSol(token)) * 1e6));
}

/**
 * A holder who sells: of two holders drawn at random, mostly the larger one, so large
 * positions get sold too (uniform draws would pick the many small ones and leave the
 * whales' positions sticky) at O(1) cost.
 */
function pickSeller(w: World, token: TokenState): number {
  const rng = w.rng;
  const holders = token.holders;
  const a = holders[rng.int(holders.length)]!;
  const b = holders[rng.int(holders.length)]!;
  const larger = w.balanceOf(token, a) >= w.balanceOf(token, b) ? a : b;
  return rng.chance(0.7) ? larger : a;
}

/**
 * Trades in a pool that tracks a reference price: a stock's pool its fair USD price,
 * a second pool its token's primary price. Mostly bots closing the gap (which keeps
 * the pools consistent and stocks calm), otherwise noise around it.
 */
function arbitrage(w: World, pool: PoolState): void {
  const rng = w.rng;
  const token = pool.token;
  const amm = pool.amm!;
  let reference: number;
  if (token.stock !== null) reference = token.referencePrice;
  else if (pool.quoteToken !== null) reference = w.priceSol(token) / w.priceSol(pool.quoteToken);
  else reference = w.priceSol(token) * w.solPriceUsd;
  const price = w.poolPrice(pool);
  const gap = price / reference - 1;
  const closing = Math.abs(gap) > 0.001 && rng.chance(0.85);
  const side = closing ? (gap < 0 ? 'buy' : 'sell') : rng.chance(0.5) ? 'buy' : 'sell';
  // Reserves at which the pool's price equals the reference (k kept), in raw units.
  const k = Number(amm.base) * Number(amm.quote);
  const referenceRaw = reference * 10 ** (pool.quoteDecimals - 6);
  const share = rng.range(0.3, 0.9);
  if (side === 'buy') {
    const persona: Persona = closing ? 'bot' : pickBuyerPersona(rng, 'neutral');
    const wallet = w.randomWallet(persona);
    let quoteIn: bigint;
    if (closing) {
      const delta = (Math.sqrt(k * referenceRaw) - Number(amm.quote)) * share;
      quoteIn = delta >= 1 ? BigInt(Math.floor(delta)) : 0n;
    } else {
      const sol = token.stock !== null ? rng.lognormal(800, 0.9) / w.solPriceUsd : buySizeSol(rng, persona);
      quoteIn = quoteRawForSol(w, pool, sol);
    }
    buy(w, pool, wallet, quoteIn);
    return;
  }
  if (token.holders.length === 0) return;
  const wallet = pickSeller(w, token);
  const holding = token.holdings.get(wallet)!;
  if (holding.slot === w.slot) return;
  let amount: number;
  if (closing) amount = Math.floor(Math.min(holding.balance, (Math.sqrt(k / referenceRaw) - Number(amm.base)) * share));
  else amount = sellSizeRaw(w, token, wallet, w.walletPersona[wallet]!);
  if (!pool.active) return;
  sellAmount(w, pool, wallet, amount);
}

/** Tokens moving between wallets without a swap (a send, a wallet split). */
export function transfer(w: World): void {
  const rng = w.rng;
  const tokens = w.tokens;
  if (tokens.length === 0) return;
  const token = tokens[rng.int(tokens.length)]!;
  const holders = token.holders;
  // Not before every pool of the token has traded: wallet accounting enters a transfer in at the token's price then (genesis.ts).
  if (holders.length === 0 || !token.pools.every((pool) => pool.traded)) return;
  const from = holders[rng.int(holders.length)]!;
  const to = rng.chance(0.8) ? w.randomWallet('retail') : w.randomWallet(rng.pick(['whale', 'smart_money', 'bot'] as const));
  if (from === to || !w.canTouch(token, from) || !w.canTouch(token, to)) return;
  const balance = w.balanceOf(token, from);
  const amount = rng.chance(0.4) ? balance : Math.floor(balance * rng.range(0.05, 0.9));
  if (amount <= 0) return;
  w.debit(token, from, amount);
  w.credit(token, to, amount);
}

/** Smart money and KOLs sell into strength: at 1.6× their entry, or give up after a while. */
export function takeProfit(w: World, token: TokenState, wallet: number, tries: number): void {
  const holding = token.holdings.get(wallet);
  if (holding === undefined || holding.balance <= 0) return;
  const pool = token.primary;
  const up = w.priceSol(token) / holding.entryPriceSol;
  if (!pool.active || holding.slot === w.slot || (up < 1.6 && tries < 6)) {
    w.later(w.rng.range(30_000, 240_000), { kind: 'take_profit', token, wallet, tries: tries + 1 });
    return;
  }
  sell(w, pool, wallet, up >= 1.6 ? w.rng.range(0.5, 1) : 1);
}
