import type { Terminal } from './app.ts';
import { mountChart } from './chart.ts';
import { amount, fill, h, pct, price, short, sign, tokenLabel, usd } from './dom.ts';
import { mountTape } from './tape.ts';

/**
 * `/t/{token}`: the token and its main pool (GET /v1/tokens/{token}), the chart, the
 * trades tape, the pool's metrics and heat live over `pool_metrics` (redrawn at most
 * once per animation frame), holders and top traders (HTTP, read again every 15 s).
 */

const WINDOWS = ['5m', '1h', '6h', '24h'];
const REFRESH_MS = 15_000;

interface Metrics {
  snapshot: { price_usd: number | null; price_quote: number; market_cap_usd: number | null; liquidity_usd: number | null; bonding_curve_progress_pct: number };
  totals: { holder_count?: number | null; trade_count: number; volume_usd?: number | null; top10_pct?: number | null };
  windowed: { t: string[]; pp: Array<[number | null, number | null]>; v: Array<[number | null, number | null]>; tc: number[]; bc: number[]; sc: number[]; m: number[] };
  heat: { absolute: number; momentum: number; direction: string; drivers: string[]; confidence: number } | null;
}

export async function tokenPage(t: Terminal, token: string): Promise<void> {
  const title = h('div', { class: 'token-head' }, h('h1', {}, short(token)));
  fill(t.main, title);
  let overview;
  try {
    overview = await t.client.http.tokens.get(token);
  } catch (error) {
    return t.fail(error);
  }
  const pool = overview.pool?.pool_address ?? null;
  document.title = `${tokenLabel(overview.token)} · mds`;
  const headline = h('div', { class: 'headline' });
  fill(title, h('h1', {}, tokenLabel(overview.token), ' ', h('span', { class: 'muted' }, overview.token.name ?? '')), h('code', { class: 'muted' }, token), headline);
  if (pool === null) {
    t.main.append(h('section', { class: 'notice' }, 'This token has no pool yet.'));
    return;
  }
  const metrics = h('section', { class: 'panel metrics' }, h('h2', {}, 'Pool'));
  const holders = h('section', { class: 'panel holders' }, h('h2', {}, 'Holders'));
  const traders = h('section', { class: 'panel traders' }, h('h2', {}, 'Top traders'));
  const chart = mountChart(t, pool, token);
  t.main.append(h('div', { class: 'token-grid' }, chart.element, metrics, mountTape(t, token), h('div', { class: 'side' }, holders, traders)));

  let latest: Metrics | null = null;
  let frame = 0;
  const draw = () => {
    frame = 0;
    if (latest) drawMetrics(metrics, headline, latest);
  };
  const show = (m: Metrics) => {
    latest = m;
    frame ||= requestAnimationFrame(draw);
  };
  t.socket.poolMetrics([pool]).observable().subscribe({ next: (m) => show(m as unknown as Metrics), error: () => {} });
  t.client.http.pools.get(pool).then((o) => show(o as unknown as Metrics), (error: unknown) => t.fail(error));

  const refresh = async () => {
    try {
      const [list, stats, top] = await Promise.all([
        t.client.http.tokens.holders(token, { limit: 20 }),
        t.client.http.tokens.holderStats(token),
        t.client.http.tokens.traders(token, { limit: 20 }),
      ]);
      fill(holders, h('h2', {}, 'Holders ', h('span', { class: 'muted' }, stats.holder_count ?? '-'), ' ', h('span', { class: 'muted' }, `top 10 ${pct(stats.top10_pct).replace('+', '')}`)),
        table(['Wallet', 'Share', 'Value'], list.data.map((x) => [h('a', { href: `/w/${x.wallet_address}` }, short(x.wallet_address)), pct(x.supply_pct).replace('+', ''), usd(x.value_usd)])));
      fill(traders, h('h2', {}, 'Top traders'),
        table(['Wallet', 'Buys', 'Sells', 'PnL'], top.data.map((x) => [h('a', { href: `/w/${x.wallet_address}` }, short(x.wallet_address)), x.buy_count, x.sell_count, h('span', { class: sign(x.pnl_usd) }, usd(x.pnl_usd))])));
      holders.setAttribute('data-loaded', '');
      traders.setAttribute('data-loaded', '');
    } catch (error) {
      t.fail(error);
    }
  };
  void refresh();
  setInterval(() => void (document.hidden || refresh()), REFRESH_MS);
}

function drawMetrics(panel: HTMLElement, headline: HTMLElement, m: Metrics): void {
  const s = m.snapshot;
  fill(headline,
    h('span', { class: 'big' }, price(s.price_usd ?? s.price_quote)),
    h('span', {}, 'MCap ', h('b', {}, usd(s.market_cap_usd))),
    h('span', {}, 'Liq ', h('b', {}, usd(s.liquidity_usd))),
    s.bonding_curve_progress_pct > 0 ? h('span', {}, 'Curve ', h('b', {}, `${s.bonding_curve_progress_pct.toFixed(1)}%`)) : null);
  const w = m.windowed;
  const rows = WINDOWS.map((name) => {
    const i = w.t.indexOf(name);
    if (i < 0) return [name, '-', '-', '-', '-'];
    const change = w.pp[i]?.[1] ?? w.pp[i]?.[0] ?? null;
    return [name, h('span', { class: sign(change) }, pct(change)), usd(w.v[i]?.[1] ?? null), `${w.bc[i]}/${w.sc[i]}`, amount(w.m[i])];
  });
  const heat = m.heat;
  fill(panel, h('h2', {}, 'Pool'),
    table(['Window', 'Change', 'Volume', 'Buys/Sells', 'Traders'], rows),
    heat
      ? h('div', { class: 'heat', 'data-heat': heat.absolute },
          h('div', {}, 'Heat ', h('b', {}, heat.absolute), ' momentum ', h('b', {}, heat.momentum), ' ', h('span', { class: heat.direction === 'up' ? 'up' : 'down' }, heat.direction === 'up' ? '▲' : '▼'), ' ', h('span', { class: 'muted' }, heat.drivers.join(', '))),
          h('div', { class: 'bar' }, h('i', { style: `width:${Math.max(0, Math.min(100, heat.absolute))}%` })))
      : h('div', { class: 'muted' }, 'No heat yet'),
    h('div', { class: 'muted' }, `${m.totals.trade_count} trades all time, ${m.totals.holder_count ?? '-'} holders`));
  panel.setAttribute('data-loaded', '');
}

export function table(head: string[], rows: Array<Array<Node | string | number>>): HTMLTableElement {
  return h('table', {}, h('thead', {}, h('tr', {}, ...head.map((x, i) => h('th', { class: i > 0 ? 'num' : null }, x)))),
    h('tbody', {}, ...(rows.length === 0 ? [h('tr', {}, h('td', { colspan: head.length, class: 'muted' }, 'none yet'))] : rows.map((r) => h('tr', {}, ...r.map((c, i) => h('td', { class: i > 0 ? 'num' : null }, c)))))));
}
