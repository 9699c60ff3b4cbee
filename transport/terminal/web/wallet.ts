import { ColorType, createChart, HistogramSeries, type UTCTimestamp } from 'lightweight-charts';
import type { Terminal } from './app.ts';
import { amount, clock, fill, h, pct, price, short, sign, usd } from './dom.ts';
import { table } from './token.ts';

/**
 * `/w/{wallet}`: performance over 1d, 7d, 30d and all time, open positions, a daily
 * realized PnL chart (90 days) and the latest trades (wallet routes 23-26), over HTTP.
 */

const PERFORMANCE_WINDOWS = ['1d', '7d', '30d', 'all'] as const;

export async function walletPage(t: Terminal, wallet: string): Promise<void> {
  document.title = `${short(wallet)} · mds`;
  const perf = h('section', { class: 'panel performance' }, h('h2', {}, 'Performance'));
  const pnlChart = h('div', { class: 'pnl-chart' });
  const pnl = h('section', { class: 'panel pnl' }, h('h2', {}, 'Daily PnL (realized, USD)'), pnlChart);
  const positions = h('section', { class: 'panel positions' }, h('h2', {}, 'Positions'));
  const trades = h('section', { class: 'panel wallet-trades' }, h('h2', {}, 'Trades'));
  fill(t.main, h('div', { class: 'token-head' }, h('h1', {}, 'Wallet ', h('code', {}, wallet))), h('div', { class: 'wallet-grid' }, perf, pnl, positions, trades));
  try {
    const [windows, open, daily, recent] = await Promise.all([
      Promise.all(PERFORMANCE_WINDOWS.map((window) => t.client.http.wallets.performance(wallet, { window }))),
      t.client.http.wallets.positions(wallet, { limit: 50 }),
      t.client.http.wallets.dailyPnl(wallet, { days: 90 }),
      t.client.http.wallets.trades(wallet, { limit: 25 }),
    ]);
    fill(perf, h('h2', {}, 'Performance'),
      table(['Window', 'Realized', 'Unrealized', 'Win rate', 'Trades', 'Volume'], windows.map((p) => [p.window, h('span', { class: sign(p.realized_pnl_usd) }, usd(p.realized_pnl_usd)), h('span', { class: sign(p.unrealized_pnl_usd) }, usd(p.unrealized_pnl_usd)), pct(p.win_rate_pct).replace('+', ''), p.trade_count, usd(p.volume_usd)])));
    fill(positions, h('h2', {}, 'Positions ', h('span', { class: 'muted' }, open.data.length)),
      table(['Token', 'Balance', 'Value', 'Avg cost', 'Unrealized'], open.data.map((p) => [h('a', { href: `/t/${p.token_address}` }, short(p.token_address)), amount(p.balance), usd(p.value_usd), price(p.avg_cost_usd), h('span', { class: sign(p.unrealized_pnl_usd) }, usd(p.unrealized_pnl_usd))])));
    fill(trades, h('h2', {}, 'Trades'),
      table(['Time', 'Side', 'Token', 'USD'], recent.data.map((x) => [clock(x.created_at), h('span', { class: x.type }, x.type), h('a', { href: `/t/${x.token_address}` }, short(x.token_address)), usd(x.amount_usd)])));
    const rows = (daily as unknown as Array<{ date: string; realized_pnl_usd: number }>).slice().sort((a, b) => a.date.localeCompare(b.date));
    const chart = createChart(pnlChart, { autoSize: true, layout: { background: { type: ColorType.Solid, color: '#11161c' }, textColor: '#c9d1d9', attributionLogo: false }, grid: { vertLines: { visible: false }, horzLines: { color: '#1c232b' } } });
    chart.addSeries(HistogramSeries, {}).setData(rows.map((r) => ({ time: (Date.parse(`${r.date}T00:00:00Z`) / 1000) as UTCTimestamp, value: r.realized_pnl_usd, color: r.realized_pnl_usd >= 0 ? '#26a69a' : '#ef5350' })));
    chart.timeScale().fitContent();
    pnlChart.setAttribute('data-days', String(rows.length));
    for (const p of [perf, pnl, positions, trades]) p.setAttribute('data-loaded', '');
  } catch (error) {
    t.fail(error);
  }
}
