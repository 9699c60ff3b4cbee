import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { unavailable } from '../../engine/errors.ts';
import type { Logger } from '../../engine/log.ts';
import type { SessionStore } from '../../engine/plans/index.ts';
import { rawBody, type RawBody } from '../envelope.ts';
import { sessionSetCookie } from './session-cookie.ts';

/**
 * The web terminal (README "Web terminal"): pages served by mds on its own port, their
 * script and style built into the package (transport/terminal/build.ts: esbuild, at
 * `npm run build` / `prepare`), nothing loaded from another host. `/`, `/t/{token}` and
 * `/w/{wallet}` are one HTML shell; the script reads the path. The page holds no key:
 * its requests carry the session cookie `/session/{token}` sets (session-cookie.ts).
 * @internal
 */

/** Where the bundle is: dist/terminal beside the sources, or beside dist/transport in the built package. */
const BUNDLE_DIRS = [new URL('../../dist/terminal/', import.meta.url), new URL('../../terminal/', import.meta.url)];

/**
 * The browser is told to load and connect to this origin only (ws: to the same host
 * included). In a meta element, as /docs does (frame-ancestors would need a header).
 */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'";

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>mds terminal</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/terminal/app.css">
<script type="module" src="/terminal/app.js"></script>
</head>
<body>
<header class="top"><a class="brand" href="/">mds</a><input id="search" type="search" placeholder="Search tokens: name, symbol or mint" autocomplete="off" spellcheck="false"><div id="results" class="results" hidden></div><span id="status" class="status">connecting</span></header>
<main id="app"></main>
</body>
</html>
`;

let shell: RawBody | null = null;
const assets = new Map<string, RawBody>();

/** GET /, /t/{token}, /w/{wallet}: the page shell. */
export function terminalPage(): RawBody {
  shell ??= rawBody('text/html; charset=utf-8', SHELL);
  return shell;
}

/** The bundle's files, read once; 503 naming the build command while it is not built. */
function asset(name: string, contentType: string): RawBody {
  let body = assets.get(name);
  if (body) return body;
  const dir = BUNDLE_DIRS.find((d) => existsSync(fileURLToPath(new URL(name, d))));
  if (!dir) throw unavailable(`the web terminal is not built: run npm run build (${name})`);
  body = rawBody(contentType, readFileSync(fileURLToPath(new URL(name, dir)), 'utf8'));
  assets.set(name, body);
  return body;
}

export const terminalScript = (): RawBody => asset('app.js', 'text/javascript; charset=utf-8');
export const terminalStyle = (): RawBody => asset('app.css', 'text/css; charset=utf-8');

/** Drops the bundle read so far: the next request reads the files again (tests rebuild it). */
export function forgetTerminalBundle(): void {
  assets.clear();
}

const LOGIN_FAILED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mds terminal</title></head><body style="font-family:system-ui,sans-serif;padding:2rem">
<h1>This link has been used or has expired</h1><p>Links from <code>mds terminal-url</code> open one session each, within ten minutes. Run it again for a new one.</p></body></html>`;

/**
 * GET /session/{token}: redeems a one-time login token (engine/plans/sessions.ts), sets
 * the session cookie and redirects to `/`. Synchronous inside the uWS handler (the
 * redeem is one LMDB write transaction), so the response is written before it returns.
 */
export function mountTerminalLogin(app: TemplatedApp, sessions: SessionStore, log: Logger): void {
  app.get('/session/:token', (res: HttpResponse, req) => {
    const token = req.getParameter(0) ?? '';
    let redeemed: ReturnType<SessionStore['redeem']> = null;
    try {
      redeemed = sessions.redeem(token);
    } catch (err) {
      log.error({ err }, 'terminal login failed');
    }
    // uWS: the status line before any header (a header written first sends 200).
    res.cork(() => {
      if (redeemed === null) {
        res.writeStatus('401 Unauthorized').writeHeader('cache-control', 'no-store').writeHeader('content-type', 'text/html; charset=utf-8').end(LOGIN_FAILED);
        return;
      }
      const maxAgeS = Math.max(1, Math.floor((redeemed.expiresAt - Date.now()) / 1000));
      res
        .writeStatus('303 See Other')
        .writeHeader('cache-control', 'no-store')
        .writeHeader('referrer-policy', 'no-referrer')
        .writeHeader('set-cookie', sessionSetCookie(redeemed.cookie, maxAgeS))
        .writeHeader('location', '/')
        .end();
    });
    if (redeemed !== null) log.info({ session: redeemed.id }, 'terminal session opened');
  });
}
