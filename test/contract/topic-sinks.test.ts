import { afterEach, describe, expect, it } from 'vitest';
import { NO_TOPICS, topics, type TopicSink } from '../../engine/topics/index.ts';
import { base58, rng } from '../helpers/fixtures.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';
import { startWsServer, TestClient } from '../helpers/ws.ts';

/**
 * Contract: a topic sink (engine/topics.ts TopicSink), where the engine's live frames
 * go. Every implementation: NO_TOPICS (the engine's default), the WebSocket hub
 * (transport/ws, over real uWS on loopback with real clients), the tests' RecordingSink.
 *
 * - A topic nobody listens on: `has` is false, `publish` delivers nothing and does
 *   not throw, `flush` (where there is one) does not throw: the engine builds no frame
 *   for it and may call both at any time.
 * - Where listeners can be added: `has` is true once one listens and false once the
 *   last left; every frame published to the topic reaches each of its listeners once,
 *   the same bytes, in publish order, once `flush` is called (where there is one); a
 *   topic's frames reach no listener of another topic.
 */

interface Listener {
  /** The frames received once `count` have come (the same text as published), then nothing more. */
  received(count: number): Promise<string[]>;
  leave(): Promise<void>;
}

interface Fixture {
  sink: TopicSink;
  /** Listens on `topic` (resolves once it does); null for an implementation without listeners. */
  listen: ((topic: string) => Promise<Listener>) | null;
  close(): Promise<void>;
}

interface Impl {
  name: string;
  /** Whether listeners can be added (all but NO_TOPICS). */
  listens: boolean;
  open(): Promise<Fixture>;
}

const IMPLS: Impl[] = [
  {
    name: 'NO_TOPICS',
    listens: false,
    open: async () => ({ sink: NO_TOPICS, listen: null, close: async () => {} }),
  },
  {
    name: 'RecordingSink (test/helpers)',
    listens: true,
    async open() {
      const sink = new RecordingSink();
      return {
        sink,
        listen: async (topic) => {
          sink.listen(topic);
          const from = sink.frames.length;
          let until: number | null = null;
          return {
            received: async (count) => {
              const mine = sink.frames.slice(from, until ?? undefined).filter((f) => f.topic === topic).map((f) => f.frame);
              expect(mine).toHaveLength(count);
              return mine;
            },
            leave: async () => {
              sink.leave(topic);
              until = sink.frames.length;
            },
          };
        },
        close: async () => {},
      };
    },
  },
  {
    name: 'the WebSocket hub (transport/ws, real uWS and clients)',
    listens: true,
    async open() {
      const server = await startWsServer();
      const { key } = await server.key('scale');
      const clients: TestClient[] = [];
      return {
        sink: server.endpoint.sink,
        listen: async (topic) => {
          // The hub's topics are the engine's: a pool_trades subscription listens on pool_trades:<pool>.
          const pool = topic.slice('pool_trades:'.length);
          expect(topics.poolTrades(pool)).toBe(topic);
          const client = await TestClient.connect(server.url, { key });
          clients.push(client);
          client.subscribe('pool_trades', { pool_address: pool });
          expect((await client.untilPong()).filter((m) => m.type === 'error')).toEqual([]);
          return {
            async received(count) {
              const frames: string[] = [];
              while (frames.length < count) {
                const m = await client.next((f) => f.stream !== undefined);
                frames.push(JSON.stringify(m));
              }
              // Nothing more: the connection's frames up to a pong are all it was sent.
              expect((await client.untilPong()).filter((m) => m.stream !== undefined)).toEqual([]);
              return frames;
            },
            async leave() {
              client.unsubscribe('pool_trades', { pool_address: pool });
              await client.untilPong();
            },
          };
        },
        async close() {
          for (const c of clients) {
            c.close();
            await c.closed;
          }
          await server.close();
        },
      };
    },
  },
];

const r = rng(4_242);
const topicA = topics.poolTrades(base58(r, 44));
const topicB = topics.poolTrades(base58(r, 44));
/** A frame as the publisher builds them (compact JSON text). */
const frame = (pool: string, i: number) => `{"stream":"pool_trades","data":{"pool_address":"${pool}","n":${i},"text":"é \\" ✓"}}`;
const poolOf = (topic: string) => topic.slice(topic.indexOf(':') + 1);

/** The fixture of the test under way, closed after it. */
let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

describe.each(IMPLS)('topic sink contract: $name', (impl) => {
  const open = async () => (fixture = await impl.open());

  it('a topic nobody listens on: has is false, publish delivers nothing and does not throw, flush does not throw', async () => {
    const { sink } = await open();
    expect(sink.has(topicA)).toBe(false);
    expect(sink.has('')).toBe(false);
    expect(() => sink.publish(topicA, frame(poolOf(topicA), 0))).not.toThrow();
    expect(() => sink.flush?.()).not.toThrow();
    expect(sink.has(topicA)).toBe(false);
  });
});

describe.each(IMPLS.filter((impl) => impl.listens))('topic sink contract, with listeners: $name', (impl) => {
  const open = async () => {
    fixture = await impl.open();
    return { sink: fixture.sink, listen: fixture.listen! };
  };

  it('each frame reaches each listener of its topic once, the same bytes, in publish order, and no listener of another topic', async () => {
    const { sink, listen } = await open();
    const a1 = await listen(topicA);
    const a2 = await listen(topicA);
    const b = await listen(topicB);
    expect(sink.has(topicA)).toBe(true);
    expect(sink.has(topicB)).toBe(true);
    const sentA = [0, 1, 2, 3].map((i) => frame(poolOf(topicA), i));
    const sentB = [frame(poolOf(topicB), 9)];
    sink.publish(topicA, sentA[0]!);
    sink.publish(topicB, sentB[0]!);
    for (const f of sentA.slice(1)) sink.publish(topicA, f);
    sink.flush?.();
    expect(await a1.received(4)).toEqual(sentA);
    expect(await a2.received(4)).toEqual(sentA);
    expect(await b.received(1)).toEqual(sentB);
  });

  it('has turns false once the last listener left, and a left listener gets nothing more', async () => {
    const { sink, listen } = await open();
    const stays = await listen(topicA);
    const goes = await listen(topicA);
    await goes.leave();
    expect(sink.has(topicA)).toBe(true);
    sink.publish(topicA, frame(poolOf(topicA), 1));
    sink.flush?.();
    expect(await stays.received(1)).toEqual([frame(poolOf(topicA), 1)]);
    expect(await goes.received(0)).toEqual([]);
    await stays.leave();
    expect(sink.has(topicA)).toBe(false);
  });
});
