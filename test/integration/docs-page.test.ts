import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/http.ts';

/**
 * GET /docs, the API reference: pages built from /openapi.json and /asyncapi.json,
 * everything they load served by mds itself (no other host named in a page), loaded
 * here with a real HTTP client as a browser would: the page, then each script and link
 * it names.
 */
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.close());

const get = async (path: string) => {
  const res = await fetch(srv.baseUrl + path);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

/** Every URL a page loads or links to: src and href attributes. */
const urlsOf = (html: string): string[] => [...html.matchAll(/\b(?:src|href|spec-url)="([^"]*)"/g)].map((m) => m[1]!);

describe('GET /docs', () => {
  it('serves the HTTP reference: Redoc, loaded from this server, over /openapi.json', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<redoc spec-url="/openapi.json"');
    expect(page.text).not.toMatch(/https?:\/\//);
    // The browser is told to load nothing from another origin.
    expect(page.text).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'self'`);
    const urls = urlsOf(page.text);
    expect(urls).toEqual(expect.arrayContaining(['/docs/redoc.standalone.js', '/openapi.json', '/docs/ws', '/asyncapi.json']));
    for (const url of urls) {
      expect(url, url).toMatch(/^\/(?!\/)/);
      expect((await get(url)).status, url).toBe(200);
    }
    const bundle = await get('/docs/redoc.standalone.js');
    expect(bundle.type).toBe('text/javascript; charset=utf-8');
    // Redoc's standalone bundle: it defines the Redoc global the <redoc> element starts.
    expect(bundle.text.length).toBeGreaterThan(1_000_000);
    expect(bundle.text).toContain('Redoc');
  });

  it('serves the WebSocket reference: every channel of /asyncapi.json, with its messages and close codes', async () => {
    const page = await get('/docs/ws');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.text).not.toMatch(/https?:\/\//);
    const asyncapi = JSON.parse((await get('/asyncapi.json')).text);
    for (const [id, channel] of Object.entries<any>(asyncapi.channels)) {
      expect(page.text, id).toContain(`<h2 id="${id}">`);
      for (const message of Object.values<any>(channel.messages)) expect(page.text, `${id} ${message.name}`).toContain(`id="${id}-${message.name}"`);
    }
    for (const { code } of asyncapi['x-close-codes']) expect(page.text).toContain(`<code>${code}</code>`);
    // Descriptions are rendered from their Markdown: the choices list is a list.
    expect(page.text).toContain('<li>Authentication: ');
    for (const url of urlsOf(page.text).filter((u) => !u.startsWith('#'))) expect((await get(url)).status, url).toBe(200);
  });
});
