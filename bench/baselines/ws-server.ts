import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { topics, type TopicSink } from '../../engine/topics/index.ts';

/**
 * The baseline of the fan-out benchmark (bench/fanout.ts): the WebSocket server most
 * Node teams would write, with the `ws` library as its README shows ("Server
 * broadcast": for each client, `if (client.readyState === WebSocket.OPEN)
 * client.send(data, { binary })`), keeping a set of clients per topic.
 *
 * It is fed exactly what mds's transport is fed: it implements the engine's TopicSink
 * (engine/topics/sink.ts), and the benchmark's server child attaches it to the same engine,
 * driven by the same events, so both servers send the same frames, byte for byte.
 * Only the fan-out differs: here one `send` (one write on the socket) per frame per
 * client; in mds one uWS publish per frame per topic.
 *
 * Kept honest in its favour: the frame is turned into a Buffer once per event, not
 * once per client (ws would otherwise encode the string for every send), the key is a
 * plain string compare at the upgrade (mds verifies a hashed key in LMDB), and there
 * are no plans, counters or backpressure checks. The protocol is the part of mds's
 * that the benchmark's clients use: subscribe/unsubscribe to pool_trades, ping → pong.
 */

export interface WsBaseline {
  readonly port: number;
  /** Attach to the engine with `engine.attachTopics(baseline.sink)`. */
  readonly sink: TopicSink;
  close(): Promise<void>;
}

export interface WsBaselineOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** The one key accepted, as `Authorization: Bearer <key>` at the upgrade. */
  key: string;
}

const PONG = '{"type":"pong"}';

export function startWsBaseline(options: WsBaselineOptions): Promise<WsBaseline> {
  const subscribers = new Map<string, Set<WebSocket>>();
  const expected = `Bearer ${options.key}`;
  const wss = new WebSocketServer({ host: options.host, port: options.port, path: '/ws', maxPayload: 16 * 1024, perMessageDeflate: false });

  wss.on('connection', (ws, req) => {
    ws.on('error', () => ws.terminate());
    if (req.headers.authorization !== expected) {
      ws.close(4401, 'invalid key');
      return;
    }
    const mine = new Set<string>();
    ws.on('message', (data) => {
      let frame: { type?: unknown; stream?: unknown; payload?: { pool_address?: unknown } };
      try {
        frame = JSON.parse(data.toString());
      } catch {
        ws.close(4400, 'frame is not JSON');
        return;
      }
      if (frame.type === 'ping') return ws.send(PONG);
      if (frame.stream !== 'pool_trades' || typeof frame.payload?.pool_address !== 'string') return;
      const topic = topics.poolTrades(frame.payload.pool_address);
      if (frame.type === 'subscribe') {
        let set = subscribers.get(topic);
        if (!set) subscribers.set(topic, (set = new Set()));
        set.add(ws);
        mine.add(topic);
      } else if (frame.type === 'unsubscribe') {
        leave(ws, topic);
        mine.delete(topic);
      }
    });
    ws.on('close', () => {
      for (const topic of mine) leave(ws, topic);
    });
  });

  function leave(ws: WebSocket, topic: string): void {
    const set = subscribers.get(topic);
    if (!set) return;
    set.delete(ws);
    if (set.size === 0) subscribers.delete(topic);
  }

  const sink: TopicSink = {
    has: (topic) => subscribers.has(topic),
    publish(topic, frame) {
      const set = subscribers.get(topic);
      if (!set) return;
      const data = Buffer.from(frame);
      for (const client of set) {
        if (client.readyState === WebSocket.OPEN) client.send(data, { binary: false });
      }
    },
  };

  return new Promise((resolve, reject) => {
    wss.once('error', reject);
    wss.once('listening', () => {
      wss.off('error', reject);
      resolve({
        port: (wss.address() as AddressInfo).port,
        sink,
        close: () =>
          new Promise<void>((done) => {
            for (const client of wss.clients) client.terminate();
            wss.close(() => done());
          }),
      });
    });
  });
}
