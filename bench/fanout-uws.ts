import type { us_listen_socket } from 'uWebSockets.js';
import { App, DISABLED, us_listen_socket_close, us_socket_local_port } from '../transport/uws.ts';

/**
 * The ceiling of the fan-out benchmark (bench/fanout.ts): bare uWebSockets.js, no
 * engine, no auth beyond a string compare, no counting or backpressure checks. The
 * driver builds each frame by string concatenation (a trade record of the same fields
 * and about the same size as mds's pool_trades frame) and publishes it to the pool's
 * topic. No Node server on this machine can fan out faster, so it shows what the
 * client processes can take: if mds comes close to it, the clients (and the kernel's
 * loopback copies), not mds, are the limit.
 */

export interface BareUws {
  readonly port: number;
  publish(topic: string, frame: string): void;
  /** A pool_trades frame for event k in `pool`, stamped with `nowMs` (created_at + tx_index µs). */
  frame(k: number, pool: string, nowMs: number): string;
  /** The same stamp and pool in a frame padded to 300 bytes: the frame size of issue 5's reference measurement. */
  smallFrame(k: number, pool: string, nowMs: number): string;
  close(): void;
}

interface UserData {
  authorization: string;
}

const PONG = '{"type":"pong"}';
/** On the wire, with the 4-byte header of a frame of 126 to 65,535 bytes. */
const SMALL_FRAME_BYTES = 300;
const HASH = '5'.repeat(77);
const WALLET = '7'.repeat(44);
const MINT = '9'.repeat(44);
const WSOL = 'So11111111111111111111111111111111111111112';

export function startBareUws(options: { host: string; key: string }): Promise<BareUws> {
  const app = App();
  const expected = `Bearer ${options.key}`;
  app.ws<UserData>('/ws', {
    compression: DISABLED,
    maxPayloadLength: 16 * 1024,
    maxBackpressure: 16 * 1024 * 1024,
    closeOnBackpressureLimit: false,
    idleTimeout: 32,
    // Synchronous: `req` is read before the handler returns and never again.
    upgrade: (res, req, context) => {
      res.upgrade<UserData>(
        { authorization: req.getHeader('authorization') },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    open: (ws) => {
      if (ws.getUserData().authorization !== expected) ws.end(4401, 'invalid key');
    },
    message: (ws, message) => {
      let frame: { type?: unknown; stream?: unknown; payload?: { pool_address?: unknown } };
      try {
        frame = JSON.parse(Buffer.from(message).toString('utf8'));
      } catch {
        ws.end(4400, 'frame is not JSON');
        return;
      }
      // A pong that does not fit is the client's loss here: the ceiling keeps no queue.
      if (frame.type === 'ping') return void ws.send(PONG, false, false);
      if (frame.stream !== 'pool_trades' || typeof frame.payload?.pool_address !== 'string') return;
      const topic = `pool_trades:${frame.payload.pool_address}`;
      if (frame.type === 'subscribe') ws.subscribe(topic);
      else if (frame.type === 'unsubscribe') ws.unsubscribe(topic);
    },
  });
  let listenSocket: us_listen_socket | null = null;
  return new Promise((resolve, reject) => {
    app.listen(options.host, 0, (socket) => {
      if (!socket) return reject(new Error(`bare uWS: cannot listen on ${options.host}`));
      listenSocket = socket;
      resolve({
        port: us_socket_local_port(socket as never),
        publish: (topic, frame) => void app.publish(topic, frame, false, false),
        frame(k, pool, nowMs) {
          const at = Math.floor(nowMs);
          const micros = Math.floor((nowMs - at) * 1000);
          const hash = `${String(k).padStart(11, '1')}${HASH}`;
          const amount = 1 + (k % 1000) / 1e6;
          return (
            `{"stream":"pool_trades","data":{"trade_id":"${hash}:0","tx_hash":"${hash}","slot":${Math.floor(at / 400)},"tx_index":${micros},"event_index":${k % 1000},` +
            `"type":"${k & 1 ? 'buy' : 'sell'}","wallet_address":"${WALLET}","token_address":"${MINT}","quote_address":"${WSOL}","pool_address":"${pool}",` +
            `"dex":"pumpfun","token_amount":${amount},"quote_amount":0.005000123,"price_quote":0.00000005000123,"price_usd":0.0000075001845,` +
            `"amount_usd":0.75001845,"market_cap_quote":50.00123,"market_cap_usd":7500.1845,"labels":[],"created_at":${at}}}`
          );
        },
        smallFrame(k, pool, nowMs) {
          const at = Math.floor(nowMs);
          const head = `{"stream":"pool_trades","data":{"pool_address":"${pool}","tx_index":${Math.floor((nowMs - at) * 1000)},"created_at":${at},"pad":"`;
          return head + 'x'.repeat(Math.max(0, SMALL_FRAME_BYTES - 4 - head.length - 4)) + '"}}';
        },
        close() {
          if (listenSocket) us_listen_socket_close(listenSocket);
          listenSocket = null;
          app.close();
        },
      });
    });
  });
}
