import { VENUES } from './amm.ts';
import { randomAddress } from './base58.ts';
import { PUMP_TOTAL_SUPPLY_RAW } from './curve.ts';
import { tokenQuote, newToken, openPool, SOL_QUOTE, USDC_QUOTE } from './lifecycle.ts';
import { ipfsImageUrl, memeSocials } from './metadata.ts';
import { ESTABLISHED_HEAT, STOCK_HEAT, type TokenState } from './model.ts';
import { PERSONA_LABEL, PERSONAS, type Persona } from './personas.ts';
import { STOCK_MINTS, STOCKS, stockDescription, stockName, stockSymbol } from './stocks.ts';
import { SLOT_MS } from './options.ts';
import type { World } from './world.ts';

/**
 * The first slot: the market as a new user finds it, not an empty one. Labels of the
 * wallets that have one, a few established memecoins (one of them quotes
 * token-to-token pools), the tokenized stocks, their pools, and their holders.
 *
 * Holders get their tokens the way a balance can change without a swap: a transfer
 * from the token's treasury, which holds the minted supply (its one balance no swap
 * explains). Wallet accounting enters a transfer in at the token's USD price at its
 * slot (DECISIONS.md "Wallet accounting"), so each transfer waits until every pool of
 * the token has traded (the engine has a price), one a slot per token (a wallet has one
 * balance event per token per slot): over the first ~100 s. Given at genesis, before
 * any price, they entered at 0 and traders that also bought showed average costs far
 * below every price they paid (test/sim/balances.test.ts).
 */

interface Established {
  name: string;
  symbol: string;
  marketCapUsd: number;
  liquiditySol: number;
  /** Launched on pump.fun: revoked authorities, burnt LP, a mint ending in "pump". */
  pump: boolean;
  ageDays: number;
}

const ESTABLISHED: readonly Established[] = [
  { name: 'Dogwifcap', symbol: 'DWC', marketCapUsd: 60e6, liquiditySol: 2500, pump: true, ageDays: 410 },
  { name: 'Chillhouse', symbol: 'CHILLH', marketCapUsd: 18e6, liquiditySol: 900, pump: true, ageDays: 130 },
  { name: 'Sol Cat', symbol: 'SCAT', marketCapUsd: 7e6, liquiditySol: 450, pump: false, ageDays: 75 },
  { name: 'Turbo Wizard', symbol: 'TWIZ', marketCapUsd: 2.5e6, liquiditySol: 250, pump: false, ageDays: 18 },
];

/** Seeded pools trade only from here on, so their first slots show no fake snipers. */
const SEEDED_QUIET_SLOTS = 5;
const HOLDER_PERSONAS: readonly Persona[] = ['retail', 'retail', 'retail', 'retail', 'whale', 'smart_money', 'kol', 'bot'];

