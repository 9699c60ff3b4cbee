import { createClient, MdsError, type Client, type MdsSocket, type WebSocketLike } from '../../client/index.ts';
import { fill, h } from './dom.ts';

/**
 * What every page shares: the SDK client on this origin with no key (SERVICE.md 5.6:
 * the session cookie, HttpOnly, authorizes the page's requests and its /ws upgrade),
 * one socket, the connection status in the header, and the hooks the end-to-end tests
 * and the first-paint benchmark read (`window.mdsTerminal`).
 */

export interface Terminal {
  client: Client;
  socket: MdsSocket;
  /** The page's main element. */
  main: HTMLElement;
  /** What the tests read: set by the pages. */
  debug: TerminalDebug;
  /** Shows an error in place of the page (a 401: how to get a session). */
  fail(error: unknown): void;
}

export interface TerminalDebug {
  /** Closes the current socket as a network drop would (the SDK reconnects and resumes). */
  dropSocket(): void;
  /** Socket events so far: open, ready, close, resynced. */
  events: string[];
  [name: string]: unknown;
}

declare global {
  interface Window {
    mdsTerminal?: TerminalDebug;
  }
}

export function startTerminal(): Terminal {
  const status = document.getElementById('status')!;
  const main = document.getElementById('app')!;
  let raw: WebSocket | null = null;
  const client = createClient({ baseUrl: location.origin }, (url) => {
    raw = new WebSocket(url);
    // No key, no auth frame: the upgrade carried the session cookie.
    return { socket: raw as unknown as WebSocketLike, headerAuth: true };
  });
  const socket = client.socket();
  const debug: TerminalDebug = {
    events: [],
    dropSocket: () => raw?.close(4000, 'dropped by the page'),
  };
  window.mdsTerminal = debug;
  socket.on((e) => {
    debug.events.push(e.type);
    if (e.type === 'ready' || e.type === 'resynced') setStatus('live', 'live');
    else if (e.type === 'close') setStatus(e.outcome === 'stop' ? (e.code === 4401 ? 'session expired' : `closed ${e.code}`) : 'reconnecting', e.outcome === 'stop' ? 'down' : 'wait');
  });
  function setStatus(text: string, cls: string): void {
    status.textContent = text;
    status.className = `status ${cls}`;
  }
  return {
    client,
    socket,
    main,
    debug,
    fail(error) {
      const unauthorized = error instanceof MdsError && (error.code === 4010 || error.code === 4013);
      setStatus(unauthorized ? 'no session' : 'error', 'down');
      fill(
        main,
        unauthorized
          ? h('section', { class: 'notice' }, h('h1', {}, 'No terminal session'), h('p', {}, 'Run ', h('code', {}, 'npx mds terminal-url'), ' beside the running mds and open the one-time link it prints.'))
          : h('section', { class: 'notice' }, h('h1', {}, 'Something went wrong'), h('p', {}, error instanceof Error ? error.message : String(error))),
      );
    },
  };
}
