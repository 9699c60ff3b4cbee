import { USDC, WSOL } from '../../model/index.ts';
import { VENUES, type Venue } from './amm.ts';
import { randomAddress } from './base58.ts';
import { newCurve, PUMP_DECIMALS, PUMP_INITIAL_REAL_BASE_RAW, PUMP_MIGRATION_BASE_RAW, PUMP_TOTAL_SUPPLY_RAW } from './curve.ts';
import { memeMetadata } from './metadata.ts';
import {
  DEAD_HEAT,
  FATE_PARAMS,
  FATE_SHARES,
  GRADUATE_DEADLINE_MS,
  SECONDARY_SHARE,
  type Fate,
  type PoolState,
  type TokenState,
} from './model.ts';
import { SLOT_MS } from './options.ts';
import { buySizeSol } from './personas.ts';
import { buy, quoteRawForSol } from './trading.ts';
import type { World } from './world.ts';

/** Launch, graduation, second pools and the heat that drives each token's activity. */

const SUPPLY_RAW_TEXT = PUMP_TOTAL_SUPPLY_RAW.toString();
const CURVE_INITIAL_REAL_BASE_TEXT = PUMP_INITIAL_REAL_BASE_RAW.toString();

export function newToken(w: World, mint: string, symbol: string, fate: Fate, creator: number, launchedAt: number): TokenState {
  const token: TokenState = {
    mint,
    symbol,
    fate,
    creator,
    launchedAt,
    primary: null as unknown as PoolState,
    pools: [],
    holdings: new Map(),
    holders: [],
    heat: 0,
    peakHeat: 0,
    tauMs: 1,
    buyBias: 0.5,
    boost: 0,
    boostBias: 0,
    graduatedAt: -1,
    decayFrom: w.at,
    authority: null,
    dexPaid: false,
    metaSlot: w.slot,
    pumpUntil: 0,
    dead: false,
    stock: null,
    referencePrice: 0,
    treasury: -1,
  };
  return token;
}

/** A pool on a venue (or the curve when venue is null), emitted as a `pool` event. */
export function openPool(
  w: World,
  token: TokenState,
  venue: Venue | null,
  quote: { mint: string; decimals: number; token: TokenState | null },
  reserves: { base: bigint; quote: bigint } | null,
  role: 'primary' | 'secondary',
  migratedFrom: string | null,
): PoolState {
  const pool: PoolState = {
    address: randomAddress(w.rng),
    token,
    quoteMint: quote.mint,
    quoteToken: quote.token,
    quoteDecimals: quote.decimals,
    venue,
    curve: venue === null ? newCurve() : null,
    amm: venue !== null && reserves !== null ? { base: reserves.base, quote: reserves.quote, lpFeeBps: venue.lpFeeBps } : null,
    role,
    share: role === 'primary' ? 1 : SECONDARY_SHARE,
    tradableSlot: w.slot + 1,
    active: true,
    traded: false,
  };
  w.out.push({
    type: 'pool',
    pool_address: pool.address,
    base_address: token.mint,
    quote_address: quote.mint,
    dex: venue === null ? 'pumpfun' : venue.dex,
    pool_type: venue === null ? 'bonding_curve' : venue.poolType,
    created_at: w.at,
    migrated_from_pool_address: migratedFrom,
    curve_initial_real_base_raw: venue === null ? CURVE_INITIAL_REAL_BASE_TEXT : null,
    slot: w.slot,
  });
  token.pools.push(pool);
  if (role === 'primary') token.primary = pool;
  w.poolsDirty = true;
  return pool;
}

export const SOL_QUOTE = { mint: WSOL, decimals: 9, token: null } as const;
export const USDC_QUOTE = { mint: USDC, decimals: 6, token: null } as const;

/** Quote side of a token-to-token pool. */
export function tokenQuote(token: TokenState): { mint: string; decimals: number; token: TokenState } {
  return { mint: token.mint, decimals: 6, token };
}

function drawFate(w: World): 'dud' | 'mid' | 'graduate' | 'runner' {
  const u = w.rng.float();
  if (u < FATE_SHARES.runner) return 'runner';
  if (u < FATE_SHARES.runner + FATE_SHARES.graduate) return 'graduate';
  if (u < FATE_SHARES.runner + FATE_SHARES.graduate + FATE_SHARES.mid) return 'mid';
  return 'dud';
}

/**
 * A pump.fun launch: the `token` event, its curve's `pool` event, the dev's buy in the
 * creation transaction, a bundle of buys in the same slot (sometimes), snipers in
 * the next two slots, and the dumps, callouts and metadata updates that follow.
 */
