import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { App } from '../../transport/uws.ts';

/**
 * The ceiling of bench/http.ts: bare uWebSockets.js answering `GET /<name>` with the
 * precomputed bytes mds sent for that route (a JSON file of name → body), no auth,
 * validation or serialization. No Node server on this core can beat it, so it also
 * shows what the load generator on the other core can drive: if mds comes close to
 * it, the client, not mds, is the limit.
 *
 * Usage: uws-static.ts --bodies FILE --port N (binds 127.0.0.1).
 */

const { values } = parseArgs({ options: { bodies: { type: 'string' }, port: { type: 'string' } } });
const bodies = JSON.parse(readFileSync(values.bodies!, 'utf8')) as Record<string, string>;
const app = App();
for (const [name, text] of Object.entries(bodies)) {
  const body = Buffer.from(text);
  app.get(`/${name}`, (res) => {
    // uWS aborts the process when a handler returns with its response not ended and no
    // abort handler; a large body under pipelining and a client closing mid-run can
    // leave it so. Nothing to clean up here: the handler only has to be there.
    res.onAborted(() => {});
    res.cork(() => {
      res.writeHeader('content-type', 'application/json');
      res.end(body);
    });
  });
}
app.listen('127.0.0.1', Number(values.port), (socket) => {
  if (!socket) {
    process.stderr.write(`uws-static: cannot listen on 127.0.0.1:${values.port}\n`);
    process.exit(1);
  }
});
process.on('SIGTERM', () => {
  app.close();
  process.exit(0);
});
