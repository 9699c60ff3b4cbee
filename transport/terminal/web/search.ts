import type { Terminal } from './app.ts';
import { fill, h, short, tokenLabel, usd } from './dom.ts';

/**
 * The header's token search (route 1, GET /v1/tokens/search): results as you type
 * (a request per pause of 120 ms, the newest answer wins), Enter opens the first.
 */
export function mountSearch(t: Terminal): void {
  const input = document.getElementById('search') as HTMLInputElement;
  const results = document.getElementById('results')!;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let asked = 0;
  let first: string | null = null;

  const run = async (q: string) => {
    const mine = ++asked;
    try {
      const page = await t.client.http.tokens.search({ q, limit: 8, sort: 'relevance' });
      if (mine !== asked) return;
      first = page.data[0]?.token_address ?? null;
      const items = page.data.map((item) =>
        h('a', { class: 'result', href: `/t/${item.token_address}`, 'data-token': item.token_address },
          h('b', {}, tokenLabel(item)), h('span', { class: 'muted' }, item.name ?? ''), h('span', { class: 'muted' }, short(item.token_address)),
          h('span', { class: 'num' }, usd(item.market_cap_usd)),
          h('span', { class: 'num muted' }, item.bonding_curve_progress_pct === null ? (item.migrated ? 'migrated' : '') : `curve ${item.bonding_curve_progress_pct.toFixed(0)}%`)));
      fill(results, ...(items.length === 0 ? [h('div', { class: 'empty' }, `No token matches "${q}"`)] : items));
      results.hidden = false;
    } catch (error) {
      if (mine === asked) t.fail(error);
    }
  };

  input.addEventListener('input', () => {
    if (timer) clearTimeout(timer);
    const q = input.value.trim();
    if (q === '') {
      results.hidden = true;
      return;
    }
    timer = setTimeout(() => void run(q), 120);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && first) location.assign(`/t/${first}`);
    if (e.key === 'Escape') results.hidden = true;
  });
  document.addEventListener('click', (e) => {
    if (!results.contains(e.target as Node) && e.target !== input) results.hidden = true;
  });
}