export function launch(w: World): void {
  const rng = w.rng;
  const fate = drawFate(w);
  const good = fate === 'graduate' || fate === 'runner';
  const creator = rng.chance(0.2) ? w.randomWallet('dev') : w.addWallet('dev', false);
  const meta = memeMetadata(rng, fate === 'dud' ? 0.3 : fate === 'mid' ? 0.6 : 0.9);
  const token = newToken(w, randomAddress(rng, 'pump'), meta.symbol, fate, creator, w.at);
  const params = FATE_PARAMS[fate];
  token.peakHeat = rng.lognormal(params.heat, 0.4);
  token.heat = token.peakHeat;
  token.tauMs = rng.range(params.tauMs[0], params.tauMs[1]);
  token.buyBias = params.buyBias;
  w.out.push({
    type: 'token',
    token_address: token.mint,
    decimals: PUMP_DECIMALS,
    supply_raw: SUPPLY_RAW_TEXT,
    symbol: meta.symbol,
    name: meta.name,
    description: meta.description,
    image_url: meta.image_url,
    socials: meta.socials ?? null,
    creator_address: w.walletAddress[creator]!,
    launched_at: w.at,
    mint_authority: null,
    freeze_authority: null,
    creator_fee_destination: 'creator',
    slot: w.slot,
    at: w.at,
  });
  const curve = openPool(w, token, null, SOL_QUOTE, null, 'primary', null);
  w.tokens.push(token);

  if (rng.chance(0.85)) buy(w, curve, creator, quoteRawForSol(w, curve, buySizeSol(rng, 'dev')));
  if (rng.chance(fate === 'dud' ? 0.35 : fate === 'mid' ? 0.25 : 0.15)) {
    const dumpAfter = rng.range(5_000, 240_000);
    for (let i = 3 + rng.int(6); i > 0; i--) {
      const bundler = w.randomWallet('bundler');
      if (buy(w, curve, bundler, quoteRawForSol(w, curve, buySizeSol(rng, 'bundler')))) {
        w.later(dumpAfter + rng.range(0, 4_000), { kind: 'sell', token, wallet: bundler, fraction: 1 });
      }
    }
  }
  if (rng.chance(0.7)) {
    for (let i = 1 + rng.int(5); i > 0; i--) {
      const sniper = w.randomWallet('sniper');
      w.later(SLOT_MS * (1 + rng.int(2)), { kind: 'buy', token, wallet: sniper, sizeSol: buySizeSol(rng, 'sniper'), takeProfit: false });
      w.later(rng.range(3_000, 120_000), { kind: 'sell', token, wallet: sniper, fraction: 1 });
    }
  }
  const dumpChance = fate === 'dud' ? 0.45 : fate === 'mid' ? 0.25 : 0;
  if (rng.chance(dumpChance)) w.later(10_000 + rng.exp(fate === 'dud' ? 60_000 : 300_000), { kind: 'sell', token, wallet: creator, fraction: 1 });
  if (rng.chance(good ? 0.75 : fate === 'mid' ? 0.3 : 0.05)) {
    w.later(rng.range(20_000, 480_000), { kind: 'callout', token, kol: w.randomWallet('kol'), buy: true });
  }
  if (rng.chance(good ? 0.8 : fate === 'mid' ? 0.4 : 0.15)) w.later(rng.range(60_000, 1_800_000), { kind: 'metadata', token });
}

/**
 * A completed curve moves to a PumpSwap pool seeded with the curve's real SOL and the
 * tokens kept back for it (206,900,000: the curve's real base is 0 by then); the
 * `pool` event comes before the `migration` event (INGEST.md).
 */
export function migrate(w: World, token: TokenState): void {
  if (token.dead) return;
  const curvePool = token.primary;
  const curve = curvePool.curve!;
  const rng = w.rng;
  openPool(w, token, VENUES.pumpswap, SOL_QUOTE, { base: PUMP_MIGRATION_BASE_RAW + curve.realBase, quote: curve.realQuote }, 'primary', curvePool.address);
  w.out.push({ type: 'migration', token_address: token.mint, from_pool_address: curvePool.address, to_pool_address: token.primary.address, slot: w.slot, at: w.at });
  if (token.metaSlot !== w.slot) {
    // PumpSwap burns the LP tokens of a migrated pool.
    token.metaSlot = w.slot;
    w.out.push({ type: 'token', token_address: token.mint, lp_burned_pct: 100, slot: w.slot, at: w.at });
  }
  token.graduatedAt = w.at;
  if (token.fate !== 'graduate' && token.fate !== 'runner') token.fate = 'graduate';
  if (token.fate === 'runner') {
    token.pumpUntil = w.at + rng.range(20 * 60_000, 90 * 60_000);
    token.decayFrom = token.pumpUntil;
    token.peakHeat *= 1.5;
  } else {
    token.decayFrom = w.at;
  }
  if (rng.chance(token.fate === 'runner' ? 0.7 : 0.35)) w.later(rng.range(120_000, 1_200_000), { kind: 'second_pool', token });
  if (rng.chance(0.5)) w.later(rng.range(60_000, 900_000), { kind: 'sell', token, wallet: token.creator, fraction: rng.range(0.3, 1) });
  if (rng.chance(0.6)) w.later(rng.range(60_000, 600_000), { kind: 'metadata', token });
}

