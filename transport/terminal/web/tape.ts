import type { Trade } from '../../client/index.ts';
import type { Terminal } from './app.ts';
import { amount, clock, h, price, short, usd } from './dom.ts';

/**
 * The live trades tape of a token (`token_trades`, every pool of the token): the last 50
 * over HTTP, then the stream (the SDK makes up what a reconnect missed, each trade once).
 * Trades are queued as they come and written once per animation frame, newest first, in
 * one fragment, and the table is cut to `ROWS_MAX`: a busy pool costs one DOM write a
 * frame, however many trades it brought, and the tab never falls behind.
 */

const ROWS_MAX = 100;

export function mountTape(t: Terminal, token: string): HTMLElement {
  const body = h('tbody');
  const element = h('section', { class: 'panel tape' },
    h('h2', {}, 'Trades'),
    h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Time'), h('th', {}, 'Side'), h('th', { class: 'num' }, 'USD'), h('th', { class: 'num' }, 'Tokens'), h('th', { class: 'num' }, 'Price'), h('th', {}, 'Wallet'))), body)));
  const seen = new Set<string>();
  let queue: Trade[] = [];
  let frame = 0;
  let count = 0;
  t.debug.tapeIds = () => [...body.querySelectorAll('tr')].map((r) => r.getAttribute('data-trade-id'));

  const flush = () => {
    frame = 0;
    const batch = queue;
    queue = [];
    batch.sort((a, b) => b.created_at - a.created_at || b.slot - a.slot || b.tx_index - a.tx_index || b.event_index - a.event_index);
    const fragment = document.createDocumentFragment();
    for (const trade of batch) fragment.append(row(trade));
    body.prepend(fragment);
    while (body.childElementCount > ROWS_MAX) body.lastElementChild!.remove();
    count += batch.length;
    element.setAttribute('data-trades', String(count));
  };

  const push = (trade: Trade) => {
    if (seen.has(trade.trade_id)) return;
    seen.add(trade.trade_id);
    if (seen.size > 10 * ROWS_MAX) seen.delete(seen.values().next().value!);
    queue.push(trade);
    frame ||= requestAnimationFrame(flush);
  };

  const live = t.socket.tokenTrades(token);
  const early: Trade[] = [];
  let loaded = false;
  live.observable().subscribe({ next: (trade) => (loaded ? push(trade) : early.push(trade)), error: () => {} });
  t.client.http.tokens.trades(token, { limit: 50 }).then(
    (page) => {
      for (const trade of [...page.data].reverse()) push(trade);
      loaded = true;
      for (const trade of early.splice(0)) push(trade);
      element.setAttribute('data-loaded', '');
    },
    (error: unknown) => t.fail(error),
  );
  return element;
}

function row(trade: Trade): HTMLTableRowElement {
  return h('tr', { 'data-trade-id': trade.trade_id, class: trade.type },
    h('td', { class: 'muted' }, clock(trade.created_at)),
    h('td', {}, trade.type),
    h('td', { class: 'num' }, usd(trade.amount_usd)),
    h('td', { class: 'num' }, amount(trade.token_amount)),
    h('td', { class: 'num' }, price(trade.price_usd ?? trade.price_quote)),
    h('td', {}, h('a', { href: `/w/${trade.wallet_address}` }, short(trade.wallet_address)), trade.labels.length ? h('span', { class: 'tag' }, trade.labels.join(',')) : null));
}