export function genesis(w: World): void {
  emitLabels(w);
  const allocations: Array<{ token: TokenState; wallet: number; amount: number }> = [];
  const established = ESTABLISHED.map((spec) => establishedToken(w, spec));
  const stocks = STOCKS.map((_, i) => stockToken(w, i));
  const remaining = new Map<TokenState, number>();

  established.forEach((token, i) => {
    const spec = ESTABLISHED[i]!;
    const priceSol = spec.marketCapUsd / w.solPriceUsd / 1e9;
    const base = Math.floor((spec.liquiditySol / priceSol) * 1e6);
    openPool(w, token, VENUES.pumpswap, SOL_QUOTE, { base: BigInt(base), quote: BigInt(Math.floor(spec.liquiditySol * 1e9)) }, 'primary', null);
    remaining.set(token, Number(PUMP_TOTAL_SUPPLY_RAW) - base);
    token.referencePrice = priceSol;
  });
  // The largest one pairs with USDC; the second quotes in the largest (token-to-token).
  const [first, second] = established as [TokenState, TokenState];
  const firstPrice = ESTABLISHED[0]!.marketCapUsd / w.solPriceUsd / 1e9;
  const secondPrice = ESTABLISHED[1]!.marketCapUsd / w.solPriceUsd / 1e9;
  const usdcBase = Math.floor(Number(PUMP_TOTAL_SUPPLY_RAW) * 0.01);
  openPool(w, first, VENUES.raydiumCpmm, USDC_QUOTE, { base: BigInt(usdcBase), quote: BigInt(Math.floor(usdcBase * firstPrice * w.solPriceUsd)) }, 'secondary', null);
  const pairBase = Math.floor(Number(PUMP_TOTAL_SUPPLY_RAW) * 0.005);
  const pairQuote = Math.floor((pairBase * secondPrice) / firstPrice);
  openPool(w, second, VENUES.meteoraDlmm, tokenQuote(first), { base: BigInt(pairBase), quote: BigInt(pairQuote) }, 'secondary', null);
  remaining.set(first, remaining.get(first)! - usdcBase - pairQuote);
  remaining.set(second, remaining.get(second)! - pairBase);
  for (const token of established) distribute(w, token, remaining.get(token)!, 0.08, 150 + w.rng.int(100), allocations);
  w.bluechips.push(first, second);

  stocks.forEach((token, i) => {
    const stock = STOCKS[i]!;
    const base = Math.floor((stock.liquidityUsd / stock.priceUsd) * 1e6);
    openPool(w, token, VENUES.raydiumCpmm, USDC_QUOTE, { base: BigInt(base), quote: BigInt(Math.floor(stock.liquidityUsd * 1e6)) }, 'primary', null);
    distribute(w, token, stock.supply * 1e6 - base, 0.6, 30 + w.rng.int(40), allocations);
  });

  for (const token of [...established, ...stocks]) {
    for (const pool of token.pools) pool.tradableSlot = w.slot + SEEDED_QUIET_SLOTS;
    w.tokens.push(token);
  }
  // The mint: each treasury holds its token's supply outside the pools, then sends the holders theirs.
  const minted = new Map<TokenState, number>();
  for (const a of allocations) minted.set(a.token, (minted.get(a.token) ?? 0) + a.amount);
  for (const [token, amount] of minted) w.credit(token, token.treasury, amount);
  const sent = new Map<TokenState, number>();
  for (const a of allocations) {
    if (a.wallet === a.token.treasury) continue;
    const i = sent.get(a.token) ?? 0;
    sent.set(a.token, i + 1);
    w.later((SEEDED_QUIET_SLOTS + 1 + i) * SLOT_MS, { kind: 'distribute', token: a.token, wallet: a.wallet, amount: a.amount });
  }
}

/**
 * One genesis holder's tokens, sent by the treasury (a transfer: the treasury's balance
 * and the holder's in one slot), once every pool of the token has traded; else, or when
 * either wallet already has a balance event of the token in this slot, a slot later.
 */
export function distributeHolding(w: World, token: TokenState, wallet: number, amount: number): void {
  if (token.dead) return;
  const treasury = token.treasury;
  if (!token.pools.every((pool) => pool.traded) || !w.canTouch(token, treasury) || !w.canTouch(token, wallet)) {
    w.later(SLOT_MS, { kind: 'distribute', token, wallet, amount });
    return;
  }
  // The treasury trades too (a holder like any other): it sends what it still has.
  const sending = Math.min(amount, w.balanceOf(token, treasury));
  if (sending <= 0) return;
  w.debit(token, treasury, sending);
  w.credit(token, wallet, sending);
}

function emitLabels(w: World): void {
  for (const persona of PERSONAS) {
    const label = PERSONA_LABEL[persona];
    if (label === undefined) continue;
    for (const wallet of w.byPersona[persona]) {
      const kol = w.kols.get(wallet);
      w.out.push({
        type: 'label',
        wallet_address: w.walletAddress[wallet]!,
        label,
        action: 'add',
        detail: kol === undefined ? null : { name: kol.name, [kol.platform === 'x' ? 'twitter' : 'telegram']: `@${kol.handle}` },
        at: w.at,
      });
    }
  }
}