/**
 * A second pool for a graduated token: Raydium CPMM against USDC, or a DLMM pool
 * against an established token (token-to-token). Its largest holder provides the
 * base side; the quote side is USDC (not tracked) or the established token's treasury.
 */
export function secondPool(w: World, token: TokenState): void {
  if (token.dead || !token.primary.active) return;
  const rng = w.rng;
  let provider = -1;
  let largest = 0;
  for (const wallet of token.holders) {
    const balance = w.balanceOf(token, wallet);
    if (balance > largest) {
      largest = balance;
      provider = wallet;
    }
  }
  if (provider < 0 || largest < 0.003 * Number(PUMP_TOTAL_SUPPLY_RAW) || !w.canTouch(token, provider)) return;
  const deposit = Math.floor(largest * rng.range(0.3, 0.6));
  const valueSol = (deposit / 1e6) * w.priceSol(token);
  const quoteToken = w.bluechips.length > 0 && rng.chance(0.4) ? rng.pick(w.bluechips) : null;
  if (quoteToken !== null) {
    const quoteRaw = Math.floor((valueSol / w.priceSol(quoteToken)) * 1e6);
    const treasury = quoteToken.treasury;
    if (quoteRaw <= 0 || w.balanceOf(quoteToken, treasury) < quoteRaw || !w.canTouch(quoteToken, treasury)) return;
    openPool(w, token, VENUES.meteoraDlmm, tokenQuote(quoteToken), { base: BigInt(deposit), quote: BigInt(quoteRaw) }, 'secondary', null);
    w.debit(quoteToken, treasury, quoteRaw);
  } else {
    const quoteRaw = Math.floor(valueSol * w.solPriceUsd * 1e6);
    if (quoteRaw <= 0) return;
    openPool(w, token, VENUES.raydiumCpmm, USDC_QUOTE, { base: BigInt(deposit), quote: BigInt(quoteRaw) }, 'secondary', null);
  }
  w.debit(token, provider, deposit);
}

/** Every few slots: heat and buy bias per token, stock fair prices, deaths. */
export function tick(w: World, elapsedMs: number): void {
  const rng = w.rng;
  const boostDecay = Math.exp(-elapsedMs / 180_000);
  let deaths = 0;
  for (const token of w.tokens) {
    let base: number;
    switch (token.fate) {
      case 'established': {
        base = token.peakHeat;
        // About 4% per hour of drift in the reference; the flow leans back towards it.
        token.referencePrice *= Math.exp(0.001 * Math.sqrt(elapsedMs / 2_000) * rng.normal());
        const lean = 0.5 - 0.6 * Math.log(w.priceSol(token) / token.referencePrice);
        token.buyBias = Math.min(0.7, Math.max(0.3, lean));
        break;
      }
      case 'stock':
        base = token.peakHeat;
        // Low volatility: about 1.3% per hour.
        token.referencePrice *= Math.exp(0.0004 * Math.sqrt(elapsedMs / 2_000) * rng.normal());
        break;
      case 'dud':
      case 'mid': {
        base = token.peakHeat * Math.exp(-(w.at - token.decayFrom) / token.tauMs);
        const fresh = base / token.peakHeat;
        token.buyBias = token.fate === 'dud' ? 0.32 + 0.18 * fresh : 0.36 + 0.17 * fresh;
        break;
      }
      case 'graduate':
      case 'runner':
        if (token.graduatedAt < 0) {
          base = token.peakHeat;
          if (w.at - token.launchedAt > GRADUATE_DEADLINE_MS && token.primary.curve !== null && !token.primary.curve.complete) {
            token.fate = 'mid';
            token.decayFrom = w.at;
            token.tauMs = 600_000;
          }
        } else if (w.at < token.pumpUntil) {
          base = token.peakHeat;
          token.buyBias = 0.6;
        } else {
          base = token.peakHeat * Math.exp(-(w.at - token.decayFrom) / token.tauMs);
          token.buyBias = 0.47;
        }
        break;
    }
    token.boost *= boostDecay;
    token.boostBias *= boostDecay;
    token.heat = base + token.boost;
    // A completed curve waiting for its migration (primary inactive) must live to migrate.
    if (token.heat < DEAD_HEAT && token.fate !== 'established' && token.fate !== 'stock' && token.primary.active) {
      w.kill(token);
      deaths++;
    }
  }
  if (deaths > 0) w.tokens = w.tokens.filter((t) => !t.dead);
  w.rebuildPools();
}
