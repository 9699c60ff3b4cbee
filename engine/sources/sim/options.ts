/** Options of the market simulator. */
export interface SimOptions {
  /** Seed of the PRNG: the same seed and options give the same stream. */
  seed: number;
  /** Unix ms of the first event. */
  startAt: number;
  /** Token launches per simulated minute (Poisson arrivals). Default 10. */
  launchRate?: number;
  /** Target swaps per simulated second over all pools (Poisson per slot). Default 40. */
  tradeRate?: number;
  /** Level the SOL price walks around, in USD. Default 150. */
  solPriceUsd?: number;
}

/** Defaults of the optional SimOptions. */
export const SIM_DEFAULTS = {
  launchRate: 10,
  tradeRate: 40,
  solPriceUsd: 150,
} as const;

/** Default `startAt` of files: 2026-01-01T00:00:00Z, so a seed fixes the file byte for byte. */
export const SIM_FILE_START_AT = 1_767_225_600_000;

/** Milliseconds per slot: Solana's target of 2.5 slots per second. */
export const SLOT_MS = 400;

export type ResolvedSimOptions = Required<SimOptions>;

export function resolveSimOptions(options: SimOptions): ResolvedSimOptions {
  const resolved: ResolvedSimOptions = {
    seed: options.seed,
    startAt: options.startAt,
    launchRate: options.launchRate ?? SIM_DEFAULTS.launchRate,
    tradeRate: options.tradeRate ?? SIM_DEFAULTS.tradeRate,
    solPriceUsd: options.solPriceUsd ?? SIM_DEFAULTS.solPriceUsd,
  };
  if (!Number.isSafeInteger(resolved.seed)) throw new Error(`sim seed must be an integer, got ${resolved.seed}`);
  if (!Number.isSafeInteger(resolved.startAt) || resolved.startAt < 0) throw new Error(`sim startAt must be Unix ms, got ${resolved.startAt}`);
  for (const key of ['launchRate', 'tradeRate'] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value < 0) throw new Error(`sim ${key} must be a non-negative number, got ${value}`);
  }
  if (!Number.isFinite(resolved.solPriceUsd) || resolved.solPriceUsd <= 0) throw new Error(`sim solPriceUsd must be positive, got ${resolved.solPriceUsd}`);
  return resolved;
}