/** The treasury keeps `treasuryShare` of `amount` (and the rounding); holders split the rest. */
function distribute(
  w: World,
  token: TokenState,
  amount: number,
  treasuryShare: number,
  holders: number,
  out: Array<{ token: TokenState; wallet: number; amount: number }>,
): void {
  const rng = w.rng;
  const chosen = new Map<number, number>();
  let weightSum = 0;
  while (chosen.size < holders) {
    const wallet = w.randomWallet(rng.pick(HOLDER_PERSONAS));
    if (chosen.has(wallet) || wallet === token.treasury) continue;
    const weight = rng.lognormal(1, 1.6);
    chosen.set(wallet, weight);
    weightSum += weight;
  }
  const shared = Math.floor(amount * (1 - treasuryShare));
  let given = 0;
  for (const [wallet, weight] of chosen) {
    const part = Math.floor((shared * weight) / weightSum);
    if (part <= 0) continue;
    out.push({ token, wallet, amount: part });
    given += part;
  }
  out.push({ token, wallet: token.treasury, amount: amount - given });
}

function establishedToken(w: World, spec: Established): TokenState {
  const rng = w.rng;
  const creator = w.addWallet('dev', false);
  const launchedAt = w.at - spec.ageDays * 86_400_000;
  const token = newToken(w, randomAddress(rng, spec.pump ? 'pump' : ''), spec.symbol, 'established', creator, launchedAt);
  token.treasury = creator;
  token.peakHeat = ESTABLISHED_HEAT * rng.lognormal(1, 0.3);
  token.heat = token.peakHeat;
  token.dexPaid = true;
  token.authority = spec.pump ? null : w.walletAddress[creator]!;
  const slug = spec.name.toLowerCase().replaceAll(' ', '');
  w.out.push({
    type: 'token',
    token_address: token.mint,
    decimals: 6,
    supply_raw: PUMP_TOTAL_SUPPLY_RAW.toString(),
    symbol: spec.symbol,
    name: spec.name,
    description: `${spec.name} (${spec.symbol}): community-run since day one.`,
    image_url: ipfsImageUrl(rng),
    socials: memeSocials(rng, slug, 1) ?? { twitter: `https://x.com/${slug}` },
    creator_address: w.walletAddress[creator]!,
    launched_at: launchedAt,
    mint_authority: token.authority,
    freeze_authority: token.authority,
    lp_burned_pct: spec.pump ? 100 : 0,
    dex_paid: true,
    slot: w.slot,
    at: w.at,
  });
  // Tokens that still hold authorities revoke them some time in the first hour.
  if (token.authority !== null) w.later(rng.range(60_000, 3_600_000), { kind: 'metadata', token });
  return token;
}

function stockToken(w: World, index: number): TokenState {
  const stock = STOCKS[index]!;
  const issuer = w.addWallet('dev', false);
  const launchedAt = w.at - (90 + w.rng.int(120)) * 86_400_000;
  const token = newToken(w, STOCK_MINTS[index]!, stockSymbol(stock), 'stock', issuer, launchedAt);
  token.treasury = issuer;
  token.stock = stock;
  token.referencePrice = stock.priceUsd;
  token.peakHeat = STOCK_HEAT;
  token.heat = STOCK_HEAT;
  token.dexPaid = true;
  const issuerAddress = w.walletAddress[issuer]!;
  w.out.push({
    type: 'token',
    token_address: token.mint,
    decimals: 6,
    supply_raw: String(stock.supply * 1e6),
    symbol: stockSymbol(stock),
    name: stockName(stock),
    description: stockDescription(stock),
    image_url: `https://xstocks.example/logos/${stock.ticker.toLowerCase()}.png`,
    socials: { website: `https://xstocks.example/${stock.ticker.toLowerCase()}` },
    creator_address: issuerAddress,
    launched_at: launchedAt,
    // Issued tokens keep their authorities: the issuer mints, burns and can freeze.
    mint_authority: issuerAddress,
    freeze_authority: issuerAddress,
    dex_paid: true,
    // DECISIONS.md "Tokenized stocks": the tag the stocks feed lists.
    tags: ['stock'],
    slot: w.slot,
    at: w.at,
  });
  return token;
}
