import { BASE58_ALPHABET } from './base58.ts';
import type { Rng } from './rng.ts';

/** Names, symbols, descriptions, images and socials of memecoins, and KOL profiles. */

const ADJECTIVES = [
  'Based', 'Tiny', 'Giga', 'Sad', 'Happy', 'Angry', 'Sleepy', 'Rich', 'Broke', 'Magic', 'Cosmic', 'Turbo', 'Baby',
  'Mega', 'Dark', 'Golden', 'Frozen', 'Spicy', 'Lazy', 'Crazy', 'Chill', 'Retro', 'Pixel', 'Wild', 'Lucky', 'Silly',
  'Royal', 'Degen', 'Sigma', 'Super', 'Little', 'Big', 'Holy', 'Fat', 'Pepe', 'Moon', 'Neon', 'Quantum', 'Drunk', 'Smol',
];
const NOUNS = [
  'Frog', 'Cat', 'Dog', 'Hamster', 'Penguin', 'Monkey', 'Goat', 'Whale', 'Duck', 'Otter', 'Capybara', 'Hippo', 'Bear',
  'Bull', 'Shiba', 'Wizard', 'Robot', 'Alien', 'Banana', 'Pizza', 'Rocket', 'Chad', 'Wojak', 'Boss', 'Bonk', 'Seal',
  'Panda', 'Koala', 'Raccoon', 'Beaver', 'Sloth', 'Turtle', 'Dragon', 'Unicorn', 'Ghost', 'Cowboy', 'Ninja', 'Pirate',
  'Toad', 'Gecko', 'Llama', 'Moth', 'Corgi', 'Puffin', 'Snail', 'Yeti', 'Donut', 'Cheems',
];
const TAGLINES = [
  'The most {adj} {noun} on Solana.',
  'Just a {adj} {noun} trying to make it.',
  '{noun}s have feelings too. Community takeover.',
  'No roadmap. No team. Only {noun}.',
  'Born on pump.fun, raised by degens. ${sym} to the moon.',
  'The {noun} that Elon should have tweeted about.',
  '{adj} {noun} is inevitable.',
  'We are all {noun} now.',
  'Fair launch, no presale, 100% community. ${sym}',
  'One {noun} to rule them all.',
];
const SYLLABLES = ['ka', 'zo', 'mi', 'ra', 'tu', 'ne', 'lo', 'vi', 'sa', 'do', 'pu', 'fi', 'xo', 'ge', 'ba', 'ly', 'qu', 'ch'];
const SITES = ['xyz', 'fun', 'io', 'com', 'lol', 'meme'];

export interface MemeMetadata {
  name: string;
  symbol: string;
  description: string;
  image_url: string;
  socials: Record<string, string> | undefined;
}

function fill(template: string, adj: string, noun: string, sym: string): string {
  return template.replaceAll('{adj}', adj).replaceAll('{noun}', noun).replaceAll('{sym}', sym);
}

/** An IPFS CIDv0 URL (`Qm` + 44 base58 digits), as pump.fun stores images. */
export function ipfsImageUrl(rng: Rng): string {
  let cid = 'Qm';
  for (let i = 0; i < 44; i++) cid += BASE58_ALPHABET[rng.int(58)];
  return `https://ipfs.io/ipfs/${cid}`;
}

export function handleOf(rng: Rng, words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) out += rng.pick(SYLLABLES);
  return out;
}

/** Socials of a token: each platform only sometimes (INGEST: only known links). */
export function memeSocials(rng: Rng, slug: string, richness: number): Record<string, string> | undefined {
  const socials: Record<string, string> = {};
  if (rng.chance(0.5 * richness + 0.2)) socials.twitter = `https://x.com/${slug}_${rng.pick(['sol', 'coin', 'cto', 'official'])}`;
  if (rng.chance(0.4 * richness + 0.1)) socials.telegram = `https://t.me/${slug}${rng.pick(['portal', 'sol', 'cto'])}`;
  if (rng.chance(0.3 * richness)) socials.website = `https://${slug}.${rng.pick(SITES)}`;
  return Object.keys(socials).length > 0 ? socials : undefined;
}

/** Metadata of a fresh memecoin; `richness` in 0..1 (better projects fill in more). */
export function memeMetadata(rng: Rng, richness: number): MemeMetadata {
  const adj = rng.pick(ADJECTIVES);
  const noun = rng.pick(NOUNS);
  const style = rng.int(4);
  let name: string;
  let symbol: string;
  if (style === 0) {
    name = `${adj} ${noun}`;
    symbol = (adj.slice(0, 2) + noun).toUpperCase().slice(0, 8);
  } else if (style === 1) {
    name = noun;
    symbol = noun.toUpperCase().slice(0, 6);
  } else if (style === 2) {
    const word = handleOf(rng, 2 + rng.int(2));
    name = word[0]!.toUpperCase() + word.slice(1);
    symbol = word.toUpperCase();
  } else {
    name = `${noun} ${rng.pick(['Coin', 'Inu', 'on Sol', 'AI', 'Classic', '2.0'])}`;
    symbol = `${noun.slice(0, 4)}${rng.int(2) === 0 ? 'AI' : ''}`.toUpperCase();
  }
  const slug = name.toLowerCase().replaceAll(/[^a-z0-9]/g, '');
  return {
    name,
    symbol,
    description: fill(rng.pick(TAGLINES), adj, noun, symbol),
    image_url: ipfsImageUrl(rng),
    socials: memeSocials(rng, slug, richness),
  };
}

export interface KolProfile {
  name: string;
  handle: string;
  platform: 'x' | 'telegram';
  /** Whether posts name the wallet (many KOLs' wallets are public). */
  walletPublic: boolean;
}

export function kolProfile(rng: Rng): KolProfile {
  const first = handleOf(rng, 2);
  const name = first[0]!.toUpperCase() + first.slice(1) + ' ' + rng.pick(['Capital', 'Calls', 'Trades', 'Gems', 'Alpha', '']).trim();
  const handle = `${first}${rng.pick(['', '_sol', 'calls', 'eth', 'x'])}${rng.int(100)}`;
  return { name: name.trim(), handle, platform: rng.chance(0.8) ? 'x' : 'telegram', walletPublic: rng.chance(0.7) };
}

const CALLOUTS = [
  '${sym} chart looks ready. CA: {mint}',
  'aped ${sym}, dev seems based. {mint}',
  '${sym} is the play today 🚀 {mint}',
  'early on ${sym}, not financial advice. {mint}',
  'loading more ${sym} here {mint}',
  'this ${sym} community is cooking 🔥 {mint}',
  '${sym} about to graduate, watch it. {mint}',
];
const MUSINGS = [
  'SOL looking strong today.',
  'most launches die in minutes. size accordingly.',
  'bear markets make the best entries.',
  'gm. who is still trenching?',
  'took profits, back to scanning.',
  'volume is back on pump.fun.',
];

/** The text of a post; a callout names the token's symbol and mint. */
export function postText(rng: Rng, token: { symbol: string; mint: string } | null): string {
  if (!token) return rng.pick(MUSINGS);
  return rng.pick(CALLOUTS).replaceAll('{sym}', token.symbol).replaceAll('{mint}', token.mint);
}
