/** The entry point of actors/wallet/: what other folders may import from it (STYLE.md 3). */
export { LB_FIELDS, LEADERBOARD_KEY, LEADERBOARD_WINDOWS, leaderboardBehavior, leaderboardStale, refreshLeaderboard, finishRefresh, beginRefresh, stepRefresh, LEADERBOARD_STEP_POSITIONS, tokenTradersBehavior, type LeaderboardState, type LeaderboardWindow, type TokenTradersState } from './rankings.ts';
export { createWalletBehavior, walletBehavior } from './wallet.actor.ts';
export { DAY_MS, LV, avgCost, levelQuote, dailyRows, isOpen, rawOf, winRatePct, windowTotals, type Position, type WalletState } from './wallet.logic.ts';
