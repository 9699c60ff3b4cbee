import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { ACTOR_BYTES_DEFAULT } from '../../../engine/bounds.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../../engine/supervisor/index.ts';
import { combineBehaviors } from '../../../engine/supervisor/index.ts';

/**
 * combineBehaviors (engine/supervisor/combine.ts): two kinds keyed alike as one actor of
 * the first's kind, the second's state held in the first's. Two toy kinds over the same
 * trades: a counter per token (also taking balances) and a sum per token (also taking
 * graduations), so each type reaches the kinds that take it and no other.
 */

interface Counter {
  token: string;
  trades: number;
  balances: number;
  part?: unknown;
}
interface Sum {
  token: string;
  usd: number;
  graduated: boolean;
}

const trade = (token: string, usd: number) => ({ type: 'pool.trade', pool_address: 'P', base_address: token, quote_address: 'Q', trade: [usd] }) as unknown as ActorEvent;
const balance = (token: string) => ({ type: 'balance', token_address: token, wallet_address: 'W' }) as unknown as ActorEvent;
const graduated = (token: string) => ({ type: 'pool.graduated', pool_address: 'P', token_address: token, migrated_to_pool_address: null, at: 1 }) as unknown as ActorEvent;

const counter: ActorBehavior<Counter> = {
  kind: 'counter',
  takes: ['pool.trade', 'balance'],
  route: (e) => (e.type === 'pool.trade' ? (e as { base_address: string }).base_address : e.type === 'balance' ? (e as { token_address: string }).token_address : undefined),
  initial: (token) => ({ token, trades: 0, balances: 0 }),
  apply(s, e) {
    if (e.type === 'pool.trade') s.trades++;
    else s.balances++;
  },
  sizeOf: (s) => 100 + s.trades,
  toSnapshot: (s) => ({ token: s.token, trades: s.trades, balances: s.balances }),
  fromSnapshot: (d) => ({ ...(d as Counter) }),
};

const emitted: unknown[] = [];
const sum: ActorBehavior<Sum> = {
  kind: 'sum',
  takes: ['pool.trade', 'pool.graduated'],
  emits: ['signal'],
  route: (e) => (e.type === 'pool.trade' ? (e as { base_address: string }).base_address : e.type === 'pool.graduated' ? (e as { token_address: string }).token_address : undefined),
  initial: (token) => ({ token, usd: 0, graduated: false }),
  apply(s, e, ctx) {
    if (e.type === 'pool.trade') s.usd += (e as unknown as { trade: number[] }).trade[0]!;
    else s.graduated = true;
    if (s.usd > 100) ctx.emit({ type: 'signal', signal: { token: s.token } } as never);
  },
};

const part = { get: (s: Counter) => s.part as Sum, set: (s: Counter, p: Sum) => void (s.part = p), keyOf: (s: Counter) => s.token };
const ctx = { emit: (e: unknown) => emitted.push(e), seq: 1 } as unknown as ActorContext;

describe('combineBehaviors', () => {
  it('is one kind taking both kinds\' events, each applied to the kind that takes it, routed alike', () => {
    const both = combineBehaviors(counter, sum, part);
    expect(both.kind).toBe('counter');
    expect([...both.takes].sort()).toEqual(['balance', 'pool.graduated', 'pool.trade']);
    expect(both.emits).toEqual(['signal']);
    for (const e of [trade('T', 1), balance('T'), graduated('T')]) expect(both.route(e)).toBe('T');
    const s = both.initial('T');
    for (const e of [trade('T', 60), balance('T'), trade('T', 50), graduated('T')]) both.apply(s, e, ctx);
    expect({ trades: s.trades, balances: s.balances }).toEqual({ trades: 2, balances: 1 });
    expect(part.get(s)).toEqual({ token: 'T', usd: 110, graduated: true });
    // The second kind emits as it did alone.
    expect(emitted.length).toBe(2);
    expect(both.sizeOf!(s)).toBe(102 + ACTOR_BYTES_DEFAULT);
  });

  it('snapshots both parts, and reads a snapshot the first kind wrote alone (the second starts anew)', () => {
    const both = combineBehaviors(counter, sum, part);
    const s = both.initial('T');
    for (const e of [trade('T', 5), trade('T', 7), graduated('T')]) both.apply(s, e, ctx);
    const back = both.fromSnapshot!(unpack(pack(both.toSnapshot!(s))));
    expect({ trades: back.trades, balances: back.balances }).toEqual({ trades: 2, balances: 0 });
    expect(part.get(back)).toEqual({ token: 'T', usd: 12, graduated: true });
    const alone = counter.toSnapshot!({ token: 'U', trades: 3, balances: 1 });
    const old = both.fromSnapshot!(unpack(pack(alone)));
    expect({ token: old.token, trades: old.trades, balances: old.balances }).toEqual({ token: 'U', trades: 3, balances: 1 });
    expect(part.get(old)).toEqual({ token: 'U', usd: 0, graduated: false });
  });

  it('refuses kinds with a lifecycle machine', () => {
    expect(() => combineBehaviors({ ...counter, machine: {} as never }, sum, part)).toThrow(/lifecycle machine/);
  });
});
