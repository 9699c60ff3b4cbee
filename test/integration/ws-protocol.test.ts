import { describe, expect, it } from 'vitest';
import { initialConnection, stateOf, step } from '../../actors/connection/connection.machine.ts';
import { asyncapiDocument } from '../../transport/ws/asyncapi.ts';
import { CLOSE, PRO_STREAMS, parseSubscription, payloadSchemas } from '../../transport/ws/protocol.ts';
import { base58, rng } from '../helpers/fixtures.ts';

/** The pure parts of /ws: the connection lifecycle, subscription identity, the AsyncAPI document. */

const r = rng(505);
const A = base58(r, 44);
const B = base58(r, 44);

describe('connection lifecycle (xstate, pure transitions)', () => {
  it('unauthenticated → authenticated → closing → closed; events that do not apply change nothing', () => {
    let s = initialConnection;
    expect(stateOf(s)).toBe('unauthenticated');
    expect(step(s, { type: 'connection.slow' })).toBe(s);
    s = step(s, { type: 'connection.authenticate' });
    expect(stateOf(s)).toBe('authenticated');
    expect(step(s, { type: 'connection.authenticate' })).toBe(s);
    s = step(s, { type: 'connection.slow' });
    expect(stateOf(s)).toBe('closing');
    s = step(s, { type: 'connection.close' });
    expect(stateOf(s)).toBe('closed');
    expect(s.status).toBe('done');
    expect(step(s, { type: 'connection.authenticate' })).toBe(s);
    expect(stateOf(step(initialConnection, { type: 'connection.close' }))).toBe('closed');
  });

  it('connections in one state share one snapshot (no lifecycle memory per connection)', () => {
    const a = step(initialConnection, { type: 'connection.authenticate' });
    const b = step(initialConnection, { type: 'connection.authenticate' });
    expect(a).toBe(b);
  });
});

