/**
 * `mds/client` on Node.js: the browser entry's client, with sockets opened by the `ws`
 * package so that the key goes in the Authorization header at connect (SERVICE.md 5.2;
 * Node 20 has no global WebSocket, and a WebSocket API socket cannot set headers).
 */
import WebSocket from 'ws';
import { createClient as createBrowserClient, type Client, type ClientOptions } from './index.ts';
import type { SocketFactory, WebSocketLike } from './ws.ts';

export * from './index.ts';

/** Opens sockets with `ws`, the key in the Authorization header. */
export const nodeSockets: SocketFactory = (url, key) => ({
  socket: new WebSocket(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, perMessageDeflate: false }) as unknown as WebSocketLike,
  headerAuth: key !== undefined,
});

/** The HTTP client and the /ws client, sockets through `ws` with header auth. */
export function createClient(options: ClientOptions): Client {
  return createBrowserClient(options, nodeSockets);
}
