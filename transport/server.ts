import { randomBytes } from 'node:crypto';
import type { TemplatedApp, us_listen_socket, us_socket } from 'uWebSockets.js';
import { unavailable } from '../engine/errors.ts';
import { mountRoutes, mountTerminalLogin } from './http/index.ts';
import type { BeforeHandle, Route, ServerDeps } from './http/index.ts';
import { ROUTES } from './http/index.ts';
import { App, httpHeaderBytesCap, us_listen_socket_close, us_socket_local_port } from './uws.ts';

export interface ServerOptions {
  /** The route table; the default is ROUTES (tests add routes to it). */
  routes?: readonly Route[];
  /** Hooks run on every matched route after authentication: the seam for rate limits and quotas. */
  beforeHandle?: readonly BeforeHandle[];
}

export interface Server {
  /** The uWS app, so that the WebSocket endpoint (`/ws`) can be added to it. */
  readonly app: TemplatedApp;
  /** Bind `config.host`:`config.port` (0 = any free port); resolves to the bound port. */
  listen(): Promise<number>;
  /** Stop listening and close every open connection (HTTP keep-alive and WebSocket). */
  close(): void;
}

export function createServer(deps: ServerDeps & ServerOptions): Server {
  const { config, log, query, keys, metrics } = deps;
  const cursorSecret = deps.cursorSecret ?? randomBytes(32);
  const app = App();
  if (config.http.queryBytesMax >= httpHeaderBytesCap) {
    log.warn(
      { queryBytesMax: config.http.queryBytesMax, headerBytesCap: httpHeaderBytesCap },
      'http.queryBytesMax is not below the uWS header cap: longer queries get a bare 431 from uWS, not a 400 envelope',
    );
  }
  // Before the table's catch-all: GET /session/{token}, the web terminal's login.
  if (deps.sessions) mountTerminalLogin(app, deps.sessions, log);
  mountRoutes(app, deps.routes ?? ROUTES, { config, log, query, keys, metrics, cursorSecret, sessions: deps.sessions }, deps.beforeHandle ?? []);
  let listenSocket: us_listen_socket | null = null;
  let closed = false;

  return {
    app,

    listen() {
      return new Promise<number>((resolve, reject) => {
        if (closed) return reject(unavailable('server is closed'));
        if (listenSocket) return reject(unavailable('server is already listening'));
        app.listen(config.host, config.port, (socket) => {
          if (!socket) {
            reject(unavailable(`cannot listen on ${config.host}:${config.port}`));
            return;
          }
          listenSocket = socket;
          // A listen socket is a us_socket for uSockets' purposes (the typings split them).
          const port = us_socket_local_port(socket as us_socket);
          log.info({ host: config.host, port }, 'http listening');
          resolve(port);
        });
      });
    },

    close() {
      if (closed) return;
      closed = true;
      if (listenSocket) us_listen_socket_close(listenSocket);
      listenSocket = null;
      // Forcefully ends keep-alive connections too, so the event loop can exit.
      app.close();
      log.info('http closed');
    },
  };
}
