import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import type { IngestEvent } from '../../engine/ingest/events.ts';
import type { ActorBehavior, ActorContext, ActorEvent } from '../../engine/supervisor/behavior.ts';
import { DERIVED_TYPES } from '../../engine/model/index.ts';
import type { Engine } from '../../engine/system.ts';
import { useTempEngine } from '../helpers/engine-server.ts';
import { sampleEvents, swapStream } from '../helpers/fixtures.ts';
import { swapCounter } from '../helpers/swap-counter.ts';

/**
 * Contract: an actor behaviour (engine/supervisor/behavior.ts ActorBehavior), run
 * against every one the engine runs: the built-in quote-price, wallet-labels, token,
 * pool, feed, wallet, token-traders (with the token signals in it), wallet-leaderboard and token-signals (on its own, with wallet accounting off) (as the engine wires them: its
 * own hosts' behaviours), and the tests' swap counter. Events are the ingest events and
 * the derived events the engine's actors emit for them (captured through the router),
 * so the kinds that take derived events are held to the same contract.
 *
 * - `route` gives one or more keys (non-empty strings, no repeats) for every event of a
 *   type the kind takes, nothing for the others, and the same answer twice.
 * - A snapshot round trip (toSnapshot, msgpack as the host stores it, fromSnapshot) gives
 *   an equal state (the same stored form; without fromSnapshot, the same object in
 *   memory), and that state applies the next event exactly as the original does: the
 *   same lifecycle event returned, the same rejections, the same state after.
 * - `apply` is deterministic: the same events, batched differently, leave every actor
 *   of the kind with the same state.
 */

const temp = useTempEngine('mds-contract-');

/** The event types each kind takes: its `takes`, the router's table (engine/supervisor/router.ts). */
const takesOf = (b: ActorBehavior<any>): readonly string[] => b.takes;
const EVENT_TYPES = ['token', 'pool', 'swap', 'migration', 'balance', 'quote_price', 'label', 'social_post', ...DERIVED_TYPES];

/** The derived events (engine/model/derived.ts) the engine's actors emit while it applies `events`, in delivery order. */
async function derivedWhile(engine: Engine, apply: () => Promise<void>): Promise<ActorEvent[]> {
  const derived: ActorEvent[] = [];
  const stops = DERIVED_TYPES.map((type) => engine.router.subscribe(type, (e) => void derived.push(e)));
  try {
    await apply();
  } finally {
    for (const stop of stops) stop();
  }
  return derived;
}

/** Events of every type: what the engine applies first, then the next ones (applied by hand in the round-trip test). */
function corpus(): { head: IngestEvent[]; next: IngestEvent[] } {
  const sample = sampleEvents();
  const stream = [...swapStream(500, 6, 3, true)] as unknown as IngestEvent[];
  const cut = stream.length - 60;
  const at = (stream.at(-1) as { at: number }).at + 1_000;
  // swapStream's first event is a wSOL price at the sample's time: the sample's own would be a duplicate.
  const head = [sample.token, sample.pool, sample.label, sample.swap, sample.balance, sample.social_post, ...stream.slice(0, cut)] as unknown as IngestEvent[];
  const next = [
    ...stream.slice(cut),
    { ...sample.quote_price, price_usd: 160, at },
    { ...sample.label, action: 'remove', at },
    { ...sample.balance, balance_raw: '1000', slot: 300, at },
    { ...sample.token, symbol: 'NEXT', slot: 300, at },
    { ...sample.swap, tx_hash: `${(sample.swap.tx_hash as string).slice(0, -4)}zzzz`, slot: 150, at: (sample.swap.at as number) + 1_000 },
    sample.migration,
  ] as unknown as IngestEvent[];
  return { head, next };
}

/** The behaviours the engine runs: its hosts', built-in and the test's swap counter. */
const behaviorsOf = (engine: Engine) => engine.hosts.map((h) => h.behavior as ActorBehavior<any>);
const KINDS = ['quote-price', 'wallet-labels', 'token', 'pool', 'feed', 'wallet', 'token-traders', 'wallet-leaderboard', 'token-signals', 'swap-counter'];

const keysOf = (routed: string | readonly string[] | undefined): readonly string[] => (routed === undefined ? [] : typeof routed === 'string' ? [routed] : routed);
/** A state as the host would store it: toSnapshot's data through msgpack. */
const stored = (b: ActorBehavior<any>, state: unknown): unknown => unpack(pack(b.toSnapshot ? b.toSnapshot(state) : state));
const restored = (b: ActorBehavior<any>, state: unknown): unknown => {
  const data = stored(b, state);
  return b.fromSnapshot ? b.fromSnapshot(data) : data;
};

async function ingest(engine: Engine, events: readonly IngestEvent[], batch: number): Promise<void> {
  for (let i = 0; i < events.length; i += batch) {
    const results = await Promise.all(events.slice(i, i + batch).map((e) => engine.ingest(e)));
    const odd = results.map((r, k) => [r, events[i + k]]).filter(([r]) => (r as { status: string }).status !== 'applied');
    expect(odd).toEqual([]);
  }
}

