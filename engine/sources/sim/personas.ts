import type { Rng } from './rng.ts';

/**
 * Who trades. Every wallet has one persona for life; its label (if any) is published as
 * a `label` event at the start. `dev` wallets are token creators: fresh ones per launch,
 * plus a few serial devs who launch again and again (labelled `dev`).
 */
export type Persona = 'retail' | 'whale' | 'bot' | 'sniper' | 'bundler' | 'dev' | 'kol' | 'smart_money';

export const PERSONAS: readonly Persona[] = ['retail', 'whale', 'bot', 'sniper', 'bundler', 'dev', 'kol', 'smart_money'];

/** Wallets created at the start, per persona (fresh devs are added at each launch). */
export const PERSONA_WALLETS: Readonly<Record<Persona, number>> = {
  retail: 4000,
  whale: 50,
  bot: 40,
  sniper: 30,
  bundler: 40,
  dev: 60,
  kol: 24,
  smart_money: 60,
};

/** The `label` each persona's wallets get (retail and fresh devs get none). */
export const PERSONA_LABEL: Readonly<Partial<Record<Persona, string>>> = {
  whale: 'whale',
  bot: 'bot',
  sniper: 'sniper',
  bundler: 'bundler',
  dev: 'dev',
  kol: 'kol',
  smart_money: 'smart_money',
};

/**
 * Relative weights of who makes a random buy. `good`: a curve token bound to
 * graduate, before it does (smart money and KOLs are early: better timing); `bad`: a
 * token bound to die (they stay away); `neutral`: everything else.
 */
const BUYER_WEIGHTS: Record<'neutral' | 'good' | 'bad', Partial<Record<Persona, number>>> = {
  neutral: { retail: 56, bot: 28, whale: 1.2, smart_money: 4, kol: 1.5, sniper: 3, bundler: 1 },
  good: { retail: 50, bot: 22, whale: 5, smart_money: 16, kol: 4, sniper: 3, bundler: 1 },
  bad: { retail: 58, bot: 34, whale: 1, smart_money: 0.8, kol: 0.4, sniper: 4, bundler: 2 },
};

export type BuyerMood = keyof typeof BUYER_WEIGHTS;

interface WeightTable {
  personas: Persona[];
  cumulative: number[];
}

function table(weights: Partial<Record<Persona, number>>): WeightTable {
  const personas: Persona[] = [];
  const cumulative: number[] = [];
  let sum = 0;
  for (const persona of PERSONAS) {
    const w = weights[persona];
    if (!w) continue;
    sum += w;
    personas.push(persona);
    cumulative.push(sum);
  }
  return { personas, cumulative: cumulative.map((c) => c / sum) };
}

const TABLES: Record<BuyerMood, WeightTable> = {
  neutral: table(BUYER_WEIGHTS.neutral),
  good: table(BUYER_WEIGHTS.good),
  bad: table(BUYER_WEIGHTS.bad),
};

export function pickBuyerPersona(rng: Rng, mood: BuyerMood): Persona {
  const t = TABLES[mood];
  const u = rng.float();
  const c = t.cumulative;
  for (let i = 0; i < c.length; i++) if (u < c[i]!) return t.personas[i]!;
  return t.personas[t.personas.length - 1]!;
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** Gross size of a buy in SOL: bots small and often, whales large and rare. */
export function buySizeSol(rng: Rng, persona: Persona): number {
  switch (persona) {
    case 'retail':
      return clamp(rng.lognormal(0.25, 1.0), 0.01, 25);
    case 'bot':
      return rng.range(0.01, 0.12);
    case 'whale':
      return clamp(rng.lognormal(12, 0.7), 3, 150);
    case 'sniper':
      return clamp(rng.lognormal(1.2, 0.6), 0.3, 8);
    case 'bundler':
      return clamp(rng.lognormal(1, 0.5), 0.3, 4);
    case 'dev':
      return clamp(rng.lognormal(1, 0.9), 0.05, 10);
    case 'kol':
      return clamp(rng.lognormal(3, 0.6), 0.5, 25);
    case 'smart_money':
      return clamp(rng.lognormal(2, 0.6), 0.3, 20);
  }
}

/** Share of its holding a wallet sells when it decides to sell. */
export function sellFraction(rng: Rng, persona: Persona): number {
  switch (persona) {
    case 'bot':
    case 'sniper':
    case 'bundler':
      return 1;
    case 'retail':
      return rng.chance(0.35) ? 1 : rng.range(0.2, 0.9);
    case 'whale':
      return rng.chance(0.2) ? 1 : rng.range(0.2, 0.7);
    case 'dev':
      return rng.chance(0.6) ? 1 : rng.range(0.3, 0.9);
    case 'kol':
    case 'smart_money':
      return rng.chance(0.5) ? 1 : rng.range(0.4, 0.8);
  }
}
