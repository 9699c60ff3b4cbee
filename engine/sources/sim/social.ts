import { USDC, WSOL } from '../../model/index.ts';
import type { SocialPostEvent } from '../../ingest/index.ts';
import { ipfsImageUrl, memeSocials, postText } from './metadata.ts';
import type { TokenState } from './model.ts';
import { buySizeSol } from './personas.ts';
import { buy, quoteRawForSol } from './trading.ts';
import type { World } from './world.ts';

/** Quote prices, labels, social posts and metadata updates: the market's side channels. */

/** Twitter's snowflake epoch: post ids look like real X status ids. */
const SNOWFLAKE_EPOCH = 1_288_834_974_657n;

/**
 * SOL/USD: a mean-reverting log random walk around the configured level, published
 * every 8-20 s; USDC/USD close to 1, every 1-3 minutes.
 */
export function quotePrices(w: World): void {
  const rng = w.rng;
  if (w.at >= w.nextSolPriceAt) {
    if (w.at > w.options.startAt) {
      const drift = -0.01 * Math.log(w.solPriceUsd / w.options.solPriceUsd);
      w.solPriceUsd *= Math.exp(drift + 0.0012 * rng.normal());
    }
    w.out.push({ type: 'quote_price', quote_address: WSOL, price_usd: Math.round(w.solPriceUsd * 1e4) / 1e4, at: w.at });
    w.nextSolPriceAt = w.at + rng.range(8_000, 20_000);
  }
  if (w.at >= w.nextUsdcPriceAt) {
    w.usdcPriceUsd = Math.min(1.003, Math.max(0.997, 1 + 0.0002 * rng.normal()));
    w.out.push({ type: 'quote_price', quote_address: USDC, price_usd: Math.round(w.usdcPriceUsd * 1e6) / 1e6, at: w.at });
    w.nextUsdcPriceAt = w.at + rng.range(60_000, 180_000);
  }
}

/** Snowflake ids count milliseconds from the epoch in their bits above the 22nd. */
const SNOWFLAKE_MS = 4_194_304n;

/**
 * An X post's id (a snowflake: its time in the high bits) and its URL, as if posted
 * `ms` later; the same for a Telegram post (its id holds no time).
 */
export function shiftPostTime(post: SocialPostEvent, ms: number): void {
  if (post.platform !== 'x') return;
  const id = (BigInt(post.post_id) + BigInt(ms) * SNOWFLAKE_MS).toString();
  post.url = `https://x.com/${post.author}/status/${id}`;
  post.post_id = id;
}

/** A post by a KOL, naming a token (a callout) or none. */
export function post(w: World, kol: number, token: TokenState | null): void {
  const profile = w.kols.get(kol)!;
  const seq = w.postCount++;
  let postId: string;
  let url: string;
  if (profile.platform === 'x') {
    postId = ((BigInt(w.at) - SNOWFLAKE_EPOCH) * SNOWFLAKE_MS + BigInt(seq % 4_194_304)).toString();
    url = `https://x.com/${profile.handle}/status/${postId}`;
  } else {
    postId = `tg:${profile.handle}:${seq}`;
    url = `https://t.me/${profile.handle}/${1000 + seq}`;
  }
  w.out.push({
    type: 'social_post',
    post_id: postId,
    platform: profile.platform,
    author: profile.handle,
    author_wallet_address: profile.walletPublic ? w.walletAddress[kol]! : null,
    text: postText(w.rng, token === null ? null : { symbol: token.symbol, mint: token.mint }),
    url,
    token_addresses: token === null ? [] : [token.mint],
    at: w.at,
  });
  if (token !== null) {
    // Followers pile in for a few minutes.
    token.boost += token.peakHeat * 0.8;
    token.boostBias = 0.1;
  }
}

/**
 * A KOL's call on a token: half the time the KOL buys first and posts 5-60 s later,
 * half the time posts first and buys 2-20 s after (front-running the followers, or not).
 */
export function callout(w: World, token: TokenState, kol: number, first: boolean): void {
  if (token.dead) return;
  const rng = w.rng;
  if (first) {
    if (rng.chance(0.5)) {
      kolBuy(w, token, kol);
      w.later(rng.range(5_000, 60_000), { kind: 'callout', token, kol, buy: false });
    } else {
      post(w, kol, token);
      w.later(rng.range(2_000, 20_000), { kind: 'buy', token, wallet: kol, sizeSol: buySizeSol(rng, 'kol'), takeProfit: true });
    }
  } else {
    post(w, kol, token);
  }
}

