/**
 * Small DOM helpers of the web terminal: element building and number formats. Plain
 * DOM, no framework (the pages are a handful of tables and one chart).
 */

type Child = Node | string | number | null | undefined | false;

/** `h('td', { class: 'num' }, '1.2')`: an element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | number | boolean | null | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
  return el;
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren(...children.filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (typeof c === 'object' ? c : String(c))));
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });

/** $1.23K, $4.5M; '-' for null. */
export const usd = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '-' : `$${Math.abs(n) < 1000 ? n.toFixed(Math.abs(n) < 1 ? 4 : 2) : compact.format(n)}`);

/** A price: enough significant digits for a memecoin's 0.00000123. */
export const price = (n: number | null | undefined): string => {
  if (n === null || n === undefined || !Number.isFinite(n)) return '-';
  if (n === 0) return '0';
  const abs = Math.abs(n);
  return abs >= 1 ? n.toFixed(4) : n.toPrecision(4);
};

/** 12.3 %, signed; '-' for null. */
export const pct = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '-' : `${n > 0 ? '+' : ''}${n.toFixed(1)}%`);

/** A plain amount: 1.2K. */
export const amount = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '-' : compact.format(n));

/** Abc1…xYz9. */
export const short = (address: string): string => (address.length > 10 ? `${address.slice(0, 4)}…${address.slice(-4)}` : address);

/** HH:MM:SS of a Unix ms time, UTC. */
export const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 19);

/** The class of a signed number: up, down or flat. */
export const sign = (n: number | null | undefined): string => (n === null || n === undefined || n === 0 ? 'flat' : n > 0 ? 'up' : 'down');

/** A token's label: symbol, else a shortened mint. */
export const tokenLabel = (t: { symbol?: string | null; name?: string | null; token_address: string }): string => t.symbol || t.name || short(t.token_address);
