/** Mints the engine knows by address: the quote assets every launchpad pool trades against. */

export const WSOL = 'So11111111111111111111111111111111111111112';
export const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
/** Mints the engine knows without a `token` event, with their decimals. */
export const KNOWN_MINTS: Readonly<Record<string, number>> = { [WSOL]: 9, [USDC]: 6, [USDT]: 6 };
/** Stablecoins worth 1 USD until a `quote_price` event for them says otherwise (DECISIONS.md). */
export const STABLE_MINTS: Readonly<Record<string, true>> = { [USDC]: true, [USDT]: true };
/**
 * Solana's incinerator: tokens sent here are burned for good. Not a holder
 * (DECISIONS.md, "Holders"), like a token's own pool accounts.
 */
export const BURN_ADDRESS = '1nc1nerator11111111111111111111111111111111';
