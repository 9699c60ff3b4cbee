import type { TemplatedApp } from 'uWebSockets.js';
import type { AccountLimits } from '../../engine/plans/index.ts';
import type { Config } from '../../engine/config.ts';
import type { Account, KeyStore, SessionStore } from '../../engine/plans/index.ts';
import { sameOrigin, sessionCookieOf, sessionHeaders } from '../http/index.ts';
import type { Logger } from '../../engine/log.ts';
import type { Metrics } from '../../engine/metrics.ts';
import type { TopicSink } from '../../engine/topics/index.ts';
import { DISABLED } from '../uws.ts';
import { WS_SESSION_CHECK_MS } from '../../engine/bounds.ts';
import { Hub, type HubConnection } from './hub.ts';
import { CLOSE } from './protocol.ts';
import { Connection, type CandleResumeSource, type CandleWatch, type ChartLinesSource, type MarkerSnapshots, type RankingSnapshots, type SessionContext, type UserData } from './session.ts';

/** What /ws needs of the engine for candles: resume reads and new-subscription notices. */
export type { CandleResumeSource, CandleWatch, ChartLinesSource, MarkerSnapshots, RankingSnapshots } from './session.ts';
/** The close codes the server sends. */
export { CLOSE } from './protocol.ts';
/** The AsyncAPI 3.1 description of /ws, for GET /asyncapi.json. */
export { asyncapiDocument } from './asyncapi.ts';

export interface WebSocketDeps {
  config: Config;
  log: Logger;
  keys: KeyStore;
  limits: AccountLimits;
  metrics: Metrics;
  /** The engine's candle reads, for candle resume; without them resume sends nothing. */
  candles?: CandleResumeSource;
  /** The engine's publisher (`engine.publisher`): told of new candle subscriptions so the next flush serves them. */
  candleWatch?: CandleWatch;
  /** The engine's rankings stream (`engine.rankings`): the snapshot a rankings subscriber gets first. */
  rankings?: RankingSnapshots;
  /** The engine's chart_lines stream (`engine.chartLines`): the lines a chart_lines subscriber gets first. */
  chartLines?: ChartLinesSource;
  /** The engine's markers stream (`engine.markers`): the recent marks a markers subscriber gets first. */
  markers?: MarkerSnapshots;
  /** Web terminal sessions: an upgrade without a key may be authorized by the session cookie, from this origin only. */
  sessions?: SessionStore;
}

export interface WebSocketEndpoint {
  /** The engine's live output: pass to `engine.attachTopics`. */
  readonly sink: TopicSink;
  /** Closes every connection with 1001 and stops listening to plan changes. */
  close(): void;
}

/**
 * Mounts `/ws` (SERVICE.md 3.2, 4.3; DECISIONS.md "WebSocket") on the server's uWS app:
 * the same port as HTTP. Every uWS limit is set explicitly:
 * - maxPayloadLength: 16 × `ws.frameBytesMax`. uWS cuts a frame over its limit with
 *   a bare TCP close (the client sees 1006), so its limit sits above ours and frames
 *   between the two get our 4400; only a frame over 16 times the limit (256 KiB by
 *   default) gets uWS's cut, which also bounds what one frame can make uWS buffer.
 * - maxBackpressure: `ws.backpressureHardBytes`, far above the soft limit the hub
 *   enforces (`ws.backpressureBytes`, 4008), so a close frame always still fits.
 * - idleTimeout: `ws.idleTimeoutS` (32 s): clients ping every 15 s; uWS pings a client
 *   silent for half of it and closes one that does not answer.
 * - compression off, no maximum lifetime.
 */
