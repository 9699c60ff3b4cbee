import { describe, expect, it } from 'vitest';
import { simulate } from '../../engine/sources/sim/index.ts';

/**
 * The simulator's `balance` events against its swaps (issue 23: wallet accounting read
 * simulated bots holding ~35x what their swaps explained, entered at ~0 price). A
 * wallet's balance changes by its swaps' net amounts (base bought minus sold; for a
 * token that quotes a pool, quote received minus paid) or by a real transfer: tokens
 * another wallet sent in the same slot, or tokens leaving to no wallet (liquidity
 * deposits). The one balance no swap or sender explains is a token's mint, on its
 * creator's (`creator_address`) first balance. And a transfer in comes after a trade
 * in the token's pools, so that wallet accounting has a USD price to enter it at
 * (DECISIONS.md "Wallet accounting").
 */
const START = 1_767_225_600_000;
const MINUTES = 8;
const SEED = Number(process.env.SEED ?? 7);

interface Change {
  wallet: string;
  delta: bigint;
  first: boolean;
  /** A swap of the token came before it in the stream: the engine had a price when it applied. */
  priced: boolean;
}

describe('simulated balances', () => {
  it(`over ${MINUTES} simulated minutes every balance is its swaps' net plus tokens other wallets sent, but a creator's mint`, () => {
    const pools = new Map<string, { base: string; quote: string }>();
    const creator = new Map<string, string>();
    const balance = new Map<string, bigint>();
    /** Swap net per wallet|token since its last balance event. */
    const pending = new Map<string, bigint>();
    /** Balance changes no swap explains, by token|slot. */
    const unexplained = new Map<string, Change[]>();
    /** Tokens a swap has traded so far (as base). */
    const traded = new Set<string>();
    const end = START + MINUTES * 60_000;
    let swaps = 0;
    for (const e of simulate({ seed: SEED, startAt: START, tradeRate: 20 })) {
      if ((e.type === 'pool' ? e.created_at : e.at) >= end) break;
      if (e.type === 'token' && e.creator_address) creator.set(e.token_address, e.creator_address);
      else if (e.type === 'pool') pools.set(e.pool_address, { base: e.base_address, quote: e.quote_address });
      else if (e.type === 'swap') {
        swaps++;
        const pool = pools.get(e.pool_address)!;
        const sign = e.side === 'buy' ? 1n : -1n;
        const base = `${e.wallet_address}|${pool.base}`;
        const quote = `${e.wallet_address}|${pool.quote}`;
        pending.set(base, (pending.get(base) ?? 0n) + sign * BigInt(e.base_amount_raw));
        pending.set(quote, (pending.get(quote) ?? 0n) - sign * BigInt(e.quote_amount_raw));
        traded.add(pool.base);
      } else if (e.type === 'balance') {
        const key = `${e.wallet_address}|${e.token_address}`;
        const now = BigInt(e.balance_raw);
        const delta = now - (balance.get(key) ?? 0n) - (pending.get(key) ?? 0n);
        const first = !balance.has(key);
        balance.set(key, now);
        pending.set(key, 0n);
        if (delta === 0n) continue;
        const at = `${e.token_address}|${e.slot}`;
        const list = unexplained.get(at) ?? [];
        list.push({ wallet: e.wallet_address, delta, first, priced: traded.has(e.token_address) });
        unexplained.set(at, list);
      }
    }
    expect(swaps).toBeGreaterThan(1_000);
    const bad: string[] = [];
    let transfers = 0;
    let mints = 0;
    for (const [at, changes] of unexplained) {
      const [token, slotText] = at.split('|') as [string, string];
      const slot = Number(slotText);
      let received = 0n;
      let sent = 0n;
      for (const c of changes) {
        if (c.delta < 0n) sent -= c.delta;
        else if (c.first && c.wallet === creator.get(token)) mints++;
        else {
          received += c.delta;
          transfers++;
          if (!c.priced) bad.push(`${token} slot ${slot}: ${c.wallet} received ${c.delta} before any trade of the token (no price to enter it at)`);
        }
      }
      if (received > sent) bad.push(`${token} slot ${slot}: wallets received ${received} that no swap or sender explains (sent ${sent})`);
    }
    expect(bad.slice(0, 5), `${bad.length} unexplained balances`).toEqual([]);
    // The market has both: the mints of the seeded tokens and transfers between wallets.
    expect(mints).toBeGreaterThanOrEqual(12);
    expect(transfers).toBeGreaterThan(100);
  });
});
