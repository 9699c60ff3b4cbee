/**
 * Every topic name, one per stream and key; nothing else spells one (STYLE.md 2):
 * - `token_metadata`                                  every token metadata change
 * - `pool_trades:<pool_address>`                      trades of one pool
 * - `token_trades:<token_address>`                    trades of one token, in every pool
 * - `pool_metrics:<pool_address>`                     metrics of one pool
 * - `candles:<pool>:<interval>:<mode>:<currency>`     one candle series
 * - `rankings:<feed>:<window>`                        one ranking feed of one window
 * - `chart_lines:<pool>:<token>:<top>:<wallets>:<wallet>` one chart_lines subscription, normalized (chart-lines.ts)
 * - `social_posts`, `social_posts:<token|*>:<author|*>` posts (every one, or by token and/or author)
 * - `wallet_activity`, `wallet_activity:<wallet|*>:<label|*>` labeled trades, or a wallet's trades
 * - `markers:<token_address>`                         the marks and labeled trades of one token
 * - `token_signals:<token|*>:<kind|*>`                token signals of one token and/or kind, or all
 * - `wallet_signals:<wallet|*>:<token|*>:<min_wallets>` wallet signals naming one wallet and/or of one token, with at least min_wallets wallets
 *
 * The WebSocket transport maps a subscription to these names (transport/ws/protocol.ts),
 * the streams publish on them.
 */
export const topics = {
  tokenMetadata: () => 'token_metadata',
  poolTrades: (pool: string) => `pool_trades:${pool}`,
  tokenTrades: (token: string) => `token_trades:${token}`,
  poolMetrics: (pool: string) => `pool_metrics:${pool}`,
  candles: (pool: string, interval: string, mode: string, currency: string) => `candles:${pool}:${interval}:${mode}:${currency}`,
  rankings: (feed: string, window: string) => `rankings:${feed}:${window}`,
  chartLines: (pool: string, token: string, top: number, wallets: string, wallet: string) => `chart_lines:${pool}:${token}:${top}:${wallets}:${wallet}`,
  /** social_posts with a token and/or an author (`*`: any); both absent: every post. */
  socialPosts: (token?: string, author?: string) => (token === undefined && author === undefined ? 'social_posts' : `social_posts:${token ?? '*'}:${author ?? '*'}`),
  /** wallet_activity of one wallet and/or label (`*`: any); both absent: every labeled trade. */
  walletActivity: (wallet?: string, label?: string) => (wallet === undefined && label === undefined ? 'wallet_activity' : `wallet_activity:${wallet ?? '*'}:${label ?? '*'}`),
  markers: (token: string) => `markers:${token}`,
  tokenSignals: (token: string | null, kind: string | null) => `token_signals:${token ?? '*'}:${kind ?? '*'}`,
  walletSignals: (wallet: string | null, token: string | null, minWallets: number) => `wallet_signals:${wallet ?? '*'}:${token ?? '*'}:${minWallets}`,
} as const;