describe.each(KINDS)('actor behaviour contract: %s', (kind) => {
  const open = async (name = 'a') => {
    // token-signals is a kind of its own only without wallet accounting (with it, a token's signals run in its token-traders actor).
    const engine = await temp.open(
      { data: `${temp.dir.path}/${name}`, actors: { checkpointMs: 3_600_000, sweepMs: 3_600_000, idleMs: 3_600_000 } },
      { actors: [swapCounter], wallets: kind === 'token-signals' ? false : undefined },
    );
    const behavior = behaviorsOf(engine).find((b) => b.kind === kind);
    expect(behavior, `the engine runs ${kind}`).toBeDefined();
    return { engine, behavior: behavior! };
  };

  it('routes every event of a type it takes to keys, and nothing else', async () => {
    const { engine, behavior } = await open();
    const { head, next } = corpus();
    const takes = takesOf(behavior);
    expect(takes.length).toBeGreaterThan(0);
    for (const type of takes) expect(EVENT_TYPES).toContain(type);
    // The derived events the engine's actors emit for these events: routed like ingest events.
    const derived = await derivedWhile(engine, () => ingest(engine, [...head, ...next], 50));
    let routed = 0;
    for (const event of [...head, ...next, ...derived]) {
      const keys = keysOf(behavior.route(event));
      expect(keysOf(behavior.route(event)), 'the same answer twice').toEqual(keys);
      if (!takes.includes(event.type)) {
        expect(behavior.route(event), `${event.type} is not for ${kind}`).toBeUndefined();
        continue;
      }
      expect(keys.length, `${event.type} goes to a ${kind}`).toBeGreaterThan(0);
      for (const key of keys) expect(key).toMatch(/^\S+$/);
      expect(new Set(keys).size).toBe(keys.length);
      routed++;
    }
    expect(routed).toBeGreaterThan(0);
  });

  it('a snapshot round trip gives an equal state, which applies the next event as the original does', async () => {
    const { engine, behavior } = await open();
    const { head, next } = corpus();
    await ingest(engine, head, 50);
    // What the actors derive from `next` (a second engine, same events before): the next events of a kind that takes derived ones.
    const twin = (await open('twin')).engine;
    await ingest(twin, head, 50);
    const nextDerived = await derivedWhile(twin, () => ingest(twin, next, 50));
    const host = engine.hosts.find((h) => h.kind === kind)!;
    const rejected: string[] = [];
    const ctx: ActorContext = {
      clock: engine.clock,
      read: <T>(k: string, key: string) => engine.hosts.find((h) => h.kind === k)?.get(key) as Readonly<T> | undefined,
      peek: <T>(k: string, key: string) => engine.hosts.find((h) => h.kind === k)?.peek(key) as Readonly<T> | undefined,
      reject: (reason) => void rejected.push(reason),
      emit: (derived) => void emitted.push(derived),
      seq: 0,
    };
    const emitted: unknown[] = [];
    const tried = new Set<string>();
    for (const event of [...next, ...nextDerived] as ActorEvent[]) {
      for (const key of keysOf(behavior.route(event))) {
        if (tried.has(key)) continue;
        const original = host.get(key);
        if (original === undefined) continue;
        tried.add(key);
        const copy = restored(behavior, original);
        expect(stored(behavior, copy), `${kind}:${key} round trip`).toEqual(stored(behavior, original));
        // Without fromSnapshot the stored data is the state: all of it, in memory too (with
        // one, runtime caches and counters may differ, and the stored form is what counts).
        if (!behavior.fromSnapshot) expect(copy, `${kind}:${key} round trip, in memory`).toEqual(original);
        // The live state itself takes the event here (this engine is not used after).
        const rejectedBefore = rejected.length;
        const emittedBefore = emitted.length;
        const fromOriginal = behavior.apply(original, event, ctx);
        const originalRejects = rejected.splice(rejectedBefore);
        const originalEmits = emitted.splice(emittedBefore);
        const fromCopy = behavior.apply(copy, event, ctx);
        expect(fromCopy, `${kind}:${key} lifecycle event after ${event.type}`).toEqual(fromOriginal);
        expect(rejected.splice(rejectedBefore)).toEqual(originalRejects);
        expect(emitted.splice(emittedBefore), `${kind}:${key} derived events after ${event.type}`).toEqual(originalEmits);
        expect(stored(behavior, copy), `${kind}:${key} after ${event.type}`).toEqual(stored(behavior, original));
        if (!behavior.fromSnapshot) expect(copy, `${kind}:${key} after ${event.type}, in memory`).toEqual(original);
      }
    }
    expect(tried.size).toBeGreaterThan(0);
  });

  it('applies the same events to the same states, whatever the batches', async () => {
    const { head, next } = corpus();
    const events = [...head, ...next];
    const states: Array<Map<string, unknown>> = [];
    for (const [name, batch] of [['one', 1], ['many', 97]] as const) {
      const { engine, behavior } = await open(name);
      const derived = await derivedWhile(engine, () => ingest(engine, events, batch));
      const host = engine.hosts.find((h) => h.kind === kind)!;
      const keys = new Set([...events, ...derived].flatMap((e) => keysOf(behavior.route(e))));
      states.push(new Map([...keys].sort().map((key) => [key, stored(behavior, host.get(key))])));
    }
    expect(states[0]!.size).toBeGreaterThan(0);
    expect(states[1]).toEqual(states[0]);
  });
});