describe('subscription identity', () => {
  it('defaults applied: a candles payload written out in full is the same subscription', () => {
    const short = parseSubscription('candles', { pool_address: A })!;
    const full = parseSubscription('candles', { pool_address: A, interval: '1m', mode: 'price', currency: 'usd' })!;
    expect(full.key).toBe(short.key);
    expect(short.channels).toEqual([{ name: `candles:${A}:1m:price:usd`, topic: `candles:${A}:1m:price:usd`, subscriptionId: null, item: A }]);
    expect(short.items).toEqual([A]);
    expect(short.resume).toBeNull();
  });

  it('resume fields are not part of it; subscription_id is', () => {
    const plain = parseSubscription('candles', { pool_address: A, subscription_id: 'x' })!;
    const resuming = parseSubscription('candles', { pool_address: A, subscription_id: 'x', resume_after_seq: 3 })!;
    expect(resuming.key).toBe(plain.key);
    expect(resuming.resume).not.toBeNull();
    expect(parseSubscription('candles', { pool_address: A, subscription_id: 'y' })!.key).not.toBe(plain.key);
  });

  it('pool_metrics addresses are a set', () => {
    const ab = parseSubscription('pool_metrics', { pool_addresses: [A, B] })!;
    const ba = parseSubscription('pool_metrics', { pool_addresses: [B, A, B] })!;
    expect(ba.key).toBe(ab.key);
    expect(ba.items).toEqual([A, B].sort());
  });

  it('every stream: one channel per watched item, named by topic (and subscription_id); one channel: the key is its name', () => {
    const T = B;
    const cases = [
      { stream: 'token_metadata', payload: {}, channels: [['token_metadata', 'token_metadata', null, null]] },
      { stream: 'pool_trades', payload: { pool_address: A }, channels: [[`pool_trades:${A}`, `pool_trades:${A}`, null, A]] },
      { stream: 'token_trades', payload: { token_address: T }, channels: [[`token_trades:${T}`, `token_trades:${T}`, null, T]] },
      { stream: 'candles', payload: { pool_address: A, interval: '1h', subscription_id: 'c' }, channels: [[`candles:${A}:1h:price:usd#c`, `candles:${A}:1h:price:usd`, 'c', A]] },
      { stream: 'pool_metrics', payload: { pool_addresses: [A] }, channels: [[`pool_metrics:${A}`, `pool_metrics:${A}`, null, A]] },
      {
        stream: 'pool_metrics',
        payload: { pool_addresses: [B, A, B] },
        channels: [A, B].sort().map((p) => [`pool_metrics:${p}`, `pool_metrics:${p}`, null, p]),
      },
    ];
    for (const { stream, payload, channels } of cases) {
      const sub = parseSubscription(stream, payload)!;
      expect(sub.stream).toBe(stream);
      expect(sub.channels.map((c) => [c.name, c.topic, c.subscriptionId, c.item])).toEqual(channels);
      expect(sub.items).toEqual(sub.channels.flatMap((c) => (c.item === null ? [] : [c.item])));
      if (channels.length === 1) expect(sub.key).toBe(sub.channels[0]!.name);
      expect(sub.resume).toBeNull();
      // The same payload again is the same subscription (what unsubscribe relies on).
      expect(parseSubscription(stream, structuredClone(payload))!.key).toBe(sub.key);
    }
    // pool_metrics of several pools is not the subscription of one of them.
    expect(parseSubscription('pool_metrics', { pool_addresses: [A, B] })!.key).not.toBe(parseSubscription('pool_metrics', { pool_addresses: [A] })!.key);
  });

  it('candles resume: the parsed payload (with its subscription_id) is kept for the resume read', () => {
    const sub = parseSubscription('candles', { pool_address: A, subscription_id: 'x', resume_after_time: 5 })!;
    expect(sub.resume).toEqual({ pool_address: A, interval: '1m', mode: 'price', currency: 'usd', subscription_id: 'x', resume_after_time: 5 });
    expect(parseSubscription('candles', { pool_address: A, resume_after_seq: 2 })!.resume).toMatchObject({ resume_after_seq: 2 });
  });

  it('unknown fields are stripped, not fatal; unknown streams and trades are null', () => {
    expect(parseSubscription('pool_trades', { pool_address: A, extra: 1 })!.key).toBe(`pool_trades:${A}`);
    expect(parseSubscription('trades', { pool_address: A })).toBeNull();
    expect(parseSubscription('toString', {})).toBeNull();
    expect(parseSubscription('__proto__', {})).toBeNull();
  });
});

describe('AsyncAPI document', () => {
  const doc = JSON.parse(JSON.stringify(asyncapiDocument));

  it('is AsyncAPI 3.1 with a channel and operations for every stream served', () => {
    expect(doc.asyncapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    for (const stream of Object.keys(payloadSchemas)) {
      expect(doc.channels[stream].address).toBe('/ws');
      expect(Object.keys(doc.channels[stream].messages)).toEqual(['subscribe', 'unsubscribe', 'event']);
      expect(doc.operations[`subscribe_${stream}`].action).toBe('receive');
      expect(doc.operations[`send_${stream}`].action).toBe('send');
    }
    expect(doc.channels.candles.messages.subscribe.payload.properties.payload.required).toEqual(['pool_address']);
    expect(doc.channels.pool_metrics.messages.subscribe.payload.properties.payload.properties.pool_addresses.maxItems).toBe(100);
  });

  it('every $ref resolves', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref') refs.push(v as string);
          else walk(v);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) {
      const target = ref
        .slice(2)
        .split('/')
        .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      expect(target, ref).toBeTypeOf('object');
    }
  });

  it('names every close code the server sends and every Pro-only stream', () => {
    expect(doc['x-close-codes'].map((c: { code: number }) => c.code).sort()).toEqual(Object.values(CLOSE).sort());
    for (const stream of PRO_STREAMS) expect(doc.info.description).toContain(stream);
  });
});
