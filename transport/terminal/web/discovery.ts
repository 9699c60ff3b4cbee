import type { Terminal } from './app.ts';
import { fill, h, pct, sign, tokenLabel, usd } from './dom.ts';

/**
 * `/`: the six ranking feeds (route 16 and the `rankings` stream, SERVICE.md 6.2), window
 * 1h, live. Each feed keeps its rows: a `snapshot` replaces them, `enter`/`exit` and
 * `window` ops change them, a window seq that skips one reloads the feed over HTTP. A
 * feed's table is redrawn at most once per animation frame, whatever arrived in it.
 */

const FEEDS = [
  ['new_pair', 'New pairs'],
  ['almost_bonded', 'Almost bonded'],
  ['migrated', 'Migrated'],
  ['popular', 'Popular'],
  ['top_gainers', 'Top gainers'],
  ['stocks', 'Stocks'],
] as const;
const WINDOW = '1h';
const SHOWN = 15;

interface Entry {
  pool_address: string;
  rank: number;
  score: number;
  token: { token_address: string; symbol: string | null; name: string | null };
  snapshot: { market_cap_usd: number | null; price_usd: number | null };
  windowed: { t: string[]; pp: Array<[number | null, number | null]>; v: Array<[number | null, number | null]> } | null;
}

type Op = { op: 'insert'; pool_address: string; position: number; entry: Entry } | { op: 'remove'; pool_address: string };

export function discoveryPage(t: Terminal): void {
  const grid = h('div', { class: 'feeds' });
  fill(t.main, h('h1', { class: 'page-title' }, 'Discovery'), grid);
  const feeds = FEEDS.map(([feed, title]) => {
    const body = h('tbody');
    const count = h('span', { class: 'muted' });
    const panel = h('section', { class: 'panel feed', 'data-feed': feed },
      h('h2', {}, title, ' ', count),
      h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Token'), h('th', { class: 'num' }, 'MCap'), h('th', { class: 'num' }, '1h'), h('th', { class: 'num' }, 'Vol 1h'))), body));
    grid.append(panel);
    return { feed, body, count, panel, rows: [] as Entry[], seq: 0, dirty: false, live: false };
  });
  t.debug.feeds = () => Object.fromEntries(feeds.map((f) => [f.feed, f.rows.length]));

  let frame = 0;
  const schedule = () => (frame ||= requestAnimationFrame(() => {
    frame = 0;
    for (const f of feeds) if (f.dirty) draw(f);
  }));

  const draw = (f: (typeof feeds)[number]) => {
    f.dirty = false;
    f.panel.setAttribute('data-loaded', '');
    f.count.textContent = `${f.rows.length}`;
    fill(f.body, ...(f.rows.length === 0 ? [h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'nothing in this feed yet'))] : f.rows.slice(0, SHOWN).map((e, i) => row(e, i + 1))));
  };

  /** Route 16's rows: at first (unless the stream's snapshot came before), and after a missed window batch. */
  const reload = async (f: (typeof feeds)[number], first = false) => {
    try {
      const page = await t.client.http.tokens.rankings(f.feed, { window: WINDOW, limit: 50 });
      if (first && f.live) return;
      f.rows = page.data as unknown as Entry[];
      f.dirty = true;
      schedule();
    } catch (error) {
      t.fail(error);
    }
  };

  for (const f of feeds) {
    void reload(f, true);
    const sub = t.socket.rankings(f.feed, WINDOW);
    sub.observable().subscribe({
      next: (data) => {
        const e = data as { event: string; seq?: number; rankings?: Entry[]; pool_address?: string; entry?: Entry | null; ops?: Op[] };
        f.live = true;
        if (e.event === 'snapshot') {
          f.rows = e.rankings ?? [];
          if (typeof e.seq === 'number') f.seq = e.seq;
        } else if (e.event === 'enter' && e.entry) {
          f.rows = f.rows.filter((r) => r.pool_address !== e.pool_address);
          f.rows.splice(Math.max(0, e.entry.rank - 1), 0, e.entry);
        } else if (e.event === 'exit') {
          f.rows = f.rows.filter((r) => r.pool_address !== e.pool_address);
        } else if (e.event === 'window') {
          if (f.seq !== 0 && e.seq !== f.seq + 1) {
            f.seq = e.seq ?? 0;
            void reload(f);
            return;
          }
          f.seq = e.seq ?? f.seq;
          for (const op of e.ops ?? []) {
            f.rows = f.rows.filter((r) => r.pool_address !== op.pool_address);
            if (op.op === 'insert') f.rows.splice(op.position, 0, op.entry);
          }
        }
        f.dirty = true;
        schedule();
      },
      error: () => {
        // The stream is not there for this plan or server: the HTTP rows stay.
      },
    });
  }
}

/** A row; `position` is its place now (an entry's own rank is as of its last recompute). */
function row(e: Entry, position: number): HTMLTableRowElement {
  const i = e.windowed?.t.indexOf(WINDOW) ?? -1;
  const change = i >= 0 ? (e.windowed!.pp[i]?.[1] ?? e.windowed!.pp[i]?.[0] ?? null) : null;
  const volume = i >= 0 ? (e.windowed!.v[i]?.[1] ?? null) : null;
  return h('tr', { 'data-pool': e.pool_address },
    h('td', { class: 'muted' }, position),
    h('td', {}, h('a', { href: `/t/${e.token.token_address}` }, tokenLabel(e.token))),
    h('td', { class: 'num' }, usd(e.snapshot?.market_cap_usd)),
    h('td', { class: `num ${sign(change)}` }, pct(change)),
    h('td', { class: 'num' }, usd(volume)));
}
