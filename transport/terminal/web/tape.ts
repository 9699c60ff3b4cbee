import type { Trade } from '../../client/index.ts';
import type { Terminal } from './app.ts';
import { amount, clock, h, price, short, usd } from './dom.ts';

/**
 * The live trades tape of a token (`token_trades`, every pool of the token): the last 50
 * over HTTP, then the stream (the SDK makes up what a reconnect missed, each trade once).
 * Trades are queued as they come and written once per animation frame, merged newest
 * first with the rows shown, and the table is cut to `ROWS_MAX`: a busy pool costs one DOM
 * write a frame, however many trades it brought, and the tab never falls behind.
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

  // The rows shown, newest first, and their elements: a batch may hold trades older than
  // some shown (a reconnect's catch-up over HTTP), so it is merged in order, never just
  // prepended, and what falls past ROWS_MAX goes.
  let shown: Trade[] = [];
  const rows = new Map<string, HTMLElement>();
  const newestFirst = (a: Trade, b: Trade) => b.created_at - a.created_at || b.slot - a.slot || b.tx_index - a.tx_index || b.event_index - a.event_index;

  const flush = () => {
    frame = 0;
    const batch = queue;
    queue = [];
    const next = shown.concat(batch).sort(newestFirst).slice(0, ROWS_MAX);
    const kept = new Set<string>();
    for (const trade of next) kept.add(trade.trade_id);
    for (const trade of shown) if (!kept.has(trade.trade_id)) rows.delete(trade.trade_id);
    for (const trade of batch) if (kept.has(trade.trade_id)) rows.set(trade.trade_id, row(trade));
    // One DOM write a frame: the rows in order (elements of rows already shown are moved, not rebuilt).
    body.replaceChildren(...next.map((trade) => rows.get(trade.trade_id)!));
    shown = next;
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
