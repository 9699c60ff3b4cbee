import { randomAddress } from './base58.ts';
import { Rng } from './rng.ts';

/**
 * Tokenized stocks, named as Backed's xStocks are on Solana: the symbol is the ticker
 * plus a lowercase `x` (`TSLAx`), the name the company plus ` xStock`, and the
 * description starts with `Tokenized stock:`. Their `token` events carry the tag `stock`
 * (DECISIONS.md "Tokenized stocks"), which the stocks feed lists; the naming is kept
 * for `isStockToken`, and holds for real xStocks too. Their mints are the same for every seed (like real mints), 43
 * characters starting `Xs`.
 */
export interface StockDefinition {
  ticker: string;
  company: string;
  /** Reference price in USD at the start. */
  priceUsd: number;
  /** Whole tokens outstanding. */
  supply: number;
  /** USDC on each side of its pool at the start. */
  liquidityUsd: number;
}

export const STOCKS: readonly StockDefinition[] = [
  { ticker: 'AAPL', company: 'Apple', priceUsd: 232, supply: 400_000, liquidityUsd: 1_500_000 },
  { ticker: 'TSLA', company: 'Tesla', priceUsd: 418, supply: 600_000, liquidityUsd: 3_000_000 },
  { ticker: 'NVDA', company: 'NVIDIA', priceUsd: 181, supply: 800_000, liquidityUsd: 2_500_000 },
  { ticker: 'SPY', company: 'SP500', priceUsd: 662, supply: 300_000, liquidityUsd: 4_000_000 },
  { ticker: 'MSTR', company: 'MicroStrategy', priceUsd: 338, supply: 250_000, liquidityUsd: 1_200_000 },
  { ticker: 'COIN', company: 'Coinbase', priceUsd: 321, supply: 200_000, liquidityUsd: 900_000 },
  { ticker: 'GOOGL', company: 'Alphabet', priceUsd: 251, supply: 300_000, liquidityUsd: 1_100_000 },
  { ticker: 'META', company: 'Meta', priceUsd: 724, supply: 150_000, liquidityUsd: 1_000_000 },
];

export const STOCK_DESCRIPTION_PREFIX = 'Tokenized stock:';

export function stockSymbol(stock: StockDefinition): string {
  return `${stock.ticker}x`;
}

export function stockName(stock: StockDefinition): string {
  return `${stock.company} xStock`;
}

export function stockDescription(stock: StockDefinition): string {
  return `${STOCK_DESCRIPTION_PREFIX} ${stock.company} (${stock.ticker}). Each token tracks one share; issued 1:1 against shares held in custody.`;
}

/** Fixed seed: stock mints do not depend on the simulation seed. */
const STOCK_MINT_SEED = 0x78_53_74_6b;

/** Mint of each stock, in STOCKS order. */
export const STOCK_MINTS: readonly string[] = (() => {
  const rng = new Rng(STOCK_MINT_SEED);
  return STOCKS.map(() => randomAddress(rng, '', 'Xs'));
})();

/** The simulator's tokenized-stock mints, for feeds that prefer a set to the naming rule. */
export const SIM_STOCK_MINTS: ReadonlySet<string> = new Set(STOCK_MINTS);

const STOCK_SYMBOL = /^[A-Z][A-Z.]{0,5}x$/;

/**
 * True when a token (a `token` event or the engine's merged metadata) is a tokenized
 * stock: a ticker-plus-x symbol and a name ending in ` xStock`, or a description
 * starting `Tokenized stock:`, or one of the simulator's stock mints.
 */
export function isStockToken(token: {
  token_address?: string | null;
  symbol?: string | null;
  name?: string | null;
  description?: string | null;
}): boolean {
  if (token.token_address != null && SIM_STOCK_MINTS.has(token.token_address)) return true;
  if (typeof token.description === 'string' && token.description.startsWith(STOCK_DESCRIPTION_PREFIX)) return true;
  return typeof token.symbol === 'string' && STOCK_SYMBOL.test(token.symbol) && typeof token.name === 'string' && token.name.endsWith(' xStock');
}
