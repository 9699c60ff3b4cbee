/** The entry point of actors/pool/: what other folders may import from it (STYLE.md 3). */
export { candleAt, candleSeries, cutOf, graduationOf, type Graduation } from './candle-series.ts';
export { DistinctCounter, murmur3 } from './distinct.ts';
export { computeHeat } from './heat.ts';
export { AtTrade, countCandleChanges, createPoolBehavior, takeCandleChanges, type CandleTaking } from './pool.actor.ts';
export { memoryTrades, poolTrades } from './pool-trades.ts';
export { curveGain5m, curveGainTo, curveProgress, liquidityQuote, spotPrice, type PoolInfo, type PoolState, type PoolTotals } from './pool.logic.ts';
export { knownMintUsd, poolValue, quoteUsdOf, quoteUsdVia, tokenUsdOf, type UsdReader } from './usd-price.ts';
