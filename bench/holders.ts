import { Holders } from '../actors/token/holders.ts';
import { BASE58_ALPHABET } from '../engine/sources/sim/base58.ts';
import { Rng } from '../engine/sources/sim/rng.ts';

/**
 * Question: what does the holder order (actors/token/holder-order.ts) cost a token's
 * balance events once a list read made it, and what does a read cost? Estimate: a
 * balance event is a Map lookup and a few stores (~0.1-0.2 µs); the order adds a B+
 * tree delete and insert, O(log n) comparisons of (balance, wallet), ~1 µs at 100k
 * holders.
 * Shape: one token with `--holders` wallets (default 100,000), then `--events` balance
 * changes (default 200,000) of random wallets, applied to a table without the order
 * (the baseline: every token nobody lists) and to one with it, read every 1,000
 * events so that it is kept, alternated 5 times,
 * median; heap per holding (--expose-gc); a first page of 100 and a page deep in the
 * list; the stats pass after a change.
 * Run: node --expose-gc --import tsx bench/holders.ts [--holders 100000] [--events 200000]
 */

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const HOLDERS = arg('--holders', 100_000);
const EVENTS = arg('--events', 200_000);
const ROUNDS = 5;

const rng = new Rng(22);
const b58 = (n: number) => {
  let s = BASE58_ALPHABET[1 + Math.floor(rng.float() * 57)]!;
  for (let i = 1; i < n; i++) s += BASE58_ALPHABET[Math.floor(rng.float() * 58)];
  return s;
};
const wallets = Array.from({ length: HOLDERS }, () => b58(44));
const balance = () => String(1 + Math.floor(rng.float() * 1e12));
const initial = wallets.map(() => balance());
const events = Array.from({ length: EVENTS }, () => [wallets[Math.floor(rng.float() * HOLDERS)]!, rng.float() < 0.1 ? '0' : balance()] as const);

let slot = 1;
function build(): Holders {
  const h = new Holders();
  for (let i = 0; i < HOLDERS; i++) h.apply(wallets[i]!, initial[i]!, slot++, -1, 1_767_225_600_000 + slot);
  return h;
}

const gc = (globalThis as { gc?: () => void }).gc;
function heap(): number {
  gc?.();
  return process.memoryUsage().heapUsed;
}

const h0 = heap();
const plain = build();
const h1 = heap();
const ordered = build();
const h2 = heap();
const sortStarted = performance.now();
[...wallets].map((wallet, i) => ({ wallet, balance: Number(initial[i]) })).sort((a, b) => b.balance - a.balance || (a.wallet < b.wallet ? -1 : 1));
const sortMs = performance.now() - sortStarted;
const buildStarted = performance.now();
ordered.ordered();
const buildMs = performance.now() - buildStarted;
const h3 = heap();

/** The events on `h`; with `read`, the order read every 1,000 events (a token being listed: its order is kept). */
function run(h: Holders, read: boolean): number {
  const started = performance.now();
  let i = 0;
  for (const [w, b] of events) {
    h.apply(w, b, slot++, -1, 1_767_225_600_000 + slot);
    if (read && ++i % 1_000 === 0) h.ordered();
  }
  return ((performance.now() - started) * 1_000) / EVENTS;
}
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const without: number[] = [];
const withOrder: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  without.push(run(plain, false));
  withOrder.push(run(ordered, true));
}

function time(fn: () => void, repeats: number): number {
  const started = performance.now();
  for (let i = 0; i < repeats; i++) fn();
  return ((performance.now() - started) * 1_000) / repeats;
}
const order = ordered.ordered();
const take = (it: Iterable<unknown>, n: number) => {
  let k = 0;
  for (const _ of it) if (++k === n) break;
};
const deep = [...order.after(undefined)][Math.floor(order.size / 2)]!;
const firstPage = time(() => take(order.after(undefined), 100), 2_000);
const deepPage = time(() => take(order.after({ balance: deep.balance, wallet: deep.wallet }), 100), 2_000);
const ctx = { creator: null, launchSlot: null, exclude: ['1nc1nerator11111111111111111111111111111111'], sniperSlots: 3 };
const statsPass = time(() => {
  ordered.apply(wallets[0]!, balance(), slot++, -1);
  ordered.stats(ctx);
}, 20);

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`;
console.log(`holders ${HOLDERS.toLocaleString()}, events ${EVENTS.toLocaleString()}, median of ${ROUNDS} alternated rounds`);
console.log(`heap: table ${mb(h1 - h0)} (${Math.round((h1 - h0) / HOLDERS)} B a holding; the order adds ${mb(h3 - h2)}, ${Math.round((h3 - h2) / HOLDERS)} B a holding)${gc ? '' : ' (no --expose-gc: rough)'}`);
console.log(`balance event: ${median(without).toFixed(3)} µs without the order, ${median(withOrder).toFixed(3)} µs with it (${(median(withOrder) / median(without)).toFixed(2)}x)`);
console.log(`the order made on a first read: ${buildMs.toFixed(1)} ms (a plain sort of the same holdings: ${sortMs.toFixed(1)} ms)`);
console.log(`read: first page of 100 ${firstPage.toFixed(1)} µs, a page of 100 from the middle ${deepPage.toFixed(1)} µs; stats pass after a change ${(statsPass / 1_000).toFixed(2)} ms`);
console.log(`result hash ${ordered.holdingCount}:${plain.holdingCount}:${ordered.changeCount}`);