function kolBuy(w: World, token: TokenState, kol: number): void {
  const pool = token.primary;
  if (buy(w, pool, kol, quoteRawForSol(w, pool, buySizeSol(w.rng, 'kol')))) {
    w.later(w.rng.range(30_000, 300_000), { kind: 'take_profit', token, wallet: kol, tries: 0 });
  }
}

/** Mean time between two revivals (`revive`). */
const REVIVAL_MEAN_MS = 8 * 60_000;
/** A token revived is at least this old: past its launch rush, so that its last hour is its baseline. */
const REVIVAL_MIN_AGE_MS = 12 * 60_000;
/** A revival's extra heat, × the token's peak heat (a callout's own is 0.8×). */
const REVIVAL_BOOST = 10;

/**
 * A revival: a KOL calls a token past its launch rush (a memecoin's second leg, an
 * established token shilled again), and followers pile in far harder than after a
 * launch callout, for a few minutes: what volume_spike looks for (actors/signals
 * SIGNALS.md). Stocks are not called.
 */
export function revive(w: World): void {
  const candidates = w.tokens.filter((t) => !t.dead && t.fate !== 'stock' && t.primary.active && w.at - t.launchedAt >= REVIVAL_MIN_AGE_MS);
  if (candidates.length === 0) return;
  const token = candidates[w.rng.int(candidates.length)]!;
  callout(w, token, w.randomWallet('kol'), true);
  token.boost += token.peakHeat * REVIVAL_BOOST;
}

/** Posts without a token, revivals, and labels added or removed over time. */
export function chatter(w: World): void {
  const rng = w.rng;
  if (w.at >= w.nextRevivalAt) {
    revive(w);
    w.nextRevivalAt = w.at + rng.exp(REVIVAL_MEAN_MS);
  }
  if (w.at >= w.nextMusingAt) {
    post(w, w.randomWallet('kol'), null);
    w.nextMusingAt = w.at + rng.exp(240_000);
  }
  if (w.at >= w.nextLabelAt) {
    const u = rng.float();
    if (u < 0.5) label(w, w.randomWallet('retail'), 'smart_money', 'add');
    else if (u < 0.8) label(w, w.randomWallet('bundler'), 'insider', 'add');
    else label(w, w.randomWallet('bot'), 'bot', 'remove');
    w.nextLabelAt = w.at + rng.exp(600_000);
  }
}

/** A set of links for an update: never empty (null would clear the token's socials). */
function socialsOf(w: World, token: TokenState): Record<string, string> {
  const slug = token.symbol.toLowerCase().replaceAll(/[^a-z0-9]/g, '');
  return memeSocials(w.rng, slug, 1) ?? { twitter: `https://x.com/${slug}_sol` };
}

function label(w: World, wallet: number, name: string, action: 'add' | 'remove'): void {
  w.out.push({ type: 'label', wallet_address: w.walletAddress[wallet]!, label: name, action, detail: null, at: w.at });
}

/**
 * One metadata change: authorities revoked (tokens that still have them), DEX profile
 * paid (after graduation), socials added, or a new image. Only the changed fields.
 */
export function updateMetadata(w: World, token: TokenState): void {
  if (token.dead) return;
  if (token.metaSlot === w.slot) {
    w.later(0, { kind: 'metadata', token });
    return;
  }
  token.metaSlot = w.slot;
  const rng = w.rng;
  const base = { type: 'token' as const, token_address: token.mint };
  if (token.authority !== null) {
    token.authority = null;
    w.out.push({ ...base, mint_authority: null, freeze_authority: null, slot: w.slot, at: w.at });
  } else if (token.graduatedAt >= 0 && !token.dexPaid) {
    token.dexPaid = true;
    w.out.push({ ...base, dex_paid: true, socials: socialsOf(w, token), slot: w.slot, at: w.at });
  } else if (rng.chance(0.6)) {
    w.out.push({ ...base, socials: socialsOf(w, token), slot: w.slot, at: w.at });
  } else {
    w.out.push({ ...base, image_url: ipfsImageUrl(rng), slot: w.slot, at: w.at });
  }
}
