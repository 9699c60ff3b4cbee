/**
 * `mds/client` in a browser (and any runtime with fetch and a global WebSocket): the
 * typed HTTP client and the /ws client, authenticated by an auth frame. Nothing here
 * imports Node's modules. A browser must not hold an API key (SERVICE.md 5.6): point
 * `baseUrl` and `url` at a server of your own that adds the key and forwards to mds,
 * and leave `key` out (README, "Client SDK").
 */
import { createHttpClient, type HttpClientOptions, type HttpClient } from './http.ts';
import { MdsSocket, type SocketOptions, type WebSocketLike } from './ws.ts';

export { createHttpClient, MdsError, backoffDelay, queryString } from './http.ts';
export type { CallOptions, ClientTimers, HttpClient, HttpClientOptions, Method, Paged, PageResult } from './http.ts';
export { closeOutcome, CandlesSubscription, MdsSocket, Subscription, TradeSubscription } from './ws.ts';
export type { Candle, CandlesEvent, CandlesPayload, CloseOutcome, SocketEvent, SocketFactory, SocketOptions, SocketTimers, Trade, WebSocketLike } from './ws.ts';
export { HTTP_ROUTES } from './routes.ts';
export type { DataOf, ItemOf, QueryOf, RoutePattern } from './routes.ts';

/** Opens sockets with the global WebSocket; the key, if any, goes in an auth frame. */
export const browserSockets: SocketOptions['connect'] = (url) => ({
  socket: new globalThis.WebSocket(url) as unknown as WebSocketLike,
  headerAuth: false,
});

export interface ClientOptions extends HttpClientOptions {
  /** The WebSocket URL; default `baseUrl` with ws(s): and /ws. */
  wsUrl?: string;
  socket?: Omit<SocketOptions, 'url' | 'key' | 'http' | 'connect'> & { connect?: SocketOptions['connect'] };
}

export interface Client {
  http: HttpClient;
  /** Opens the /ws connection (one per call). */
  socket(): MdsSocket;
}

/** `wss://host/ws` from `https://host`. */
export const wsUrlOf = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/ws`;

/** The HTTP client and a way to open the WebSocket, sharing the URL and key. */
export function createClient(options: ClientOptions, connect: SocketOptions['connect'] = browserSockets): Client {
  const http = createHttpClient(options);
  return {
    http,
    socket: () => new MdsSocket({ ...options.socket, connect: options.socket?.connect ?? connect, url: options.wsUrl ?? wsUrlOf(options.baseUrl), key: options.key, http }),
  };
}
