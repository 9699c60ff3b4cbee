import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { marked } from 'marked';
import { rawBody, type RawBody } from '../envelope.ts';
import { asyncapiDocument } from '../ws/index.ts';

/**
 * GET /docs: the API reference, served by mds itself with nothing from another host.
 *
 * - `/docs`: the HTTP API, /openapi.json rendered by Redoc (the npm package `redoc`,
 *   2.x: MIT, maintained by Redocly, one self-contained browser bundle, served from
 *   node_modules at /docs/redoc.standalone.js). Not Redoc 3, which adds an analytics
 *   (OpenTelemetry) dependency; not Scalar (55 MB of chunks loaded lazily, fonts from
 *   its CDN by default), nor swagger-ui-dist (its @scarf/scarf dependency reports
 *   installs).
 * - `/docs/ws`: the WebSocket, /asyncapi.json rendered here as HTML (its descriptions
 *   through `marked`, its schemas as JSON). The AsyncAPI viewer
 *   (@asyncapi/react-component) pulls in a parser with a linter and jsdom, hundreds of
 *   packages, for a document of a dozen channels.
 *
 * Both pages carry a Content-Security-Policy that allows this origin only (plus inline
 * styles and data:/blob: URLs the viewer makes), so that a browser fetches nothing from
 * elsewhere (Redoc's sidebar links a logo on its CDN: not loaded).
 */

const CSP = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:";

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#222}
nav{padding:.6rem 1rem;background:#1f2933;color:#fff}nav a{color:#9fd3ff;margin-right:1.2rem}
main{max-width:60rem;margin:0 auto;padding:1rem}pre{background:#f4f5f7;padding:.6rem;overflow:auto;font-size:.85rem}
code{background:#f4f5f7;padding:0 .2rem}h2{border-top:1px solid #ddd;padding-top:1rem}`;

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<nav><strong>mds API reference</strong> &nbsp; <a href="/docs">HTTP (OpenAPI)</a><a href="/docs/ws">WebSocket (AsyncAPI)</a><a href="/openapi.json">/openapi.json</a><a href="/asyncapi.json">/asyncapi.json</a></nav>
${body}
</body>
</html>
`;

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const markdown = (text: string): string => marked.parse(text, { async: false });
const json = (value: unknown): string => `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`;

let httpPage: RawBody | null = null;
let wsPage: RawBody | null = null;
let bundle: RawBody | null = null;

/** GET /docs: Redoc over /openapi.json. */
export function docsRoute(): RawBody {
  httpPage ??= rawBody(
    'text/html; charset=utf-8',
    page('mds HTTP API', '<redoc spec-url="/openapi.json" hide-download-button></redoc>\n<script src="/docs/redoc.standalone.js"></script>'),
  );
  return httpPage;
}

/** GET /docs/redoc.standalone.js: Redoc's browser bundle, from node_modules, read once. */
export function redocBundleRoute(): RawBody {
  bundle ??= rawBody('text/javascript; charset=utf-8', readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8'));
  return bundle;
}

interface Message {
  name: string;
  title?: string;
  payload: unknown;
}

/** GET /docs/ws: the AsyncAPI document as HTML. */
export function docsWsRoute(): RawBody {
  if (wsPage) return wsPage;
  const doc = asyncapiDocument;
  const channels = Object.entries(doc.channels as Record<string, { title: string; description: string; messages: Record<string, Message> }>);
  const sections = channels.map(([id, channel]) => {
    const messages = Object.values(channel.messages)
      .map((m) => `<h3 id="${escape(id)}-${escape(m.name)}">${escape(m.title ?? m.name)}</h3>\n${json(m.payload)}`)
      .join('\n');
    return `<h2 id="${escape(id)}">${escape(channel.title)}</h2>\n${markdown(channel.description)}\n${messages}`;
  });
  const server = doc.servers.local;
  const body = `<main>
<h1>${escape(doc.info.title)} ${escape(doc.info.version)}</h1>
<p>AsyncAPI ${escape(doc.asyncapi)}; <code>${escape(server.protocol)}://${escape(server.host)}${escape(server.pathname)}</code> (the host and port mds serves on). Channels: ${channels.map(([id]) => `<a href="#${escape(id)}">${escape(id)}</a>`).join(', ')}.</p>
${markdown(doc.info.description)}
${sections.join('\n')}
<h2 id="close-codes">Close codes</h2>
<ul>${doc['x-close-codes'].map((c) => `<li><code>${c.code}</code> ${escape(c.meaning)}</li>`).join('')}</ul>
</main>`;
  wsPage = rawBody('text/html; charset=utf-8', page('mds WebSocket', body));
  return wsPage;
}