export function mountWebSocket(app: TemplatedApp, deps: WebSocketDeps): WebSocketEndpoint {
  const config = deps.config.ws;
  const log = deps.log.child({ part: 'ws' });
  const connections = new Set<Connection>();
  const hub: Hub = new Hub({
    app,
    limits: deps.limits,
    metrics: deps.metrics,
    log,
    backpressureBytes: config.backpressureBytes,
    events: {
      slow: (connection: HubConnection) => (connection as Connection).slow(),
      allowanceExceeded: (entry) => {
        for (const c of [...entry.connections]) (c as Connection).close(CLOSE.limit, 'monthly message allowance used');
      },
    },
  });
  const ctx: SessionContext = {
    config, log, keys: deps.keys, limits: deps.limits, hub, metrics: deps.metrics, candles: deps.candles, candleWatch: deps.candleWatch, rankings: deps.rankings, chartLines: deps.chartLines, markers: deps.markers, connections,
  };

  // The plan in force became free (grace ended): its open streams close with 4402. A
  // revoked key is reported as free too; its streams close with 4401 (invalid key).
  // Plan changes are rare, so reading the key list for them is fine.
  const stopPlanChanges = deps.limits.onPlanChange((accountId, plan) => {
    if (plan !== 'free') return;
    const open = hub.connectionsOf(accountId);
    if (open.length === 0) return;
    const revoked = deps.keys.list().some((a) => a.id === accountId && a.revokedAt !== null);
    for (const c of open) {
      if (revoked) (c as Connection).close(CLOSE.invalidKey, 'key revoked');
      else (c as Connection).close(CLOSE.planRequired, 'the plan in force is free: streams need a paid plan');
    }
  });

  const connectionOf = (userData: UserData): Connection => userData.connection!;

  app.ws<UserData>('/ws', {
    compression: DISABLED,
    maxPayloadLength: config.frameBytesMax * 16,
    maxBackpressure: config.backpressureHardBytes,
    closeOnBackpressureLimit: false,
    idleTimeout: config.idleTimeoutS,
    sendPingsAutomatically: true,
    maxLifetime: 0,

    // Synchronous: headers are read and the upgrade done before the handler returns,
    // so no onAborted is needed and `req` is never touched later.
    upgrade: (res, req, context) => {
      const authorization = req.getHeader('authorization');
      // The web terminal's session cookie (transport/http/session-cookie.ts), only without
      // a key: from another origin the upgrade is refused outright (403, no socket).
      let session: Account | null | undefined;
      const headers = authorization === '' && deps.sessions !== undefined ? sessionHeaders(req) : null;
      const cookie = headers === null ? null : sessionCookieOf(headers.cookie);
      if (headers !== null && cookie !== null) {
        if (!sameOrigin(headers)) {
          res.cork(() => res.writeStatus('403 Forbidden').writeHeader('content-type', 'text/plain').end('session cookie refused: the request comes from another origin'));
          return;
        }
        // null: an unknown, expired or revoked session, closed with 4401 once open.
        session = deps.sessions!.verify(cookie);
      }
      res.upgrade<UserData>(
        { authorization, session, ...(cookie === null ? {} : { sessionCookie: cookie }), connection: null },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },

    open: (ws) => {
      const userData = ws.getUserData();
      const connection = new Connection(ws, ctx);
      userData.connection = connection;
      connection.sessionCookie = userData.sessionCookie ?? null;
      guard(connection, () => connection.open(userData.authorization, userData.session));
    },

    message: (ws, message, isBinary) => {
      const connection = connectionOf(ws.getUserData());
      guard(connection, () => connection.onMessage(message, isBinary));
    },

    drain: (ws) => {
      const connection = connectionOf(ws.getUserData());
      guard(connection, () => connection.onDrain());
    },

    // Called inside uWS's drain of published frames, where sockets must not subscribe,
    // unsubscribe or close: only mark the connection; the hub stops it right after.
    dropped: (ws) => {
      hub.markDropped(connectionOf(ws.getUserData()));
    },

    close: (ws, code) => {
      const connection = ws.getUserData().connection;
      if (!connection) return;
      try {
        connection.onClosed(code);
      } catch (err) {
        log.error({ err }, 'ws: releasing a closed connection failed');
      }
    },
  });

  /** A throw while handling a frame closes that connection (1011), never the process. */
  function guard(connection: Connection, run: () => void): void {
    try {
      run();
    } catch (err) {
      log.error({ err }, 'ws: handling a frame failed');
      connection.close(CLOSE.internal, 'internal error');
    }
  }

  // A revoked or expired terminal session ends its open streams too (4401, as a revoked key).
  const sessionCheck = deps.sessions === undefined ? null : setInterval(() => {
    for (const c of connections) {
      if (c.sessionCookie !== null && c.state === 'authenticated' && deps.sessions!.verify(c.sessionCookie) === null) c.close(CLOSE.invalidKey, 'session expired or revoked');
    }
  }, WS_SESSION_CHECK_MS);
  sessionCheck?.unref();

  return {
    sink: hub,
    close() {
      if (sessionCheck) clearInterval(sessionCheck);
      stopPlanChanges();
      for (const connection of [...connections]) connection.close(CLOSE.goingAway, 'server shutting down');
      hub.close();
    },
  };
}
export { type payloadSchemas } from './protocol.ts';
